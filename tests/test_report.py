"""Reports and charts (issue 6): tables, Markdown, a self-contained HTML page that renders in headless
Chromium, deterministic charts, partial runs, `napsim regen` and the Python API."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from support.cli import napsim_main, run_napsim
from support.studies import write_study

import napsim
from napsim.model.errors import NapsimInputError
from napsim.model.metrics import describe
from napsim.output import chartkit, charts, frames, report
from napsim.study import runloop

CHROMIUM = Path("/usr/bin/chromium")
CHARTS = ("main", "sweep", "convergence", "distribution", "rack_wait", "heatmap")
REP = dict(name="rep", description="A small study for the report tests.", policies=None, games=1000,
           chunk=250, seed=11, main_metric="effective_per_turn",
           metrics=["effective_per_turn", "share_picks_from_5", "scout_turn_rate", "wasted"],
           distribution=["effective_total", "wasted"], sweep={"sides.*.hand": [5, 7]})


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("report")
    path = write_study(base, **REP)
    out = base / "out"
    runloop.execute(path, out)
    report.write_report(out)
    return out


def test_report_files_tables_and_charts(run_dir):
    for name in ("report.md", "report.html", "summary.csv", "points.csv", "convergence.csv",
                 "rack_wait.csv", "rack_wait_summary.csv", "distribution.csv", "manifest.json"):
        assert (run_dir / name).is_file(), name
    for c in CHARTS:  # each chart drawn once, as SVG; PNG only on request
        root = ET.fromstring((run_dir / "charts" / f"{c}.svg").read_bytes())
        assert root.tag.endswith("svg"), c
        assert not (run_dir / "charts" / f"{c}.png").exists(), c
    s = pd.read_csv(run_dir / "summary.csv")
    assert set(s["point"]) == {"p000", "p001"} and set(s["side_key"]) == {"A", "B"}
    rates = s[s["kind"] == "rate"]
    assert (rates["interval"] == "wilson95").all() and (rates["n"] > 0).all()
    assert ((rates["ci_low"] <= rates["value"] + 1e-12) & (rates["value"] <= rates["ci_high"] + 1e-12)).all()
    means = s[(s["kind"] != "rate") & s["std"].notna() & (s["std"] > 0)]
    assert len(means) > 20
    assert ((means["ci_low"] < means["value"]) & (means["value"] < means["ci_high"])).all()
    assert (s.loc[s["kind"] == "mean_per_game", "games"] == 1000).all()
    pts = pd.read_csv(run_dir / "points.csv")
    assert list(pts["games"]) == [1000, 1000] and pts["complete"].all()
    conv = pd.read_csv(run_dir / "convergence.csv")
    assert sorted(set(conv["games"])) == [250, 500, 750, 1000]
    assert (conv["metric"] == "effective_per_turn").all()
    dist = pd.read_csv(run_dir / "distribution.csv")
    for (p, side, m), g in dist.groupby(["point", "side_key", "metric"]):
        assert g["games"].sum() == 1000, (p, side, m)
    md = (run_dir / "report.md").read_text()
    assert md.startswith("# Study: rep")
    assert "## Main result: Effective orders a turn" in md
    # the report opens with its findings, each pointing to a section of the page
    assert md.index("## Findings") < md.index("| setting | value |") < md.index("## Main result")
    findings = md.split("## Findings")[1].split("| setting |")[0]
    assert 3 <= findings.count("\n- ") <= 6 and "([Main result](#main-result): p00" in findings
    assert '<a id="main-result"></a>' in md and '<a id="deck-warning"></a>' in md
    for c in CHARTS:
        assert f"(charts/{c}.svg)" in md and f"(charts/{c}.png)" not in md
    assert "| p000 | 5 | A (Blue) |" in md
    assert "estimated" in md, "the deck warning must reach the report"


def test_html_is_self_contained(run_dir):
    page = (run_dir / "report.html").read_text()
    assert "<script" not in page and "<link" not in page and "@import" not in page
    refs = re.findall(r'(?:src|href)="([^"]*)"', page)
    outside = [r for r in refs if not r.startswith(("data:image/svg+xml;base64,", "#"))]
    assert refs and not outside, outside
    for anchor in {r[1:] for r in refs if r.startswith("#")}:  # the findings' links land on the page
        assert f'id="{anchor}"' in page, anchor
    imgs = re.findall(r'<img class="chart"[^>]*src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert len(imgs) == len(CHARTS)
    for b64, c in zip(imgs, CHARTS, strict=True):  # the page shows the very SVG files
        assert base64.b64decode(b64) == (run_dir / "charts" / f"{c}.svg").read_bytes(), c


def _chromium(url: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'chromium-profile'}", "--enable-logging=stderr", "--v=0",
         *extra, "--dump-dom", url],
        capture_output=True, text=True, timeout=180,
    )


def _console_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line]


NO_CHROMIUM = ("headless Chromium not installed at /usr/bin/chromium: install it with `apt-get install "
               "chromium` (Debian/Ubuntu; .ci/run does this before the tests)")

# Injected into a copy of the report: errors and console.error calls from the start of the page
# (the head script runs first), then after load one JSON line per image and per in-page link.
PROBE_HEAD = """<script>window.__errors = [];
window.addEventListener('error', e => window.__errors.push(
  'error: ' + (e.message || (e.target && e.target.tagName) || e.type)), true);
