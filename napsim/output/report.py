"""Study reports: a Markdown report, a self-contained HTML page, the summary CSVs and the charts
of a run folder.

`write_report` writes the tidy frames of `napsim.output.frames` as CSVs next to ``report.md`` and
``report.html`` and the charts of `napsim.output.charts` (PNG and SVG files; the HTML page inlines
the PNGs as base64, so it needs nothing but itself: no network, no other file).
"""

from __future__ import annotations

import base64
import html
import importlib
import json
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from napsim.model.defaults import __version__
from napsim.model.glossary import CARD_FLOW
from napsim.model.metrics import (
    KIND_WORDS,
    OPPONENT,
    describe,
    parameter_title,
    policy_param_words,
    value_words,
)
from napsim.output import findings as fnd
from napsim.output.deck_ensemble import study_ensemble_sentence, study_ensemble_summary, study_ensemble_table
from napsim.output.findings import study as study_findings
from napsim.output.folders import manifest
from napsim.output.frames import (
    StudyData,
    chart_inputs,
    deck_warnings,
    load,
    points_frame,
    rack_wait_frame,
    rack_wait_summary,
    study_decks,
    summary_cells,
)
from napsim.output.simulated import exact_rate
from napsim.output.study_even import NOTE, even_settings
from napsim.study.chunks import side_names
from napsim.study.store import atomic_write_bytes, atomic_write_files

CSV_FLOAT = "%.10g"


# --------------------------------------------------------------------------------------------
# formatting


def fmt_num(v) -> str:
    """A number for a human reader: 4 significant figures, small probabilities in e-notation."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, bool | np.bool_):
        return "yes" if v else "no"
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) < 1e-3:
        return f"{v:.3g}"
    a = abs(v)
    if a < 1:
        return f"{v:.4f}"
    if a < 100:
        return f"{v:.3f}"
    if a < 1000:
        return f"{v:.2f}"
    return f"{v:,.1f}"


def fmt_ci(lo, hi) -> str:
    if any(x is None or (isinstance(x, float) and math.isnan(x)) for x in (lo, hi)):
        return "–"
    return f"[{fmt_num(lo)}, {fmt_num(hi)}]"


def md_table(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    def cell(v) -> str:
        return (fmt_num(v) if not isinstance(v, str) else v).replace("|", "\\|").replace("\n", " ")

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def html_table(df: pd.DataFrame) -> str:
    """An HTML table; a column whose header is a metric's title carries the metric's name as a
    tooltip (`df.attrs["codes"]`: header -> name), for people who script."""
    def cell(v) -> str:
        return html.escape(fmt_num(v) if not isinstance(v, str) else v)

    codes = df.attrs.get("codes", {})

    def th(c) -> str:
        tip = f' title="{html.escape(codes[c])}"' if c in codes else ""
        return f"<th{tip}>{html.escape(str(c))}</th>"

    head = "".join(th(c) for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        tds = "".join(f'<td class="{"t" if isinstance(v, str) else "n"}">{cell(v)}</td>' for v in row)
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _side_label(key: str, name: str, counters: bool = False) -> str:
    """'A (Blue)'; 'S (Spanish counters)' on the row of a metric the other side's cards make."""
    name = f"{name or key} counters" if counters else name
    return f"{key} ({name})" if name and name != key else key


def param_words(data: StudyData, path: str) -> str:
    """A swept or fixed parameter in words ('Command hand size, both sides')."""
    return parameter_title(path, side_names(data.meta))


def _sweep_columns(data: StudyData, df: pd.DataFrame) -> pd.DataFrame:
    """Sweep parameter columns named in words, their values too ('spend at every chance')."""
    out = df.copy()
    for p in data.sweep_paths:
        if p in out.columns:
            out[p] = [value_words(p, v) for v in out[p]]
    return out.rename(columns={p: param_words(data, p) for p in data.sweep_paths})


