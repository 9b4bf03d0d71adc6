"""The exact oracle: the pure-Python reference engines (tests/reference/engine.py for EPIC 1-4 a
side and the standard game, tests/reference/lgb.py for La Grande Battles) play a game of (seed,
game index) on the kernel's own random stream, drawing what the kernel draws in the kernel's
order, and log the kernel's trace events; a reference log must equal the kernel's trace
(`Simulation.trace`) event for event, and its metrics and commander metrics the kernel's one-game
chunk's, in every format and rule reading the references play. A failure names the game, the first
event that differs and both events in words (tests/support/oracle.py).

Rules exercised: everything the references play (their docstrings): E1-E11, D3-D8, P1-P3, P6, P7,
S2, S4, the commander layer M4, M6, M8, La Grande Battles L1-L9 and the Spanish Guerrillas G1-G7
with P4, P5, under the default and the other readings of the [rules] table. The default run plays
a few games a case; `-m slow` more.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from support.oracle import compare_games, first_difference
from support.sizes import quick_and_full

from napsim.engine.cardflow import _draw_card
from napsim.engine.layout import CM_NAMES, EV_ORDERS, METRIC_NAMES, N_CM, N_METRICS, TRACE_WIDTH
from napsim.engine.rng import battle_die, seed_key, start_game
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation

sys.path.insert(0, str(Path(__file__).parent))
from reference.engine import game_log, play_games, play_games_multi  # noqa: E402
from reference.lgb import game_log_lgb, play_games_lgb  # noqa: E402
from reference.stream import Stream  # noqa: E402

SEED = 20261207
GREEDY = ("greedy", {})
RANDOM = ("random", {})
SPAIN_TAMAMES = {"sides.S.sections.L.spanish": 4, "sides.S.sections.C.spanish": 3,
                 "sides.S.sections.R.spanish": 0, "sides.S.guerrilla": 1}
EPIC4_WING = {"sides.A.sections.L.spanish": 6, "sides.A.sections.C.spanish": 2,
              "sides.A.sections.R.spanish": 0, "sides.A.guerrilla": 3,
              "sides.A.guerrilla_rule": "epic", "sides.B.french": True,
              "scenario.guerrilla_pool": 3}
# La Grande Battles: Spanish Corps commanders on side A against the French B (wings of 5, 3, 5
# Spanish units), small wings for a Take Command's reach (E7), a Spanish total to deal (G6)
LGB_SPANISH = {**{f"sides.A.sections.{x}.spanish": n
                  for x, n in {"L1": 4, "L2": 1, "C1": 2, "C2": 1, "R1": 3, "R2": 2}.items()},
               "sides.A.guerrilla_rule": "epic", "sides.A.corps_guerrilla": [2, 1, 2],
               "sides.B.french": True, "scenario.guerrilla_pool": 4}
LGB_TOTAL = {**LGB_SPANISH, "sides.A.corps_guerrilla": [0, 0, 0], "sides.A.guerrilla": 5,
             "sides.A.sections.R1.spanish": 1, "sides.A.sections.R2.spanish": 1}
LGB_SMALL = {"L1": (1, 0, 0, 0), "L2": (1, 1, 0, 0), "C1": (2, 0, 1, 0), "C2": (1, 0, 0, 0),
             "R1": (1, 0, 0, 1), "R2": (0, 1, 0, 0)}
# name: (scenario, overrides, (policy of side A, of side B), deck or None)
CASES = {
    # the standard one-card game on the base deck (no Tactician deck, D4)
    "standard-greedy": ("symmetric", {"scenario.format": "standard"}, (GREEDY, GREEDY), "ccn70"),
    "standard-random": ("symmetric", {"scenario.format": "standard"}, (RANDOM, RANDOM), "ccn70"),
    # EPIC one a side, and the readings of the [rules] table it plays
    "epic1-greedy": ("symmetric", {}, (GREEDY, GREEDY), None),
    "epic1-random": ("symmetric", {}, (RANDOM, RANDOM), None),
    "epic1-elan-shuffle-first": ("symmetric", {"rules.elan_order": "shuffle_first"},
                                 (GREEDY, GREEDY), None),
    "epic1-counter-attack-hand": ("symmetric", {"rules.counter_attack_copies": "hand"},
                                  (GREEDY, GREEDY), None),
    "epic1-counter-attack-any-section": ("symmetric", {"rules.counter_attack_section": "any"},
                                         (GREEDY, GREEDY), None),
    "epic1-keep-deny": ("symmetric", {}, (("greedy", {"keep_weight": 0.5, "deny_weight": 0.3}),
                                          ("greedy", {"first_strike_prob": 0.5})), None),
    # the house rule tactic_reach = every_section (the card table's reach column)
    "epic1-tactic-reach-every-section": ("symmetric", {"rules.tactic_reach": "every_section"},
                                         (GREEDY, RANDOM), None),
    "epic3-tactic-reach-every-section": ("epic3-tamames", {"rules.tactic_reach": "every_section"},
                                         (GREEDY, GREEDY), None),
    "epic1-squares": ("symmetric", {"sides.A.square_form": 0.3, "sides.A.square_leave": 0.4},
                      (GREEDY, RANDOM), None),
    # the Spanish Guerrillas (tamames): the EPIC rule, the base rule, policies and readings
    "tamames-greedy": ("tamames", {}, (GREEDY, GREEDY), None),
    "tamames-random": ("tamames", {}, (RANDOM, RANDOM), None),
    "tamames-base": ("tamames", {"sides.S.guerrilla_rule": "base"},
                     (GREEDY, ("greedy", {"g_spend_mode": "threshold", "g_threshold": 4,
                                          "g_gain_mode": "below", "g_gain_below": 2})), None),
    "tamames-assault": ("tamames", SPAIN_TAMAMES, (GREEDY, ("greedy", {"g_spend_mode": "assault"})),
                        None),
    "tamames-standard-base": ("tamames", {"scenario.format": "standard",
                                          "sides.S.guerrilla_rule": "base"},
                              (GREEDY, GREEDY), "ccn70"),
    "tamames-all-return": ("tamames", {"rules.spent_counters": "all_return"}, (GREEDY, GREEDY),
                           None),
    "tamames-nullified-none": ("tamames", {"rules.counter_attack_nullified": "none"},
                               (GREEDY, GREEDY), None),
    "tamames-two-scouts-draw-two": ("tamames", {"rules.two_scouts": "draw_two"}, (GREEDY, GREEDY),
                                    None),
    "tamames-old-readings": ("tamames", {"rules.elan_order": "shuffle_first",
                                         "rules.counter_attack_copies": "hand"},
                             (GREEDY, GREEDY), None),
    # EPIC two, three and four a side: the commander layer
    "epic2-greedy": ("epic2-talavera", {}, (GREEDY, GREEDY), None),
    "epic2-random": ("epic2-talavera", {}, (RANDOM, RANDOM), None),
    "epic2-base-guerrillas": ("epic2-talavera", {"sides.A.guerrilla_rule": "base"},
                              (GREEDY, GREEDY), None),
    "epic3-greedy": ("epic3-tamames", {}, (GREEDY, GREEDY), None),
    "epic3-random": ("epic3-tamames", {}, (RANDOM, RANDOM), None),
    "epic3-initiative-no-card": ("epic3-tamames", {"rules.initiative": "no_card"},
                                 (GREEDY, GREEDY), None),
    "epic3-e4-two-commanders": ("epic3-tamames", {"sides.F.hand": 1, "sides.S.hand": 1},
                                (GREEDY, GREEDY), None),
    "epic3-e4-one-commander": ("epic3-tamames", {"sides.F.hand": 1, "sides.S.hand": 1,
                                                 "rules.same_section_receiver": "one_commander"},
                               (GREEDY, GREEDY), None),
    "epic3-cic-keeps-both": ("epic3-tamames", {"rules.cic_keeps": "both"}, (GREEDY, GREEDY), None),
    "epic3-cic-left-shared": ("epic3-tamames", {"sides.S.cic_section": "L",
                                                "sides.S.sections.L.spanish": 2,
                                                "sides.S.sections.R.spanish": 3,
                                                "rules.guerrilla_share": "shared"},
                              (GREEDY, GREEDY), None),
    "epic3-elan-first-ca-hand": ("epic3-tamames", {"rules.elan_order": "shuffle_first",
                                                   "rules.counter_attack_copies": "hand"},
                                 (GREEDY, GREEDY), None),
    "epic4-greedy": ("epic4-symmetric", {}, (GREEDY, GREEDY), None),
    "epic4-random": ("epic4-symmetric", {}, (RANDOM, RANDOM), None),
    "epic4-initiative-no-card": ("epic4-symmetric", {"rules.initiative": "no_card"},
                                 (GREEDY, GREEDY), None),
    "epic4-e4-one-commander": ("epic4-symmetric", {"sides.A.hand": 1, "sides.B.hand": 1,
                                                   "rules.same_section_receiver": "one_commander"},
                               (GREEDY, GREEDY), None),
    "epic4-no-tactician-deck": ("epic4-symmetric", {}, (GREEDY, GREEDY), "ccn70"),
    "epic4-guerrillas-lost": ("epic4-symmetric", EPIC4_WING, (GREEDY, GREEDY), None),
    "epic4-guerrillas-shared": ("epic4-symmetric", {**EPIC4_WING, "rules.guerrilla_share": "shared"},
                                (GREEDY, GREEDY), None),
    "epic4-guerrillas-base": ("epic4-symmetric", {
        "sides.A.sections.L.spanish": 3, "sides.A.sections.C.spanish": 3,
        "sides.A.sections.R.spanish": 2, "sides.A.guerrilla": 2, "sides.A.guerrilla_rule": "base",
        "sides.B.french": True, "scenario.guerrilla_pool": 3}, (GREEDY, GREEDY), None),
    # La Grande Battles
    "lgb-greedy": ("lgb-symmetric", {}, (GREEDY, GREEDY), None),
    "lgb-random": ("lgb-symmetric", {}, (RANDOM, RANDOM), None),
    "lgb-no-march-moves": ("lgb-symmetric", {}, (("greedy", {"march_prob": 0.0}),) * 2, None),
    "lgb-small-corps-hands": ("lgb-symmetric", {"sides.A.corps_hand": [0, 1, 0],
                                                "sides.B.corps_hand": [1, 0, 2]},
                              (GREEDY, GREEDY), None),
    "lgb-squares": ("lgb-symmetric", {"sides.A.square_form": 0.3, "sides.B.square_form": 0.3,
                                      "sides.B.square_leave": 0.2, "sides.B.corps_hand": [1, 1, 1]},
                    (GREEDY, RANDOM), None),
    "lgb-take-command-reach": ("lgb-symmetric", {
        f"sides.{s}.sections.{x}.{f}": v[j] for s in "AB" for x, v in LGB_SMALL.items()
        for j, f in enumerate(("infantry", "cavalry", "artillery", "leaders"))},
        (RANDOM, RANDOM), None),
    "lgb-guerrillas": ("lgb-symmetric", LGB_SPANISH, (GREEDY, GREEDY), None),
    "lgb-guerrillas-assault-below": ("lgb-symmetric", LGB_SPANISH, (
        ("greedy", {"g_spend_mode": "assault", "g_gain_mode": "below", "g_gain_below": 4}),
        GREEDY), None),
    "lgb-guerrillas-threshold": ("lgb-symmetric", LGB_SPANISH, (
        ("greedy", {"g_spend_mode": "threshold", "g_threshold": 3, "first_strike_prob": 0.0}),
        GREEDY), None),
    "lgb-guerrillas-random": ("lgb-symmetric", LGB_SPANISH, (RANDOM, RANDOM), None),
    "lgb-guerrilla-total-lost": ("lgb-symmetric", LGB_TOTAL, (GREEDY, GREEDY), None),
    "lgb-guerrilla-total-shared": ("lgb-symmetric", {**LGB_TOTAL, "rules.guerrilla_share": "shared"},
                                   (GREEDY, GREEDY), None),
    "lgb-guerrillas-all-return-nullified-none": ("lgb-symmetric", {
        **LGB_SPANISH, "rules.spent_counters": "all_return",
        "rules.counter_attack_nullified": "none", "rules.two_scouts": "draw_two"}, (GREEDY, GREEDY),
        None),
    "lgb-elan-shuffle-first": ("lgb-symmetric", {"rules.elan_order": "shuffle_first"},
                               (GREEDY, GREEDY), None),
    "lgb-first-strike-cic-at-once": ("lgb-symmetric", {"rules.first_strike_draw": "cic_at_once"},
                                     (("greedy", {"first_strike_prob": 0.7}), RANDOM), None),
    "lgb-no-tactician-deck": ("lgb-symmetric", {}, (GREEDY, GREEDY), "ccn70"),
}


def simulation(name: str) -> Simulation:
    scenario, overrides, policies, deck = CASES[name]
    return Simulation.build(load_scenario(scenario, overrides), policies, deck)


@pytest.mark.parametrize("games", quick_and_full(3, 40))
@pytest.mark.parametrize("name", list(CASES))
def test_reference_replays_the_kernel_event_for_event(name, games):
    # rules D3, D4, D5, D6, D7, D8, E1-E8, E9.1-E9.6, E10, E11, G1-G7, L1-L9, M4, M6.1-M6.4, M8.1,
    # M8.2, P1-P7, S2, S4: every rule the references play (module doc), each case a reading of the
    # [rules] table or a policy: the same game, event for event, and the same metrics and
    # commander metrics at its end
    sim = simulation(name)
    reference = game_log_lgb if sim.scenario.format == "lgb" else game_log
    bad = compare_games(sim, SEED, range(games), reference)
    assert not bad, "\n".join(bad)


def test_the_reference_stream_draws_what_the_kernel_draws():
    # the reference's Python stream against the kernel's own draws of the same game: battle dice
    # (rule D5) and the lazy draw of a random card of the pile (rule D6)
    rs = np.zeros(2, np.uint64)
    start_game(rs, seed_key(SEED), np.int64(11))
    ours = Stream(SEED, 11)
    assert [int(battle_die(rs)) for _ in range(500)] == [ours.die() for _ in range(500)]
    pile = np.arange(40, dtype=np.uint16)
    mine = list(range(40))
    pn, dn = np.array([40]), np.array([0])
    met = np.zeros((2, N_METRICS), np.int64)
    trace, tn = np.zeros((0, TRACE_WIDTH), np.int64), np.zeros(1, np.int64)
    drawn = [int(_draw_card(rs, pile, pn, np.zeros(40, np.uint16), dn, met, 0, trace, tn,
                            np.int64(-1))) for _ in range(40)]
    ref = []
    for _ in range(40):
        j = ours.bounded(len(mine))
        ref.append(mine[j])
        mine[j] = mine[-1]
        mine.pop()
    assert drawn == ref and sorted(drawn) == list(range(40))
    assert int(rs[1]) == ours.drawn


def test_a_difference_names_the_game_the_event_and_both_events_in_words():
    # the failure message of the oracle: game index, event number, both events decoded
    sim = simulation("epic1-greedy")
    _, _, events = game_log(sim, SEED, 2)
    k = int(np.flatnonzero(events[:, 0] == EV_ORDERS)[3])
    changed = events.copy()
    changed[k, 3] += 1  # one more nominal order on the left
    text = first_difference(sim, 2, events, changed)
    assert f"game 2: the logs differ at event {k}" in text
    assert text.count("orders L/C/R: nominal") == 2
    assert first_difference(sim, 2, events, events) is None
    assert "the log ends here" in first_difference(sim, 2, events, events[:-1])


def test_the_reference_games_sum_as_the_kernel_returns_them():
    # rules M6.1 / M8.1 / L1: every section (Corps) commander takes every turn of his side; with
    # one player a side there are no commander metrics. napsim bench --reference calls
    # play_games(sim, n, seed=1) (play_games_lgb for La Grande Battles): [2, N_METRICS] int64 totals
    sim = simulation("epic1-greedy")
    out = play_games(sim, 2, seed=1)
    assert out.shape == (2, N_METRICS) and out.dtype == np.int64
    assert (out[:, METRIC_NAMES.index("turns")] == 2 * sim.scenario.turns).all()
    assert (out[:, METRIC_NAMES.index("invariant_violations")] == 0).all()
    assert not play_games_multi(sim, 2, seed=1)[1].any()
    sim = simulation("epic3-greedy")
    met, cmet = play_games_multi(sim, 2, seed=1)
    assert met.shape == (2, N_METRICS) and cmet.shape == (2, 4, N_CM) and cmet.dtype == np.int64
    assert (cmet[:, :3, CM_NAMES.index("commander_turns")] == 2 * sim.scenario.turns).all()
    assert (cmet[:, 3] == 0).all()
    rows, crows = play_games_multi(sim, 2, seed=1, per_game=True)
    assert np.array_equal(rows.sum(axis=0), met) and np.array_equal(crows.sum(axis=0), cmet)
    sim = simulation("lgb-greedy")
    met, cmet = play_games_lgb(sim, 2, seed=1)
    assert met.shape == (2, N_METRICS) and cmet.shape == (2, 4, N_CM)
    assert (met[:, METRIC_NAMES.index("turns")] == 2 * sim.scenario.turns).all()
    assert (cmet[:, 1:, CM_NAMES.index("commander_turns")] == 2 * sim.scenario.turns).all()
