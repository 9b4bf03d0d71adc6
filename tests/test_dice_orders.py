"""Cards that roll their orders (D2, the deck's `dice` mark): the Ancients I Am Spartacus and Rally
roll as many battle dice as the Command, and each die showing one of the deck's ordering faces
(`# dice_order_faces:`, 4 of 6 for the Ancients die, estimated) orders one unit; the orders are
then capped by the units there as for any card that orders up to Command (S2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.decks import read_deck_csv, write_deck_csv
from support.tracetools import CODE, SIDE, A, B, C, D, rows_of

from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import load_scenario
from napsim.output.tracefmt import format_trace
from napsim.sim.packing import Simulation
from napsim.sim.tables import card_table, dice_probabilities, eval_pair

SEED = 4141
Z = 4.0


def _only(tmp_path, name: str, count: int = 40, faces: int = 4):
    """A deck of `count` copies of one card of the Ancients deck (its row as shipped)."""
    comments, columns, rows, _ = read_deck_csv(load_deck("cca60").path)
    keep = [c for c in comments if c.startswith(("# tactician_deck", "# elan_reshuffle"))]
    row = dict(next(r for r in rows if r["name"] == name), count=str(count))
    path = write_deck_csv(tmp_path / "only.csv", [*keep, f"# dice_order_faces: {faces}"], columns,
                          [row])
    return load_deck(str(path))


def _binomial_mean(command: int, faces: int, cap: int) -> tuple[float, float]:
    """Mean and variance of min(K, cap) for K ~ Binomial(command, faces / 6)."""
    p = dice_probabilities(faces, command)[command]
    k = np.minimum(np.arange(command + 1), cap)
    mean = float((p * k).sum())
    return mean, float((p * k * k).sum()) - mean * mean


def _per_turn_effective(sim: Simulation, games: int) -> np.ndarray:
    """Per game and side: effective orders a turn (every card played is the one card of the deck)."""
    rows = sim.run(games, SEED, per_game=True).per_game
    m = layout.METRIC_NAMES
    eff = sum(rows[:, :, m.index(f"effective_{x}")] for x in "LCR")
    return eff / rows[:, :, m.index("turns")]


@pytest.mark.parametrize("units, cap", [(None, 99), ((1, 0, 0, 0), 3)])
def test_d2_s2_spartacus_orders_follow_the_binomial(tmp_path, units, cap):
    # rules D2, S2: in the one-card game (Ancients' own) every card played is I Am Spartacus:
    # Command 6 dice, each orders a unit with chance 4/6, capped by the units on the field (24;
    # then 3, one infantry unit a section and no leader)
    deck = _only(tmp_path, "I Am Spartacus")
    over = {"scenario.format": "standard", "scenario.deck": str(deck.path)}
    if units is not None:
        for s in "AB":
            for x in "LCR":
                for f, v in zip(("infantry", "cavalry", "artillery", "leaders"), units, strict=True):
                    over[f"sides.{s}.sections.{x}.{f}"] = v
    sim = Simulation.build(load_scenario("symmetric", over), deck=deck)
    per = _per_turn_effective(sim, 1500)
    turns = sim.scenario.turns
    mean, var = _binomial_mean(6, 4, cap)
    for s in range(2):
        se = math.sqrt(var / turns / per.shape[0])  # every turn an independent roll
        assert abs(per[:, s].mean() - mean) < Z * se, (s, per[:, s].mean(), mean, se)


def test_d2_both_cards_of_an_epic_turn_roll(tmp_path):
    # rules D2, E5: in EPIC the hand card and the rack card are both I Am Spartacus, in two
    # sections of nine units: each rolls the Command (6) in dice on its own, 2 x 6 x 4/6 orders
    deck = _only(tmp_path, "I Am Spartacus")
    sim = Simulation.build(load_scenario("symmetric", {"scenario.deck": str(deck.path)}),
                           deck=deck)
    per = _per_turn_effective(sim, 600)
    mean, var = _binomial_mean(6, 4, 9)
    se = math.sqrt(2 * var / sim.scenario.turns / per.shape[0])
    for s in range(2):
        assert abs(per[:, s].mean() - 2 * mean) < Z * se


def test_d2_the_ordering_faces_are_the_decks_fact(tmp_path):
    # rule D2: the number of ordering faces is the deck file's header, not the kernel's: with 6 of
    # 6 every die orders (the Command exactly), with 0 none does
    for faces, want in ((6, 6.0), (0, 0.0)):
        deck = _only(tmp_path, "I Am Spartacus", faces=faces)
        over = {"scenario.format": "standard", "scenario.deck": str(deck.path)}
        sim = Simulation.build(load_scenario("symmetric", over), deck=deck)
        assert (_per_turn_effective(sim, 20) == want).all()


def test_d2_the_trace_shows_the_roll(tmp_path):
    # rule D2: a roll is an event of the game's log (as the initiative roll is), one per card
    # played, its ordering dice the card's orders; the trace says so in words
    deck = _only(tmp_path, "I Am Spartacus")
    sim = Simulation.build(load_scenario("symmetric", {"scenario.format": "standard",
                                                       "scenario.deck": str(deck.path)}), deck=deck)
    met, events = sim.trace(SEED, 3)
    rolls = rows_of(events, layout.EV_DICE)
    assert len(rolls) == 2 * sim.scenario.turns
    assert (rolls[:, B] == 6).all() and (rolls[:, D] == -1).all()
    assert (rolls[:, A] == sim.cards.names.index("I Am Spartacus")).all()
    m = layout.METRIC_NAMES
    for s in range(2):
        mine = rolls[rolls[:, SIDE] == s]
        assert mine[:, C].sum() == sum(met[s, m.index(f"effective_{x}")] for x in "LCR")
    text = format_trace(sim, events, SEED, 3)
    assert "rolls 6 dice for I Am Spartacus (its Command): " in text


def test_d2_decks_without_dice_cards_roll_nothing():
    # rule D2: a deck without the dice mark has no rolled types and its games log no roll (the
    # golden digests of tests/test_golden.py pin that their games draw the same numbers as ever)
    sim = Simulation.build("symmetric")
    assert (sim.cards.dice_var == -1).all() and (sim.ctab[:, layout.C_DICE_VAR] == -1).all()
    assert len(sim.cards.names) == load_deck("gmt90").n_types + 1
    _, events = sim.trace(SEED, 0)
    assert not (events[:, CODE] == layout.EV_DICE).any()


def test_d2_s2_rally_orders_by_a_leader_and_its_fallback_ignores_the_dice():
    # rules D2, S2: Rally's ordering dice order units where a leader stands (unit_filter led);
    # where none stands the card orders the one unit of choice whatever the dice show (its text:
    # without leaders, one unit of your choice), so even with no ordering die
    ct = card_table(load_deck("cca60"), dice_max=6)
    name = {n: i for i, n in enumerate(ct.names)}
    nominal, eff, rem = (np.zeros(3, np.int64) for _ in range(3))
    units = np.array([[6, 6, 6], [2, 2, 2], [0, 0, 0], [1, 0, 0]], np.int64)  # a leader on the left

    def orders(card, place):
        eval_pair.py_func(name[card], place, ct.void, 0, 6, units, ct.kind, ct.sec, ct.orders,
                          ct.eq_cmd, ct.cap, ct.filt, ct.take_command, ct.fallback, ct.reach, False,
                          nominal, eff, rem)
        return nominal.tolist(), eff.tolist()

    assert orders("Rally (3 ordering dice)", 0) == ([3, 0, 0], [3, 0, 0])
    assert orders("Rally (0 ordering dice)", 0) == ([0, 0, 0], [0, 0, 0])
    assert orders("Rally (0 ordering dice)", 1) == ([0, 1, 0], [0, 1, 0])
    assert orders("Rally (5 ordering dice)", 2) == ([0, 0, 1], [0, 0, 1])
    assert orders("I Am Spartacus (2 ordering dice)", 1) == ([0, 2, 0], [0, 2, 0])
    assert ct.dice_var[name["Rally"]] == name["Rally (0 ordering dice)"]
    assert ct.dice[name["Rally"]] == ct.dice[name["I Am Spartacus"]] == 4


def test_p1_greedy_scores_a_rolled_card_by_its_expectation():
    # rules P1, D2: the greedy score of I Am Spartacus alone is the expectation of its roll
    # (weighted effective orders of each roll by its binomial chance), not the Command
    sim = Simulation.build(load_scenario("symmetric", {"scenario.deck": "cca60"}))
    ct, t = sim.cards, sim.tables
    sp = ct.names.index("I Am Spartacus")
    w = sim.policies[0, 1:4]
    for c in (3, 6):
        p = dice_probabilities(4, c)[c]
        want = max(w[x] * float((p * np.minimum(np.arange(c + 1), 9)).sum()) for x in range(3))
        assert t.best_val[0, c, sp, ct.void] == pytest.approx(want, abs=1e-9)
        assert t.nominal[0, c, sp, ct.void].max() == c  # its own table row: the Command


def test_d1_dice_header_and_column_are_checked(tmp_path):
    # rule D1: a card with the dice mark needs the deck's `# dice_order_faces:` line (0-6), the
    # line needs such a card, and only a tactic, troop or leadership card with cap cmd rolls
    comments, columns, rows, _ = read_deck_csv(load_deck("cca60").path)
    no_header = [c for c in comments if not c.startswith("# dice_order_faces")]
    bad = write_deck_csv(tmp_path / "a.csv", no_header, columns, rows)
    with pytest.raises(NapsimInputError, match="dice_order_faces") as e:
        load_deck(str(bad))
    at = read_deck_csv(bad)[3][[r["name"] for r in rows].index("I Am Spartacus")]
    assert f"a.csv:{at}: field 'dice'" in str(e.value)
    plain = [dict(r, dice="0") for r in rows]
    with pytest.raises(NapsimInputError, match="no card of the deck rolls dice"):
        load_deck(str(write_deck_csv(tmp_path / "b.csv", comments, columns, plain)))
    seven = [c.replace(": 4", ": 7") if c.startswith("# dice_order_faces") else c for c in comments]
    with pytest.raises(NapsimInputError, match="0-6"):
        load_deck(str(write_deck_csv(tmp_path / "c.csv", seven, columns, rows)))
    section = [dict(r, dice="1") if r["name"] == "Order Two Units Left" else r for r in rows]
    with pytest.raises(NapsimInputError, match="cap cmd"):
        load_deck(str(write_deck_csv(tmp_path / "d.csv", comments, columns, section)))
    assert load_deck("cca60").dice_order_faces == 4
    assert load_deck("gmt90").dice_order_faces == 0


def test_d1_decks_show_says_which_cards_roll_and_the_die():
    # rules D1, D2: `napsim decks show` names the cards that roll their orders and the deck's
    # ordering faces; a deck without such cards says nothing of a die
    from napsim.output.views import deck_text
    text = deck_text("cca60")
    assert "I Am Spartacus               rolls command dice: one unit per ordering face" in text
    assert "4 of its 6 faces order a unit (# dice_order_faces" in text
    assert "rolls command dice" not in deck_text("gmt90") and "faces order" not in deck_text("gmt90")
