"""What `napsim compare` and `napsim balance` show, the variants commands: sentences built from
the numbers of `napsim.study.variants.compare_variants` and `napsim.study.balance.find_balance`,
the three output formats, and their charts (matplotlib: imported only when a chart is drawn).
The report folder of a variants file (`napsim regen`) is `napsim.output.variants_report`.
"""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

from napsim.model.errors import NapsimInputError
from napsim.model.metrics import OPPONENT, describe, metric_title, parameter_title, policy_words, value_words
from napsim.model.policies import parse_policy_option
from napsim.output.balance_words import bracket_sentence, difference_label, no_crossing_sentence
from napsim.output.findings import deck_note, render_plain
from napsim.output.findings.variants import balance_findings, compare_findings
from napsim.output.formatting import _json_value, render
from napsim.study.balance import Balance
from napsim.study.variants import Comparison, Variant, base_value

CHART_SUFFIXES = (".png", ".svg")


def metric_words(metric: str) -> tuple[str, bool]:
    """A metric inside a sentence and whether it counts things, from the catalogue
    (`napsim.model.metrics`): "0.41 fewer effective orders a turn", else "0.02 lower <words>"."""
    info = describe(metric)
    return info.phrase, info.countable


def decimals(half: float) -> int:
    """Decimals that show a 95% half-width to two significant digits (2-6)."""
    if not math.isfinite(half) or half <= 0:
        return 3
    return int(min(6, max(2, 1 - math.floor(math.log10(half)))))


NOT_COMPARABLE = "not comparable"


def number_text(v: float, d: int) -> str:
    return NOT_COMPARABLE if not math.isfinite(v) else f"{v:.{d}f}"


def interval_text(v: float, lo: float, hi: float) -> str:
    """'+0.478 [+0.462, +0.495]': decimals from the half-width; 'not comparable' for a difference
    that does not exist (a metric one variant does not count)."""
    if not math.isfinite(v):
        return NOT_COMPARABLE
    d = decimals((hi - lo) / 2)
    return f"{_signed(v, d)} [{_signed(lo, d)}, {_signed(hi, d)}]"


def _signed(v: float, d: int) -> str:
    """A signed number, never '-0.000' (a tiny negative rounds to +0.000)."""
    text = f"{v:+.{d}f}"
    return f"{0.0:+.{d}f}" if math.isfinite(v) and float(text) == 0 else text


# --------------------------------------------------------------------------------------------
# compare


def _differences(a: Variant, b: Variant, names: dict[str, str] | None) -> list[tuple[str, str, str]]:
    """What differs between A and B: (what, A's value, B's value), in words."""
    out = []
    if a.scenario != b.scenario:
        out.append(("Scenario", a.scenario, b.scenario))
    keys = list(dict.fromkeys([k for k, _ in a.overrides] + [k for k, _ in b.overrides]))
    for k in keys:
        va, vb = base_value(a, k), base_value(b, k)
        if va != vb:
            out.append((parameter_title(k, names), _value(k, va), _value(k, vb)))
    if a.deck != b.deck:
        out.append(("Command deck", a.deck or "the scenario's", b.deck or "the scenario's"))
    if a.policy != b.policy:
        out += _policy_differences(a.policy, b.policy, names)
    return out


def _policy_differences(pa: str, pb: str, names: dict[str, str] | None) -> list[tuple[str, str, str]]:
    """Each side whose policy differs, its A and B policies in words (`policy_words`: 'planning play
    (lookahead: 4 rollouts per candidate, ...)', not the option's text); one row for both sides
    when every side changes alike."""
    wa = [policy_words(n, o) for n, o in parse_policy_option(pa)]
    wb = [policy_words(n, o) for n, o in parse_policy_option(pb)]
    keys = list(names or {})
    if len(wa) != len(wb) or len(keys) != len(wa):
        return [("Policies", ", ".join(wa), ", ".join(wb))]
    if len(set(wa)) == len(set(wb)) == 1 and len(wa) > 1:
        return [(parameter_title("policy.*", names), wa[0], wb[0])]
    return [(parameter_title(f"policy.{k}", names), x, y) for k, x, y in zip(keys, wa, wb, strict=True)
            if x != y]


