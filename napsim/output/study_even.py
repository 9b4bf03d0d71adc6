"""A study report's even settings: where a study sweeps two whole-number settings, the setting of
the first at which the two sides' metric is equal, for each value of the second (and each value of
any other swept setting): the curve of even settings over the grid that `napsim balance --across`
draws, read from the points the study played.

The metric is the study's main metric where both sides count it, else effective orders a turn.
The crossing is interpolated linearly between the two neighbouring settings where the gap between
the sides first changes sign (as `napsim balance` brackets it), its 95% interval by the delta
method from each point's own interval, not paired: `napsim balance --across` plays the same
question paired, with narrower intervals. Pure function of the summary; nothing here plays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from napsim.model.metrics import describe, parameter_title, value_words
from napsim.output.findings import with_ci

Z95 = 1.959963984540054
NOTE = ("Where the gap between the sides first changes sign along {x}, interpolated between the two "
        "settings either side, for each {across}; 95% intervals from each point's own interval, not "
        "paired (`napsim balance --across` plays the same question paired, with narrower intervals).")


@dataclass
class EvenSettings:
    """The even settings of a study: `frame` (for the CSV), `view` (in words), `sentences`."""

    frame: pd.DataFrame
    view: pd.DataFrame
    sentences: list[str]
    metric: str
    x: str
    across: str


def _whole_paths(spec: dict) -> list[str]:
    """Swept paths (not joined to another) whose values are whole numbers, at least two of them."""
    out = []
    for key, values in spec["sweep"].items():
        if "+" in key or len(values) < 2:
            continue
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            out.append(key)
    return out


def _metric(summ: pd.DataFrame, main: str, keys: list[str]) -> str:
    rows = summ[summ["metric"] == main]
    both = all(rows.loc[rows["side_key"] == k, "n"].gt(0).all() and (rows["side_key"] == k).any()
               for k in keys)
    return main if both else "effective_per_turn"


def _cross(xs: np.ndarray, gap: np.ndarray, half: np.ndarray) -> tuple:
    """(crossing, low, high, below, above) at the first sign change of the gap, or nans."""
    for i in range(len(xs) - 1):
        a, b = gap[i], gap[i + 1]
        if (a >= 0) != (b >= 0):
            step = xs[i + 1] - xs[i]
            c = xs[i] + a / (a - b) * step
            sd = math.hypot(b / (a - b) ** 2 * step * half[i], a / (a - b) ** 2 * step * half[i + 1]) / Z95
            return c, c - Z95 * sd, c + Z95 * sd, xs[i], xs[i + 1]
    return (math.nan,) * 5


def even_settings(spec: dict, keys: list[str], names: dict[str, str], summ: pd.DataFrame
                  ) -> EvenSettings | None:
    """The even settings, or None where the study has no two swept
    whole-number settings, or not two sides."""
    paths = _whole_paths(spec)
    if len(keys) != 2 or len(paths) < 2 or summ.empty:
        return None
    x, across = paths[0], paths[1]
    others = [p for p in spec["sweep"] if p not in (x, across)]
    metric = _metric(summ, spec.get("main_metric") or "effective_per_turn", keys)
    rows = summ[summ["metric"] == metric]
    first = rows[rows["side_key"] == keys[0]]
    second = rows[rows["side_key"] == keys[1]][["point", "value", "ci_low", "ci_high"]]
    pts = first.merge(second, on="point", suffixes=("", "_2"))
    pts["gap"] = pts["value_2"] - pts["value"]
    pts["half"] = np.hypot((pts["ci_high"] - pts["ci_low"]) / 2, (pts["ci_high_2"] - pts["ci_low_2"]) / 2)
    out = []
    for group, part in pts.groupby([*others, across], sort=True, dropna=False):
        part = part.sort_values(x)
        c, lo, hi, below, above = _cross(part[x].to_numpy(float), part["gap"].to_numpy(float),
                                         part["half"].to_numpy(float))
        key = dict(zip([*others, across], group if isinstance(group, tuple) else (group,), strict=True))
        leader = names[keys[1] if part["gap"].iloc[0] >= 0 else keys[0]]
        out.append({**key, "crossed": math.isfinite(c), "crossing": c, "ci_low": lo, "ci_high": hi,
                    "below": below, "above": above, "leader_at_low": leader})
    table = pd.DataFrame(out)
    return EvenSettings(table, even_table(table, x, across, others, names),
                        _sentences(table, x, across, others, names, keys, metric, spec), metric, x, across)


def _sentences(table: pd.DataFrame, x: str, across: str, others: list[str], names: dict[str, str],
               keys: list[str], metric: str, spec: dict) -> list[str]:
    """One sentence per value of the other swept settings: the even setting of the first at each
    value of the second, and where there is none."""
    xs = spec["sweep"][x]
    what, along = parameter_title(x, names), parameter_title(across, names)
    phrase = describe(metric).phrase
    lines = []
    groups = table.groupby(others, sort=True, dropna=False) if others else [((), table)]
    for group, part in groups:
        where = ", ".join(f"{parameter_title(p, names)} {value_words(p, v)}" for p, v in
                          zip(others, group if isinstance(group, tuple) else (group,), strict=True))
        crossed = [f"{with_ci(r.crossing, r.ci_low, r.ci_high)} with {r[across]}"
                   for _, r in part.iterrows() if r.crossed]
        none = [str(r[across]) for _, r in part.iterrows() if not r.crossed]
        head = f"{where}: " if where else ""
        if crossed:
            crossed[0] = crossed[0].replace(" with ", f" with {along} ", 1)
            text = (f"{head}{names[keys[0]]} and {names[keys[1]]} are even in {phrase} where {what} is "
                    f"{'; '.join(crossed)}")
        else:
            text = (f"{head}no {what} from {min(xs)} to {max(xs)} evens {names[keys[0]]} and "
                    f"{names[keys[1]]} in {phrase} at any {along} swept")
        if crossed and none:
            text += f"; none from {min(xs)} to {max(xs)} at {along} {', '.join(none)}"
        lines.append(text[:1].upper() + text[1:] + ".")
    return lines


def even_table(table: pd.DataFrame, x: str, across: str, others: list[str], names: dict[str, str]):
    """The table in words: the settings, the even setting with its interval, the bracket."""
    view = pd.DataFrame({parameter_title(p, names): [value_words(p, v) for v in table[p]]
                         for p in [*others, across]})
    view[f"even {parameter_title(x, names)} [95% CI]"] = [
        with_ci(r.crossing, r.ci_low, r.ci_high) if r.crossed else "no crossing" for r in table.itertuples()]
    view["between"] = [f"{int(r.below)} and {int(r.above)}" if r.crossed else "" for r in table.itertuples()]
    return view
