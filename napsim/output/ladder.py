"""A policy ladder's table, JSON and chart (`napsim.study.ladder.Ladder`, a variants file's
``[[ladder]]``): per value of the setting and policy, each side's metric and its paired difference
from the reference policy; the chart draws the difference against the setting, one line a policy."""

from __future__ import annotations

import textwrap

import pandas as pd

from napsim.model.metrics import metric_title, policy_label
from napsim.output.findings.ladder import ladder_sentences, over_title, short
from napsim.output.formatting import _json_value, render
from napsim.output.variants import interval_text


def ladder_frame(lad) -> pd.DataFrame:
    """`Ladder.frame` with the words: the policy's and the metric's."""
    df = lad.frame()
    df.insert(2, "policy_words", [policy_label(p) for p in df["policy"]])
    df.insert(df.columns.get_loc("metric") + 1, "title",
              [metric_title(m, side) for m, side in zip(df["metric"], df["side"], strict=True)])
    return df


def heading(lad) -> list[str]:
    who = "both sides" if lad.side == "*" else lad.side_names[lad.side_keys.index(lad.side)]
    ref = policy_label(lad.side_policies[0])
    lines = [f"Policies of {who} against {ref} (the reference) in {lad.scenario}, "
             f"{lad.games:,} games each (seed {lad.seed}), the same games for every policy and value"]
    words = [(short(p), policy_label(p)) for p in lad.side_policies[1:]]
    lines += [f"  {name}: {text}" for name, text in words if text != name]
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
    """The first metric's differences from the reference with their paired 95% intervals: over a
    setting, one panel per policy (each its own scale: random play's loss would flatten the rest)
    against the setting; without one, one panel per side, a row per policy."""
    from napsim.output import chartkit  # lazy: matplotlib is heavy

    df = lad.frame()
    m = lad.metrics[0]
    part = df[(df["metric"] == m) & ~df["reference"]]
    ref = short(lad.side_policies[0])
    keys = list(lad.side_keys) if lad.side == "*" or lad.over is None else [lad.side]
    colours = chartkit.palette(len(lad.side_keys))
    if lad.over is None:
        fig, axes = chartkit.panels(len(keys), ncols=len(keys), w=4.4, h=2.8)
        for ax, key in zip(axes, keys, strict=True):
            rows = part[part["side_key"] == key].reset_index(drop=True)
            ax.errorbar(rows["difference"], range(len(rows)), xerr=rows["ci_high"] - rows["difference"],
                        fmt="o", color=colours[lad.side_keys.index(key)], elinewidth=3, capsize=3)
            ax.set_yticks(range(len(rows)), [short(p) for p in rows["policy"]])
            ax.set_ylim(-0.7, len(rows) - 0.3)
            ax.axvline(0, color="0.5", linewidth=0.8)
            side = rows["side"].iloc[0]
            ax.set_title(textwrap.fill(f"{metric_title(m, side)}, {side}", 45))
            ax.set_xlabel(f"policy - {ref}")
    else:
        cells = [(key, p) for key in keys for p in lad.side_policies[1:]]
        fig, axes = chartkit.panels(len(cells), ncols=len(lad.side_policies) - 1, w=3.8, h=2.9)
        for ax, (key, p) in zip(axes, cells, strict=True):
            rows = part[(part["side_key"] == key) & (part["policy"] == p)]
            c = colours[lad.side_keys.index(key)]
            chartkit.band(ax, rows["value"], rows["ci_low"], rows["ci_high"], c, lw=1.2, alpha=0.25,
                          label="paired 95% interval")
            ax.plot(rows["value"], rows["difference"], "o-", color=c, markersize=4)
            ax.axhline(0, color="0.5", linewidth=0.8)
            side = rows["side"].iloc[0]
            ax.set_title(textwrap.fill(f"{short(p)} - {ref} ({side})", 45))
            ax.set_xlabel(over_title(lad))
            ax.set_ylabel(textwrap.fill(metric_title(m, side), 30))
    who = "both sides" if lad.side == "*" else lad.side_names[lad.side_keys.index(lad.side)]
    fig.suptitle(f"{lad.scenario}: {who} playing each policy, minus {ref}, on the same games (paired 95% "
                 f"intervals, {lad.games:,} games per policy and value)", fontsize=9)
    chartkit.deck_note(fig, [lad.deck_warning])
    return fig