def variant_labels(a: Variant, b: Variant, names: dict[str, str] | None = None) -> tuple[str, str]:
    """What differs between A and B, in words for each ('Guerrilla counters at the start, Spanish:
    3', '... : 0'); `names` gives the side names of the scenario ({'S': 'Spanish'})."""
    diff = _differences(a, b, names)
    la = "; ".join(f"{w}: {va}" for w, va, _ in diff)
    lb = "; ".join(f"{w}: {vb}" for w, _, vb in diff)
    return (la or "the same settings"), (lb or "the same settings")


def instead(a: Variant, b: Variant, names: dict[str, str] | None = None) -> str:
    """'Guerrilla counters at the start, Spanish at 0 instead of 3' (one setting differs), else
    'B's settings instead of A's'."""
    diff = _differences(a, b, names)
    if len(diff) == 1:
        what, va, vb = diff[0]
        return f"{what} at {vb} instead of {va}"
    la, lb = variant_labels(a, b, names)
    return f"{lb} instead of {la}"


def _value(path: str, v) -> str:
    return "(not set)" if v is None else value_words(path, v)


def compare_sentence(r: dict, change: str) -> str:
    """'With Guerrilla counters at the start, Spanish at 0 instead of 3, the French get 0.48 [0.46,
    0.49] more effective orders a turn (+7.0% of their 6.84; n = 5,000 paired games).' A metric
    the other side's counters cause (rule G7) reads 'the Spanish counters cause'."""
    words, countable = metric_words(r["metric"])
    d = decimals(r["half_width"])
    diff, lo, hi = r["difference"], r["ci_low"], r["ci_high"]
    opponent = describe(r["metric"]).viewpoint == OPPONENT
    head = (f"With {change}, the {r['side']}" if change else f"The {r['side']}") + (
        " counters" if opponent else "")
    get = "cause" if opponent else "get"
    tail = f"n = {int(r['n']):,} paired games"
    if not math.isfinite(diff):
        return f"{head}: not comparable ({words} counts nothing in one variant; {tail})."
    rel = (f"{r['relative_change']:+.1%} of their {number_text(r['a'], d)}; "
           if math.isfinite(r["relative_change"]) else "")
    if lo <= 0 <= hi:
        if lo == hi == 0:
            return f"{head} {get} exactly the same {words}: {number_text(r['a'], d)} ({tail})."
        return f"{head} show no clear difference in {words}: {interval_text(diff, lo, hi)} ({rel}{tail})."
    up = diff > 0
    how = ("more" if up else "fewer") if countable else ("higher" if up else "lower")
    lo_abs, hi_abs = sorted((abs(lo), abs(hi)))
    return (f"{head} {get} {abs(diff):.{d}f} [{lo_abs:.{d}f}, {hi_abs:.{d}f}] {how} {words} "
            f"({rel}{tail}).")


def gap_sentence(gap: dict | None) -> str:
    """The headline of a comparison: the gap between the sides in the main metric in A and in B
    and its paired change, 'The gap in effective orders a turn, Spanish minus French, goes from
    +0.751 with A to +0.238 with B: a change of -0.513 [-0.530, -0.497] (paired over 4,000 games),
    the gap narrows.' ('' without a gap: a side that counts nothing)."""
    if gap is None or not math.isfinite(gap["difference"]):
        return ""
    d = decimals(max(gap["half_width"], 1e-12))
    lo, hi, a, b = gap["ci_low"], gap["ci_high"], gap["a"], gap["b"]
    clear_a, clear_b = abs(a) > gap["a_half_width"], abs(b) > gap["b_half_width"]
    if lo <= 0 <= hi:
        verdict = "no clear change in the gap"
    elif clear_a and clear_b and (a > 0) != (b > 0):
        verdict = f"the lead changes sides, to the {gap['second'] if b > 0 else gap['first']}"
    else:
        verdict = "the gap narrows" if abs(b) < abs(a) else "the gap widens"
    words = describe(gap["metric"]).phrase
    return (f"The gap in {words}, {gap['second']} minus {gap['first']}, goes from {_signed(a, d)} with A "
            f"to {_signed(b, d)} with B: a change of {interval_text(gap['difference'], lo, hi)} (paired "
            f"over {int(gap['n']):,} games), {verdict}.")


