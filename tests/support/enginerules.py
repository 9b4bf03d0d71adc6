"""Helpers of the rule tests of sections D, S and E (tests/test_rules_components.py,
tests/test_rules_epic.py): custom decks and scenarios, policies, order tables, event logs."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import numpy as np

from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.policies import policy_vector
from napsim.model.scenarios import SCENARIO_DIR, load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.tables import KIND_PLACED, KIND_SECTION, CardTable, card_table, eval_pair, pair_tables
from support.tomlwrite import dump_toml
from support.tracetools import col

# event-log columns (epic._trace): code, ply, side, then the event's fields a..h
HAND0, RACK0 = layout.TR_HAND, layout.TR_RACK

PLAIN = {  # no Scout, Elan, First Strike, Counter-Attack, star or Tactician-draw card
    "Probe Left": 4, "Probe Center": 6, "Probe Right": 4, "Attack Left": 4, "Attack Center": 6,
    "Attack Right": 4, "Assault Left": 2, "Assault Center": 2, "Assault Right": 2,
    "Coordinated Advance": 2, "Flank Attack": 2, "Forward": 2, "Bayonet Charge": 3,
    "Bombard": 2, "Cavalry Charge": 3, "Fire and Hold": 3, "Give Them Cold Steel": 2,
    "La Grande Manoeuvre": 1, "Rally": 2,
}


def write_scenario(path: Path, changes: dict[str, object]):
    """symmetric.toml copied to `path` with dotted changes; '*' in a path means every side (or
    every section). Returns the loaded Scenario."""
    data = tomllib.loads((SCENARIO_DIR / "symmetric.toml").read_text(encoding="utf-8"))

    def put(node, keys, value):
        if keys[0] == "*":
            for sub in node.values():
                put(sub, keys[1:], value)
        elif len(keys) == 1:
            node[keys[0]] = value
        else:
            put(node.setdefault(keys[0], {}), keys[1:], value)

    for dotted, value in changes.items():
        put(data, dotted.split("."), value)
    path.write_text(dump_toml(data), encoding="utf-8")
    return load_scenario(path)


def pols(name: str = "random", **params) -> tuple:
    return ((name, dict(params)), (name, dict(params)))


def units(left=(0, 0, 0, 0), centre=(0, 0, 0, 0), right=(0, 0, 0, 0)) -> np.ndarray:
    """[4, 3]: (infantry, cavalry, artillery, leaders) for sections L, C, R."""
    return np.array([left, centre, right], np.int64).T.copy()


@cache
def gmt_table() -> CardTable:
    """The card table of the default deck (gmt90), built once."""
    return card_table(load_deck("gmt90"))


def idx(ct: CardTable, name: str | None) -> int:
    return ct.void if name is None else ct.names.index(name)


def orders(ct: CardTable, a: str | None, b: str | None, u: np.ndarray, cmd: int = 6,
           pa: int = 0, pb: int = 0, standard: bool = False):
    """(nominal, effective, remaining) per section of card a placed at pa plus card b at pb."""
    nominal, eff, rem = (np.zeros(3, np.int64) for _ in range(3))
    eval_pair(idx(ct, a), pa, idx(ct, b), pb, cmd, u, ct.kind, ct.sec, ct.orders, ct.eq_cmd,
              ct.cap, ct.filt, ct.take_command, ct.fallback, ct.reach, standard, nominal, eff, rem)
    return nominal.tolist(), eff.tolist(), rem.tolist()


FULL = units(left=(5, 2, 1, 1), centre=(5, 2, 1, 1), right=(5, 2, 1, 1))


def tables_for(ct: CardTable, u: np.ndarray, cmax: int = 7):
    pol = np.stack([policy_vector("greedy"), policy_vector("greedy")])
    return pair_tables(ct, np.stack([u, u]), cmax, pol, False)


def turn_cards(turn: np.ndarray) -> tuple[list[int], list[int]]:
    """(hand, rack) card types shown in an EV_TURN row."""
    hand_n, rack_n = (turn[col("epic1", layout.EV_TURN, f)] for f in ("hand_cards", "rack_cards"))
    return turn[HAND0:HAND0 + hand_n].tolist(), turn[RACK0:RACK0 + rack_n].tolist()


def placed_section(ct: CardTable, t: int, p: int) -> int:
    if ct.kind[t] == KIND_SECTION:
        return int(ct.sec[t])
    return p if ct.kind[t] == KIND_PLACED else -1


def traces(sim: Simulation, seed: int, games: int):
    for g in range(games):
        yield sim.trace(seed, g)
