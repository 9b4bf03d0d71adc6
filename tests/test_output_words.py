"""Output a wargamer reads (issue 19): every table, CSV, chart and report a user reads takes its
words from the metric catalogue (`napsim.model.metrics`); no internal metric name or raw parameter
path shows where a user reads it, except in a column marked as code (the HTML tooltips of metric
titles, the `metric` column of the CSVs). Charts keep their legends off the data, say when the
95% bands are narrower than the lines, and carry the deck-data warning."""

from __future__ import annotations

import html
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import Collection
from matplotlib.figure import Figure
from matplotlib.text import Text
from support.studies import write_study

import napsim
from napsim.cli import cli
from napsim.model import metrics
from napsim.output import chartkit, charts, frames, report, variants
from napsim.sim.metric_table import metric_names
from napsim.study import runloop

# metric names a reader could mistake for words ('turns', 'wasted') are words: only names with an
# underscore or a dot are internal spellings
INTERNAL = sorted((m for m in metric_names() if "_" in m or "." in m), key=len, reverse=True)
_METRIC = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, INTERNAL)) + r")(?![\w])")
_PATH = re.compile(r"(?<![\w.])(sides|policy|scenario|rules)(\.[\w*+]+)+|\b\w+\[[\w*.]+\]=")


def internal_names(text: str) -> list[str]:
    """Internal metric names and raw parameter paths in a text a user reads."""
    return [m.group(0) for m in _METRIC.finditer(text)] + [m.group(0) for m in _PATH.finditer(text)]


def test_the_checker_finds_what_it_looks_for():
    assert internal_names("x effective_per_turn[F] y") == ["effective_per_turn"]
    assert internal_names("hand[*]=5 sides.*.hand c1.initiative_share") == ["c1.initiative_share",
                                                                           "hand[*]=", "sides.*.hand"]
    assert internal_names("Effective orders a turn; turns waited; Command hand size, both sides") == []


def invoke(*args: str) -> str:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.stdout


# --------------------------------------------------------------------------------------------
# napsim simulate: the console and summary.csv


@pytest.mark.parametrize("scenario", ["tamames", "epic3-tamames", "lgb-symmetric"])
def test_simulate_console_and_summary_speak_words(tmp_path, scenario):
    out = tmp_path / "run"
    text = invoke("simulate", "--scenario", scenario, "--games", "200", "--chunk", "200", "--no-per-game",
                  "--out", str(out))
    assert internal_names(text) == [], text
    assert "effective orders a turn" in text
    s = pd.read_csv(out / "summary.csv")
    cols = list(s.columns)
    assert cols[cols.index("metric") + 1: cols.index("metric") + 3] == ["title", "unit"]
    assert s["title"].notna().all() and s["unit"].notna().all()
    assert internal_names(" | ".join(s["title"])) == []
    assert (s["title"] != s["metric"]).all()
    if scenario == "tamames":  # rule G7: the Spanish row counts French cards, and says so
        row = s[(s["side"] == "Spanish") & (s["metric"] == "g_denied_effective")].iloc[0]
        assert row["title"] == "French effective orders denied a game (Spanish counters)"
    if scenario == "lgb-symmetric":  # commanders by their role in the format
        assert s["title"].str.startswith("Corps left wing: ").any()


# --------------------------------------------------------------------------------------------
# a small study: report.md, report.html, summary.csv and every chart

WORDS = dict(name="words", policies=None, games=500, chunk=250, seed=5, main_metric="effective_per_turn",
             metrics=["effective_per_turn", "same_section_turn_rate", "wasted", "g_denied_effective"],
             distribution=["effective_total"], set={"scenario.turns": 6},
             sweep={"sides.*.hand": [5, 7], "policy.B": ["greedy", "random"]})


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    base = tmp_path_factory.mktemp("words")
    out = base / "out"
    runloop.execute(write_study(base, **WORDS), out)
    report.write_report(out, with_charts=False)
    return out


