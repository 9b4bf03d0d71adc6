"""The exact oracle's comparison: a game's event log from the kernel (`Simulation.trace`) against
the pure-Python reference engine's log of the same (seed, game index), event for event; a
difference is named by its game, its event number and both events in words
(napsim.output.tracefmt)."""

from __future__ import annotations

import numpy as np

from napsim.engine import layout
from napsim.engine.rng import seed_key
from napsim.output.tracefmt import format_trace
from napsim.sim.runner import play_chunk

TR_REFILL_RACK = layout.TR_A + 1  # EV_REFILL: the rack's size, then its five slots from here


def meaningful(events: np.ndarray) -> np.ndarray:
    """The log with the fields that carry nothing masked (-1): an EV_REFILL's rack slots past the
    rack's size (the kernel writes its rack array whole, stale slots included)."""
    out = np.array(events, np.int64, copy=True).reshape(-1, layout.TRACE_WIDTH)
    for k in np.flatnonzero(out[:, layout.TR_CODE] == layout.EV_REFILL):
        out[k, TR_REFILL_RACK + out[k, layout.TR_A]:TR_REFILL_RACK + layout.RACK] = -1
    return out


def describe(sim, row: np.ndarray | None) -> str:
    """One event in words (tracefmt's lines for it) and its raw fields."""
    if row is None:
        return "(no event: the log ends here)"
    text = format_trace(sim, row[None, :], 0, 0).splitlines()[1:]
    # (a turn's header alone cannot tell the Tactician cards played as the turn began)
    words = " / ".join(line.strip() for line in text
                       if line.strip() and "as the turn begins" not in line) or "(no line in a trace)"
    code, ply, side = (int(x) for x in row[:3])
    return f"{words}   [code {code}, ply {ply}, side {side}, fields {[int(x) for x in row[3:11]]}]"


def first_difference(sim, game: int, kernel: np.ndarray, reference: np.ndarray) -> str | None:
    """None when the two logs are equal; else where they first differ, in words."""
    a, b = meaningful(kernel), meaningful(reference)
    n = min(len(a), len(b))
    same = np.all(a[:n] == b[:n], axis=1)
    k = int(np.argmin(same)) if not same.all() else n
    if k == n and len(a) == len(b):
        return None
    ev_a = a[k] if k < len(a) else None
    ev_b = b[k] if k < len(b) else None
    ply = int((ev_a if ev_a is not None else ev_b)[layout.TR_PLY])
    turn = f"turn {ply // 2 + 1}.{ply % 2 + 1}" if ply >= 0 else "the setup"
    return (f"{sim.scenario.name} ({sim.scenario.format}) game {game}: the logs differ at event {k} "
            f"({turn}; {len(a)} kernel events, {len(b)} reference events)\n"
            f"  kernel:    {describe(sim, ev_a)}\n"
            f"  reference: {describe(sim, ev_b)}")


def _moved(what: str, names, kernel: np.ndarray, reference: np.ndarray) -> list[str]:
    """'name [index]: kernel k reference r' for each slot that differs."""
    return [f"{what} {names[i[-1]]} {list(i[:-1])}: kernel {kernel[i]} reference {reference[i]}"
            for i in zip(*np.nonzero(kernel != reference), strict=True)]


def compare_games(sim, seed: int, games, reference_game) -> list[str]:
    """Each game's event logs (the kernel's trace against the reference's) compared, then its
    metrics and commander metrics rows (the kernel's one-game chunk): one message a game that
    differs (empty: every game equal). reference_game(sim, seed, game) returns (metrics [2, M],
    commander metrics [2, 4, CM], event log)."""
    bad = []
    for g in games:
        _, k_ev = sim.trace(seed, g)
        out = play_chunk(sim.kernel_args(), seed_key(seed), g, 1, True, True)
        r_met, r_cmet, r_ev = reference_game(sim, seed, g)
        diff = first_difference(sim, g, k_ev, r_ev)
        if diff is None:
            moved = (_moved("metric", layout.METRIC_NAMES, out.rows[0], r_met)
                     + _moved("commander metric", layout.CM_NAMES, out.commander_rows[0], r_cmet))
            if moved:
                diff = (f"{sim.scenario.name} ({sim.scenario.format}) game {g}: equal logs, "
                        "different metrics ([side] or [side, commander]):\n  " + "\n  ".join(moved))
        if diff is not None:
            bad.append(diff)
    return bad
