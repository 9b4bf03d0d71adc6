"""The words, table, tornado chart and folder of `napsim sensitivity` (which unknown card counts
matter): findings computed from the per-card effects that `napsim.study.sensitivity` played."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from napsim.model.metrics import describe, parameter_title
from napsim.output.folders import check_result_dest, manifest, write_result_folder
from napsim.output.formatting import render
from napsim.study.sensitivity import Sensitivity

FILES = ("sensitivity.csv", "ensemble_check.csv", "report.md", "tornado.svg", "tornado.png", "manifest.json")
TOP = 3  # card types named in the first finding
# the committed answers of `napsim sensitivity` per deck (results/sensitivity/<name>/ in the repository)
COMMITTED = {"gmt90": {"flagship": "effective orders a turn at hand 6 on the symmetric scenario",
                       "tamames_crossing": "the Spanish hand size that evens Tamames"}}


def committed_text(deck: str) -> str | None:
    """The `napsim decks show` line that points to the committed rankings of this deck's counts."""
    got = COMMITTED.get(deck)
    if not got:
        return None
    return ("which of these counts matter most: results/sensitivity/ ranks them ("
            + "; ".join(f"{name}: {what}" for name, what in got.items())
            + "); `napsim sensitivity --scenario NAME` ranks them for any question")


def question_words(r: Sensitivity) -> tuple[str, str]:
    """(the answer in words, its unit): 'Blue's effective orders a turn', 'orders a turn'."""
    q, names = r.question, r.side_names or {}
    info = describe(q.metric)
    if q.kind == "side":
        return f"{names.get(q.sides[0], q.sides[0])}'s {info.phrase}", info.unit
    first, second = (names.get(k, k) for k in q.sides)
    if q.kind == "gap":
        return f"the gap in {info.phrase}, {second} - {first}", info.unit
    path = q.vary.partition("=")[0]
    what = parameter_title(path, names)
    return (f"the crossing of {what} (where {first} and {second} {info.phrase} are equal)",
            "of the setting")


def _ci(v: float, lo: float, hi: float) -> str:
    return f"{v:+.3f} [{lo:+.3f}, {hi:+.3f}]"


def _step(row) -> str:
    """'one more Elan card' / 'one more of each of Scout Left + Scout Right'."""
    return (f"one more {row['card_type']} card" if row["cards_per_step"] == 1
            else f"one more of each of {row['card_type']}")


def findings(r: Sensitivity) -> list[str]:
    """The sentences the report opens with, computed from the numbers."""
    what, unit = question_words(r)
    f = r.frame
    a = r.answer
    h = a.half_width
    out = [f"On the deck file's counts ('{r.deck.name}'), {what} is {a.value:.3f} [{a.value - h:.3f}, "
           f"{a.value + h:.3f}] ({r.games:,} games, the same games on every deck below)."]
    clear = f[~f["inside_noise"]]
    if len(clear):
        top = clear.head(TOP)
        first = top.iloc[0]
        more = "; then " + "; ".join(f"{t['card_type']} {_ci(t['per_card'], t['ci_low'], t['ci_high'])}"
                                     for _, t in top.iloc[1:].iterrows()) if len(top) > 1 else ""
        out.append(f"{what[0].upper() + what[1:]} moves most with the count of {first['card_type']}: "
                   f"{_ci(first['per_card'], first['ci_low'], first['ci_high'])} {unit} per step "
                   f"({_step(first)}){more}.")
    quiet = f[f["inside_noise"]]
    kinds = "estimated card types" if not r.all_types else "card types"
    if (f["cards_per_step"] > 1).any():
        kinds += " (tied rows, such as Left and Right, move together)"
    if len(quiet):
        names = ", ".join(quiet["card_type"].head(8)) + (", ..." if len(quiet) > 8 else "")
        out.append(f"{len(quiet)} of the {len(f)} {kinds} move it by less than its Monte Carlo noise "
                   f"(a 95% interval per step that includes 0): {names}.")
    else:
        out.append(f"Every one of the {len(f)} {kinds} moves it by more than its Monte Carlo noise.")
    if r.check is not None:
        out.append(check_sentence(r.check, unit))
    return out


