"""Paired statistics: a summary metric game by game, and differences between runs of the same games.

Every summary metric (`napsim.sim.summary`) is a ratio of two sums over games, sum(x) / sum(t): a
mean per game has t = 1, a mean per turn t = turns, a rate t = its trials. `metric_parts` gives the
per-game x and t of any metric name from a run's per-game rows. `estimate` turns them into the value
and each game's influence on it (the delta method: u = (x - R t) / mean t, so that the value's
standard error is sd(u) / sqrt(n)); a mean per game has u = x - mean x.

Two variants that play the same games (same seed and game indices: common random numbers) give
paired influences; the difference B - A has per-game influence u_B - u_A and its interval comes from
their sd (`paired_difference`). Two identical variants give u_B - u_A = 0 exactly, a zero-width
interval. The unpaired half-width, from the two variances alone, says how much pairing bought.
`crossing` interpolates where a difference changes sign between two settings, with a delta-method
interval that again uses the games' pairing across the two settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from napsim.engine import layout
from napsim.engine.layout import CM_NAMES, COMMANDER_KEYS
from napsim.sim.summary import (
    COMMANDER_MEANS,
    COMMANDER_RATES,
    EXTRA_ROWS,
    GUERRILLA_RATES,
    Z95,
    per_game_columns,
    summary_metric_names,
)

COLUMNS = per_game_columns()
_COL = {c: i for i, c in enumerate(COLUMNS)}
_PER_TURN = {"same_section_turn_rate": layout.M_E4, "scout_turn_rate": layout.M_SCOUT,
             "g_cards_nullified_per_turn": layout.M_G_NULLIFIED,
             "g_denied_effective_per_turn": layout.M_G_DENIED_EFF}


def metric_names() -> list[str]:
    """Every metric a comparison can report: the names of a summary (`summary_metric_names`)."""
    return summary_metric_names()


def metric_parts(name: str, rows: np.ndarray, crows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(x, t), float [games, 2]: the metric is sum(x) / sum(t) over a side's games.

    `rows` are the extended per-game rows [game, side, column] (`summary.extend_rows`), `crows` the
    commander rows [game, side, commander, CM] (None or zeros for one-a-side formats). Raises
    KeyError for a name that is no summary metric."""
    col = rows.astype(float)
    one = np.ones(col.shape[:2])
    turns = col[:, :, layout.M_TURNS]
    if name in _COL:
        return col[:, :, _COL[name]], one
    if name in EXTRA_ROWS:
        kind, c = EXTRA_ROWS[name]
        return col[:, :, _COL[c]], (turns if kind == "mean_per_turn" else one)
    if name.startswith("effective_per_turn_"):
        sec = name.removeprefix("effective_per_turn_")
        return col[:, :, _COL[f"effective_{sec}"]], turns
    if name.startswith("share_picks_from_"):
        size = int(name.removeprefix("share_picks_from_"))
        picks = col[:, :, layout.M_PICK_FROM:layout.M_PICK_FROM + 6]
        return picks[:, :, size], picks.sum(axis=2)
    if name in _PER_TURN:
        return col[:, :, _PER_TURN[name]], turns
    if name == "effective_share_of_nominal":
        return col[:, :, _COL["effective_total"]], col[:, :, _COL["nominal_total"]]
    if name in GUERRILLA_RATES:
        plus, minus, trials = GUERRILLA_RATES[name]
        x = col[:, :, plus] - (col[:, :, minus] if minus is not None else 0.0)
        return x, col[:, :, trials]
    return _commander_parts(name, crows, col.shape[0])


