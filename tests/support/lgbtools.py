"""Helpers of the La Grande Battles tests (tests/test_lgb_turn.py, tests/test_lgb_flow.py): cached
simulations of lgb-symmetric variants, event-log views, hand-built unit arrays and card scores."""

from __future__ import annotations

from functools import cache

import numpy as np

from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.tables import card_table
from napsim.sim.tables_lgb import eval_corps_card
from support.tracetools import (
    SIDE,
    by_ply,
    col,
    rows_of,
)

SCEN = "lgb-symmetric"
HAND0, RACK0 = layout.TR_HAND, layout.TR_RACK  # EV_TURN rows list the CIC's hand and the rack here
N_DECK = 90
GREEDY, RANDOM = ("greedy", ()), ("random", ())
QUIET = (("first_strike_prob", 0.0), ("tactician_use_prob", 0.0))  # nothing leaves a hand early




def _freeze(d: dict | None) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (d or {}).items()))


@cache
def _sim(over: tuple, pa: tuple, pb: tuple) -> Simulation:
    sc = load_scenario(SCEN, {k: list(v) if isinstance(v, tuple) else v for k, v in over})
    return Simulation.build(sc, ((pa[0], dict(pa[1])), (pb[0], dict(pb[1]))))


def sim_for(overrides: dict | None = None, a: tuple = GREEDY, b: tuple | None = None) -> Simulation:
    """lgb-symmetric with dotted overrides; a, b = (policy name, ((param, value), ...)) for sides
    A and B (b defaults to a); builds are cached."""
    b = b or a
    return _sim(_freeze(overrides), (a[0], tuple(a[1])), (b[0], tuple(b[1])))


def both(**changes) -> dict:
    """The same dotted side change for sides A and B (`corps_hand=[0, 0, 0]`)."""
    return {f"sides.{s}.{k.replace('__', '.')}": v for s in "AB" for k, v in changes.items()}


def plies(ev: np.ndarray) -> list[np.ndarray]:
    """The rows of each ply of a traced game in order (setup rows left out)."""
    return [rows for ply, rows in sorted(by_ply(ev).items()) if ply >= 0]


def traced(sim: Simulation, seed: int, n: int):
    """(game, metrics, plies) of games 0..n-1."""
    for g in range(n):
        met, ev = sim.trace(seed, g)
        yield g, met, plies(ev)


def corps_rows(rows: np.ndarray, code: int, s: int, k: int) -> np.ndarray:
    r = rows_of(rows, code)
    return r[(r[:, SIDE] == s) & (r[:, col("lgb", code, "corps")] == k)]


def cards_played(rows: np.ndarray, s: int, k: int) -> np.ndarray:
    """EV_CORPS_PLAY rows of Corps commander k that carry a card (CIC's or his own)."""
    r = corps_rows(rows, layout.EV_CORPS_PLAY, s, k)
    source = r[:, col("lgb", layout.EV_CORPS_PLAY, "source")]
    return r[(source == layout.SRC_CIC) | (source == layout.SRC_OWN)]


def units6(**sections) -> np.ndarray:
    """[4, 6]: (infantry, cavalry, artillery, leaders) per LGB section, zero where not given."""
    u = np.zeros((4, 6), np.int64)
    for name, v in sections.items():
        u[:, ("L1", "L2", "C1", "C2", "R1", "R2").index(name)] = v
    return u


@cache
def _cards():
    deck = load_deck("gmt90")
    ct = card_table(deck)
    fm = np.zeros(len(ct.names), np.int64)
    fm[:-1] = deck.cards["force_march"].to_numpy()
    return ct, fm


def corps_card(name: str, src: int, opt: int, cmd: int, u: np.ndarray, k: int):
    """(nominal, effective left, effective right) of a card for Corps commander k, or None when
    (src, opt) is not a legal way to play it."""
    ct, fm = _cards()
    out = np.zeros(3, np.int64)
    ok = eval_corps_card(ct.names.index(name), src, opt, cmd, u, k, ct.kind, ct.sec, ct.orders,
                         ct.eq_cmd, ct.cap, ct.filt, ct.fallback, fm, out)
    return tuple(int(x) for x in out) if ok else None


def se(p: float, n: int) -> float:
    return float(np.sqrt(p * (1 - p) / n))


def corps_metric(res, slot: int) -> np.ndarray:
    """[side, Corps commander left/centre/right]: a CM_* metric of a run's Corps commanders."""
    return res.commanders[:, 1:, slot]
