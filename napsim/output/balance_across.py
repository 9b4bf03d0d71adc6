"""The words, tables and chart of `napsim balance --across`: for each whole value of a second
setting, the balance of the first as the single balance gives it (whole settings either side of
the even point, or no crossing in the range), and the curve of even settings over the grid with
its 95% band ("the even number of Spanish cards in hand moves from 4.56 [4.54, 4.58] with 0
Spanish Guerrilla counters at the start to 3.92 [3.89, 3.95] with 6: -0.64 [-0.68, -0.60],
paired"). Pure functions of a `napsim.study.balance_across.BalanceAcross`; nothing here plays.
"""

from __future__ import annotations

import json
import math
import textwrap
from types import SimpleNamespace

import pandas as pd

from napsim.output.balance_words import (
    bracket_sentence,
    difference_label,
    no_crossing_sentence,
    range_words,
    setting_words,
)
from napsim.output.findings import with_ci
from napsim.output.formatting import _json_value, render
from napsim.output.variants import crossing_decimals, played_runs, vary_title
from napsim.study.balance import Balance
from napsim.study.balance_across import BalanceAcross


def _across(grid: BalanceAcross) -> SimpleNamespace:
    """The second setting, shaped as the words of `balance_words` read a balance."""
    b = grid.first
    return SimpleNamespace(vary=grid.across, side_keys=b.side_keys, side_names=b.side_names)


def across_words(grid: BalanceAcross, v: float) -> str:
    """One value of the second setting in words: '2 Spanish Guerrilla counters at the start'."""
    return setting_words(_across(grid), v)


def across_title(grid: BalanceAcross) -> str:
    """The second setting's title: 'Guerrilla counters at the start, Spanish'."""
    return vary_title(_across(grid))


def _one(grid: BalanceAcross) -> str:
    """One unit of the second setting: 'Red card in hand', else 'unit of <its title>'."""
    words = across_words(grid, 1)
    return words[2:] if words.startswith("1 ") else f"unit of {across_title(grid)}"


def _crossing_text(b: Balance) -> str:
    v, lo, hi = b.crossing
    d = crossing_decimals(b, (hi - lo) / 2)
    return f"{v:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]"


def row_sentence(grid: BalanceAcross, v: int, b: Balance) -> str:
    """One row in words: 'With 2 Spanish Guerrilla counters at the start: with 4 Spanish cards in
    hand the French lead by ...; the even point lies between, at 4.31 [4.28, 4.34].'"""
    answer = bracket_sentence(b, _crossing_text(b)) if b.crossed else no_crossing_sentence(b)
    return f"With {across_words(grid, v)}: {answer[:1].lower()}{answer[1:]}."


def curve_sentence(grid: BalanceAcross) -> str:
    """The curve of even settings in one sentence: where it starts and ends and how far it moves
    (paired), and the values of the second setting where no setting of the first evens the sides."""
    b = grid.first
    lo, hi = grid.across.label(grid.across.low), grid.across.label(grid.across.high)
    played = f"{b.games:,} games per setting, the same games in every row"
    crossed = grid.crossed
    none = [grid.across.label(v) for v, r in grid.rows if not r.crossed]
    even = "evens the sides" if len(b.sides) == 2 else f"brings the side to {b.target:g}"
    if not crossed:
        return (f"No combination evens {b.scenario_name or 'the scenario'}: no {range_words(b)} from "
                f"{b.vary.label(b.vary.low)} to {b.vary.label(b.vary.high)} {even} at any "
                f"{range_words(_across(grid))} from {lo} to {hi} ({played}).")
    (v0, b0), (v1, b1) = crossed[0], crossed[-1]
    what = f"The even {range_words(b)}" if len(b.sides) == 2 else (
        f"The {range_words(b)} that brings the {b.side_names[b.sides[0]]} to {b.target:g}")
    if len(crossed) == 1:
        text = f"{what} is {_crossing_text(b0)} with {across_words(grid, v0)} only"
    else:
        d, dlo, dhi = grid.crossing_shift(v0, v1)
        step = d / (v1 - v0)
        moves = with_ci(d, dlo, dhi, sign=True) if math.isfinite(dlo) else f"{d:+.3g}"
        text = (f"{what} moves from {_crossing_text(b0)} with {across_words(grid, v0)} to "
                f"{_crossing_text(b1)} with {grid.across.label(v1)}: {moves} (paired), about "
                f"{step:+.2f} for each {_one(grid)} more")
    if none:
        text += (f"; no {range_words(b)} from {b.vary.label(b.vary.low)} to {b.vary.label(b.vary.high)} "
                 f"{even} with {', '.join(none)}")
    return f"{text} ({played})."