def test_study_report_speaks_words(study):
    md = (study / "report.md").read_text()
    assert internal_names(md) == [], internal_names(md)
    assert "## Main result: Effective orders a turn" in md and "Command hand size, both sides" in md
    page = (study / "report.html").read_text()
    # the code column of a table of metrics: a tooltip with the metric's name, nothing on show
    assert '<th title="effective_per_turn">Effective orders a turn</th>' in page
    shown = html.unescape(re.sub(r"<[^>]*>", " ", page.split("</style>")[1]))
    assert internal_names(shown) == [], internal_names(shown)
    s = pd.read_csv(study / "summary.csv")
    assert {"title", "unit"} <= set(s.columns) and s["title"].notna().all()


def figure_texts(fig: Figure) -> list[str]:
    """Every text a reader sees on a figure: titles, axis labels, tick labels, legends, notes."""
    FigureCanvasAgg(fig).draw()
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


def _data_points(ax) -> np.ndarray:
    """The plotted data of an axes in display coordinates, worked out here independently of
    `napsim.output.chartkit`: line vertices (with points along each segment), error bars, bands."""
    pts = []
    for ln in ax.lines:
        if ln.get_transform() != ax.transData:
            continue
        xy = np.asarray(ln.get_xydata(), float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) > 1:
            t = np.linspace(0, 1, 25)[:, None, None]
            xy = (xy[:-1] * (1 - t) + xy[1:] * t).reshape(-1, 2)
        pts.append(ax.transData.transform(xy) if len(xy) else np.empty((0, 2)))
    for c in ax.collections:
        if isinstance(c, Collection) and c.get_transform() == ax.transData:
            for p in c.get_paths():
                pts.append(ax.transData.transform(p.vertices))
    return np.concatenate(pts) if pts else np.empty((0, 2))


