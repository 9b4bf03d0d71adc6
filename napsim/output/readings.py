"""The readings report (`napsim readings`, `napsim regen`): readings.csv, report.md and
manifest.json of the rows `napsim.study.readings.run_readings` computed."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from napsim.model.defaults import __version__
from napsim.model.glossary import CARD_FLOW
from napsim.model.house_rules import HOUSE_OPTIONS
from napsim.output.folders import check_result_dest, manifest, write_result_folder
from napsim.study.readings import MATTERS_RELATIVE, ReadingsSpec, case_label

READINGS_FILES = ("readings.csv", "report.md", "manifest.json")  # all `napsim readings` writes


def check_dest(dest: str | Path, force: bool) -> Path:
    """The destination folder, refused (before playing) when it cannot be written, or holds results
    and not `force`, or is not a readings folder napsim wrote (`napsim.output.folders`)."""
    return check_result_dest(dest, force, READINGS_FILES)


def sentence(r: dict) -> str:
    """The finding of one row in words, computed from its numbers."""
    change = (f"{r['difference']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] {r['unit']} "
              f"({r['relative_change']:+.1%})")
    verdict = "matters" if r["matters"] else (
        "changes it by under 1%" if (r["ci_low"] > 0 or r["ci_high"] < 0) else "has no measurable effect")
    return (f"On {r['scenario']}, `{r['option']} = \"{r['alternative']}\"` instead of "
            f"\"{r['default']}\" {verdict} for {r['side']} ({r['title']}): {change}, "
            f"n = {r['n']:,} paired games.")


def report_markdown(spec: ReadingsSpec, df: pd.DataFrame) -> str:
    """report.md: the findings first, then one table per option (a file of house rules only: what
    each house rule does against the rule as written, and its orders per card by format)."""
    house = bool(len(df)) and set(df["option"]) <= set(HOUSE_OPTIONS)
    what = "what the house rules do" if house else "which open readings of the rules matter"
    lines = [f"# {spec.name}: {what}", ""]
    if spec.description:
        lines += [spec.description, ""]
    if house:
        lines += ["Each house rule (docs/rules.md, \"House rules\") is played as written and with the "
                  "house rule on the same games: same seed and game indices, so the differences are "
                  "paired. Values and differences have 95% normal intervals of the per-game means; n "
                  f"counts paired games. A house rule *matters* when the interval excludes zero and the "
                  f"change is at least {MATTERS_RELATIVE:.0%} of the value as written.", ""]
        lines += per_card_lines(df)
    lines += [] if house else [
              "Each rule option (docs/rules.md, \"Rule options\") is played with its default (the reading "
              "that gives every clause of the rule a meaning) and its alternative on the "
              "same games: same seed and game indices, so the differences are paired. Intervals "
              "are 95% normal intervals of the mean per-game difference. A reading *matters* when "
              "the interval excludes zero and "
              f"the change is at least {MATTERS_RELATIVE:.0%} of the default's value.", "",
              f"*{CARD_FLOW}*", ""]
    return "\n".join(lines + _findings_and_tables(spec, df))


def per_card_lines(df: pd.DataFrame) -> list[str]:
    """The house rule's argument in numbers: effective orders per Command card played, by format,
    as written and with the house rule (the first side of each case), and a sentence from them."""
    rows = df[df["headline"] == "card_orders_per_card"]
    if rows.empty:
        return []
    rows = rows.groupby("scenario", sort=False).head(1)
    out = ["## Orders per card, by format", "",
           "| case | format | side | as written [95% CI] | with the house rule [95% CI] "
           "| difference [95% CI] | n |",
           "|---|---|---|---|---|---|---|"]
    for _, r in rows.iterrows():
        out.append(f"| {r['scenario']} | {r['format']} | {r['side']} "
                   f"| {_ci(r['value_default'], r['half_width_default'])} "
                   f"| {_ci(r['value_alternative'], r['half_width_alternative'])} | {r['difference']:+.3f} "
                   f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['n']:,} |")
    std = rows[rows["format"] == "standard"]
    epic = rows[rows["format"] != "standard"]
    if len(std) and len(epic):
        s0 = std.iloc[0]
        lo, hi = epic["value_default"].min(), epic["value_default"].max()
        hlo, hhi = epic["value_alternative"].min(), epic["value_alternative"].max()
        base = s0["value_default"]
        written = epic["value_default"].to_numpy() - base
        housed = epic["value_alternative"].to_numpy() - base
        out += ["", f"A Command card orders {_ci(base, s0['half_width_default'])} units in the standard "
                f"game ({s0['side']}, its own deck, {s0['n']:,} games). "
                f"In EPIC ({', '.join(epic['format'])}) a card orders {lo:.3f} to {hi:.3f} as written, "
                f"{_gap(written)} the standard game, and "
                f"{hlo:.3f} to {hhi:.3f} with the house rule, {_gap(housed)} it; the house rule adds "
                f"{epic['difference'].min():+.3f} to {epic['difference'].max():+.3f} orders a card "
                "(paired intervals in the table)."]
    return out + [""]


def _gap(d) -> str:
    """'0.31 to 0.33 fewer than' / 'more than': a range of differences from the standard game."""
    word = "fewer than" if (d < 0).all() else "more than" if (d > 0).all() else "around"
    a = abs(d)
    return f"{a.min():.3f} to {a.max():.3f} {word}"


def _ci(v: float, h: float) -> str:
    return f"{v:.3f} [{v - h:.3f}, {v + h:.3f}]"


def _findings_and_tables(spec: ReadingsSpec, df: pd.DataFrame) -> list[str]:
    lines: list[str] = []
    lines += ["## Findings", ""]
    big = df[df["matters"]].assign(a=lambda x: x["relative_change"].abs()).sort_values("a", ascending=False)
    quiet = sorted(set(df["option"]) - set(big["option"]))
    for _, r in big.groupby("option", sort=False).head(1).iterrows():
        lines.append(f"- {sentence(r.to_dict())}")
    if quiet:
        lines.append("- No measurable effect of at least 1% on any headline number: "
                     + ", ".join(f"`{o}`" for o in quiet) + ".")
    lines.append("")
    for option, part in df.groupby("option", sort=False):
        default, alternative = part.iloc[0]["default"], part.iloc[0]["alternative"]
        lines += [f"## `{option}`: \"{alternative}\" against \"{default}\"", ""]
        lines += ["| scenario | headline | side | default | alternative | difference [95% CI] | "
                  "change | n | matters |", "|---|---|---|---|---|---|---|---|---|"]
        for _, r in part.iterrows():
            lines.append(
                f"| {r['scenario']} | {r['title']} ({r['unit']}) | {r['side']} | "
                f"{r['value_default']:.3f} | {r['value_alternative']:.3f} | {r['difference']:+.3f} "
                f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] | {r['relative_change']:+.1%} | "
                f"{r['n']:,} | {'yes' if r['matters'] else 'no'} |")
        lines.append("")
    lines += [f"napsim {__version__}; readings file `{spec.path.name}`, seed {spec.seed}.", ""]
    return lines


def write_readings_folder(spec: ReadingsSpec, df: pd.DataFrame, dest: str | Path, games: int | None,
                          wall_seconds: float, force: bool = False) -> Path:
    """Write readings.csv, report.md and manifest.json as the folder dest, whole or not at all
    (`napsim.output.folders.write_result_folder`)."""
    meta = manifest({"readings_file": spec.path.name, "seed": spec.seed, "games": games or spec.games,
                     "cases": [[o, case_label(s, sets)] for o, s, sets in spec.cases],
                     "wall_seconds": round(wall_seconds, 1)})
    files = {
        "readings.csv": lambda p: df.to_csv(p, index=False),
        "report.md": lambda p: p.write_text(report_markdown(spec, df), encoding="utf-8"),
        "manifest.json": lambda p: p.write_text(json.dumps(meta, indent=2) + "\n"),
    }
    return write_result_folder(dest, force, READINGS_FILES, files)
