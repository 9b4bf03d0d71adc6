"""Paired statistics: a summary metric game by game, and differences between runs of the same games.

Every summary metric is a ratio of two sums over games, sum(x) / sum(t): a mean per game has t = 1,
a mean per turn t = turns, a rate t = its trials. The metric table (`napsim.sim.metric_table`:
`Metric.parts`) gives the per-game x and t of every metric, the same x and t a summary adds up
from the sums (tests/test_compare.py checks both give one value). `estimate` turns them into the value
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

from napsim.sim.summary import Z95


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
    if f0.value == f1.value:  # both zero: the whole segment
        return (v0 + v1) / 2, min(v0, v1), max(v0, v1)
    est = crossing_estimate(v0, f0, v1, f1)
    half = half_width(est.influence)
    return est.value, est.value - half, est.value + half


def crossing_estimate(v0: float, f0: Estimate, v1: float, f1: Estimate) -> Estimate:
    """The crossing of `crossing` as an estimate with per-game influences (the delta method), so
    that two crossings found on the same games differ with a paired interval; f0 != f1."""
    a, b = f0.value, f1.value
    step = v1 - v0
    s = a / (a - b)
    grad = (-b * f0.influence + a * f1.influence) / (a - b) ** 2 * step
    return Estimate(v0 + s * step, grad)