def assert_legends_clear(fig: Figure) -> None:
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        box = leg.get_window_extent(renderer)
        pts = _data_points(ax)
        inside = (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
        assert not inside.any(), (ax.get_title(), [t.get_text() for t in leg.get_texts()])


def test_study_charts_speak_words_keep_legends_off_the_data_and_carry_the_deck_note(study):
    inp = frames.chart_inputs(frames.load(study))
    assert inp["deck_warnings"], "the symmetric scenario plays gmt90, whose counts are partly estimated"
    for kind in charts.ENGINE_KINDS:
        fig = charts.figure(inp, kind)
        texts = figure_texts(fig)
        assert internal_names(" | ".join(texts)) == [], (kind, internal_names(" | ".join(texts)))
        # the note wraps to the figure's width: read it with its line breaks as spaces
        flat = [" ".join(t.split()) for t in texts]
        assert any(t.startswith("Deck data: ") and "have estimated counts" in t for t in flat), kind
        assert_legends_clear(fig)
    main = charts.figure(inp, "main")
    ax = main.axes[0]
    assert ax.get_ylabel() == "Effective orders a turn"
    assert ax.get_xlabel() == "Command hand size, both sides"
    legend = ax.get_legend()
    assert {t.get_text() for t in legend.get_texts()} >= {"Blue · greedy play", "Red · random play"}
    assert legend.get_title().get_text() == "side · Policy, Red"


def test_report_captions_carry_the_notes(study):
    made = charts.all_charts(frames.chart_inputs(frames.load(study)))
    assert made and all("Deck data: " in c.caption for c in made)
    assert made[0].caption.startswith("Effective orders a turn against the sweep")


# --------------------------------------------------------------------------------------------
# the chart kit: legends, bands


def _lines_figure(legend_loc: str) -> Figure:
    with matplotlib.rc_context(chartkit.RC):
        fig = Figure(figsize=(5, 3), layout="constrained")
        ax = fig.subplots()
    x = np.linspace(0, 1, 30)
    for k in range(12):  # lines everywhere: no free corner inside the axes
        ax.plot(x, (x * 7 + k) % 1.0, lw=1, label=f"line {k}")
    ax.legend(loc=legend_loc)
    return fig


def test_a_legend_over_data_moves_outside_the_axes():
    fig = _lines_figure("center")
    fig.draw_without_rendering()
    assert chartkit.legend_covers_data(fig.axes[0])
    with pytest.raises(AssertionError):
        assert_legends_clear(fig)
    chartkit.finish(fig)
    assert not chartkit.legend_covers_data(fig.axes[0])
    assert_legends_clear(fig)


def _band_figure(half: float) -> Figure:
    with matplotlib.rc_context(chartkit.RC):
        fig = Figure(figsize=(5, 3), layout="constrained")
        ax = fig.subplots()
    x = np.arange(5.0)
    ax.plot(x, x, lw=1.4)
    chartkit.band(ax, x, x - half, x + half, "C0", lw=1.4)
    return fig


def test_a_band_narrower_than_its_line_is_said_in_the_caption_and_under_the_chart():
    chart = chartkit.render(_band_figure(1e-4), "narrow", "Narrow", "A caption.")
    assert chart.caption == "A caption. The 95% bands are narrower than the lines."
    assert b"The 95% bands are narrower than the lines." in chart.svg
    wide = chartkit.render(_band_figure(0.5), "wide", "Wide", "A caption.")
    assert wide.caption == "A caption."


def test_the_band_note_matches_the_laid_out_chart_whatever_its_first_guess(monkeypatch):
    """The note is guessed before the layout and laid out with the chart; where the laid-out
    axes disagree, the chart is laid out again with or without it. Either way the caption says
    'narrower' exactly when the bands of the final chart are, and a chart without the note keeps
    no room for it under the axes."""
    solves = []
    lay_out = chartkit._lay_out
    monkeypatch.setattr(chartkit, "_lay_out", lambda fig: (solves.append(fig), lay_out(fig)))
    seen = set()
    for half in np.geomspace(1e-3, 0.2, 25):  # from every band narrow to none
        fig = _band_figure(half)
        solves.clear()
        notes = chartkit.finish(fig)
        narrow, total = chartkit.narrow_bands(fig)
        said = any("narrower" in n for n in notes)
        assert said == (narrow > 0), (half, notes, narrow)
        if said and narrow < total:
            assert f"at {narrow} of {total} points" in notes[-1]
        text = getattr(fig, "_napsim_note_text", None)
        assert said == (text is not None and text.get_visible() and text.get_in_layout())
        seen.add((said, len(solves)))
    assert (True, 1) in seen and (False, 1) in seen, seen  # a right guess costs one layout
    assert any(n == 2 for _, n in seen), seen  # and a wrong one (around the line's width) two


# --------------------------------------------------------------------------------------------
# compare and balance: tables, sentences and charts

COMPARE = ("tamames", {"sides.S.guerrilla": 3}, {"sides.S.guerrilla": 0})


def test_compare_table_and_chart_speak_words():
    text = invoke("compare", "--scenario", "tamames", "--a", "sides.S.guerrilla=3", "--b",
                  "sides.S.guerrilla=0", "--games", "300", "--chunk", "300")
    assert internal_names(text) == [], internal_names(text)
    assert "French cards nullified a turn (Spanish counters)" in text
    assert "the Spanish counters cause" in text
    cmp = napsim.api.compare_run(COMPARE[0], ["sides.S.guerrilla=3"], ["sides.S.guerrilla=0"], games=300,
                                 chunk=300)
    fig = variants.compare_figure(cmp)
    chartkit.finish(fig)
    texts = figure_texts(fig)
    assert internal_names(" | ".join(texts)) == []
    assert any(t.startswith("Deck data: ") for t in texts)


def test_balance_table_and_chart_speak_words():
    text = invoke("balance", "--scenario", "symmetric", "--vary", "sides.B.hand=4..8", "--equalize", "A,B",
                  "--games", "400")
    assert internal_names(text) == [], internal_names(text)
    assert "Red minus Blue, effective orders a turn, against Command hand size, Red" in text
    res = napsim.balance("symmetric", "sides.B.hand=4..8", equalize="A,B", games=400)
    fig = variants.balance_figure(res)
    chartkit.finish(fig)
    texts = figure_texts(fig)
    assert internal_names(" | ".join(texts)) == []
    assert fig.axes[0].get_xlabel() == "Command hand size, Red"
    assert_legends_clear(fig)


def test_every_catalogue_title_reads_as_words_on_a_row():
    for name in metrics.catalogue_names():
        info = metrics.describe(name)
        assert internal_names(info.row_title("Spanish")) == [], name