def sides_sentence(df: pd.DataFrame) -> str:
    """Each side's own change in the main metric, after the gap: 'Each side's own change: the
    Spanish get 0.534 [0.518, 0.550] fewer effective orders a turn (-7.0%), the French 0.021
    [0.002, 0.039] fewer (-0.3%).'"""
    main = df[(df["metric"] == df["metric"].iloc[0]) & df["difference"].map(math.isfinite)]
    if main.empty:
        return ""
    words, countable = metric_words(main["metric"].iloc[0])
    parts = []
    for i, r in enumerate(main.loc[main["difference"].abs().sort_values(ascending=False).index]
                          .to_dict("records")):
        d = decimals(r["half_width"])
        lo, hi = sorted((abs(r["ci_low"]), abs(r["ci_high"])))
        rel = f" ({r['relative_change']:+.1%})" if math.isfinite(r["relative_change"]) else ""
        if r["ci_low"] <= 0 <= r["ci_high"]:
            inter = interval_text(r["difference"], r["ci_low"], r["ci_high"])
            parts.append(f"the {r['side']} show no clear change ({inter})")
            continue
        up = r["difference"] > 0
        how = ("more" if up else "fewer") if countable else ("higher" if up else "lower")
        unit = f" {words}" if i == 0 else ""
        get = "get " if i == 0 else ""
        parts.append(f"the {r['side']} {get}{abs(r['difference']):.{d}f} [{lo:.{d}f}, {hi:.{d}f}] "
                     f"{how}{unit}{rel}")
    return "Each side's own change: " + ", ".join(parts) + "."


def with_sentences(cmp: Comparison) -> pd.DataFrame:
    """The comparison frame with a `sentence` column; where several settings change, the sentences
    leave them out (the A and B lines above them list the changes once)."""
    several = len(_differences(cmp.a, cmp.b, cmp.side_names)) > 1
    change = "" if several else instead(cmp.a, cmp.b, cmp.side_names)
    df = cmp.frame.copy()
    df.insert(df.columns.get_loc("metric") + 1, "title",
              [metric_title(m, side) for m, side in zip(df["metric"], df["side"], strict=True)])
    df["sentence"] = [compare_sentence(r, change) for r in df.to_dict("records")]
    return df


def pairing_line(df: pd.DataFrame) -> str:
    """How much pairing bought on the first metric: the half-widths side by side."""
    first = df[df["metric"] == df["metric"].iloc[0]]
    parts = []
    for r in first.to_dict("records"):
        p, u = r["half_width"], r["half_width_unpaired"]
        d = decimals(p if p > 0 else u)
        gain = f"{(u / p) ** 2:.1f}x the games" if p > 0 else "exact"
        parts.append(f"{r['side']} ±{p:.{d}f} paired against ±{u:.{d}f} unpaired ({gain})")
    return f"pairing ({metric_words(df['metric'].iloc[0])[0]}): " + "; ".join(parts)


def _notes(decks) -> list:
    return list({d.name: deck_note(d) for d in decks}.values())


