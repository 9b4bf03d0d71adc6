"""Why a reported metric jumps: a step of a study's numeric sweep much larger than the others
(Tactician cards drawn a game 15.5 -> 20.6 between hands 8 and 9 of the Courier Rack study), said
with the metrics of the same games that explain it (the stars that stopped paying for March Moves
and drew Tactician cards instead, rule E8). The explanations are a short table of metrics that
share a cause in the rules (`EXPLAINED_BY`); the numbers are the study's own summary.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from napsim.output.findings import Finding, Ref, diff_ci, info_of, num, phrase_of, with_ci

JUMP = 3.0  # a clear step at least this many times every other step of its series is a jump


@dataclass(frozen=True)
class Cause:
    """What explains a jump of `metric`: a metric that rises with it, one that falls as it rises,
    a trend that says why, and the rule that ties them together."""

    metric: str
    rises: str
    falls: str
    trend: str
    rule: str
    because: str


EXPLAINED_BY = {
    "tactician_drawn": Cause(
        "tactician_drawn", "stars_tactician", "stars_march", "march_units", "E8",
        "a star March Moves only units its section has left unordered, so once the cards order "
        "them all the stars draw Tactician cards instead"),
}


@dataclass(frozen=True)
class Jump:
    rows: pd.DataFrame     # the series (other settings fixed), in the swept parameter's order
    at: int                # the index of the step (rows at-1 -> at)
    others: float          # the largest other step, in absolute value

    @property
    def size(self) -> float:
        return abs(float(self.rows["value"].iloc[self.at] - self.rows["value"].iloc[self.at - 1]))


def _find(rows: pd.DataFrame, col: str, groups: list[str]) -> Jump | None:
    """The largest jump of one metric's rows over the numeric column `col`, each series holding
    the columns `groups` fixed."""
    best = None
    series = rows.groupby(groups, sort=False) if groups else [((), rows)]
    for _, g in series:
        g = g.assign(_x=pd.to_numeric(g[col])).sort_values("_x").reset_index(drop=True)
        if len(g) < 3:
            continue
        steps = g["value"].diff().iloc[1:].abs()
        halves = [math.hypot(a, b) for a, b in zip(g["half"], g["half"].iloc[1:], strict=False)]
        i = int(steps.to_numpy().argmax())
        rest = steps.drop(steps.index[i])
        biggest, other = float(steps.iloc[i]), float(rest.max()) if len(rest) else 0.0
        if biggest > halves[i] and biggest >= JUMP * max(other, 1e-12):
            if best is None or biggest > best.size:
                best = Jump(g, i + 1, other)
    return best


def _change(summ: pd.DataFrame, metric: str, side_key: str, a: str, b: str) -> tuple[float, ...]:
    """(value at point a, value at b, b - a, half-width) of one metric and side."""
    rows = summ[(summ["metric"] == metric) & (summ["side_key"] == side_key)].set_index("point")
    va, vb = float(rows.loc[a, "value"]), float(rows.loc[b, "value"])
    return va, vb, vb - va, math.hypot(rows.loc[a, "half"], rows.loc[b, "half"])


def jump_findings(summ: pd.DataFrame, side_key: str, sweep: list[str], names: dict[str, str],
                  where) -> list[Finding]:
    """One finding per metric of `EXPLAINED_BY` that jumps over a numeric sweep parameter (of the
    columns `sweep`) and whose explaining metrics the summary holds; `where(row, column)` names the
    settings of a point other than that column ('greedy play')."""
    out = []
    side = names.get(side_key, side_key)
    for cause in EXPLAINED_BY.values():
        needed = (cause.metric, cause.rises, cause.falls, cause.trend)
        have = summ[(summ["side_key"] == side_key) & summ["metric"].isin(needed)]
        if set(have["metric"]) != set(needed):
            continue
        rows = have[have["metric"] == cause.metric]
        for col in sweep:
            if not pd.to_numeric(rows[col], errors="coerce").notna().all():
                continue
            jump = _find(rows, col, [c for c in sweep if c != col])
            if jump is None:
                continue
            lo, hi = jump.rows.iloc[jump.at - 1], jump.rows.iloc[jump.at]
            a, b = lo["point"], hi["point"]
            va, vb, d, h = _change(summ, cause.metric, side_key, a, b)
            _, _, up, hu = _change(summ, cause.rises, side_key, a, b)
            _, _, down, hd = _change(summ, cause.falls, side_key, a, b)
            t0 = jump.rows.iloc[0]["point"]
            ta, _, _, _ = _change(summ, cause.trend, side_key, t0, t0)
            _, tb, _, _ = _change(summ, cause.trend, side_key, t0, b)
            if not (up > hu and down < -hd):  # the explanation does not hold in these numbers
                continue
            x0, x1, xs = lo[col], hi[col], jump.rows.iloc[0][col]
            what = phrase_of(info_of(cause.metric), side)
            context = where(hi, col)
            out.append(Finding(
                f"{what[:1].upper()}{what[1:]} jumps from {num(va, 2)} to {num(vb, 2)} between {x0} and {x1}"
                f"{f' ({context})' if context else ''}: {diff_ci(d, h)}, against at most "
                f"{num(jump.others, 2, True)} for any other step; in the same games "
                f"{info_of(cause.rises).phrase} rise by {diff_ci(up, hu)} and "
                f"{info_of(cause.falls).phrase} fall by {with_ci(-down, -down - hd, -down + hd)}, while "
                f"{info_of(cause.trend).phrase} fall from {num(ta, 1)} at {xs} to {num(tb, 1)} at {x1}: "
                f"{cause.because} (rule {cause.rule})",
                Ref("Reported metrics", "reported-metrics", f"{a}, {b}")))
            break
    return out