def main_table(data: StudyData, summ: pd.DataFrame) -> pd.DataFrame:
    """The main metric per point and side: value, 95% interval, n, games."""
    spec = data.meta["spec"]
    df = summ[summ["metric"] == spec["main_metric"]]
    out = pd.DataFrame({
        "point": df["point"], **{param_words(data, p): [value_words(p, v) for v in df[p]]
                                 for p in data.sweep_paths},
        "side": [_side_label(k, n, describe(spec["main_metric"]).viewpoint == OPPONENT)
                 for k, n in zip(df["side_key"], df["side"], strict=True)],
        "value": df["value"], "95% interval": [fmt_ci(a, b) for a, b in zip(df["ci_low"], df["ci_high"],
                                                                           strict=True)],
        "std": df["std"], "n": df["n"].astype(int), "games": df["games"].astype(int),
    })
    return out.reset_index(drop=True)


REPORTED_METRICS = (
    "Value and 95% interval per point and side; 'exact' where every game gives the same value by the "
    "rules (the rack's 5-4-3 cycle fixes the shares of rack picks, rule E9.6). Every metric, with std "
    "(the spread from game to game) and n (games, turns played or trials), is in summary.csv.")


def _exact(side: str, rows: pd.DataFrame):
    """metric -> whether it is exact at this point and side (`napsim.output.simulated.exact_rate`)."""
    return lambda m: exact_rate(rows, side, m)


def metrics_table(data: StudyData, summ: pd.DataFrame) -> pd.DataFrame:
    """The reported metrics, one column each ("value [low, high]"), one row per point and side."""
    metrics = data.meta["spec"]["metrics"]
    # a metric of the other side's cards says whose counters the row's side are
    titles = {m: describe(m).title + (" (the row's side's counters)" if describe(m).viewpoint == OPPONENT
                                      else "") for m in metrics}
    cells = summary_cells(summ, ("value", "ci_low", "ci_high"))
    rows = []
    for (pid, key), g in summ.groupby(["point", "side_key"], sort=False):
        r = {"point": pid, **{param_words(data, p): value_words(p, g[p].iloc[0]) for p in data.sweep_paths},
             "side": _side_label(key, g["side"].iloc[0])}
        exact = _exact(g["side"].iloc[0], g)
        for m in metrics:
            x = cells.get((pid, key, m))
            r[titles[m]] = "–" if x is None else f"{fmt_num(x[0])} (exact)" if exact(m) else \
                f"{fmt_num(x[0])} {fmt_ci(x[1], x[2])}"
        rows.append(r)
    out = pd.DataFrame(rows)
    out.attrs["codes"] = {t: m for m, t in titles.items()}
    return out


def odds_exact_table(df: pd.DataFrame) -> pd.DataFrame:
    """Exact answers: one row per question, outcome and deck, one column per hand size."""
    keep = df[df["n"] > 0]
    if keep.empty:
        return keep
    wide = keep.pivot_table(index=["label", "outcome", "deck"], columns="hand", values="exact",
                            sort=False, aggfunc="first")
    wide.columns = [f"hand {c}" for c in wide.columns]
    return wide.reset_index().rename(columns={"label": "question"})


def odds_check_table(df: pd.DataFrame) -> pd.DataFrame:
    """Simulation against exact, per question: answers inside their 95% interval, worst deviation."""
    keep = df[df["n"] > 0].copy()
    if keep.empty:
        return keep
    half = (keep["ci_high"] - keep["ci_low"]) / 2
    keep["dev"] = (keep["simulated"] - keep["exact"]).abs() / half.where(half > 0)
    rows = []
    for lab, g in keep.groupby("label", sort=False):
        rows.append({"question": lab, "answers": len(g),
                     "exact inside 95% interval": int(g["exact_in_ci"].sum()),
                     "worst |simulated - exact| / half-width": float(g["dev"].max()),
                     "simulated hands per answer": int(g["n"].max())})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# the report


@dataclass
class Section:
    title: str
    text: str = ""
    table: pd.DataFrame | None = None
    charts: list = field(default_factory=list)  # charts.Chart
    findings: list = field(default_factory=list)  # findings.Finding: rendered first, as a list

    @property
    def anchor(self) -> str:
        """The link target of the section: its title up to a colon, as a slug ('main-result')."""
        return "-".join(self.title.split(":")[0].lower().split())