def across_frame(grid: BalanceAcross) -> pd.DataFrame:
    df = grid.frame()
    df["sentence"] = [row_sentence(grid, v, b) for v, b in grid.rows]
    return df


def across_doc(grid: BalanceAcross, warnings: list[str]) -> dict:
    """The JSON document: the curve's sentence, one row per value of the second setting (with its
    settings played)."""
    rows = []
    for (_, b), r in zip(grid.rows, across_frame(grid).to_dict("records"), strict=True):
        row = {k: _json_value(x) for k, x in r.items()}
        row["settings"] = [{k: _json_value(x) for k, x in s.items()} for s in b.frame().to_dict("records")]
        rows.append(row)
    return {"warnings": warnings, "sentence": curve_sentence(grid),
            "difference": difference_label(grid.first), "rows": rows}


def across_text(grid: BalanceAcross, table_format: str, warnings: list[str]) -> str:
    """table, csv or json."""
    if table_format == "json":
        return json.dumps(across_doc(grid, warnings), indent=2, default=str)
    df = across_frame(grid)
    if table_format == "csv":
        return render(df, "csv", [*warnings, curve_sentence(grid)])
    b = grid.first
    view = pd.DataFrame({
        across_title(grid): df["across_value"],
        f"even {vary_title(b)} [95% CI]": [_crossing_text(r) if r.crossed else "no crossing"
                                          for _, r in grid.rows],
        "between": [f"{b.vary.label(r.bracket[0])} and {b.vary.label(r.bracket[1])}" if r.crossed else
                    f"none of {b.vary.label(b.vary.low)}..{b.vary.label(b.vary.high)}" for _, r in grid.rows],
        "settings played": df["settings_played"]})
    return "\n".join([*warnings, "Findings:", f"- {curve_sentence(grid)}",
                      *[f"- {s}" for s in df["sentence"]], "",
                      f"Even {vary_title(b)} over {across_title(grid)} ({difference_label(b)}):", "",
                      render(view, "table")])


def across_figure(grid: BalanceAcross):
    """The curve of even settings: the crossing of the first setting (y) at each value of the
    second (x) with its 95% interval, a band between neighbouring values that both cross, and a
    mark at the range's edge where no setting of the first evens the sides."""
    from matplotlib.ticker import MaxNLocator

    from napsim.output import chartkit  # lazy: matplotlib is heavy, and only charts need it

    b = grid.first
    df = grid.frame()
    fig, (ax,) = chartkit.panels(1, w=7.0, h=4.2)
    (c,) = chartkit.palette(1)
    ok = df[df["crossed"]].reset_index(drop=True)
    runs = played_runs(ok["across_value"].to_numpy(int))
    for k, run in enumerate(r for r in runs if len(r) > 1):
        part = ok.iloc[run]
        chartkit.band(ax, part["across_value"], part["ci_low"], part["ci_high"], c, lw=1.5, alpha=0.25,
                      label="95% interval" if k == 0 else None)
        ax.plot(part["across_value"], part["crossing"], "-", color=c, linewidth=1.2)
    if len(ok):
        ax.errorbar(ok["across_value"], ok["crossing"], yerr=[ok["crossing"] - ok["ci_low"],
                    ok["ci_high"] - ok["crossing"]], fmt="o", color=c, markersize=5, capsize=3,
                    label="even point")
    none = df[~df["crossed"]]
    if len(none):
        ax.plot(none["across_value"], [b.vary.high] * len(none), "x", color="C3", markersize=8,
                label=f"no crossing in {b.vary.label(b.vary.low)}..{b.vary.label(b.vary.high)}")
    ax.set_ylim(b.vary.low - 0.3, b.vary.high + 0.3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if b.vary.integer:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(across_title(grid))
    ax.set_ylabel(textwrap.fill(f"even {vary_title(b)}", 40))
    ax.set_title(textwrap.fill(f"Even settings, where {difference_label(b)} is 0 "
                               f"({b.games:,} games per setting)", 75))
    ax.legend(loc="best")
    chartkit.deck_note(fig, [b.deck_warning])
    return fig
