"""`napsim balance --across` and a study report's even settings: which combinations of two settings
even a scenario. On the symmetric scenario (identical armies, Blue moving first) Blue's even hand
against Red's hand is the diagonal: the sides are even where the hands are equal, whatever the hand.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from support.cli import napsim_main

import napsim
from napsim.cli import cli
from napsim.output import balance_across as words
from napsim.output.report import write_report
from napsim.output.study_even import _cross, even_settings

GAMES = 2000


@pytest.fixture(scope="module")
def diagonal():
    """Blue's hand 3..9 balanced against Red's at every Red hand 4..8."""
    return napsim.balance_across("symmetric", "sides.A.hand=3..9", "sides.B.hand=4..8", equalize="A,B",
                                 games=GAMES)


def test_a_symmetric_scenarios_crossing_curve_is_the_diagonal(diagonal):
    assert [v for v, _ in diagonal.rows] == [4, 5, 6, 7, 8]
    for h, b in diagonal.rows:
        assert b.crossed, b.sentence
        below, above = b.bracket
        assert below <= h <= above, (h, b.bracket)       # the whole settings either side hold h
        assert abs(b.crossing[0] - h) < 0.15, (h, b.crossing)
        assert b.crossing[1] < b.crossing[0] < b.crossing[2]
    # from Red hand 4 to 8 the even Blue hand moves by 4, paired on the same games
    d, lo, hi = diagonal.crossing_shift(4, 8)
    assert lo <= 4.0 <= hi and hi - lo < 0.3, (d, lo, hi)


def test_each_row_is_the_single_balance_bit_for_bit(diagonal):
    single = napsim.balance("symmetric", "sides.A.hand=3..9", equalize="A,B", sets=["sides.B.hand=6"],
                            games=GAMES)
    row = dict(diagonal.rows)[6]
    assert row.crossing == single.crossing and row.bracket == single.bracket
    assert row.sentence == single.sentence
    assert pd.testing.assert_frame_equal(row.frame(), single.frame()) is None


def test_the_curve_in_words_table_csv_and_json(diagonal):
    assert diagonal.sentence.startswith("The even number of Blue cards in hand moves from ")
    assert "with 4 Red cards in hand to " in diagonal.sentence and "(paired)" in diagonal.sentence
    assert "for each Red card in hand more" in diagonal.sentence
    text = words.across_text(diagonal, "table", [])
    assert "With 6 Red cards in hand: with " in text and "no crossing" not in text
    doc = json.loads(words.across_text(diagonal, "json", []))
    assert [r["across_value"] for r in doc["rows"]] == [4, 5, 6, 7, 8]
    assert all(r["crossed"] and r["settings"] for r in doc["rows"])
    assert doc["rows"][2]["crossing"] == pytest.approx(dict(diagonal.rows)[6].crossing[0])
    csv = words.across_text(diagonal, "csv", [])
    assert "across_value" in csv and csv.count("\n") >= 6


def test_values_of_the_second_setting_without_a_crossing_are_an_answer():
    # Blue hand 3..5 evens the sides only while Red holds 4 or 5 cards
    grid = napsim.balance_across("symmetric", "sides.A.hand=3..5", "sides.B.hand=4..7", equalize="A,B",
                                 games=GAMES)
    crossed = {v: b.crossed for v, b in grid.rows}
    assert crossed == {4: True, 5: True, 6: False, 7: False}
    assert grid.sentence.endswith("with 6, 7 (2,000 games per setting, the same games in every row).")
    assert "no number of Blue cards in hand from 3 to 5 evens the sides with 6, 7" in grid.sentence
    text = words.across_text(grid, "table", [])
    assert "With 7 Red cards in hand: no number of Blue cards in hand from 3 to 5 evens symmetric: the " \
           "Red lead at every setting" in text


def test_no_combination_at_all_is_an_answer_with_exit_0(tmp_path):
    chart = tmp_path / "even.png"
    result = CliRunner().invoke(cli, ["balance", "--scenario", "symmetric", "--vary", "sides.A.hand=3..4",
                                      "--across", "sides.B.hand=6..7", "--equalize", "A,B", "--games", "1000",
                                      "--chart", str(chart)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "No combination evens symmetric: no number of Blue cards in hand from 3 to 4 evens the " \
           "sides at any number of Red cards in hand from 6 to 7" in result.stdout
    assert chart.stat().st_size > 5000


def test_the_chart_draws_the_curve_and_its_band(diagonal, tmp_path):
    fig = words.across_figure(diagonal)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Command hand size, Red" and "even Command hand size, Blue" in ax.get_ylabel()
    line = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 5][0]
    np.testing.assert_allclose(line.get_ydata(), [b.crossing[0] for _, b in diagonal.rows])


BAD = [
    (["--across", "sides.B.hand=4.5..8"], "--across"),
    (["--across", "sides.B.hand=8..4"], "empty range"),
    (["--across", "sides.A.hand=4..8"], "is the setting balanced"),
    (["--across", "sides.B.hand=1..40"], "at most 31"),
    (["--across", "sides.B.name=0..3"], "not a numeric parameter"),
    (["--across", "sides.B.hand=4..6", "--deck-ensemble", "3"], "does not go with --across"),
]


@pytest.mark.parametrize(("extra", "needle"), BAD)
def test_bad_across_is_one_line_and_exit_2(extra, needle, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    code, out, err = napsim_main(monkeypatch, "balance", "--scenario", "symmetric", "--vary",
                                 "sides.A.hand=3..9", "--equalize", "A,B", "--games", "500", *extra)
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("napsim: error:") and needle in line, err
    assert out == "" and list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------------------------
# a study report


def test_the_interpolated_crossing_and_its_interval_are_exact():
    # gap +1 at 0 and -1 at 1, each +-0.2: the crossing is 0.5, and its half-width
    # hypot(0.2 * 1/4, 0.2 * 1/4) = 0.0707...
    c, lo, hi, below, above = _cross(np.array([0.0, 1.0, 2.0]), np.array([1.0, -1.0, -3.0]),
                                     np.array([0.2, 0.2, 0.2]))
    assert (c, below, above) == (0.5, 0.0, 1.0)
    assert (hi - lo) / 2 == pytest.approx(math.hypot(0.05, 0.05))
    flat = _cross(np.array([0.0, 1.0]), np.array([1.0, 2.0]), np.array([0.1, 0.1]))
    assert all(math.isnan(x) for x in flat)


def test_a_study_of_both_hands_reports_the_diagonal(tmp_path):
    study = tmp_path / "hands.toml"
    study.write_text('[study]\nname = "hands"\ndescription = "Both hands."\nscenario = "symmetric"\n'
                     'policies = ["greedy", "greedy"]\ngames = 1000\nseed = 7\nchunk = 1000\n'
                     'main_metric = "effective_per_turn"\nmain_side = "A"\nmetrics = ["effective_per_turn"]\n'
                     '[sweep]\n"sides.A.hand" = [4, 5, 6, 7, 8]\n"sides.B.hand" = [5, 6, 7]\n')
    out = tmp_path / "out"
    napsim.run_study(study, out)
    write_report(out, with_charts=False)
    md = (out / "report.md").read_text()
    assert "## Even settings: Command hand size, Blue against Command hand size, Red" in md
    assert "Blue and Red are even in effective orders a turn where Command hand size, Blue is " in md
    table = pd.read_csv(out / "even_settings.csv")
    assert list(table["sides.B.hand"]) == [5, 6, 7] and table["crossed"].all()
    assert (table["below"] <= table["sides.B.hand"]).all() and (table["sides.B.hand"] <= table["above"]).all()
    assert (table["crossing"] - table["sides.B.hand"]).abs().max() < 0.15


def test_a_study_without_two_swept_whole_settings_has_no_such_section():
    summ = pd.DataFrame(columns=["point", "side_key", "metric", "value", "ci_low", "ci_high", "n"])
    spec = {"sweep": {"sides.*.hand": [4, 5, 6], "policy.*": ["greedy", "random"]},
            "main_metric": "effective_per_turn"}
    assert even_settings(spec, ["A", "B"], {"A": "Blue", "B": "Red"}, summ) is None


def test_a_target_across_a_second_setting_says_what_reaches_it():
    grid = napsim.balance_across("symmetric", "sides.B.hand=3..9", "sides.A.tactician=0..1", target=7.5,
                                 side="B", games=1000)
    assert all(b.crossed and b.bracket == (5.0, 6.0) for _, b in grid.rows)
    assert grid.sentence.startswith("The number of Red cards in hand that brings the Red to 7.5 moves from ")
    assert "7.5 is reached between" in words.row_sentence(grid, *grid.rows[0])
