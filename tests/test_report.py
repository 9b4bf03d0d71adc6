"""Reports and charts (issue 6): tables, Markdown, a self-contained HTML page that renders in headless
Chromium, deterministic charts, partial runs, `napsim regen` and the Python API."""

from __future__ import annotations

import base64
import io
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

import napsim
from napsim.model.errors import NapsimInputError
from napsim.output import frames, report
from napsim.study import runloop

CHROMIUM = Path("/usr/bin/chromium")
CHARTS = ("main", "sweep", "convergence", "distribution", "rack_wait", "heatmap")
STUDY = """
[study]
name = "rep"
description = "A small study for the report tests."
scenario = "symmetric"
games = 1000
chunk = 250
seed = 11
main_metric = "effective_per_turn"
metrics = ["effective_per_turn", "share_picks_from_5", "scout_turn_rate", "wasted"]
distribution = ["effective_total", "wasted"]
[set]
"scenario.turns" = 5
[sweep]
"sides.*.hand" = [5, 7]
"""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("report")
    path = base / "rep.toml"
    path.write_text(STUDY)
    out = base / "out"
    runloop.execute(path, out)
    report.write_report(out)
    return out


def test_report_files_tables_and_charts(run_dir):
    for name in ("report.md", "report.html", "summary.csv", "points.csv", "convergence.csv",
                 "rack_wait.csv", "rack_wait_summary.csv", "distribution.csv", "manifest.json"):
        assert (run_dir / name).is_file(), name
    for c in CHARTS:
        png = (run_dir / "charts" / f"{c}.png").read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n"), c
        root = ET.fromstring((run_dir / "charts" / f"{c}.svg").read_bytes())
        assert root.tag.endswith("svg"), c
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
    for c in CHARTS:
        assert f"(charts/{c}.png)" in md
    assert "| p000 | 5 | A (Blue) |" in md
    assert "estimated" in md, "the deck warning must reach the report"


def test_html_is_self_contained(run_dir):
    page = (run_dir / "report.html").read_text()
    assert "<script" not in page and "<link" not in page and "@import" not in page
    refs = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert refs and all(r.startswith("data:image/png;base64,") for r in refs), refs
    imgs = re.findall(r'<img class="chart"[^>]*src="data:image/png;base64,([^"]+)"', page)
    assert len(imgs) == len(CHARTS)
    from PIL import Image

    for b64 in imgs:
        with Image.open(io.BytesIO(base64.b64decode(b64))) as im:
            im.verify()


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


@pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium not installed at /usr/bin/chromium "
                    "(.ci/run installs the Debian package 'chromium'; elsewhere: apt-get install chromium)")
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
    assert not _console_lines(r.stderr), _console_lines(r.stderr)
    # a copy with a probe script: every chart must be decoded by the browser (naturalWidth > 0)
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace(
        "</body>", "<script>window.addEventListener('load', () => { const ok = [...document.images]"
        ".every(i => i.complete && i.naturalWidth > 100); document.title = ok ? 'IMAGES-OK' : "
        "'IMAGES-BROKEN'; });</script></body>"))
    r = _chromium(probe.as_uri(), tmp_path, "--virtual-time-budget=10000")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "<title>IMAGES-OK</title>" in r.stdout
    assert not _console_lines(r.stderr), _console_lines(r.stderr)


def test_report_output_is_deterministic(run_dir, tmp_path):
    dest = report.write_report(run_dir, tmp_path / "again")
    for rel in ("report.md", "report.html", "summary.csv", "charts/main.png", "charts/main.svg",
                "charts/heatmap.svg"):
        assert (dest / rel).read_bytes() == (run_dir / rel).read_bytes(), rel


def test_partial_run_reports_what_is_on_disk(run_dir, tmp_path):
    part = tmp_path / "part"
    shutil.copytree(run_dir, part)
    last = sorted((part / "points" / "p001").glob("chunk-*.npz"))[-1]
    last.unlink()
    r = subprocess.run([sys.executable, "-m", "napsim", "report", str(part), "--no-charts"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "1 point(s) not finished" in r.stderr
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


def test_run_study_api_and_regen(tmp_path, monkeypatch):
    studies = tmp_path / "studies"
    studies.mkdir()
    tiny = STUDY.replace('name = "rep"', 'name = "tiny"').replace("games = 1000", "games = 400")
    (studies / "tiny.toml").write_text(tiny.replace("chunk = 250", "chunk = 200"))
    monkeypatch.chdir(tmp_path)
    res = napsim.run_study(studies / "tiny.toml")  # default out: out/<name>, resumable
    assert res.out == Path("out/tiny") and (tmp_path / "out/tiny/study.json").is_file()
    assert res.summary()["games"].max() == 400
    r = subprocess.run([sys.executable, "-m", "napsim", "regen", "--work", "out/regen"], capture_output=True,
                       text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    dest = tmp_path / "results" / "tiny"
    assert (dest / "report.html").is_file() and (dest / "charts" / "main.png").is_file()
    assert not (dest / "points").exists(), "results/ holds summaries and charts, never chunks"
    assert (dest / "summary.csv").is_file() and not (dest / "distribution.csv").exists()
    before = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    r = subprocess.run([sys.executable, "-m", "napsim.regen", "tiny", "--work", "out/regen"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    after = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    assert after == before, "regenerating an unchanged study must not change its results"
    r = subprocess.run([sys.executable, "-m", "napsim", "regen", "nope"], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 2 and "no study named 'nope'" in r.stderr


def test_odds_report(tmp_path):
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
    r = subprocess.run([sys.executable, "-m", "napsim", "run", str(path), "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    md = (out / "report.md").read_text()
    assert "## Exact answers" in md and "## Simulation against exact" in md
    assert "(charts/odds.png)" in md and (out / "charts" / "odds.svg").is_file()
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