const __ce = console.error;
console.error = (...a) => { window.__errors.push('console: ' + a.join(' ')); __ce(...a); };
</script>"""
PROBE_BODY = """<script>window.addEventListener('load', () => setTimeout(() => {
  const images = [...document.images].map(i => ({alt: i.alt, complete: i.complete, width: i.naturalWidth,
                                                 height: i.naturalHeight}));
  const links = [...document.querySelectorAll('a[href^="#"]')].map(a => ({href: a.getAttribute('href'),
      found: !!document.getElementById(decodeURIComponent(a.getAttribute('href').slice(1)))}));
  const pre = document.createElement('pre'); pre.id = 'probe-result';
  pre.textContent = JSON.stringify({images, links, errors: window.__errors});
  document.body.appendChild(pre);
}, 0));</script>"""


def _probe(page: Path, tmp_path: Path) -> dict:
    """Open a probed copy of `page` in headless Chromium; what the probe wrote, and the console."""
    probe = tmp_path / "probe.html"
    text = page.read_text(encoding="utf-8")
    text = text.replace("<head>", "<head>" + PROBE_HEAD, 1).replace("</body>", PROBE_BODY + "</body>")
    probe.write_text(text, encoding="utf-8")
    r = _chromium(probe.as_uri(), tmp_path, "--run-all-compositor-stages-before-draw",
                  "--virtual-time-budget=10000")
    assert r.returncode == 0, r.stderr[-2000:]
    m = re.search(r'<pre id="probe-result">(.*?)</pre>', r.stdout, re.S)
    assert m, "the probe script did not run: " + r.stdout[-1000:]
    result = json.loads(html.unescape(m.group(1)))
    result["console"] = _console_lines(r.stderr)
    return result


@pytest.mark.slow  # the browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason=NO_CHROMIUM)
def test_html_report_renders_in_headless_chromium(run_dir, tmp_path):
    page = run_dir / "report.html"
    r = _chromium(page.resolve().as_uri(), tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    dom = r.stdout
    assert "<h1>Study: rep</h1>" in dom
    assert len(re.findall(r'<img class="chart"', dom)) == len(CHARTS)
    for c in CHARTS:
        assert f'id="chart-{c}"' in dom
    assert len(re.findall(r"<table", dom)) >= 4
    assert '<h2 id="findings">Findings</h2><ul class="findings">' in dom
    assert not _console_lines(r.stderr), _console_lines(r.stderr)


@pytest.mark.slow  # the browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason=NO_CHROMIUM)
def test_every_chart_loads_and_the_page_has_no_errors(run_dir, tmp_path):
    res = _probe(run_dir / "report.html", tmp_path)
    charts = res["images"]
    assert len(charts) == len(CHARTS), res["images"]
    broken = [i for i in charts if not (i["complete"] and i["width"] > 100 and i["height"] > 100)]
    assert not broken, f"charts the browser could not decode: {broken}"
    assert not res["errors"], res["errors"]
    assert not res["console"], res["console"]
    # every link of the findings lands on a section of the page
    assert len(res["links"]) >= 3 and all(x["found"] for x in res["links"]), res["links"]


@pytest.mark.slow  # the browser
@pytest.mark.skipif(not CHROMIUM.exists(), reason=NO_CHROMIUM)
def test_the_probe_sees_a_broken_chart(run_dir, tmp_path):
    # the check above can fail: a report with one corrupted chart is caught
    page = run_dir / "report.html"
    text = page.read_text(encoding="utf-8")
    broken = tmp_path / "broken" / "report.html"
    broken.parent.mkdir()
    uri = 'src="data:image/svg+xml;base64,'
    broken.write_text(text.replace(uri, uri + "AAAA", 1), encoding="utf-8")
    res = _probe(broken, tmp_path)
    assert sum(i["width"] == 0 for i in res["images"]) == 1
    assert any("error" in e for e in res["errors"]), res


def test_report_output_is_deterministic(run_dir, tmp_path):
    dest = report.write_report(run_dir, tmp_path / "again")
    for rel in ("report.md", "report.html", "summary.csv", "charts/main.svg", "charts/heatmap.svg"):
        assert (dest / rel).read_bytes() == (run_dir / rel).read_bytes(), rel


def test_png_on_request_and_never_stale(run_dir, tmp_path):
    dest = report.write_report(run_dir, tmp_path / "png", png=True)
    md = (dest / "report.md").read_text()
    for c in CHARTS:
        assert (dest / "charts" / f"{c}.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), c
        assert f"(charts/{c}.png)" in md and f"([SVG](charts/{c}.svg))" in md, c
        # the SVG is the same drawing as without PNG: one layout serves both
        svg = (dest / "charts" / f"{c}.svg").read_bytes()
        assert svg == (run_dir / "charts" / f"{c}.svg").read_bytes(), c
    report.write_report(run_dir, dest)  # again, SVG only: a PNG of the older report must not stay
    assert not list((dest / "charts").glob("*.png"))


def test_no_chart_repeats_the_main_chart(run_dir):
    inp = frames.chart_inputs(frames.load(run_dir))
    fig = charts.figure(inp, "sweep")
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    main = describe("effective_per_turn").title
    assert titles and not any(t.replace("\n", " ").startswith(main) for t in titles), titles
    assert any(t.startswith(describe("wasted").title) for t in titles), titles


@pytest.mark.slow  # a pool of worker processes
def test_charts_drawn_by_worker_processes_are_the_ones_drawn_here(run_dir):
    inp = frames.chart_inputs(frames.load(run_dir))
    here = charts.all_charts(inp, workers=1)
    forked = charts.all_charts(inp, workers=3)
    assert [c.name for c in forked] == list(CHARTS)
    for a, b in zip(here, forked, strict=True):
        assert (a.png, a.svg, a.caption) == (b.png, b.svg, b.caption), a.name
        assert a.svg == (run_dir / "charts" / f"{a.name}.svg").read_bytes(), a.name


def test_a_failing_chart_worker_leaves_the_charts_to_this_process():
    parent = os.getpid()

    def make(kind):
        if os.getpid() != parent:
            raise RuntimeError("a worker fails")
        return chartkit.Chart(kind, kind.title(), "", b"png", b"svg")

    made = chartkit.render_all(make, ["a", "b", "c"], workers=2)
    assert [c.name for c in made] == ["a", "b", "c"]
    with pytest.raises(RuntimeError, match="here too"):
        chartkit.render_all(lambda k: (_ for _ in ()).throw(RuntimeError("here too")), ["a", "b"], workers=2)


def test_partial_run_reports_what_is_on_disk(run_dir, tmp_path, monkeypatch):
    part = tmp_path / "part"
    shutil.copytree(run_dir, part)
    last = sorted((part / "points" / "p001").glob("chunk-*.npz"))[-1]
    last.unlink()
    code, _, err = napsim_main(monkeypatch, "report", str(part), "--no-charts")
    assert code == 0, err
    assert "1 point(s) not finished" in err
    assert "incomplete run: points p001" in (part / "report.md").read_text()
    pts = pd.read_csv(part / "points.csv")
    assert list(pts["games"]) == [1000, 750] and list(pts["complete"]) == [True, False]


def test_python_api(run_dir):
    res = napsim.StudyResult(run_dir)
    assert "rep" in repr(res)
    frame = res.frame  # per chunk (the study keeps no per-game rows)
    assert len(frame) == 2 * 4 * 2 and frame.groupby("point")["games"].sum().eq(2000).all()
    assert {"effective_total", "turns", "sides.*.hand"} <= set(frame.columns)
    s = res.summary(["scout_turn_rate"])
    assert len(s) == 4 and set(s["metric"]) == {"scout_turn_rate"}
    for kind in CHARTS:
        assert isinstance(res.plot(kind), Figure)
    fig = Figure()
    ax = fig.subplots()
    assert res.plot("sweep", metric="wasted", ax=ax) is fig
    assert res.plot("distribution", metric="wasted", ax=ax) is fig
    with pytest.raises(NapsimInputError, match="not a chart of this study"):
        res.plot("pie")
    with pytest.raises(ValueError, match="per_game = true"):
        frames.per_game_frame(res.data)


@pytest.mark.slow  # a study, then regen twice (once in a fresh interpreter)
def test_run_study_api_and_regen(tmp_path, monkeypatch):
    studies = tmp_path / "studies"
    studies.mkdir()
    write_study(studies, **{**REP, "name": "tiny", "games": 400, "chunk": 200})
    monkeypatch.chdir(tmp_path)
    res = napsim.run_study(studies / "tiny.toml")  # default out: out/<name>, resumable
    assert res.out == Path("out/tiny") and (tmp_path / "out/tiny/study.json").is_file()
    assert res.summary()["games"].max() == 400
    code, _, err = napsim_main(monkeypatch, "regen", "--work", "out/regen")  # in tmp_path
    assert code == 0, err
    dest = tmp_path / "results" / "tiny"
    assert (dest / "report.html").is_file() and (dest / "charts" / "main.png").is_file()
    assert not (dest / "points").exists(), "results/ holds summaries and charts, never chunks"
    assert (dest / "summary.csv").is_file() and not (dest / "distribution.csv").exists()
    before = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    # again from the napsim.regen entry point, in a fresh interpreter
    r = run_napsim("tiny", "--work", "out/regen", cwd=tmp_path, module="napsim.regen")
    assert r.returncode == 0, r.stderr
    after = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    assert after == before, "regenerating an unchanged study must not change its results"
    code, _, err = napsim_main(monkeypatch, "regen", "nope")  # in this process, in tmp_path
    assert code == 2 and "no study named 'nope'" in err


def test_odds_report(tmp_path, monkeypatch):
    body = """
