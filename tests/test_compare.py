"""`napsim compare` and `napsim balance` (issue 18): paired differences of two variants played on the
same games, and the setting of one parameter that evens out a metric.

Exact answers come from a toy deck of Probe Left cards only: every turn the same-section exception
lets both cards order in the left section (2 + 2 orders, nominal 4), so a side orders exactly
min(4, units and leaders in its left section) a turn, in every game."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner
from support.cli import napsim_main
from support.decks import write_deck

import napsim
from napsim.cli import cli
from napsim.output import variants
from napsim.sim.metric_table import metric_names
from napsim.sim.summary import estimate, half_width
from napsim.study.variants import PlayedGames, Variant

LEFT = "sides.A.sections.L"
BARE_LEFT = {f"{LEFT}.infantry": 0, f"{LEFT}.cavalry": 0, f"{LEFT}.artillery": 0, f"{LEFT}.leaders": 0}


@pytest.fixture
def probe_deck(tmp_path):
    return str(write_deck(tmp_path / "probe.csv", {"Probe Left": 40}))


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


# --------------------------------------------------------------------------------------------
# compare


def test_identical_variants_differ_by_exactly_zero():
    df = napsim.compare("tamames", ["sides.S.guerrilla=3"], {"sides.S.guerrilla": 3}, games=300)
    assert len(df) and set(df["metric"]) >= {"effective_per_turn", "nominal_per_turn"}
    assert (df["difference"] == 0).all()
    assert (df["ci_low"] == 0).all() and (df["ci_high"] == 0).all() and (df["half_width"] == 0).all()
    assert (df["a"] == df["b"]).all() and (df["n"] == 300).all()
    assert (df["half_width_unpaired"] > 0).any()  # the unpaired width knows nothing of the pairing
    assert all("exactly the same" in s for s in df["sentence"])


def test_known_difference_on_a_toy_deck(probe_deck):
    # A orders min(4, 8 + 1 leader) = 4 a turn; B keeps one artillery unit: min(4, 1) = 1
    b = {**BARE_LEFT, f"{LEFT}.artillery": 1}
    df = napsim.compare("symmetric", {}, b, deck=probe_deck, games=200,
                        metrics=["effective_per_turn", "nominal_per_turn"])
    row = df.set_index(["metric", "side_key"])
    eff = row.loc[("effective_per_turn", "A")]
    assert (eff["a"], eff["b"], eff["difference"]) == (4.0, 1.0, -3.0)
    assert eff["ci_low"] == eff["ci_high"] == -3.0 and eff["relative_change"] == -0.75
    assert "3.00" in eff["sentence"] and "fewer effective orders a turn" in eff["sentence"]
    for key in [("effective_per_turn", "B"), ("nominal_per_turn", "A"), ("nominal_per_turn", "B")]:
        assert row.loc[key, "difference"] == 0 and row.loc[key, "a"] == 4.0


def test_pairing_narrows_the_interval_on_tamames(tmp_path):
    chart = tmp_path / "cmp.png"
    out = invoke("compare", "--scenario", "tamames", "--a", "sides.S.guerrilla=3", "--b",
                 "sides.S.guerrilla=0", "--games", "2000", "--format", "json", "--chart", str(chart))
    rows = json.loads(out)["rows"]
    french = next(r for r in rows if r["metric"] == "effective_per_turn" and r["side_key"] == "F")
    assert 0 < french["half_width"] < french["half_width_unpaired"]
    assert french["ci_low"] > 0  # fewer counters, more French orders
    assert french["sentence"].startswith("With Guerrilla counters at the start, Spanish at 0 instead of 3, "
                                         "the French get ")
    assert french["title"] == "Effective orders a turn"
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_compare_leads_with_the_change_of_the_gap_between_the_sides():
    out = invoke("compare", "--scenario", "tamames", "--a", "sides.S.hand=6", "--b", "sides.S.hand=5",
                 "--games", "1000")
    first, second = out.split("Findings:\n")[1].splitlines()[:2]
    m = re.match(r"- The gap in effective orders a turn, Spanish minus French, goes from \+(0\.\d+) with A "
                 r"to \+(0\.\d+) with B: a change of (-0\.\d+) \[(-0\.\d+), (-0\.\d+)\] \(paired over 1,000 "
                 r"games\), the gap narrows", first)
    assert m, first
    a, b, d, lo, hi = map(float, m.groups())
    assert abs((b - a) - d) <= 0.0015 and lo < d < hi
    assert second.startswith("- Each side's own change: the Spanish get 0.5"), second
    df = napsim.compare("tamames", ["sides.S.hand=6"], ["sides.S.hand=5"], games=1000)
    gap = df.attrs["gap"]
    eff = df[df["metric"] == "effective_per_turn"].set_index("side_key")
    assert gap["difference"] == pytest.approx(eff.loc["S", "difference"] - eff.loc["F", "difference"])
    # paired: the gap's change is narrower than the two sides' intervals added
    assert gap["half_width"] < eff["half_width"].sum()
    assert df.attrs["answer"][0] == first[2:].rsplit(" (table below", 1)[0] + "."


def test_several_changes_are_listed_once_then_the_effects():
    out = invoke("compare", "--scenario", "tamames", "--a", "sides.S.hand=6", "--b", "sides.S.hand=5",
                 "--b", "sides.S.guerrilla=1", "--games", "300")
    assert "B: Command hand size, Spanish: 5; Guerrilla counters at the start, Spanish: 1" in out
    effects = [line for line in out.splitlines() if line.startswith(("The French", "The Spanish"))]
    assert len(effects) >= 4 and not any("instead of" in line for line in effects), effects


def test_a_difference_that_does_not_exist_reads_not_comparable():
    assert variants.interval_text(math.nan, math.nan, math.nan) == "not comparable"
    assert variants.number_text(math.nan, 3) == "not comparable"
    assert variants.gap_sentence(None) == ""


def test_compare_table_and_target_error():
    out = invoke("compare", "--scenario", "symmetric", "--b", "sides.B.hand=7", "--games", "6000",
                 "--chunk", "1000", "--target-error", "0.05")
    assert "B - A [95% CI]" in out and "±unpaired" in out and "pairing (effective orders a turn)" in out
    assert "target error ±0.05 on effective orders a turn: reached" in out
    assert "B: Command hand size, Red: 7" in out
    # the table opens with its findings, each naming the row it comes from
    assert out.index("Findings:") < out.index("B - A [95% CI]")
    assert "- The gap in effective orders a turn, Red minus Blue, goes from " in out
    assert "- Of the other measures in orders a turn: with Command hand size, Red at 7 instead of 6" in out
    assert re.search(r"\(table below, row Nominal orders a turn, (Red|Blue)\)\.", out), out
    played = int(out.split(" games each")[0].split()[-1].replace(",", ""))
    assert 1000 <= played < 6000


# --------------------------------------------------------------------------------------------
# balance


def test_balance_finds_equal_hands_on_the_symmetric_scenario(tmp_path):
    chart = tmp_path / "balance.svg"
    res = napsim.balance("symmetric", "sides.B.hand=3..9", equalize="A,B", games=3000, chart=chart)
    v, lo, hi = res.crossing
    assert res.bracket == (5, 6)
    assert abs(v - 6) < 0.15 and lo < v < hi and hi - lo < 0.2
    frame = res.frame()
    assert list(frame["value"]) == sorted(frame["value"]) and len(frame) <= 6
    # the answer in whole settings: who leads at 5 and at 6 Red cards, then the even point
    assert re.match(r"With 5 Red cards in hand the Blue lead by 0\.\d+ \[0\.\d+, 0\.\d+\] effective orders "
                    r"a turn; with 6 the (Red lead|sides are even)", res.sentence), res.sentence
    assert "the even point lies between, at 5." in res.sentence
    assert "(Command hand size, Red; " in res.sentence
    text = variants.balance_text(res, "table", [])
    assert text.startswith("Findings:\n- With 5 Red cards in hand the Blue lead by "), text
    assert re.search(r"Near the balance, each \+1 in Command hand size \(Red\) moves Red minus Blue by about "
                     r"\+0\.\d+ \(5: -", text), text
    assert chart.read_text().lstrip().startswith("<?xml")


def test_balance_target_on_a_toy_deck_is_exact(probe_deck):
    # side A orders min(4, infantry) a turn: 2.5 is reached half-way between 2 and 3 infantry
    sets = [f"{k}={v}" for k, v in BARE_LEFT.items() if not k.endswith("infantry")]
    res = napsim.balance("symmetric", f"{LEFT}.infantry=0..9", target=2.5, side="A", sets=sets,
                         deck=probe_deck, games=100)
    assert res.crossing == (2.5, 2.5, 2.5) and res.bracket == (2, 3)
    frame = res.frame().set_index("value")
    assert frame.loc[2, "difference"] == -0.5 and frame.loc[3, "difference"] == 0.5


def test_no_setting_that_evens_the_sides_is_an_answer_with_exit_0(monkeypatch, tmp_path):
    # a Red hand of 7 to 9 against Blue's 6: Red ahead at every setting, each one played
    monkeypatch.chdir(tmp_path)
    args = ["balance", "--scenario", "symmetric", "--vary", "sides.B.hand=7..9", "--equalize", "A,B",
            "--games", "300"]
    code, out, err = napsim_main(monkeypatch, *args, "--chart", "none.png")
    assert code == 0, err
    assert re.search(r"No number of Red cards in hand from 7 to 9 evens symmetric: the Red lead at every "
                     r"setting, by \d\.\d+ \[\d\.\d+, \d\.\d+\] at 7 and \d\.\d+ \[.*\] at 9 \(effective "
                     r"orders a turn\); 300 games per setting, 3 settings played\.", out), out
    assert "\nFindings:\n- No number of Red cards in hand from 7 to 9 evens symmetric" in out
    assert (tmp_path / "none.png").stat().st_size > 5_000
    code, out, _ = napsim_main(monkeypatch, *args, "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["crossing"]["crossed"] is False and len(doc["rows"]) == 3
    assert doc["sentence"].startswith("No number of Red cards in hand from 7 to 9")
    code, out, _ = napsim_main(monkeypatch, *args, "--format", "csv")
    assert code == 0 and "# crossing: none in 7..9" in out


def test_a_short_integer_range_whose_ends_agree_is_played_at_every_setting():
    # a Red hand of 3 or 4 never reaches 9 effective orders a turn: no crossing, an answer all the same
    res = napsim.balance("symmetric", "sides.B.hand=3..4", target=9, side="B", games=200)
    assert not res.crossed and res.every_setting and [s.value for s in res.settings] == [3, 4]
    assert res.sentence.startswith("No number of Red cards in hand from 3 to 4 brings effective orders a "
                                   "turn (Red) to 9: it stays below 9 at every setting, by ")


def test_balance_chart_has_whole_setting_ticks_and_no_line_across_settings_not_played():
    res = napsim.balance("symmetric", "sides.B.hand=3..9", equalize="A,B", games=300)
    played = [s.value for s in res.settings]
    assert 4 not in played and 8 not in played  # the bisection skipped them
    fig = variants.balance_figure(res)
    ax = fig.axes[0]
    assert ax.get_ylabel().replace("\n", " ") == "Red minus Blue, effective orders a turn"
    for line in ax.get_lines():
        xs = list(line.get_xdata())
        if len(xs) > 1 and line.get_linestyle() == "-":
            assert all(b - a == 1 for a, b in zip(xs, xs[1:], strict=False)), xs
    ticks = [t for t in ax.get_xticks() if 3 <= t <= 9]
    assert ticks and all(float(t).is_integer() for t in ticks)


def test_balance_over_a_real_range_stops_at_its_own_precision():
    res = napsim.balance("tamames", "sides.S.square_form=0.0..1.0", target=7.3, side="S", games=1000)
    v, lo, hi = res.crossing
    below, above = res.bracket
    assert 0 < below < v < above < 1 and isinstance(below, float)
    assert above - below <= hi - lo  # halving the bracket again would not sharpen the answer
    assert len(res.settings) <= 12


def test_balance_csv_names_the_crossing():
    out = invoke("balance", "--scenario", "tamames", "--vary", "sides.S.hand=3..9", "--target", "7",
                 "--side", "S", "--games", "1500", "--format", "csv")
    assert "# crossing: " in out
    assert re.search(r"With 4 Spanish cards in hand the Spanish get 0\.\d+ \[0\.\d+, 0\.\d+\] fewer than 7 "
                     r"effective orders a turn; with 5 the Spanish get .* more than 7; 7 is reached between, "
                     r"at 4\.\d+ \[", out), out
    assert "(Command hand size, Spanish; " in out
    assert "value,effective_per_turn[F],effective_per_turn[S],difference" in out


# --------------------------------------------------------------------------------------------
# bad input: one line, exit 2, nothing written

COMPARE = ["compare", "--scenario", "tamames", "--games", "200"]
BALANCE = ["balance", "--scenario", "symmetric", "--vary", "sides.B.hand=3..9", "--equalize", "A,B",
           "--games", "200"]
BAD = [
    (COMPARE + ["--a", "sides.S.guerrilla"], "--a"),
    (COMPARE + ["--b", "sides.X.hand=3"], "sides.X"),
    (COMPARE + ["--b", "sides.S.guerrilla=lots"], "guerrilla"),
    (COMPARE + ["--scenario-b", "nowhere"], "unknown scenario name"),
    (COMPARE + ["--scenario-b", "symmetric"], "side keys"),
    (COMPARE + ["--deck", "nodeck"], "nodeck"),
    (COMPARE + ["--deck-a", "nodeck"], "nodeck"),
    (COMPARE + ["--deck-b", "nodeck"], "nodeck"),
    (COMPARE + ["--policy", "clever,greedy"], "clever"),
    (COMPARE + ["--policy-a", "clever,greedy"], "clever"),
    (COMPARE + ["--policy-b", "greedy:w_q=1,greedy"], "w_q"),
    (COMPARE + ["--metric", "happiness"], "unknown metric"),
    (COMPARE + ["--target-error", "-1"], "--target-error"),
    (COMPARE + ["--games", "1"], "--games"),
    (COMPARE + ["--seed", "-5"], "--seed"),
    (COMPARE + ["--chunk", "0"], "--chunk"),
    (COMPARE + ["--format", "xml"], "xml"),
    (COMPARE + ["--chart", "chart.pdf"], ".png or .svg"),
    (COMPARE + ["--chart", "no/such/folder/c.png"], "does not exist"),
    (BALANCE[:4] + ["sides.B.hand=3-9", "--equalize", "A,B"], "not a numeric range"),
    (BALANCE[:4] + ["sides.B.hand=9..3", "--equalize", "A,B"], "empty range"),
    (BALANCE[:4] + ["sides.A.name=0..3", "--equalize", "A,B"], "not a numeric parameter"),
    (BALANCE[:4] + ["rules.initiative=0..1", "--equalize", "A,B"], "not a numeric parameter"),
    (BALANCE[:4] + ["policy.A=0..1", "--equalize", "A,B"], "not a numeric parameter"),
    (BALANCE[:4] + ["sides.Q.hand=1..3", "--equalize", "A,B"], "sides.Q"),
    (BALANCE[:4] + ["sides.B.hand=3..9"], "--equalize or --target"),
    (BALANCE + ["--target", "7"], "--equalize or --target"),
    (BALANCE[:6] + ["A,Q"], "side keys"),
    (BALANCE[:6] + ["A,B", "--side", "A"], "--side"),
    (BALANCE[:4] + ["sides.B.hand=3..9", "--target", "7"], "--side"),
    (BALANCE[:4] + ["sides.B.hand=3..9", "--target", "7", "--side", "Q"], "unknown side"),
    (BALANCE[:4] + ["sides.B.hand=3..9", "--target", "nan", "--side", "B"], "--target"),
    (BALANCE + ["--metric", "happiness"], "unknown metric"),
    (BALANCE + ["--set", "sides.A.hand"], "--set"),
    (BALANCE + ["--deck", "nodeck"], "nodeck"),
    (BALANCE + ["--policy", "clever,greedy"], "clever"),
    (BALANCE + ["--games", "0"], "--games"),
    (BALANCE + ["--seed", "-1"], "--seed"),
    (BALANCE + ["--chunk", "-3"], "--chunk"),
    (BALANCE + ["--format", "xml"], "xml"),
    (BALANCE + ["--chart", "balance.txt"], ".png or .svg"),
    # the answers the search cannot give
    (["balance", "--scenario", "tamames", "--vary", "sides.S.hand=3..9", "--target", "0.5", "--side", "F",
      "--metric", "g_nullification_rate", "--games", "200"], "counts nothing for side F"),
]


@pytest.mark.parametrize(("args", "needle"), BAD, ids=[f"{a[0]}-{i}" for i, (a, _) in enumerate(BAD)])
def test_bad_input_is_one_line_and_exit_2(args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    chart = ["--chart", "out.png"] if "--chart" not in args else []
    code, out, err = napsim_main(monkeypatch, *args, *chart)
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("napsim: error:") and needle in line, err
    assert out == "" and list(tmp_path.iterdir()) == []


def test_paired_and_summary_give_every_metric_the_same_value():
    # one metric table, two paths: a summary adds x and t up from the sums, a comparison takes
    # them game by game; on the same games both give the same value, and a mean the same interval
    seen = set()
    for scenario in ("epic3-tamames", "lgb-symmetric"):  # Guerrilla rule; CIC and 2-3 commanders
        played = PlayedGames(Variant(scenario).build(), 5, 150)
        played.play_to(400)
        sides = played.sim.scenario.sides
        summary = played.sums.summary([s.key for s in sides], [s.name for s in sides])
        for r in summary.itertuples():
            x, t, present = played.sums.parts(r.metric)
            s = [side.key for side in sides].index(r.side_key)
            assert present, r.metric
            assert float(t[:, s].sum()) == (400 if r.kind == "mean_per_game" else r.n), r.metric
            e = estimate(x[:, s], t[:, s])
            if e is None:  # nothing to count: the summary says so too
                assert r.n == 0 and (math.isnan(r.value) or r.value == 0), r.metric
                continue
            assert e.value == pytest.approx(r.value, rel=1e-12, abs=1e-15), r.metric
            if r.interval == "normal95":
                assert e.half_width == pytest.approx((r.ci_high - r.ci_low) / 2, rel=1e-9), r.metric
            seen.add(r.metric)
    assert seen == set(metric_names())  # every metric of the table, with something counted
    with pytest.raises(KeyError):
        played.sums.parts("c9.nothing")
    assert math.isnan(half_width(np.zeros(1)))


@pytest.mark.parametrize(("path", "v", "words", "noun"), [
    ("sides.S.hand", 4, "4 Spanish cards in hand", "number of Spanish cards in hand"),
    ("sides.S.hand", 1, "1 Spanish card in hand", "number of Spanish cards in hand"),
    ("sides.*.hand", 5, "5 cards in hand (both sides)", "number of cards in hand (both sides)"),
    ("sides.S.guerrilla", 3, "3 Spanish Guerrilla counters at the start",
     "number of Spanish Guerrilla counters at the start"),
    ("sides.S.sections.*.spanish", 2, "2 Spanish units in every section",
     "number of Spanish units in every section"),
    ("sides.F.sections.L.infantry", 3, "3 French infantry units in section L",
     "number of French infantry units in section L"),
    ("scenario.guerrilla_pool", 6, "6 unacquired Guerrilla counters",
     "number of unacquired Guerrilla counters"),
])
def test_a_whole_setting_reads_as_what_it_counts(path, v, words, noun):
    from types import SimpleNamespace

    from napsim.output.balance_words import range_words, setting_words
    from napsim.study.balance import Vary

    b = SimpleNamespace(vary=Vary(path, 0, 9, True), side_keys=("F", "S"), side_names=("French", "Spanish"))
    assert (setting_words(b, v), range_words(b)) == (words, noun)
