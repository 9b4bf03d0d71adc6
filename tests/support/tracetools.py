"""Helpers for reading engine event logs (napsim.engine.epic trace rows) in tests."""

from __future__ import annotations

import numpy as np

from napsim.engine import epic

M = {name: i for i, name in enumerate(epic.METRIC_NAMES)}  # metric name -> column
CODE, PLY, SIDE, A, B, C, D, E, F, G, H = range(11)  # trace row columns


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