def _setup_rows(data: StudyData) -> list[tuple[str, str]]:
    spec, meta = data.meta["spec"], data.meta
    rows = []
    if data.kind == "engine":
        rows.append(("scenario", str(spec["scenario"])))
        rows.append(("deck", str(spec["deck"] or "the scenario's")))
        names = side_names(data.meta)
        rows.append(("policies", "; ".join(
            f"{names.get(k, k)}: {value_words('policy.*', n)}"
            + ("" if not o else " (" + ", ".join(f"{policy_param_words(a)}: {value_words(a, b)}"
                                                 for a, b in o.items()) + ")")
            for k, (n, o) in zip(meta["side_keys"], spec["policies"], strict=True))))
    else:
        for key in ("deck", "hand"):
            if key not in spec["sweep"]:
                rows.append((key, str(spec["set"].get(key, spec[key]))))
    if spec["set"]:
        rows.append(("fixed values", "; ".join(f"{param_words(data, k)}: {value_words(k, v)}"
                                               for k, v in spec["set"].items())))
    if spec["sweep"]:
        rows.append(("sweep", "; ".join(f"{_joined_words(data, k)}: {', '.join(map(_value_text, v))}"
                                        for k, v in spec["sweep"].items())
                     + f" ({len(meta['points'])} points)"))
    run = meta["run"]
    if run.get("target_error") is not None and spec.get("main_metric"):
        who = side_names(data.meta).get(spec["main_side"], spec["main_side"])
        rows.append(("games per point", f"until the 95% half-width of {describe(spec['main_metric']).phrase} "
                     f"({who}) is below {run['target_error']}, at most {run['cap']:,}"))
    elif run.get("target_error") is not None:  # no main metric (an odds study): every answer's
        rows.append(("games per point", f"until the 95% half-width of every answer is below "
                     f"{run['target_error']}, at most {run['cap']:,}"))
    else:
        rows.append(("games per point", f"{run['cap']:,}"))
    crn = "every point plays the same games" if data.kind == "engine" else "every point deals the same hands"
    rows.append(("seed", f"{spec['seed']} (common random numbers: {crn})"))
    rows.append(("chunk", f"{spec['chunk']:,} games"))
    rows.append(("study hash", meta["identity_sha256"][:16]))
    rows.append(("napsim", meta.get("napsim", __version__)))
    return rows


def _incomplete(data: StudyData) -> list[str]:
    return [p for p, ok in data.complete.items() if not ok]


def _joined_words(data: StudyData, key: str) -> str:
    """A sweep key in words; paths joined by '+' move together ('Game format and Command deck')."""
    words = parameter_title(key, side_names(data.meta))
    return words if words != key else " and ".join(param_words(data, p) for p in key.split("+"))


def _value_text(v) -> str:
    return "/".join(map(str, v)) if isinstance(v, list) else str(v)


def _warnings(data: StudyData) -> list[str]:
    out = []
    incomplete = _incomplete(data)
    if incomplete:
        out.append(f"incomplete run: points {', '.join(incomplete)} have not finished; numbers are "
                   "partial (rerun `napsim run` with the same arguments to finish)")
    return out + deck_warnings(data)


def report_findings(data: StudyData, summ: pd.DataFrame) -> list:
    """The sentences the report opens with (`napsim.output.findings.study`)."""
    notes = [fnd.deck_note(d) for d in study_decks(data)]
    if data.kind == "odds":
        return study_findings.odds_findings(summ, data.meta["spec"], notes, _incomplete(data))
    return study_findings.engine_findings(summ, data.meta["spec"], notes, _incomplete(data))


METHOD_ENGINE = (
    "Every sweep point plays the same games: game g draws its random numbers from a counter-based "
    "stream keyed on (seed, g), so the points differ only by their settings (common random numbers), "
    "and a difference between two points is much more precise than either point alone. Means per game "
    "carry a normal 95% interval from the per-game sums of squares (std is the game-to-game standard "
    "deviation); means per turn are ratios of sums and carry a delta-method interval over games. Rates "
    "(shares of turns or of rack picks) carry a Wilson 95% interval whose n counts turns or picks; "
    "trials inside one game are not independent, so read those intervals as slightly optimistic and "
    "prefer the per-game intervals where both exist. Results are stored chunk by chunk; a resumed run "
    "gives exactly the numbers of an uninterrupted one."
)
METHOD_ODDS = (
    "Each row is answered exactly (multivariate hypergeometric enumeration) and by simulation with the "
    "same seed at every point; simulated probabilities carry a Wilson 95% interval, means a normal 95% "
    "interval, and n is the number of simulated hands. 'exact in interval' checks the simulator "
    "against the exact value (about 1 row in 20 may say no by chance)."
)