def check_sentence(c: dict, unit: str) -> str:
    """How close the per-card effects, added up over the ranges, come to the deck ensemble."""
    if c["answered"] < 2:
        return (f"The deck ensemble check needs two plausible decks with an answer; {c['answered']} of "
                f"{c['decks']} had one.")
    ratio = c["sd_predicted"] / c["sd_played"] if c["sd_played"] > 0 else math.nan
    close = ("close to" if 0.8 <= ratio <= 1.25 and c["correlation"] >= 0.9 else
             "a rough guide to" if c["correlation"] >= 0.6 else "far from")
    return (f"Added up over the ranges (first order), the per-step effects predict the answers on "
            f"{c['answered']} plausible decks with a spread (sd) of {c['sd_predicted']:.3f} against "
            f"{c['sd_played']:.3f} played ({c['min_played']:.3f} to {c['max_played']:.3f}); predicted and "
            f"played correlate at {c['correlation']:.2f}, with a typical error of {c['rms_error']:.3f} "
            f"against a Monte Carlo half-width of {c['mc_half_width']:.3f} {unit}: the first-order picture "
            f"is {close} the deck ensemble's spread.")


def table(r: Sensitivity) -> pd.DataFrame:
    """The per-card frame with the question's words (what is moved, unit) beside the numbers."""
    what, unit = question_words(r)
    f = r.frame.copy()
    f.insert(1, "answer", what)
    f.insert(2, "unit", unit)
    return f


def sensitivity_text(r: Sensitivity, table_format: str) -> str:
    """What `napsim sensitivity` prints: the findings and the ranked table, or CSV, or JSON."""
    warnings = [w for w in [r.deck.estimated_warning()] if w]
    if table_format == "json":
        body = json.loads(render(table(r), "json", warnings))
        body["findings"] = findings(r)
        body["answer"] = dict(value=r.answer.value, half_width=r.answer.half_width, games=r.games)
        if r.check is not None:
            body["ensemble_check"] = r.check
        return json.dumps(body, indent=2, default=str)
    if table_format == "csv":
        return render(table(r), "csv", warnings)
    view = r.frame[["rank", "card_type", "count", "count_min", "count_max", "change_down", "change_up",
                    "per_card", "ci_low", "ci_high", "inside_noise"]].round(4)
    return "\n".join([*findings(r), "", render(view, "table", warnings)])


def tornado_figure(r: Sensitivity):
    """Card types ranked top down: the change one card down and one up, with 95% intervals."""
    from napsim.output import chartkit  # lazy: matplotlib is heavy, and only charts need it

    f = r.frame
    what, unit = question_words(r)
    fig, (ax,) = chartkit.panels(1, w=7.5, h=max(3.0, 0.32 * len(f) + 1.4))
    down_c, up_c = chartkit.palette(2)
    y = list(range(len(f)))[::-1]
    for key, color, label in (("down", down_c, "one card down"), ("up", up_c, "one card up")):
        v = f[f"change_{key}"].to_numpy(float)
        err = [v - f[f"{key}_low"].to_numpy(float), f[f"{key}_high"].to_numpy(float) - v]
        ax.barh(y, v, color=color, alpha=0.75, height=0.7, label=label)
        ax.errorbar(v, y, xerr=err, fmt="none", ecolor="0.2", elinewidth=0.8, capsize=2)
    ax.axvline(0, color="0.4", linewidth=0.8)
    ax.set_yticks(y)
    ax.set_yticklabels([f"{n} ({c}{' each' if k > 1 else ''})" for n, c, k in
                        zip(f["card_type"], f["count"], f["cards_per_step"], strict=True)], fontsize=8)
    ax.set_xlabel(f"change of the answer ({unit}); bars: 95% intervals, paired")
    ax.set_title(f"Which card counts move {what}\n({r.games:,} games on every deck)", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)
    chartkit.deck_note(fig, [r.deck.estimated_warning()])
    return fig


