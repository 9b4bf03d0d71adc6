"""Helpers for reading engine event logs (napsim.engine.epic trace rows) in tests."""

from __future__ import annotations

import re

import numpy as np

from napsim.engine import layout
from napsim.output.tracefmt import field_column, trace_table

M = {name: i for i, name in enumerate(layout.METRIC_NAMES)}  # metric name -> column
# a First Strike played in the opponent's turn (napsim.output.tracefmt)
FIRST_STRIKE_LINE = re.compile(r" plays (First Strike|.+ as a First Strike) in the opponent's turn$")
# trace row columns: code, ply, side, then fields a..h; what a field of each event means, and
# its column by name, is layout.TRACE_EVENTS (TRACE_EVENTS_LGB): `col`, `field`
CODE, PLY, SIDE = layout.TR_CODE, layout.TR_PLY, layout.TR_SIDE
A, B, C, D, E, F, G, H = range(layout.TR_A, layout.TR_A + layout.TRACE_FIELDS)


def col(game_format: str, code: int, name: str) -> int:
    """The column of field `name` of event `code` in a trace of `game_format`."""
    return field_column(trace_table(game_format), code, name)


def field(row: np.ndarray, game_format: str, name: str) -> int:
    """Field `name` of one event row of a trace of `game_format`."""
    return int(row[col(game_format, int(row[CODE]), name)])


def by_ply(events: np.ndarray) -> dict[int, np.ndarray]:
    """Event rows grouped by ply (setup events have ply -1), in log order."""
    out: dict[int, list] = {}
    for row in events:
        out.setdefault(int(row[PLY]), []).append(row)
    return {k: np.array(v) for k, v in out.items()}


def rows_of(rows: np.ndarray, code: int) -> np.ndarray:
    return rows[rows[:, CODE] == code]


def one(rows: np.ndarray, code: int) -> np.ndarray:
    r = rows_of(rows, code)
    assert len(r) == 1, (code, rows)
    return r[0]


def turn_blocks(text: str) -> dict[int, list[str]]:
    """The lines of a formatted trace (napsim.output.tracefmt) under each turn header, keyed by ply
    ("turn 3.2" is ply 5); the lines before the first header under -1."""
    out: dict[int, list[str]] = {-1: []}
    ply = -1
    for line in text.splitlines():
        if line.startswith("turn "):
            t, k = line.split()[1].split(".")
            ply = 2 * (int(t) - 1) + int(k) - 1
            out[ply] = []
        out[ply].append(line)
    return out


def first_strikes_under_their_turn(sim, games) -> int:
    """Assert, for (seed, game, events) in `games`, that every First Strike the kernel logged is
    printed under the header of the turn it is played in (rule P7); returns the turns with one."""
    from napsim.output.tracefmt import format_trace

    seen = 0
    for seed, game, ev in games:
        blocks = turn_blocks(format_trace(sim, ev, seed, game))
        assert not any(" in the opponent's turn" in line for line in blocks[-1])
        for ply, rows in by_ply(ev).items():
            n = len(rows_of(rows, layout.EV_FIRST_STRIKE))
            if ply < 0:
                continue
            lines = blocks[ply]
            assert sum(FIRST_STRIKE_LINE.search(line) is not None for line in lines) == n
            if n:
                seen += 1
                at = next(i for i, line in enumerate(lines) if FIRST_STRIKE_LINE.search(line))
                assert 0 < at < lines.index(next(x for x in lines if x.startswith("  hand:")))
    return seen