def build_sections(data: StudyData, with_charts: bool = True, raw_tables: bool = True,
                   png: bool = False) -> tuple[list[Section], dict]:
    """The report's sections (tables and charts: SVG, and PNG too with `png`) and the frames to
    write as CSV."""
    from napsim.output import charts  # lazy: matplotlib is heavy, and only a report with charts needs it

    inputs = chart_inputs(data)
    summ = inputs["summary"]
    # the charts draw in worker processes while the tables below are made (napsim.output.chartkit)
    collect = charts.start_charts(inputs, png=png) if with_charts else list
    frames = {"summary.csv": summ, "points.csv": points_frame(data)}
    sections = []
    main_charts: list = []  # filled once the charts are in
    chart_section = Section("Charts")  # kept only where it holds charts
    found = report_findings(data, summ)
    if found:
        sections.append(Section("Findings", findings=found))
    if data.kind == "engine":
        spec = data.meta["spec"]
        frames["convergence.csv"] = inputs["convergence"]
        frames["rack_wait_summary.csv"] = rack_wait_summary(data)
        if raw_tables:  # histograms: the charts' data, bulky next to the summaries
            frames["rack_wait.csv"] = rack_wait_frame(data)
            frames["distribution.csv"] = inputs["distribution"]
        if not summ.empty:
            sections.append(Section(f"Main result: {describe(spec['main_metric']).title}",
                                    charts=main_charts, table=main_table(data, summ)))
            sections.append(Section("Reported metrics", REPORTED_METRICS, table=metrics_table(data, summ)))
        even = even_settings(spec, data.meta["side_keys"], side_names(data.meta), summ)
        if even is not None:
            frames["even_settings.csv"] = even.frame
            x, across = param_words(data, even.x), param_words(data, even.across)
            sections.append(Section(f"Even settings: {x} against {across}", " ".join(
                [f"Where {describe(even.metric).phrase} are equal for the two sides.", *even.sentences,
                 NOTE.format(x=x, across=across)]), table=even.view))
        sections.append(chart_section)
        rw = frames["rack_wait_summary.csv"]
        if not rw.empty:
            sections.append(Section("Courier Rack waiting times", "Cards taken from the rack, by the "
                                    "turns they waited on it (as counted by the engine).",
                                    table=_rack_table(data, rw)))
        ens = study_ensemble_summary(data, summ) if not summ.empty else None
        if ens is not None:
            frames["deck_ensemble_summary.csv"] = ens[0]
            deck = spec["deck"] or "the scenario's deck"
            main = describe(spec["main_metric"]).title
            side = side_names(data.meta).get(ens[1]["side_key"])
            words = {p: param_words(data, p) for p in data.sweep_paths}
            sections.append(Section(f"Deck ensemble: {main} on plausible decks",
                                    study_ensemble_sentence(ens[0], ens[1], deck, side),
                                    table=study_ensemble_table(ens[0], data.sweep_paths, words)))
        sections.append(Section("Method", METHOD_ENGINE))
    else:
        if not summ.empty:
            sections.append(Section("Exact answers", "Exact values by question, deck and hand size; "
                                    "simulated values with their 95% intervals and n are in summary.csv.",
                                    table=odds_exact_table(summ)))
            sections.append(Section("Simulation against exact", "The numba simulator checked against "
                                    "the exact answers. About 1 answer in 20 falls outside its 95% "
                                    "interval by chance; with common random numbers the answers at "
                                    "different hand sizes share their deals, so their deviations are "
                                    "correlated.", table=odds_check_table(summ)))
            skipped = summ[summ["n"] == 0]
            if not skipped.empty:
                sections.append(Section("Not applicable", table=skipped[["label", "deck", "hand", "note"]]))
        sections.append(chart_section)
        sections.append(Section("Method", METHOD_ODDS))
    sections.append(Section("Points", table=_sweep_columns(data, points_frame(data).drop(columns=["label"]))))
    made = collect()
    if data.kind == "engine":
        main_charts.extend(c for c in made if c.name == "main")
        chart_section.charts = [c for c in made if c.name != "main"] if len(made) > 1 else []
    else:
        chart_section.charts = made
    return [x for x in sections if x is not chart_section or x.charts], frames


