"""What played games add up to: one `GameSums` for a run, a study point, a chunk file and a variant.

A kernel call returns a `ChunkOut`; `GameSums.add_chunk` adds its games: the kernel's totals, the
per-game sums, sums of squares and of products with the turns of every per-game column
(`napsim.sim.metric_table.COLUMNS`; the kernel adds them up block by block,
`napsim.engine.blocks.add_game`), rack waits, Guerrilla and Tactician turns, per-commander
totals and, where asked, per-game value histograms (`hist`), the per-game rows (`rows`) or only
some metrics' per-game parts (`parts`, what a long balance search can afford to hold): those need
the call's per-game rows. `merge` adds another's games, `arrays` / `from_arrays` are what a chunk
file holds, and `summary` reads the moments (`napsim.sim.summary`). Integer sums: any split of the
games adds up to the same arrays, whatever the chunk size, order or thread count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from napsim.engine import layout
from napsim.sim.metric_table import METRICS, extend_rows
from napsim.sim.summary import study_summary, study_summary_rows

HIST_MAX = 4095  # per-game values above this land in the last histogram bin
# the arrays summed as they are; a chunk file of an older napsim may lack the last three
SUMMED = ("totals", "sums", "sumsq", "sumxt", "rack_wait", "guerrilla_turns", "commander_totals",
          "tactician_turns")


@dataclass
class ChunkOut:
    """What one kernel call returns, the same for every format."""

    totals: np.ndarray            # [side, metric]
    rows: np.ndarray              # [games or 0, side, metric]
    rack_wait: np.ndarray         # [kind, wait]
    guerrilla_turns: np.ndarray   # [offered/spent/nullified, turn]
    commander_totals: np.ndarray  # [side, commander, CM]
    commander_rows: np.ndarray    # [games or 0, side, commander, CM]
    tactician_turns: np.ndarray   # [side, turn]: Tactician cards held at the start of its turns
    moments: np.ndarray           # [MO_*, side, column]: sum, sum of squares, sum of x * turns
    games: int = field(kw_only=True)  # games played (not a kernel output: the caller's n)


class GameSums:
    """Integer sums of played games (None: nothing added yet); see the module's docstring.

    `hist`: keep per-game value histograms [side, column, value]; `rows`: keep the kernel's
    per-game rows [game, side, metric] (`commander_rows`: and the commander rows); `parts`: keep
    those metrics' per-game (x, t) only."""

    def __init__(self, hist: bool = False, rows: bool = False, commander_rows: bool = False,
                 parts: Sequence[str] = ()):
        self.games = 0
        self.chunks = 0
        for k in SUMMED:
            setattr(self, k, None)
        self.hist: np.ndarray | None = None
        self.keep = dict(hist=hist, rows=rows, commander_rows=commander_rows)
        self._rows: list[np.ndarray] = []
        self._crows: list[np.ndarray] = []
        self._parts: dict[str, list[np.ndarray]] = {m: [] for m in parts}
        self._present: dict[str, bool] = dict.fromkeys(parts, False)

    # ------------------------------------------------------------------ adding games

    def add_chunk(self, out: ChunkOut) -> None:
        """Add the games of one kernel call: its moments, and its per-game rows where these sums
        keep rows, histograms or parts (the call must then have played with per-game rows)."""
        if self.wants_rows and out.rows.shape[0] != out.games:
            raise ValueError("these sums keep per-game values: play the games with their rows")
        # the extended rows themselves only when histograms or per-game parts are kept
        x = extend_rows(out.rows) if self.keep["hist"] or self._parts else None
        part = GameSums()
        part.games, part.chunks = out.games, 1
        part.sums, part.sumsq, part.sumxt = (np.asarray(out.moments[k], np.int64)
                                             for k in (layout.MO_SUM, layout.MO_SQ, layout.MO_XT))
        for k in ("totals", "rack_wait", "guerrilla_turns", "commander_totals", "tactician_turns"):
            setattr(part, k, np.asarray(getattr(out, k)).astype(np.int64))
        if self.keep["hist"]:
            part.hist = histogram(x)
        self.merge(part)
        if self.keep["rows"]:
            self._rows.append(out.rows)
        if self.keep["commander_rows"]:
            self._crows.append(out.commander_rows)
        for m, kept in self._parts.items():
            kept.append(np.stack(METRICS[m].parts(x, out.commander_rows)))
            self._present[m] |= METRICS[m].present(out.commander_rows)

    @property
    def wants_rows(self) -> bool:
        """Whether adding games needs their per-game rows (kept rows, histograms or parts)."""
        return bool(self.keep["hist"] or self.keep["rows"] or self._parts)

    def merge(self, other: GameSums) -> None:
        """Add another's games (sums added, histograms padded to the wider one)."""
        for k in SUMMED:
            a, b = getattr(self, k), getattr(other, k)
            if b is not None:
                setattr(self, k, b.astype(np.int64) if a is None else a + b)
        if other.hist is not None:
            self.hist = other.hist.astype(np.int64) if self.hist is None else pad_add(self.hist, other.hist)
        self.games += other.games
        self.chunks += other.chunks

    # ------------------------------------------------------------------ chunk files

    @classmethod
    def from_arrays(cls, ch: dict) -> GameSums:
        """The sums of a chunk file's arrays (`arrays`)."""
        out = cls()
        for k in (*SUMMED, "hist"):
            if k in ch:
                setattr(out, k, np.asarray(ch[k]).astype(np.int64))
        out.games, out.chunks = int(ch["n"]), 1
        return out

    def arrays(self) -> dict:
        """The sums as a chunk file holds them (`from_arrays` reads them back)."""
        out = dict(n=np.int64(self.games))
        for k in ("totals", "sums", "sumsq", "sumxt", "hist", *SUMMED[4:]):
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        return out

    # ------------------------------------------------------------------ reading them

    def summary(self, side_keys, side_names, only: str | None = None) -> pd.DataFrame:
        """The summary of these games (`napsim.sim.summary.study_summary`); `only`: one metric."""
        return study_summary(self.games, self.sums, self.sumsq, self.sumxt, self.commander_totals,
                             side_keys, side_names, only)

    def summary_rows(self, side_keys, side_names, only: str) -> list[dict]:
        """The rows of `summary(..., only)` as dicts, without pandas (asked after every chunk)."""
        return study_summary_rows(self.games, self.sums, self.sumsq, self.sumxt, self.commander_totals,
                                  side_keys, side_names, only)

    @property
    def rows(self) -> np.ndarray | None:
        """The kept per-game rows [game, side, metric], in game order (None: not kept)."""
        return _joined(self._rows) if self.keep["rows"] else None

    @property
    def commander_rows(self) -> np.ndarray | None:
        """The kept commander rows [game, side, commander, CM] (None: not kept)."""
        return _joined(self._crows) if self.keep["commander_rows"] else None

    def parts(self, metric: str) -> tuple[np.ndarray, np.ndarray, bool]:
        """(x, t, present) of a metric game by game (`Metric.parts`), from the kept parts or rows;
        present: whether its commander acted (True for a metric that is no commander's)."""
        if metric in self._parts:
            x, t = _joined(self._parts[metric], axis=1)
            return x, t, self._present[metric]
        m, crows = METRICS[metric], self.commander_rows
        x, t = m.parts(extend_rows(self.rows), crows)
        return x, t, m.present(crows)


def _joined(parts: list[np.ndarray], axis: int = 0) -> np.ndarray | None:
    """The parts as one array (joined once, in place, and kept so); None when there are none."""
    if len(parts) > 1:
        parts[:] = [np.concatenate(parts, axis=axis)]
    return parts[0] if parts else None


def histogram(x: np.ndarray) -> np.ndarray:
    """Games per value [side, column, value] of extended per-game rows [game, side, column], values
    clipped to [0, HIST_MAX]."""
    n, _, c = x.shape
    v = np.minimum(x, HIST_MAX)  # values clipped to [0, HIST_MAX], then moved to their bin
    if n and v.min() < 0:
        np.maximum(v, 0, out=v)
    width = int(v.max()) + 1 if n else 1
    v += (np.arange(2 * c, dtype=np.int64) * width).reshape(1, 2, c)
    return np.bincount(v.ravel(), minlength=2 * c * width).reshape(2, c, width).astype(np.int64)


def pad_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b of histograms, the narrower padded with zeros."""
    w = max(a.shape[-1], b.shape[-1])
    out = np.zeros((*a.shape[:-1], w), np.int64)
    out[..., : a.shape[-1]] += a
    out[..., : b.shape[-1]] += b
    return out