[study]
name = "oddsrep"
kind = "odds"
games = 20000
seed = 5
[sweep]
deck = ["gmt90", "ccn70"]
hand = [5, 6]
[[questions]]
ask = "at_least"
filter = "kind=section&section=C"
k = 2
label = "2+ centre cards"
[[questions]]
ask = "orders"
label = "orders law"
"""
    path = tmp_path / "o.toml"
    path.write_text(body)
    out = tmp_path / "out"
    code, _, err = napsim_main(monkeypatch, "run", str(path), "--out", str(out))
    assert code == 0, err
    md = (out / "report.md").read_text()
    assert "## Exact answers" in md and "## Simulation against exact" in md
    assert "(charts/odds.svg)" in md and (out / "charts" / "odds.svg").is_file()
    s = pd.read_csv(out / "summary.csv")
    want = {"deck", "hand", "label", "exact", "simulated", "ci_low", "ci_high", "n", "exact_in_ci"}
    assert want <= set(s.columns)
    assert len(s[s["label"] == "2+ centre cards"]) == 4
    assert (s.loc[s["label"] == "2+ centre cards", "n"] == 20000).all()


def test_formatting_helpers():
    assert report.fmt_num(0.333333) == "0.3333"
    assert report.fmt_num(1.7e-08) == "1.7e-08"
    assert report.fmt_num(12345.678) == "12,345.7"
    assert report.fmt_num(float("nan")) == "–"
    assert report.fmt_num(np.int64(20000)) == "20,000"
    assert report.fmt_ci(0.1, 0.25) == "[0.1000, 0.2500]"
    md = report.md_table(pd.DataFrame({"a": ["x|y", "z"], "b": [1.5, 2.0]}))
    assert md.splitlines() == ["| a | b |", "|---|---:|", "| x\\|y | 1.500 |", "| z | 2.000 |"]


def test_exact_values_are_labelled_exact_and_the_card_flow_sentence_is_said(run_dir):
    """Rack picks from 5 cards are a third in every game at these hands (rule E9.6): the reported
    metrics say 'exact' there, with no interval; an interval stays where the games differ."""
    from napsim.model.glossary import CARD_FLOW
    from napsim.output.simulated import exact_rate

    md = (run_dir / "report.md").read_text()
    assert f"*{CARD_FLOW}*" in md
    s = pd.read_csv(run_dir / "summary.csv")
    table = md.split("## Reported metrics")[1].split("\n## ")[0]
    assert "(exact)" in table
    for (pid, side), g in s.groupby(["point", "side"]):
        row = next(x for x in table.splitlines() if x.startswith(f"| {pid} |") and f"({side})" in x)
        value = float(g.loc[g["metric"] == "share_picks_from_5", "value"].iloc[0])
        exact = exact_rate(g, side, "share_picks_from_5")
        assert (" (exact)" in row) == exact, (row, value)
        assert "[" in row  # the other metrics keep their intervals


def test_a_study_result_shows_a_short_text_and_its_main_metric_in_a_notebook(run_dir):
    res = napsim.StudyResult(run_dir)
    page = res._repr_html_()
    assert page.startswith("<p>Study rep: A small study for the report tests.</p>") and "<table" in page
    assert "Effective orders a turn" in page and "Scout" not in page  # the main metric only
