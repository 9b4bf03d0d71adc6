"""Summaries: the one place that turns summed metrics into means, rates and 95% intervals.

Every path calls it through `napsim.sim.sums.GameSums.summary`: a run of `napsim simulate`
(`SimResult.summary()`), a study point (its chunk sums), a study's target-error rule. Which metrics
there are and how each is computed from the sums is the metric table's (`napsim.sim.metric_table`);
this module turns those sums into values and intervals. Interval
formulas: Wilson for a rate (its n counts trials: turns, picks), normal for a mean per game (from
the per-game sums of squares), delta method for a mean per turn (a ratio of two per-game sums).

Paired statistics (the variants commands: compare, balance, tune): a summary metric game by game,
and differences between runs of the same games. Every summary metric is a ratio of two sums over
games, sum(x) / sum(t): a mean per game has t = 1, a mean per turn t = turns, a rate t = its
trials. The metric table (`Metric.parts`) gives the per-game x and t of every metric, the same x
and t a summary adds up from the sums (tests/test_compare.py checks both give one value).
`estimate` turns them into the value and each game's influence on it (the delta method: u = (x -
R t) / mean t, so that the value's standard error is sd(u) / sqrt(n)); a mean per game has u = x -
mean x. Two variants that play the same games (same seed and game indices: common random numbers)
give paired influences; the difference B - A has per-game influence u_B - u_A and its interval
comes from their sd (`paired_difference`). Two identical variants give u_B - u_A = 0 exactly, a
zero-width interval. The unpaired half-width, from the two variances alone, says how much pairing
bought. `crossing` interpolates where a difference changes sign between two settings, with a
delta-method interval that again uses the games' pairing across the two settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from napsim.engine.layout import COMMANDER_KEYS, COMMANDER_ROLES
from napsim.sim.metric_table import (
    MEAN_PER_GAME,
    METRICS,
    RATE,
    TURNS,
    Metric,
    listed_metrics,
)

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


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Normal-approximation 95% interval for a mean from its running sums."""
    if n < 2:
        return math.nan, math.nan
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / (n - 1)
    half = z * math.sqrt(var / n)
    return mean - half, mean + half


# --------------------------------------------------------------------------------------------
# the rows of a summary, from the sums


SUMMARY_COLUMNS = ["side_key", "side", "metric", "kind", "value", "std", "ci_low", "ci_high", "n", "games",
                   "interval"]


def study_summary(games: int, sums: np.ndarray, sumsq: np.ndarray, sumxt: np.ndarray,
                  commanders: np.ndarray | None, side_keys, side_names, only: str | None = None
                  ) -> pd.DataFrame:
    """Per side: every metric of the table (`napsim.sim.metric_table`) these sums list, with
    value, std, a 95% interval, n and the games behind it.

    `sums`, `sumsq` and `sumxt` [side, column] are the per-game sums of every per-game column, of
    its square and of its product with the turns; `commanders` [side, commander, CM] the
    per-commander totals. Means per game get a normal interval from the per-game sums of squares;
    means per turn are ratios (metric / turns) and get a delta-method interval from the per-game
    sums of x^2, t^2 and x*t; rates get a Wilson interval, whose n counts trials (turns, picks),
    not games; a mean with no per-game column behind it (per-commander means) has none. `only`:
    the rows of that one metric (the same numbers; `study_summary_rows` gives them without pandas).
    """
    rows = study_summary_rows(games, sums, sumsq, sumxt, commanders, side_keys, side_names, only)
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def study_summary_rows(games: int, sums: np.ndarray, sumsq: np.ndarray, sumxt: np.ndarray,
                       commanders: np.ndarray | None, side_keys, side_names,
                       only: str | None = None) -> list[dict]:
    """The rows of `study_summary` as dicts, without building a DataFrame: a report's
    convergence trace asks after every chunk, and pandas took about 10 ms of each ask."""
    listed = [m for m in listed_metrics(sums, commanders) if only is None or m.name == only]
    out = []
    for s, key in enumerate(side_keys):
        cm = commanders[s] if commanders is not None else None
        for m in listed:
            row = dict(side_key=key, side=side_names[s], metric=m.name, kind=m.kind)
            row.update(_numbers(m, games, sums[s], sumsq[s], sumxt[s], cm))
            row["games"] = games
            out.append(row)
    return out