def compare_text(cmp: Comparison, table_format: str, warnings: list[str],
                 spread: pd.DataFrame | None = None) -> str:
    """The comparison as a table (opening with its findings, then the table, the pairing line and
    the sentences), CSV or JSON; `spread`: a deck ensemble's summary, for the findings."""
    df = with_sentences(cmp)
    la, lb = variant_labels(cmp.a, cmp.b, cmp.side_names)
    notes = [f"A: {la}", f"B: {lb}", f"{cmp.games:,} games each (seed {cmp.seed}), the same games in both"]
    if cmp.target_error is not None:
        notes.append(f"target error ±{cmp.target_error:g} on {metric_words(df['metric'].iloc[0])[0]}: "
                     + ("reached" if cmp.target_reached else "not reached within --games"))
    if table_format != "table":
        return render(df, table_format, [*warnings, *notes])
    view = pd.DataFrame({
        "side": df["side"], "measure": df["title"],
        "A": [number_text(v, decimals(h)) for v, h in zip(df["a"], df["half_width"], strict=True)],
        "B": [number_text(v, decimals(h)) for v, h in zip(df["b"], df["half_width"], strict=True)],
        "B - A [95% CI]": [interval_text(*v) for v in zip(df["difference"], df["ci_low"], df["ci_high"],
                                                           strict=True)],
        "change": [f"{v:+.1%}" if math.isfinite(v) else "-" for v in df["relative_change"]],
        "±paired": [number_text(v, decimals(v)) for v in df["half_width"]],
        "±unpaired": [number_text(v, decimals(v)) for v in df["half_width_unpaired"]],
        "n": df["n"],
    })
    found = compare_findings(df, _notes(s.deck for s in cmp.sims), spread,
                             (gap_sentence(cmp.gap), sides_sentence(df)))
    lines = [*warnings, *notes, "", "Findings:", *render_plain(found), "", render(view, "table"), "",
             pairing_line(df), ""]
    lines += [t for t in (gap_sentence(cmp.gap), sides_sentence(df)) if t] + df["sentence"].tolist()
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# balance


def f_name(b: Balance) -> str:
    """The searched difference by metric name and side key (CSV and JSON: for scripts)."""
    if len(b.sides) == 2:
        return f"{b.metric}[{b.side_keys[b.sides[1]]}] - {b.metric}[{b.side_keys[b.sides[0]]}]"
    return f"{b.metric}[{b.side_keys[b.sides[0]]}] - {b.target:g}"


def f_words(b: Balance, in_sentence: bool = False) -> str:
    """The searched difference in words: 'Effective orders a turn, Spanish minus French' (inside a
    sentence: 'effective orders a turn, ...')."""
    title = describe(b.metric).phrase if in_sentence else describe(b.metric).title
    if len(b.sides) == 2:
        return f"{title}, {b.side_names[b.sides[1]]} minus {b.side_names[b.sides[0]]}"
    return f"{title}, {b.side_names[b.sides[0]]} minus {b.target:g}"


def vary_title(b: Balance) -> str:
    """The searched parameter in words: 'Command hand size, Spanish'."""
    return parameter_title(b.vary.path, dict(zip(b.side_keys, b.side_names, strict=True)))


def balance_sentence(b: Balance) -> str:
    """The answer in whole settings: 'With 4 Spanish cards in hand the French lead by 0.30 [0.29,
    0.32] effective orders a turn; with 5 the Spanish lead by 0.24 [0.22, 0.25]; the even point
    lies between, at 4.56 [4.54, 4.58] (Command hand size, Spanish; 4,000 games per setting, 5
    settings played).' Without a crossing in the range: who leads at every setting played, by how
    much at the ends (an answer, not an error)."""
    played = f"{b.games:,} games per setting, {len(b.settings)} settings played"
    if not b.crossed:
        return f"{no_crossing_sentence(b)}; {played}."
    v, lo, hi = b.crossing
    d = crossing_decimals(b, (hi - lo) / 2)
    return f"{bracket_sentence(b, f'{v:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]')} ({vary_title(b)}; {played})."


def crossing_decimals(b: Balance, half: float) -> int:
    if b.vary.integer:
        return decimals(half)
    return max(decimals(half), decimals((b.vary.high - b.vary.low) / 1e3))