def _commander_parts(name: str, crows: np.ndarray | None, games: int) -> tuple[np.ndarray, np.ndarray]:
    c = np.zeros((games, 2, 4, len(CM_NAMES))) if crows is None else crows.astype(float)
    if name == "initiative_share":
        return c[:, :, :, layout.CM_INIT].sum(axis=2), c[:, :, :, layout.CM_TURNS].sum(axis=2)
    key, dot, stat = name.partition(".")
    if not dot or key not in COMMANDER_KEYS:
        raise KeyError(name)
    x = c[:, :, COMMANDER_KEYS.index(key)]
    if stat in COMMANDER_RATES:
        num, den = COMMANDER_RATES[stat]
        return x[:, :, num], x[:, :, den]
    if stat in COMMANDER_MEANS:
        return x[:, :, CM_NAMES.index(stat)], np.ones(x.shape[:2])
    if stat == "tactician_held_mean":
        return x[:, :, layout.CM_TAC_HELD_SUM], x[:, :, layout.CM_TURNS]
    raise KeyError(name)


def commander_present(name: str, crows: np.ndarray | None) -> bool:
    """Whether a commander metric's commander did anything in these games (a summary lists only
    those); True for every metric that is not a commander's."""
    key, dot, _ = name.partition(".")
    if name == "initiative_share":
        return crows is not None and bool(crows.any())
    if not dot or key not in COMMANDER_KEYS:
        return True
    return crows is not None and bool(crows[:, :, COMMANDER_KEYS.index(key)].any())


@dataclass(frozen=True)
class Estimate:
    """A ratio estimate over n games: its value and each game's influence on it (mean 0)."""

    value: float
    influence: np.ndarray  # [games]

    @property
    def n(self) -> int:
        return len(self.influence)

    @property
    def half_width(self) -> float:
        return half_width(self.influence)

    def minus(self, other: Estimate) -> Estimate:
        """This estimate minus another of the same games (paired)."""
        return Estimate(self.value - other.value, self.influence - other.influence)

    def shift(self, c: float) -> Estimate:
        return Estimate(self.value - c, self.influence)


def estimate(x: np.ndarray, t: np.ndarray) -> Estimate | None:
    """sum(x) / sum(t) with its per-game influences; None when sum(t) is 0 (nothing to count)."""
    total = float(t.sum())
    if total <= 0:
        return None
    r = float(x.sum()) / total
    return Estimate(r, (x - r * t) / (total / len(t)))


def half_width(u: np.ndarray) -> float:
    """95% half-width of a mean from per-game influences u: z sd(u) / sqrt(n)."""
    n = len(u)
    if n < 2:
        return math.nan
    return Z95 * float(np.std(u, ddof=1)) / math.sqrt(n)


def paired_difference(a: Estimate, b: Estimate) -> dict:
    """B - A of the same games: value, paired 95% interval, n, relative change, and the unpaired
    half-width (from the two variances, as if the games were independent)."""
    d = b.minus(a)
    half = d.half_width
    n = a.n
    unpaired = (Z95 * math.sqrt((np.var(a.influence, ddof=1) + np.var(b.influence, ddof=1)) / n)
                if n > 1 else math.nan)
    return dict(a=a.value, b=b.value, difference=d.value, ci_low=d.value - half, ci_high=d.value + half,
                half_width=half, half_width_unpaired=unpaired, n=n,
                relative_change=d.value / a.value if a.value else math.nan)


def crossing(v0: float, f0: Estimate, v1: float, f1: Estimate) -> tuple[float, float, float]:
    """Where the straight line through (v0, f0) and (v1, f1) crosses zero (f0 and f1 of opposite
    signs, or one of them zero), with a delta-method 95% interval from the per-game influences of
    both ends (the same games, so their covariance counts): (value, low, high)."""
    a, b = f0.value, f1.value
    step = v1 - v0
    if a == b:  # both zero: the whole segment
        return (v0 + v1) / 2, min(v0, v1), max(v0, v1)
    s = a / (a - b)
    grad = (-b * f0.influence + a * f1.influence) / (a - b) ** 2 * step
    half = half_width(grad)
    v = v0 + s * step
    return v, v - half, v + half