RACK_COLUMNS = {"kind": "cards", "cards": "cards taken", "mean_wait": "mean wait (turns)",
                "std_wait": "std of the wait (turns)", "share_no_wait": "share taken without waiting"}


def _rack_table(data: StudyData, rw: pd.DataFrame) -> pd.DataFrame:
    out = _sweep_columns(data, rw.drop(columns=["label"]))
    out["kind"] = [KIND_WORDS.get(k, k) for k in out["kind"]]
    return out.rename(columns=RACK_COLUMNS)


CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;border-bottom:2px solid #345;padding-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;
color:#234}table{border-collapse:collapse;margin:.6em 0;font-size:.86em}th,td{border:1px solid #ccd;
padding:.25em .55em}th{background:#eef1f5;text-align:left}td.n{text-align:right;font-variant-numeric:
tabular-nums}tr:nth-child(even) td{background:#fafbfc}figure{margin:1em 0}figure img{max-width:100%;
height:auto;border:1px solid #e3e6ea}figcaption{font-size:.85em;color:#555}.warn{background:#fff4e0;
border-left:4px solid #e0a030;padding:.4em .8em;margin:.6em 0}.setup th{width:11em}.note{color:#555;
font-size:.9em}.findings li{margin:.35em 0}
"""


def render_markdown(data: StudyData, sections: list[Section], files: list[str]) -> str:
    spec = data.meta["spec"]
    lines = [f"# Study: {spec['name']}", ""]
    if spec["description"]:
        lines += [spec["description"], ""]
    lines += [f"*{CARD_FLOW}*", ""]
    lead = [s for s in sections if s.findings]
    for s in lead:
        lines += [f'<a id="{s.anchor}"></a>', "", f"## {s.title}", "", *fnd.render_markdown(s.findings), ""]
    lines += [md_table(pd.DataFrame(_setup_rows(data), columns=["setting", "value"])), ""]
    for i, w in enumerate(_warnings(data)):
        lines += ([f'<a id="{fnd.DECK[1]}"></a>', ""] if i == 0 else []) + [f"> **{w}**", ""]
    for s in sections:
        if s.findings:  # rendered first
            continue
        lines += [f'<a id="{s.anchor}"></a>', "", f"## {s.title}", ""]
        if s.text:
            lines += [s.text, ""]
        for c in s.charts:
            if c.png is None:
                lines += [f"![{c.title}](charts/{c.name}.svg)", "", f"*{c.caption}*", ""]
            else:
                lines += [f"![{c.title}](charts/{c.name}.png)", "", f"*{c.caption}* "
                          f"([SVG](charts/{c.name}.svg))", ""]
        if s.table is not None and not s.table.empty:
            lines += [md_table(s.table), ""]
    files = [f if f != "summary.csv" else "summary.csv (every metric)" for f in files]
    pngs = any(c.png is not None for sec in sections for c in sec.charts)
    if any(sec.charts for sec in sections):
        files.append("charts/ (PNG and SVG)" if pngs else "charts/ (SVG)")
    files += ["report.html (this report, self-contained)", "manifest.json"]
    lines += ["Files: " + ", ".join(files) + ".", ""]
    return "\n".join(lines)


def render_html(data: StudyData, sections: list[Section]) -> str:
    spec = data.meta["spec"]
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>napsim study: {e(spec['name'])}</title>", f"<style>{CSS}</style></head><body>",
             f"<h1>Study: {e(spec['name'])}</h1>"]
    if spec["description"]:
        parts.append(f"<p>{e(spec['description'])}</p>")
    parts.append(f"<p><em>{e(CARD_FLOW)}</em></p>")
    lead = [s for s in sections if s.findings]
    for s in lead:
        parts.append(f'<h2 id="{e(s.anchor)}">{e(s.title)}</h2>{fnd.render_html(s.findings)}')
    setup = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _setup_rows(data))
    parts.append(f'<table class="setup"><tbody>{setup}</tbody></table>')
    for i, w in enumerate(_warnings(data)):
        anchor = f' id="{fnd.DECK[1]}"' if i == 0 else ""
        parts.append(f'<p class="warn"{anchor}>{e(w)}</p>')
    for s in sections:
        if s.findings:  # rendered first
            continue
        parts.append(f'<h2 id="{e(s.anchor)}">{e(s.title)}</h2>')
        if s.text:
            parts.append(f"<p>{e(s.text)}</p>")
        for c in s.charts:
            # the SVG as a data URI: inline, yet its own document (no id of one chart's clip
            # paths can clash with another's), and the page shows what the SVG file holds
            b64 = base64.b64encode(c.svg).decode("ascii")
            parts.append(f'<figure id="chart-{e(c.name)}"><img class="chart" alt="{e(c.title)}" '
                         f'src="data:image/svg+xml;base64,{b64}"><figcaption>{e(c.caption)}</figcaption>'
                         '</figure>')
        if s.table is not None and not s.table.empty:
            parts.append(html_table(s.table))
    parts.append(f'<p class="note">napsim {e(__version__)} · study hash '
                 f'{e(data.meta["identity_sha256"][:16])}</p></body></html>')
    return "\n".join(parts) + "\n"


def study_manifest(data: StudyData) -> dict:
    """manifest.json of a study report: versions, the study's file, hashes, seed, points and games."""
    meta = data.meta
    return manifest({
        "study": meta["spec"]["name"],
        "study_file": meta["study_file"], "study_sha256": meta["study_sha256"],
        "identity_sha256": meta["identity_sha256"], "code_sha256": meta["identity"]["code"],
        "seed": meta["spec"]["seed"], "points": {p["id"]: p["label"] for p in meta["points"]},
        "games": {p: (data.accs[p].games if data.kind == "engine" else meta["spec"]["games"])
                  for p in data.complete},
        "complete": all(data.complete.values()),
    }, ("numba", "numpy", "pandas", "matplotlib"))


