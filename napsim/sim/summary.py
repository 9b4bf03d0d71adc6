"""Interval estimates printed next to every simulated number."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes: int | np.ndarray, n: int | np.ndarray, z: float = Z95):
    """Wilson score interval (lo, hi) for a binomial proportion; (nan, nan) when n == 0."""
    k = np.asarray(successes, dtype=float)
    nn = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / nn
        denom = 1.0 + z * z / nn
        centre = (p + z * z / (2 * nn)) / denom
        half = z * np.sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom
        lo, hi = centre - half, centre + half
    # the bounds are exactly 0 and 1 at the edges; rounding would leave e.g. 1e-19 at k = 0
    lo = np.where(k <= 0, 0.0, lo)
    hi = np.where(k >= nn, 1.0, hi)
    lo = np.where(nn > 0, np.clip(lo, 0.0, 1.0), np.nan)
    hi = np.where(nn > 0, np.clip(hi, 0.0, 1.0), np.nan)
    if lo.ndim == 0:
        return float(lo), float(hi)
    return lo, hi


def wilson_half_width(successes: int, n: int, z: float = Z95) -> float:
    """Half the width of the Wilson interval: the stopping rule of `--target-error`."""
    lo, hi = wilson(successes, n, z)
    return (hi - lo) / 2


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Normal-approximation 95% interval for a mean from its running sums."""
    if n < 2:
        return math.nan, math.nan
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / (n - 1)
    half = z * math.sqrt(var / n)
    return mean - half, mean + half
