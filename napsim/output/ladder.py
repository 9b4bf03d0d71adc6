"""A policy ladder's table, JSON and chart (`napsim.study.ladder.Ladder`, a design file's
``[[ladder]]``): per value of the setting and policy, each side's metric and its paired difference
from the reference policy; the chart draws the difference against the setting, one line a policy."""

from __future__ import annotations

import textwrap

import pandas as pd

from napsim.output.decisions import interval_text, metric_title
from napsim.output.findings.ladder import label, ladder_sentences, over_title, short
from napsim.output.formatting import _json_value, render


def ladder_frame(lad) -> pd.DataFrame:
    """`Ladder.frame` with the words: the policy's and the metric's."""
    df = lad.frame()
    df.insert(2, "policy_words", [label(p) for p in df["policy"]])
    df.insert(df.columns.get_loc("metric") + 1, "title",
              [metric_title(m, side) for m, side in zip(df["metric"], df["side"], strict=True)])
    return df


def heading(lad) -> list[str]:
    who = "both sides" if lad.side == "*" else lad.side_names[lad.side_keys.index(lad.side)]
    lines = [f"Policies of {who} against {label(lad.side_policies[0])} (the reference) in {lad.scenario}, "
             f"{lad.games:,} games each (seed {lad.seed}), the same games for every policy and value"]
    lines += [f"  {short(p)}: {label(p)}" for p in lad.side_policies[1:] if label(p) != short(p)]
    if lad.over:
        values = ", ".join(str(v) for v in lad.values)
        lines.append(f"over {over_title(lad)}: {values}")
    lines.append("level: the policy's own value, ± its 95% half-width; difference: policy - reference "
                 "on the same games, paired 95% interval")
    return lines


def ladder_text(lad, warnings: list[str] = ()) -> str:
    """The table format: heading, one row per value, policy and side, then the sentences."""
    df = ladder_frame(lad)
    view = pd.DataFrame({
        **({over_title(lad): df["value"]} if lad.over else {}),
        "policy": [short(p) for p in df["policy"]], "side": df["side"], "measure": df["title"],
        "level": [f"{v:.3f}" for v in df["level"]], "±": [f"{h:.3f}" for h in df["level_half"]],
        "difference [95% CI]": ["reference" if r.reference else
                                interval_text(r.difference, r.ci_low, r.ci_high) for r in df.itertuples()],
        "n": df["n"]})
    return "\n".join([*warnings, *heading(lad), "", render(view, "table"), "", *ladder_sentences(lad)])


def ladder_doc(lad, warnings: list[str] = ()) -> dict:
    """<name>.json of a ladder entry: the heading, the sentences and the rows."""
    df = ladder_frame(lad)
    return {"warnings": list(warnings), "heading": heading(lad), "sentences": ladder_sentences(lad),
            "games": lad.games, "seed": lad.seed, "over": lad.over, "values": list(lad.values),
            "rows": [{k: _json_value(v) for k, v in r.items()} for r in df.to_dict("records")]}


def ladder_figure(lad):
    """One panel per side whose policy changes (the first metric): each policy's difference from the
    reference against the setting, with its paired 95% interval, around a zero line."""
    from napsim.output import chartkit  # lazy: matplotlib is heavy

    df = lad.frame()
    m = lad.metrics[0]
    keys = list(lad.side_keys) if lad.side == "*" else [lad.side]
    fig, axes = chartkit.panels(len(keys), ncols=len(keys), w=5.2, h=3.6)
    colours = chartkit.palette(max(1, len(lad.side_policies) - 1))
    for ax, key in zip(axes, keys, strict=True):
        part = df[(df["metric"] == m) & (df["side_key"] == key) & ~df["reference"]]
        for c, p in zip(colours, lad.side_policies[1:], strict=True):
            rows = part[part["policy"] == p]
            x = list(range(len(rows))) if lad.over is None else rows["value"].tolist()
            y = rows["difference"].to_numpy()
            err = (rows["ci_high"] - rows["difference"]).to_numpy()
            ax.errorbar(x, y, yerr=err, fmt="o-", color=c, capsize=3, markersize=4, label=short(p))
        ax.axhline(0, color="0.5", linewidth=0.8)
        side = lad.side_names[lad.side_keys.index(key)]
        ax.set_title(textwrap.fill(f"{metric_title(m, side)}: policy - {short(lad.side_policies[0])}", 50))
        ax.set_xlabel(over_title(lad) or "policy")
        ax.legend(loc="best", fontsize=8)
    fig.suptitle(f"{lad.scenario}: paired 95% intervals, {lad.games:,} games per policy and value",
                 fontsize=9)
    chartkit.deck_note(fig, [lad.deck_warning])
    return fig