def preload_charts() -> threading.Thread:
    """Import the chart module (matplotlib: about 0.3 s) on a thread of its own, for a command that
    writes a report after it has played its games: the kernels play without the GIL, so the import
    runs beside them instead of after them."""
    thread = threading.Thread(target=importlib.import_module, args=("napsim.output.charts",),
                              name="napsim-preload-charts", daemon=True)
    thread.start()
    return thread


def write_report(out: str | Path, dest: str | Path | None = None, with_charts: bool = True,
                 data: StudyData | None = None, raw_tables: bool = True, png: bool = False) -> Path:
    """Write report.md, report.html, the CSVs and charts/ for the run folder `out` into `dest`
    (default: `out` itself); `with_charts=False` skips the charts (tables only, much faster),
    `raw_tables=False` the histogram CSVs (distribution.csv, rack_wait.csv). Each chart is drawn
    once, as SVG (inline in report.html, linked from report.md); `png=True` adds a PNG of each
    (for pages that show PNG only, such as the README's)."""
    from napsim.output import charts  # lazy: matplotlib is heavy, and only a report with charts needs it

    data = data or load(out)
    dest = Path(dest) if dest is not None else Path(out)
    (dest / "charts").mkdir(parents=True, exist_ok=True)
    sections, frames = build_sections(data, with_charts, raw_tables, png)
    for s in sections:
        for c in s.charts:
            charts.write_chart(c, dest / "charts")
    for name, df in frames.items():
        if name != "points.csv" and data.kind == "engine":
            df = df.drop(columns=["label"], errors="ignore")  # the point id and parameters say it
        atomic_write_bytes(dest / name, df.to_csv(index=False, float_format=CSV_FLOAT).encode())
    atomic_write_bytes(dest / "manifest.json",
                          (json.dumps(study_manifest(data), indent=1, default=str) + "\n").encode())
    atomic_write_files({dest / "report.md": render_markdown(data, sections, list(frames)).encode(),
                        dest / "report.html": render_html(data, sections).encode()})  # both or neither
    return dest
