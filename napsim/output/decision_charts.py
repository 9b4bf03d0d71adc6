"""The charts of `napsim compare` (B - A per metric and side, paired and unpaired 95% intervals)
and `napsim balance` (the difference against the parameter with its 95% band and the crossing),
written as one PNG or SVG file by the path's suffix."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from napsim.model.metrics import OPPONENT, describe
from napsim.output import chartkit
from napsim.output.decisions import f_words, side_names, variant_labels, vary_title
from napsim.study.balance import Balance
from napsim.study.store import atomic_write_bytes
from napsim.study.variants import Comparison


def compare_figure(cmp: Comparison):
    """One panel per metric: B - A per side with its paired 95% interval (thick) and the unpaired
    one (thin), around a zero line."""
    df = cmp.frame
    metrics = list(dict.fromkeys(df["metric"]))
    fig, axes = chartkit.panels(len(metrics), ncols=min(3, len(metrics)), w=3.6, h=2.6)
    colours = chartkit.palette(2)
    la, lb = variant_labels(cmp.a, cmp.b, side_names(cmp))
    keys = [side.key for side in cmp.sims[0].scenario.sides]
    for ax, m in zip(axes, metrics, strict=True):
        part = df[df["metric"] == m].reset_index(drop=True)
        y = np.arange(len(part))
        for i, r in part.iterrows():
            c = colours[keys.index(r["side_key"])]
            ax.errorbar(r["difference"], i, xerr=r["half_width_unpaired"], fmt="none", ecolor=c,
                        alpha=0.35, elinewidth=1, capsize=2)
            ax.errorbar(r["difference"], i, xerr=r["half_width"], fmt="o", color=c, elinewidth=3,
                        capsize=3, markersize=4)
        ax.axvline(0, color="0.5", linewidth=0.8)
        info = describe(m)
        who = " counters" if info.viewpoint == OPPONENT else ""
        ax.set_yticks(y, [f"{side}{who}" for side in part["side"]])
        ax.set_ylim(-0.7, len(part) - 0.3)
        ax.set_title(textwrap.fill(info.title, 40))
        ax.set_xlabel(f"B - A ({info.unit})")
    fig.suptitle(textwrap.fill(f"B ({lb}) - A ({la}); thick: paired 95% interval, thin: unpaired; "
                               f"{cmp.games:,} games", 110), fontsize=8.5)
    chartkit.deck_note(fig, [s.deck.estimated_warning() for s in cmp.sims])
    return fig


def balance_figure(b: Balance):
    """The difference against the parameter at every setting played, with its 95% band, the zero
    line and the crossing with its interval."""
    df = b.frame()
    fig, (ax,) = chartkit.panels(1, w=7.0, h=3.8)
    (c,) = chartkit.palette(1)
    chartkit.band(ax, df["value"], df["ci_low"], df["ci_high"], c, lw=1.5, alpha=0.25, label="95% interval")
    ax.plot(df["value"], df["difference"], "o-", color=c, markersize=4, label=f_words(b))
    ax.axhline(0, color="0.5", linewidth=0.8)
    v, lo, hi = b.crossing
    if b.crossed:
        ax.axvspan(lo, hi, color="0.3", alpha=0.15, linewidth=0)
        ax.axvline(v, color="0.3", linewidth=1, linestyle="--",
                   label=f"crossing {v:.3g} [{lo:.3g}, {hi:.3g}]")
    if b.ensemble is not None:
        ens = b.ensemble.frame
        x = ens.loc[(ens["deck_index"] >= 0) & ens["crossed"], "crossing"].to_numpy(float)
        if x.size:
            ax.plot(x, np.zeros_like(x), "|", color="C3", markersize=14, markeredgewidth=1.2,
                    label=f"crossing on {x.size} of {b.ensemble.n} plausible decks")
    ax.set_xlabel(vary_title(b))
    ax.set_ylabel(textwrap.fill(f_words(b), 40))
    ax.set_title(f"Balance over {vary_title(b)} ({b.games:,} games per setting)")
    ax.legend(loc="best")
    chartkit.deck_note(fig, [b.deck_warning])
    return fig


def write_chart(fig, path: str | Path, title: str) -> Path:
    """Render a figure to PNG or SVG (by the path's suffix), written atomically."""
    p = Path(path)
    svg = p.suffix.lower() == ".svg"
    chart = chartkit.render(fig, p.stem, title, "", png=not svg)
    atomic_write_bytes(p, chart.svg if svg else chart.png)
    return p