def _numbers(m: Metric, n: int, sums: np.ndarray, sumsq: np.ndarray, sumxt: np.ndarray,
             cm: np.ndarray | None) -> dict:
    """value, std, ci_low, ci_high, n and interval of one metric and side (see `study_summary`)."""
    k, trials = m.counts(sums, cm, n)
    value = k / trials if trials else m.empty
    std = lo = hi = math.nan
    col = m.column
    if m.kind == RATE:
        lo, hi = wilson(k, trials)
        std = math.sqrt(value * (1 - value)) if trials > 0 else math.nan
        return dict(value=value, std=std, ci_low=lo, ci_high=hi, n=trials, interval="wilson95")
    if col is not None and m.kind == MEAN_PER_GAME:
        x, x2 = float(sums[col]), float(sumsq[col])
        value = x / n if n else math.nan
        lo, hi = mean_interval(x, x2, n)
        std = math.sqrt(max(x2 / n - (x / n) ** 2, 0.0) * n / (n - 1)) if n > 1 else math.nan
    elif col is not None and trials > 0:  # a mean per turn: a ratio, with a delta-method interval
        x, x2, xt = float(sums[col]), float(sumsq[col]), float(sumxt[col])
        tt, tt2 = float(sums[TURNS]), float(sumsq[TURNS])
        value = x / tt
        if n > 1:
            var = max(x2 - 2 * value * xt + value * value * tt2, 0.0) / (n - 1)
            tbar = tt / n
            std = math.sqrt(var) / tbar
            half = Z95 * math.sqrt(var / n) / tbar
            lo, hi = value - half, value + half
    # a mean with no per-game column behind it, or too few games, has no interval: say so
    return dict(value=value, std=std, ci_low=lo, ci_high=hi, n=trials,
                interval="none" if math.isnan(lo) else "normal95")


def commander_roles(game_format: str | None, cic_section: int | None = None) -> dict[str, str]:
    """The commanders of a format by key, for the catalogue's words: {'cic': 'CIC', 'c1':
    'Corps left wing', ...}; empty for an unknown format (the catalogue's own words then). With
    three players a side the sub-commanders are named by the sections they hold, which follow from
    the side's `cic_section` (the CIC's; the other two go to sub-commanders 1 and 2, left to right)."""
    roles = list(COMMANDER_ROLES.get(game_format or "", ()))
    if game_format == "epic3" and cic_section is not None:
        subs = [x for x in range(3) if x != cic_section]
        roles = [f"CIC ({_SECTION[cic_section]} section)",
                 *(f"sub-commander of the {_SECTION[x]} section" for x in subs)]
    elif game_format == "epic4":
        roles = ["CIC", *(f"Corps commander of the {w} section" for w in _SECTION)]
    return dict(zip(COMMANDER_KEYS, roles, strict=False))


_SECTION = ("left", "centre", "right")  # sections L, C, R (each named from its own side's seat)


def with_words(df: pd.DataFrame, roles: dict[str, str] | None = None) -> pd.DataFrame:
    """The summary with `title` and `unit` columns after `metric`, from the metric catalogue
    (`napsim.model.metrics`): an OPPONENT metric's title says whose counters acted (rule G7)."""
    if "metric" not in df.columns or "title" in df.columns:
        return df
    infos = [METRICS[m].words(roles) for m in df["metric"]]
    sides = df["side"] if "side" in df.columns else [None] * len(df)
    out = df.copy()
    at = out.columns.get_loc("metric") + 1
    out.insert(at, "title", [i.row_title(s) for i, s in zip(infos, sides, strict=True)])
    out.insert(at + 1, "unit", [i.unit for i in infos])
    return out


# --------------------------------------------------------------------------------------------
# paired statistics: an estimate game by game, the difference of two runs of the same games


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
