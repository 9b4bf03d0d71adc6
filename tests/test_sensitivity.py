"""Which unknown card counts matter (`napsim sensitivity`): paired per-card effects, exact where
the value is known."""

from __future__ import annotations

import json

import numpy as np
import pytest

import napsim
from napsim.cli import main
from napsim.model.cards import load_deck
from napsim.model.defaults import SEED
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.study.sensitivity import Question, card_sensitivity, card_units, deck_with
from napsim.study.variants import PlayedGames, Variant

GAMES = 800


@pytest.fixture(scope="module")
def blue():
    """Blue's effective orders a turn on the symmetric scenario (GM&T deck), 800 games a deck."""
    return card_sensitivity(Variant("symmetric"), Question("side", "effective_per_turn", ("A",)), GAMES,
                            ensemble=6)


def test_a_metric_the_counts_cannot_move_gives_exactly_zero():
    # turns a game are fixed by the scenario: every per-card change is 0 with a zero-width interval
    r = card_sensitivity(Variant("symmetric"), Question("side", "turns", ("A",)), 200)
    assert (r.frame["per_card"] == 0).all() and (r.frame["half_width"] == 0).all()
    assert r.frame["inside_noise"].all()


def test_counts_that_do_not_matter_to_the_gap_of_two_identical_sides_stay_inside_their_noise():
    # symmetric: both sides have the same armies, hands and deck, so no count moves Red - Blue
    r = card_sensitivity(Variant("symmetric"), Question("gap", "effective_per_turn", ("A", "B")), GAMES)
    se = r.frame["half_width"] / 1.96
    assert (r.frame["per_card"].abs() <= 4 * se).all(), r.frame[["card_type", "per_card", "half_width"]]


def test_a_change_is_the_paired_difference_of_the_same_games(blue):
    # the moved deck plays games [0, n) of the same seed as the file's deck: B - A per game
    deck = load_deck("gmt90")
    row = blue.frame[blue.frame["card_type"] == "Give Them Cold Steel"].iloc[0]
    i = list(deck.cards["name"]).index("Give Them Cold Steel")
    counts = deck.counts.copy()
    counts[i] += 1
    sc = load_scenario("symmetric")
    ests = []
    for d in (deck, deck_with(deck, counts)):
        p = PlayedGames(Simulation.build(sc, deck=d), SEED, metrics=["effective_per_turn"])
        p.play_to(GAMES)
        ests.append(p.estimates("effective_per_turn")[0])
    d = ests[1].minus(ests[0])
    assert row["change_up"] == pytest.approx(d.value, abs=1e-12)
    assert row["up_high"] - row["change_up"] == pytest.approx(d.half_width, abs=1e-12)
    assert blue.answer.value == pytest.approx(ests[0].value, abs=1e-12)


def test_a_count_that_matters_is_ranked_first_and_outside_its_noise(blue):
    f = blue.frame
    assert list(f["rank"]) == list(range(1, len(f) + 1))
    assert (np.diff(f["per_card"].abs().to_numpy()) <= 1e-12).all()
    top = f.iloc[0]
    assert not top["inside_noise"] and abs(top["per_card"]) > 4 * top["half_width"] / 1.96
    # per step: half of up minus down where both exist
    both = f.dropna(subset=["change_down", "change_up"])
    assert np.allclose(both["per_card"], (both["change_up"] - both["change_down"]) / 2)


def test_tied_rows_move_together_and_all_types_adds_the_confirmed_ones():
    deck = load_deck("gmt90")
    units = {u.name: u for u in card_units(deck)}
    assert units["Scout Left + Scout Right"].rows == (0, 2) and units["Scout Left + Scout Right"].low == 2
    assert "Bayonet Charge" not in units
    every = {u.name: u for u in card_units(deck, all_types=True)}
    bc = every["Bayonet Charge"]
    assert (bc.low, bc.count, bc.high, bc.estimated) == (2, 3, 4, False)
    assert len(every) > len(units)


def test_the_ensemble_check_adds_the_effects_up_over_the_plausible_decks(blue):
    deck = load_deck("gmt90")
    per = dict(zip(blue.frame["card_type"], blue.frame["per_card"], strict=True))
    units = card_units(deck)
    for k, dk in enumerate(deck.plausible(6, SEED)):
        want = blue.answer.value + sum(per[u.name] * (dk.counts[u.rows[0]] - u.count) for u in units)
        assert blue.check_frame["predicted"].iloc[k] == pytest.approx(want, abs=1e-9)
    c = blue.check
    assert c["answered"] == 6 and c["correlation"] > 0.5 and c["sd_played"] > c["mc_half_width"] / 2


def test_the_crossing_question_starts_from_the_balance_of_the_same_games():
    # Tamames: the Spanish hand size that evens effective orders; moved decks on the same games
    r = card_sensitivity(Variant("tamames"), Question("crossing", "effective_per_turn", ("F", "S"),
                                                       "sides.S.hand=3..9"), 600)
    b = napsim.balance("tamames", "sides.S.hand=3..9", equalize="F,S", games=600)
    assert r.answer.value == pytest.approx(b.crossing[0], abs=1e-12)
    assert r.frame["per_card"].notna().all()


def test_the_command_prints_table_csv_json_and_writes_its_folder(tmp_path, capsys):
    args = ["sensitivity", "--scenario", "symmetric", "--games", "300"]
    main([*args, "--format", "json", "--out", str(tmp_path / "r")])
    got = json.loads(capsys.readouterr().out)
    assert got["findings"][0].startswith("On the deck file's counts") and got["rows"][0]["rank"] == 1
    assert {p.name for p in (tmp_path / "r").iterdir()} >= {"report.md", "sensitivity.csv", "tornado.png",
                                                            "manifest.json"}
    assert "napsim sensitivity --scenario symmetric" in (tmp_path / "r" / "report.md").read_text()
    main([*args, "--format", "csv"])
    assert capsys.readouterr().out.splitlines()[1].startswith("rank,answer,unit,card_type")


@pytest.mark.parametrize("extra,words", [
    (["--gap", "A"], "--gap: field 'side': 1 side key given"),
    (["--vary", "sides.A.hand=3..9"], "--equalize: field 'equalize': missing with --vary"),
    (["--side", "A", "--gap", "A,B"], "ask different questions"),
    (["--deck", "cca60"], "has no card count with a plausible range"),
    (["--deck-ensemble", "0"], "deck-ensemble"),
])
def test_bad_input_is_one_line_and_exit_2(extra, words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["sensitivity", "--scenario", "symmetric", "--games", "50", *extra])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and words in err