def target_error_line(b: Balance) -> str | None:
    """What stopped a --target-error search, in numbers."""
    if b.target_error is None:
        return None
    if not b.crossed:
        return f"target error ±{b.target_error:g}: no crossing to measure ({b.games:,} games per setting)"
    if b.stopped == "target":
        return (f"target error ±{b.target_error:g} on the crossing: reached, ±{b.half_width:.3g} after "
                f"{b.games:,} games per setting")
    return (f"target error ±{b.target_error:g} on the crossing: not reached, ±{b.half_width:.3g} when the "
            f"--games cap of {b.games:,} games per setting stopped the search")


def balance_frame(b: Balance) -> pd.DataFrame:
    df = b.frame()
    df.attrs["crossing"] = dict(parameter=b.vary.path, crossed=b.crossed, value=b.crossing[0],
                                ci_low=b.crossing[1], ci_high=b.crossing[2], below=b.bracket[0],
                                above=b.bracket[1], difference=f_name(b), games=b.games, seed=b.seed,
                                target_error=b.target_error, stopped=b.stopped or None)
    return df


def balance_doc(b: Balance, warnings: list[str]) -> dict:
    """The JSON document of a balance: sentence, crossing and one row per setting."""
    df = balance_frame(b)
    rows = [{k: _json_value(v) for k, v in r.items()} for r in df.to_dict("records")]
    notes = [n for n in [target_error_line(b)] if n]
    return {"warnings": warnings, "notes": notes, "sentence": balance_sentence(b),
            "crossing": {k: _json_value(v) for k, v in df.attrs["crossing"].items()}, "rows": rows}


def balance_head(b: Balance, warnings: list[str]) -> list[str]:
    """The comment lines above a balance CSV: warnings, the sentence, the crossing in numbers."""
    c = balance_frame(b).attrs["crossing"]
    crossing = (f"crossing: {c['value']:.6g} [{c['ci_low']:.6g}, {c['ci_high']:.6g}]" if b.crossed
                else f"crossing: none in {b.vary.label(b.vary.low)}..{b.vary.label(b.vary.high)}")
    return [*warnings, balance_sentence(b), crossing, *[n for n in [target_error_line(b)] if n]]


def balance_text(b: Balance, table_format: str, warnings: list[str]) -> str:
    if table_format == "json":
        return json.dumps(balance_doc(b, warnings), indent=2, default=str)
    df = balance_frame(b)
    if table_format == "csv":
        return render(df, "csv", balance_head(b, warnings))
    view = df.copy()
    view[f"{difference_label(b).split(',')[0]} [95% CI]"] = [
        interval_text(*v) for v in zip(df["difference"], df["ci_low"], df["ci_high"], strict=True)]
    names = dict(zip(b.side_keys, b.side_names, strict=True))
    for col in [c for c in df.columns if c.startswith(f"{b.metric}[")]:
        view[col] = [f"{v:.4f}" for v in df[col]]
    view = view.drop(columns=["parameter", "difference", "ci_low", "ci_high"])
    view = view.rename(columns={"value": vary_title(b), **{f"{b.metric}[{k}]": n for k, n in names.items()}})
    notes = [n for n in [target_error_line(b)] if n]
    found = balance_findings(b, _notes([b.deck] if b.deck is not None else []))
    label = difference_label(b)
    return "\n".join([*warnings, "Findings:", *render_plain(found), "",
                      f"{label[:1].upper()}{label[1:]}, against {vary_title(b)} "
                      f"({describe(b.metric).phrase} per side):",
                      "", render(view, "table"), "", balance_sentence(b), *notes])


# --------------------------------------------------------------------------------------------
# charts


