"""Chunk arrays: what one chunk file holds, how chunks are played, added and read as running sums.

A chunk is games [first, first + n) of one sweep point: the kernel's totals, per-game sums, sums of
squares and of products with turns of every per-game column, per-game value histograms, rack
waits, further per-turn and per-commander arrays, and the per-game rows when the study keeps them.
Integer sums: any split of a point's games into chunks adds up to the same arrays.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from napsim.engine import layout
from napsim.engine.rng import seed_key
from napsim.sim.runner import play_chunk
from napsim.sim.summary import extend_rows, extended_moments, study_summary, study_summary_rows

CHUNK_FORMAT = 1  # bump when the content of a chunk file changes
HIST_MAX = 4095  # per-game values above this land in the last histogram bin


def chunk_arrays(rows: np.ndarray, totals: np.ndarray, waits: np.ndarray, first: int,
                 keep_rows: bool, extra: dict | None = None) -> dict:
    """What a chunk file holds: sums, sums of squares and of products with turns per metric,
    per-game value histograms (for distributions), rack waits, the rows when asked, and any
    further histogram the kernel returns (`extra`, e.g. guerrilla_turns), summed over chunks."""
    x = extend_rows(rows)
    n, _, c = x.shape
    sums, sumsq, sumxt = extended_moments(x)
    if not np.array_equal(sums[:, : layout.N_METRICS], totals):
        raise RuntimeError("per-game rows do not add up to the chunk totals")
    v = np.minimum(x, HIST_MAX)  # values clipped to [0, HIST_MAX], then moved to their bin
    if n and v.min() < 0:
        np.maximum(v, 0, out=v)
    width = int(v.max()) + 1 if n else 1
    v += (np.arange(2 * c, dtype=np.int64) * width).reshape(1, 2, c)
    hist = np.bincount(v.ravel(), minlength=2 * c * width).reshape(2, c, width)
    out = dict(format=np.int64(CHUNK_FORMAT), first=np.int64(first), n=np.int64(n),
               totals=totals.astype(np.int64), sums=sums, sumsq=sumsq, sumxt=sumxt,
               hist=hist.astype(np.int64),
               rack_wait=waits.astype(np.int64))
    if keep_rows:
        out["rows"] = rows.astype(np.int32)
    for k, v in (extra or {}).items():
        out[k] = np.asarray(v, np.int64)
    return out


KERNEL_GAMES = 16_384  # most games per kernel call: bounds the per-game arrays a chunk needs


def compute_chunk(args: tuple, seed: int, first: int, n: int, keep_rows: bool) -> dict:
    """Play games [first, first + n) with the packed kernel arguments `args` (`Simulation.kernel_args()`)
    and return the chunk file's arrays. The games are played `KERNEL_GAMES` at a time and the
    parts' sums merged (integers: the same arrays as one call), so a chunk of any size holds at
    most `KERNEL_GAMES` games' per-game rows in memory (all of them only when `keep_rows`)."""
    key = seed_key(seed)
    out = None
    for lo in range(first, first + max(n, 1), KERNEL_GAMES):
        m = min(KERNEL_GAMES, first + n - lo)
        res = play_chunk(args, key, lo, m, False, True)
        rows = res.rows
        extra = {k: getattr(res, k) for k in EXTRA_ARRAYS}
        part = chunk_arrays(rows, res.totals, res.rack_wait, lo, keep_rows, extra)
        del res, rows
        out = part if out is None else merge_chunks([out, part])
    return out


def merge_chunks(parts: list[dict]) -> dict:
    """The arrays of consecutive chunk parts as one chunk (sums added, histograms padded)."""
    out = dict(parts[0])
    for ch in parts[1:]:
        out["n"] = np.int64(out["n"] + ch["n"])
        for k in ("totals", "sums", "sumsq", "sumxt", "rack_wait", *EXTRA_ARRAYS):
            if k in ch:
                out[k] = out[k] + ch[k]
        out["hist"] = _pad_add(out["hist"], ch["hist"])
        if "rows" in ch:
            out["rows"] = np.concatenate([out["rows"], ch["rows"]])
    return out


def _pad_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    w = max(a.shape[-1], b.shape[-1])
    out = np.zeros((*a.shape[:-1], w), np.int64)
    out[..., : a.shape[-1]] += a
    out[..., : b.shape[-1]] += b
    return out


# further kernel arrays, summed like the totals: guerrilla per turn, per-commander totals (M, L)
# and Tactician cards held per turn
EXTRA_ARRAYS = ("guerrilla_turns", "commander_totals", "tactician_turns")


class Acc:
    """Running sums of a point's chunks."""

    def __init__(self):
        self.games = 0
        self.chunks = 0
        self.totals = self.sums = self.sumsq = self.sumxt = self.hist = self.rack_wait = None
        self.extra: dict = {}

    def add(self, ch: dict) -> None:
        for k in EXTRA_ARRAYS:
            if k in ch:
                self.extra[k] = self.extra[k] + ch[k] if k in self.extra else ch[k].astype(np.int64).copy()
        if self.chunks == 0:
            for k in ("totals", "sums", "sumsq", "sumxt", "hist", "rack_wait"):
                setattr(self, k, ch[k].astype(np.int64).copy())
        else:
            self.totals = self.totals + ch["totals"]
            self.sums = self.sums + ch["sums"]
            self.sumsq = self.sumsq + ch["sumsq"]
            self.sumxt = self.sumxt + ch["sumxt"]
            self.hist = _pad_add(self.hist, ch["hist"])
            self.rack_wait = self.rack_wait + ch["rack_wait"]
        self.games += int(ch["n"])
        self.chunks += 1


def engine_summary(acc: Acc, side_keys, side_names, only: str | None = None) -> pd.DataFrame:
    """The summary of a point's chunk sums (`napsim.sim.summary.study_summary`); `only`: the rows
    of that one metric."""
    return study_summary(acc.games, acc.totals, acc.sums, acc.sumsq, acc.sumxt,
                         acc.extra.get("commander_totals"), side_keys, side_names, only)


def engine_summary_rows(acc: Acc, side_keys, side_names, only: str) -> list[dict]:
    """The rows of `engine_summary(..., only)` as dicts, without pandas (asked after every chunk)."""
    return study_summary_rows(acc.games, acc.totals, acc.sums, acc.sumsq, acc.sumxt,
                              acc.extra.get("commander_totals"), side_keys, side_names, only)


def target_met(meta: dict, point_id: str, acc: Acc) -> bool:
    """Has the point's main metric reached the run's target error (False without a target)?"""
    target, spec = meta["run"]["target_error"], meta["spec"]
    if target is None:
        return False
    rows = engine_summary_rows(acc, meta["side_keys"], side_names(meta, point_id), spec["main_metric"])
    halves = [(r["ci_high"] - r["ci_low"]) / 2 for r in rows if r["side_key"] == spec["main_side"]]
    return bool(halves) and halves[0] < target  # NaN never is



def side_names(meta: dict, point_id: str) -> list[str]:
    for p in meta["points"]:
        if p["id"] == point_id:
            return p["side_names"]
    raise KeyError(point_id)
