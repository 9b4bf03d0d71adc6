"""The report of a variants file (`napsim regen`, `napsim.study.variants_file.load_variants_file`):
report.md with the findings first, then per entry its command line, its output as `napsim tune` /
a ladder (`napsim.output.ladder`) / `napsim balance` / `napsim compare` prints it, and its chart;
<name>.json and (but for a tune) <name>.png per entry; manifest.json. Written whole or not at all
(`napsim.output.folders.write_result_folder`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from napsim.model.defaults import __version__
from napsim.model.glossary import CARD_FLOW
from napsim.output.deck_ensemble import (
    balance_ensemble_doc,
    balance_ensemble_sentence,
    balance_ensemble_text,
    compare_ensemble_text,
    ensemble_frame,
    ensemble_sentence,
    heading,
)
from napsim.output.findings.ladder import ladder_sentences, shift_sentence
from napsim.output.folders import manifest, write_result_folder
from napsim.output.formatting import _json_value
from napsim.output.ladder import ladder_doc, ladder_figure, ladder_text
from napsim.output.variants import (
    balance_doc,
    balance_figure,
    balance_text,
    compare_figure,
    compare_text,
    gap_sentence,
    sides_sentence,
    with_sentences,
)
from napsim.study.variants_file import VariantsEntry, VariantsFile


@dataclass
class Answer:
    """One entry's answer: a `Tuned`, a `Ladder`, a `Balance` (with its ensemble, if any) or a
    `Comparison` and its `DeckEnsemble` (or None), and the deck warnings."""

    entry: VariantsEntry
    result: object
    ensemble: object = None
    warnings: tuple[str, ...] = ()
    against: object = None  # a balance's `against`: the other entry's `Balance`


def findings(a: Answer) -> list[str]:
    """The entry's sentences: the tune's answer, the ladder's, the balance (its move from the balance
    it is `against`) and its ensemble, or the main metric's rows of a compare and their ensemble
    sentences."""
    if a.entry.kind == "tune":
        return [a.result.sentence]
    if a.entry.kind == "ladder":
        return ladder_sentences(a.result)
    if a.entry.kind == "balance":
        b = a.result
        shift = [shift_sentence(b, a.against) + "."] if a.against is not None else []
        return [b.sentence, *shift,
                *([balance_ensemble_sentence(b, b.ensemble)] if b.ensemble is not None else [])]
    df = with_sentences(a.result)
    main = df[df["metric"] == df["metric"].iloc[0]]
    out = [t for t in (gap_sentence(a.result.gap), sides_sentence(df)) if t] or main["sentence"].tolist()
    if a.ensemble is not None:
        s = a.ensemble.summary()
        main_metric = df["metric"].iloc[0]
        out += [ensemble_sentence(r, a.ensemble.n) for r in s.itertuples() if r.metric == main_metric]
    return out


def text(a: Answer) -> str:
    """What the command prints (table format)."""
    w = list(a.warnings)
    if a.entry.kind == "tune":
        return "\n".join([*w, a.result.text("table")])
    if a.entry.kind == "ladder":
        return ladder_text(a.result, w)
    if a.entry.kind == "balance":
        b = a.result
        return balance_text(b, "table", w) if b.ensemble is None else balance_ensemble_text(b, b.ensemble,
                                                                                          "table", w)
    return (compare_text(a.result, "table", w) if a.ensemble is None
            else compare_ensemble_text(a.result, a.ensemble, "table", w))


def document(a: Answer) -> dict:
    """<name>.json: the command line and the answer (the json of `--format json`)."""
    w = list(a.warnings)
    if a.entry.kind == "tune":
        doc = {"warnings": w, **json.loads(a.result.text("json"))}
    elif a.entry.kind == "ladder":
        doc = ladder_doc(a.result, w)
    elif a.entry.kind == "balance":
        b = a.result
        doc = balance_doc(b, w) if b.ensemble is None else balance_ensemble_doc(b, b.ensemble, w)
    else:
        df = with_sentences(a.result) if a.ensemble is None else ensemble_frame(a.result, a.ensemble)
        doc = {"warnings": w, "games": a.result.games, "seed": a.result.seed,
               "rows": [{k: _json_value(v) for k, v in r.items()} for r in df.to_dict("records")]}
        if a.ensemble is not None:
            doc["ensemble"] = {"heading": heading(a.ensemble)}
    return {"title": a.entry.title, "command": a.entry.command(), **doc}


def report_markdown(spec: VariantsFile, answers: list[Answer]) -> str:
    lines = [f"# {spec.name}", ""]
    if spec.description:
        lines += [spec.description, ""]
    lines += [f"Rebuilt by `napsim regen {spec.path.stem}` from `studies/{spec.path.name}` (napsim "
              f"{__version__}). Every setting and variant plays the same games (same seed and game "
              "indices), so differences are paired; intervals are 95%"
              + (" (a tune's are wider, corrected for the race's comparisons, as it says)"
                 if any(a.entry.kind == "tune" for a in answers) else "") + ".", "", f"*{CARD_FLOW}*", "",
              "## Findings", ""]
    for a in answers:
        lines += [f"- **{a.entry.title}.** " + " ".join(findings(a))]
    lines.append("")
    for a in answers:
        e = a.entry
        chart = [] if e.kind == "tune" else [f"![{e.title}]({e.name}.png)", ""]
        lines += [f"## {e.title}", "", f"`{e.command()}`", "", *_cells(a), "```", text(a).rstrip(), "```", "",
                  *chart, f"Data: [{e.name}.json]({e.name}.json)", ""]
    return "\n".join(lines)


def _cells(a: Answer) -> list[str]:
    """A ladder's command is one cell's: the values of POLICY and VALUE, as lines of the report."""
    if a.entry.kind != "ladder":
        return []
    lad = a.result
    policies = ", ".join(f"`{p}`" for p in lad.side_policies[1:])
    values = f"; VALUE: {', '.join(str(v) for v in lad.values)}" if lad.over else ""
    return [f"POLICY: {policies}{values} (the reference, A, plays each value once).", ""]


def write_variants_folder(spec: VariantsFile, answers: list[Answer], dest: str | Path,
                          wall_seconds: float, force: bool = False) -> Path:
    """report.md, <name>.json and <name>.png per entry, manifest.json, as the folder dest."""
    from napsim.output.chartkit import write_chart  # lazy: matplotlib is heavy

    # "design_file": the key the committed manifests (results/tamames_balance) have always had
    meta = manifest({"design_file": spec.path.name,
                     "entries": [dict(kind=a.entry.kind, name=a.entry.name, command=a.entry.command())
                                 for a in answers],
                     "wall_seconds": round(wall_seconds, 1)})
    files = {"report.md": lambda p: p.write_text(report_markdown(spec, answers), encoding="utf-8"),
             "manifest.json": lambda p: p.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")}
    for a in answers:
        doc = document(a)
        files[f"{a.entry.name}.json"] = (lambda d: lambda p: p.write_text(
            json.dumps(d, indent=2, default=str) + "\n", encoding="utf-8"))(doc)
        if a.entry.kind == "tune":
            continue
        fig = (balance_figure(a.result) if a.entry.kind == "balance"
               else ladder_figure(a.result) if a.entry.kind == "ladder"
               else compare_figure(a.result))
        files[f"{a.entry.name}.png"] = (lambda f, t: lambda p: write_chart(f, p, t))(
            fig, a.entry.title)
    return write_result_folder(dest, force, spec.files(), files)