def check_chart_path(path: str | Path | None) -> Path | None:
    """A chart path is refused before any game is played: .png or .svg, in an existing folder."""
    if path is None:
        return None
    p = Path(path)
    if p.suffix.lower() not in CHART_SUFFIXES:
        raise NapsimInputError("--chart", "chart", f"'{p}' is not a .png or .svg file",
                               ", ".join(CHART_SUFFIXES))
    if not p.parent.is_dir():
        raise NapsimInputError("--chart", "chart", f"folder '{p.parent}' does not exist",
                               "an existing folder")
    if p.is_dir():
        raise NapsimInputError("--chart", "chart", f"'{p}' is a folder", "a file path")
    return p


def compare_figure(cmp: Comparison):
    """One panel per metric: B - A per side with its paired 95% interval (thick) and the unpaired
    one (thin), around a zero line."""
    from napsim.output import chartkit  # lazy: matplotlib is heavy, and only charts need it

    df = cmp.frame
    metrics = list(dict.fromkeys(df["metric"]))
    fig, axes = chartkit.panels(len(metrics), ncols=min(3, len(metrics)), w=3.6, h=2.6)
    colours = chartkit.palette(2)
    la, lb = variant_labels(cmp.a, cmp.b, cmp.side_names)
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


def played_runs(values) -> list[list[int]]:
    """Indices of settings played, split where a whole setting between two was not played (an
    integer range): a line or band is drawn inside a run only, never across a setting not played."""
    runs: list[list[int]] = []
    for i, v in enumerate(values):
        if runs and v - values[runs[-1][-1]] == 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def balance_figure(b: Balance):
    """The difference at every setting played, a point with its 95% interval (a band where whole
    settings follow one another), the zero line and the crossing with its interval; integer ticks
    for an integer setting."""
    from matplotlib.ticker import MaxNLocator

    from napsim.output import chartkit  # lazy: matplotlib is heavy, and only charts need it

    df = b.frame()
    fig, (ax,) = chartkit.panels(1, w=7.0, h=3.8)
    (c,) = chartkit.palette(1)
    x = df["value"].to_numpy(float)
    runs = played_runs(x) if b.vary.integer else [[i] for i in range(len(x))]
    for k, run in enumerate(r for r in runs if len(r) > 1):
        part = df.iloc[run]
        chartkit.band(ax, part["value"], part["ci_low"], part["ci_high"], c, lw=1.5, alpha=0.25,
                      label="95% interval" if k == 0 else None)
        ax.plot(part["value"], part["difference"], "-", color=c, linewidth=1.2)
    ax.errorbar(x, df["difference"], yerr=[df["difference"] - df["ci_low"], df["ci_high"] - df["difference"]],
                fmt="o", color=c, markersize=5, capsize=3, label=f"{difference_label(b)} (settings played)")
    ax.axhline(0, color="0.5", linewidth=0.8)
    v, lo, hi = b.crossing
    if b.crossed:
        ax.axvspan(lo, hi, color="0.3", alpha=0.15, linewidth=0)
        ax.axvline(v, color="0.3", linewidth=1, linestyle="--",
                   label=f"even point {v:.3g} [{lo:.3g}, {hi:.3g}]")
    if b.ensemble is not None:
        ens = b.ensemble.frame
        xs = ens.loc[(ens["deck_index"] >= 0) & ens["crossed"], "crossing"].to_numpy(float)
        if xs.size:
            ax.plot(xs, np.zeros_like(xs), "|", color="C3", markersize=14, markeredgewidth=1.2,
                    label=f"even point on {xs.size} of {b.ensemble.n} plausible decks")
    if b.vary.integer:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(vary_title(b))
    ax.set_ylabel(textwrap.fill(difference_label(b), 40))
    title = "no setting in the range evens the sides" if not b.crossed and len(b.sides) == 2 else (
        "no setting in the range reaches the target" if not b.crossed else "")
    ax.set_title(textwrap.fill(f"Balance over {vary_title(b)} ({b.games:,} games per setting)"
                               + (f": {title}" if title else ""), 75))
    ax.legend(loc="best")
    chartkit.deck_note(fig, [b.deck_warning])
    return fig
