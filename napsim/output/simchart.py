"""The chart of one scenario's games (`napsim.simulate`): effective orders a turn by section and
side, with 95% intervals, as an SVG file a designer can take away from the page (`napsim app`)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from napsim.model.metrics import SECTION_WORDS
from napsim.output.chartkit import RC, palette, render

SECTIONS = ("L", "C", "R")


def section_figure(summary: pd.DataFrame, title: str) -> Figure:
    """Bars of effective orders a turn per section, one colour per side, the 95% interval as an
    error bar; `summary` is `napsim.simulate(...).summary`."""
    rows = summary[summary["metric"].isin([f"effective_per_turn_{s}" for s in SECTIONS])]
    sides = list(dict.fromkeys(rows["side"]))
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(6.4, 3.8), layout="constrained")
        ax = fig.subplots()
        width = 0.8 / max(len(sides), 1)
        for i, (side, colour) in enumerate(zip(sides, palette(len(sides)), strict=True)):
            d = rows[rows["side"] == side].set_index("metric")
            d = d.reindex([f"effective_per_turn_{s}" for s in SECTIONS])
            x = np.arange(len(SECTIONS)) + (i - (len(sides) - 1) / 2) * width
            err = np.vstack([d["value"] - d["ci_low"], d["ci_high"] - d["value"]])
            ax.bar(x, d["value"], width * 0.95, color=colour, label=side,
                   yerr=np.nan_to_num(err), capsize=3, ecolor="0.25")
        ax.set_xticks(np.arange(len(SECTIONS)), [SECTION_WORDS.get(s, s) for s in SECTIONS])
        ax.set_ylabel("effective orders a turn")
        ax.set_title(f"{title}\neffective orders a turn by section (95% intervals)")
        ax.legend(frameon=False, title="side")
        ax.grid(axis="y", alpha=0.3)
    return fig


def section_chart_svg(summary: pd.DataFrame, title: str) -> bytes:
    """The SVG bytes of `section_figure` (deterministic: the same games give the same file)."""
    return render(section_figure(summary, title), "sections", title, "").svg
