"""Chunk arrays: what one chunk file holds, how a chunk is played, and the target-error rule.

A chunk is games [first, first + n) of one sweep point: its `napsim.sim.sums.GameSums` (the
kernel's totals, per-game sums, sums of squares and of products with turns of every per-game
column, per-game value histograms, rack waits, further per-turn and per-commander arrays) and the
per-game rows when the study keeps them. Integer sums: any split of a point's games into chunks
adds up to the same arrays.
"""

from __future__ import annotations

import numpy as np

from napsim.engine.rng import seed_key
from napsim.sim.runner import play_chunks
from napsim.sim.sums import GameSums

CHUNK_FORMAT = 1  # bump when the content of a chunk file changes
KERNEL_GAMES = 16_384  # most games per kernel call: bounds the per-game arrays a chunk needs


def compute_chunk(args: tuple, seed: int, first: int, n: int, keep_rows: bool) -> dict:
    """Play games [first, first + n) with the packed kernel arguments `args` (`Simulation.kernel_args()`)
    and return the chunk file's arrays. The games are played `KERNEL_GAMES` at a time and added up
    (integers: the same arrays as one call), so a chunk of any size holds at most `KERNEL_GAMES`
    games' per-game rows in memory (all of them only when `keep_rows`)."""
    sums = GameSums(hist=True)
    rows = []
    for _, out in play_chunks(args, seed_key(seed), first, n, KERNEL_GAMES):
        sums.add_chunk(out)
        if keep_rows:
            rows.append(out.rows.astype(np.int32))
        del out
    arrays = dict(format=np.int64(CHUNK_FORMAT), first=np.int64(first), **sums.arrays())
    if keep_rows:
        arrays["rows"] = np.concatenate(rows)
    return arrays


def target_met(meta: dict, point_id: str, sums: GameSums) -> bool:
    """Has the point's main metric reached the run's target error (False without a target)?"""
    target, spec = meta["run"]["target_error"], meta["spec"]
    if target is None:
        return False
    rows = sums.summary_rows(meta["side_keys"], side_names(meta, point_id), spec["main_metric"])
    halves = [(r["ci_high"] - r["ci_low"]) / 2 for r in rows if r["side_key"] == spec["main_side"]]
    return bool(halves) and halves[0] < target  # NaN never is


def side_names(meta: dict, point_id: str) -> list[str]:
    for p in meta["points"]:
        if p["id"] == point_id:
            return p["side_names"]
    raise KeyError(point_id)