def report_markdown(r: Sensitivity, command: str) -> str:
    """report.md: the findings, the ranked table, the chart and the ensemble check."""
    what, unit = question_words(r)
    lines = [f"# Which card counts matter: {what}", ""]
    lines += [f"- {s}" for s in findings(r)] + [""]
    lines += ["Each card type's count moves one card down and one card up within its plausible range "
              "(tied rows move together: one more of each), every other count kept; the file's deck "
              "and every moved deck play the same games, so each change is paired (95% intervals from "
              "the per-game influences). *Per step*: half the difference up minus down, or the one "
              "change where the count sits at an end of its range.", "",
              "![tornado](tornado.png)", "",
              f"| rank | card type | count (range) | one down | one up | per step [95% CI] ({unit}) | "
              "inside noise |", "|---|---|---|---|---|---|---|"]
    for _, t in r.frame.iterrows():
        down = "-" if math.isnan(t["change_down"]) else _ci(t["change_down"], t["down_low"], t["down_high"])
        up = "-" if math.isnan(t["change_up"]) else _ci(t["change_up"], t["up_low"], t["up_high"])
        lines.append(f"| {t['rank']} | {t['card_type']} | {t['count']} ({t['count_min']}-{t['count_max']}) | "
                     f"{down} | {up} | {_ci(t['per_card'], t['ci_low'], t['ci_high'])} | "
                     f"{'yes' if t['inside_noise'] else 'no'} |")
    lines.append("")
    if r.check is not None:
        c = r.check
        lines += ["## Against the deck ensemble", "",
                  f"{c['decks']} plausible decks (seed {c['deck_seed']}), the same games: "
                  "ensemble_check.csv has each deck's answer beside the one the per-step effects predict.",
                  "", "| | played | predicted (first order) |", "|---|---|---|",
                  f"| sd across decks | {c['sd_played']:.4f} | {c['sd_predicted']:.4f} |",
                  f"| range | {c['min_played']:.3f} to {c['max_played']:.3f} | "
                  f"{c['min_predicted']:.3f} to {c['max_predicted']:.3f} |",
                  f"| correlation | {c['correlation']:.3f} | |",
                  f"| typical error (rms) | {c['rms_error']:.4f} | |",
                  f"| Monte Carlo half-width, largest | {c['mc_half_width']:.4f} | |", ""]
    warn = r.deck.estimated_warning()
    lines += [f"> {warn}", ""] if warn else []
    lines += ["Regenerate:", "", "```", command, "```", ""]
    return "\n".join(lines)


def check_dest(dest: str | Path, force: bool) -> Path:
    """The folder, refused before anything is played when it cannot be written (`output.folders`)."""
    return check_result_dest(dest, force, FILES)


def write_folder(r: Sensitivity, dest: str | Path, command: str, force: bool = False) -> Path:
    """sensitivity.csv, ensemble_check.csv (with --deck-ensemble), report.md, tornado.svg/.png and
    manifest.json as the folder dest, whole or not at all."""
    from napsim.output.chartkit import render as render_chart  # lazy: matplotlib is heavy

    chart = render_chart(tornado_figure(r), "tornado", "", "", png=True)
    q = r.question
    meta = manifest({"question": dict(kind=q.kind, metric=q.metric, sides=list(q.sides), vary=q.vary),
                     "scenario": r.base.scenario, "overrides": [list(o) for o in r.base.overrides],
                     "deck": r.deck.name, "policy": r.base.policy, "games": r.games, "seed": r.seed,
                     "all_types": r.all_types, "command": command, "ensemble_check": r.check})
    files = {
        "sensitivity.csv": lambda p: table(r).to_csv(p, index=False, float_format="%.6g"),
        "report.md": lambda p: p.write_text(report_markdown(r, command), encoding="utf-8"),
        "tornado.svg": lambda p: p.write_bytes(chart.svg),
        "tornado.png": lambda p: p.write_bytes(chart.png),
        "manifest.json": lambda p: p.write_text(json.dumps(meta, indent=2, default=str) + "\n"),
    }
    if r.check_frame is not None:
        files["ensemble_check.csv"] = lambda p: r.check_frame.to_csv(p, index=False, float_format="%.6g")
    return write_result_folder(dest, force, FILES, files)
