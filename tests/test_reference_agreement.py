"""The numba kernel (napsim.engine.epic.play_blocks) against the pure-Python reference engine of
tests/reference/engine.py: per-game means of the card-flow metrics must agree statistically.

Rules exercised: E1 setup, E2/E3 choice and placement, E4 same-section exception, E6 command,
E8/P3 stars, E9.1/E9.2 draw and Scout, E9.3 Tactician draws, E9.4 Elan, E9.6 refill, E10 rack
cycle, E11 squares, D6 reshuffle, P1 greedy/random choice, P2 Scout keep, P7 First Strike, and the
Spanish Guerrilla Action: G1-G3 base rule, G4-G6 EPIC clarifications with the sections mirrored
between the sides (S4), G7 metrics, P4/P5 policies. The scenarios play the default readings of the
[rules] table (napsim.scenarios.RULE_OPTIONS); test_kernel_agrees_with_reference_rule_options plays
the other readings of the options that apply with one player a side (elan_order,
counter_attack_copies). The standard game runs on the base deck, which has no Tactician deck (D4).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
from support.sizes import quick_and_full

from napsim.engine.layout import METRIC_NAMES
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation

sys.path.insert(0, str(Path(__file__).parent))
from reference.engine import play_games  # noqa: E402

KERNEL_GAMES = 4000
REF_GAMES = 500  # reference games a test plays: 40 in the default run, 500 under -m slow (ref_games)
Z = 4.0

METRICS = (
    "effective_L", "effective_C", "effective_R",    # rules S2, E5, E6
    "nominal_L", "nominal_C", "nominal_R",
    "wasted",                                       # rule S2
    "scout_draws",                                  # rule E9.2
    "stars_march", "stars_tactician", "march_units",  # rules E8, P3
    "elan_reshuffles",                              # rule E9.4
    "tactician_drawn", "tactician_played", "tactician_starved",  # rules E9.3, D4
    "pick_from_5", "pick_from_4", "pick_from_3",    # rule E10
    "refills",                                      # rule E9.6
    "first_strikes",                                # rule P7
    "counter_attacks",
    "hand_section", "hand_multi", "hand_tactic",    # rules E2, P1
    "rack_section", "rack_multi", "rack_tactic",
    "same_section_turns", "same_section_used",      # rule E4
    "squares_formed",                               # rule E11
    "deck_reshuffles",                              # rule D6
    "tactician_held_end",
    # rules G1-G7, P4, P5 (zero on a side without the guerrilla rule)
    "g_french_turns", "g_offered", "g_spent", "g_stopped_by_sabre", "g_cards_nullified",
    "g_denied_nominal", "g_denied_effective", "g_available_not_spent",
    "g_nullified_in_french_L", "g_nullified_in_french_C", "g_nullified_in_french_R",
    "g_denied_effective_in_french_L", "g_denied_effective_in_french_C",
    "g_denied_effective_in_french_R",
    "g_acquired", "g_held_end", "g_pool_end",
)

@pytest.fixture(autouse=True, params=quick_and_full(40, REF_GAMES))
def ref_games(request, monkeypatch) -> int:
    """Every test here runs at two sizes: 40 reference games (the default run) and 500 (slow)."""
    monkeypatch.setitem(globals(), "REF_GAMES", request.param)
    return request.param


POLICIES = {"greedy": (("greedy", {}), ("greedy", {})), "random": (("random", {}), ("random", {}))}


def _standard_scenario():
    """The symmetric armies in the standard one-card game on the base deck."""
    return dataclasses.replace(load_scenario("symmetric"), format="standard", deck="ccn70")


# guerrilla variants of tamames: (scenario overrides, Spanish policy parameters)
GUERRILLA_VARIANTS = {
    # rules G1-G3 in the EPIC card flow; P4 threshold, P5 below n held
    "tamames_base": ({"sides.S.guerrilla_rule": "base"},
                     {"g_spend_mode": "threshold", "g_threshold": 4, "g_gain_mode": "below",
                      "g_gain_below": 2}),
    # rules G4-G6 with 4 Spanish units on the left only (gains there, none elsewhere); P4 assault
    "tamames_assault": ({"sides.S.sections.L.spanish": 4, "sides.S.sections.C.spanish": 3,
                         "sides.S.sections.R.spanish": 0, "sides.S.guerrilla": 1},
                        {"g_spend_mode": "assault"}),
    # rule G1-G3 in the standard one-card game on the base deck
    "standard_base": ({"scenario.format": "standard", "scenario.deck": "ccn70",
                       "sides.S.guerrilla_rule": "base"}, {}),
}


def _compare(sim: Simulation, seed: int) -> list[str]:
    k_rows = sim.run(KERNEL_GAMES, seed, per_game=True).per_game
    _, r_rows = play_games(sim, REF_GAMES, seed=seed, per_game=True)
    bad = []
    for name in METRICS:
        m = METRIC_NAMES.index(name)
        for s in range(2):
            k, r = k_rows[:, s, m].astype(float), r_rows[:, s, m].astype(float)
            # the small reference sample may hold none of a rare event (e.g. rule E4): its
            # variance is then estimated from the kernel's
            vk, vr = k.var(ddof=1), r.var(ddof=1)
            se = np.sqrt(vk / len(k) + max(vk, vr) / len(r))
            diff = abs(k.mean() - r.mean())
            if diff > Z * se + 1e-12:
                bad.append(f"{name}[side {s}]: kernel {k.mean():.4f} reference {r.mean():.4f} "
                           f"(diff {diff:.4f}, {Z:g} se = {Z * se:.4f})")
    return bad


@pytest.mark.parametrize("policy", ["greedy", "random"])
@pytest.mark.parametrize("scenario", ["symmetric", "tamames", "standard"])
def test_kernel_agrees_with_reference(scenario, policy):
    # rules E1-E11, D6, D7, P1-P3, P7 and (tamames: Spanish guerrillas, EPIC rule) G4-G7, S4, P4,
    # P5: every card-flow and guerrilla metric within 4 combined standard errors; rule D3 with
    # counter_attack_copies = either, rule E9.4 with elan_order = draw_first (the defaults); rule
    # D4 (standard, base deck): no Tactician card is dealt or drawn, and none is starved
    sc = _standard_scenario() if scenario == "standard" else scenario
    sim = Simulation.build(sc, POLICIES[policy])
    bad = _compare(sim, seed=12345)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("variant", list(GUERRILLA_VARIANTS))
def test_kernel_agrees_with_reference_guerrilla_variants(variant):
    # rules G1-G3 (base rule, EPIC card flow and standard game), G4 gain only where >= 4 Spanish
    # units, G5 section targeting, P4 threshold / assault spending, P5 gain below n
    overrides, spanish_policy = GUERRILLA_VARIANTS[variant]
    sc = load_scenario("tamames", overrides)
    sim = Simulation.build(sc, (("greedy", {}), ("greedy", spanish_policy)))
    assert sim.scenario.sides[1].key == "S"
    bad = _compare(sim, seed=777)
    assert not bad, "\n".join(bad)


# the non-default readings of the scenario's [rules] table that EPIC with one player a side plays
RULE_VARIANTS = {
    # rule E9.4: the Elan reshuffle comes before the turn's Command draw (elan_order)
    "elan_shuffle_first": ("symmetric", {"rules.elan_order": "shuffle_first"}),
    # rule D3: a Counter-Attack copies only the opponent's last hand card (counter_attack_copies)
    "counter_attack_hand": ("symmetric", {"rules.counter_attack_copies": "hand"}),
    # rules D3, G5, S4 with the Guerrillas: both readings above at once on tamames
    "tamames_old_readings": ("tamames", {"rules.elan_order": "shuffle_first",
                                         "rules.counter_attack_copies": "hand"}),
    # rules D8, G5: a Counter-Attack cannot copy a card the Guerrillas cancelled (the reading the
    # designer's ruling replaced, counter_attack_nullified = none)
    "tamames_nullified_none": ("tamames", {"rules.counter_attack_nullified": "none"}),
}


@pytest.mark.parametrize("variant", list(RULE_VARIANTS))
def test_kernel_agrees_with_reference_rule_options(variant):
    # rules E9.4 (elan_order = shuffle_first), D3 (counter_attack_copies = hand), D8
    # (counter_attack_nullified = none), and under them the E card flow, G4-G7 and S4 (mirrored
    # Guerrilla sections) on tamames
    name, overrides = RULE_VARIANTS[variant]
    sim = Simulation.build(load_scenario(name, overrides), POLICIES["greedy"])
    bad = _compare(sim, seed=999)
    assert not bad, "\n".join(bad)


def test_play_games_signature():
    # the benchmark calls play_games(sim, 20, seed=1) and reads a [2, N_METRICS] int64 array
    sim = Simulation.build("symmetric")
    out = play_games(sim, 2, seed=1)
    assert out.shape == (2, len(METRIC_NAMES)) and out.dtype == np.int64
    assert (out[:, METRIC_NAMES.index("turns")] == 2 * sim.scenario.turns).all()
    assert (out[:, METRIC_NAMES.index("invariant_violations")] == 0).all()


@pytest.mark.parametrize("fmt", ["standard", "epic1"])
def test_kernel_agrees_with_reference_dice_cards(fmt):
    # rules D2, S2: the Ancients deck's I Am Spartacus and Rally roll Command battle dice and order
    # one unit per ordering face (the card's rolled type), the greedy scores them by the
    # expectation of the roll (P1); the one-card game (Ancients' own) and EPIC one a side
    sc = load_scenario("symmetric", {"scenario.format": fmt, "scenario.deck": "cca60"})
    sim = Simulation.build(sc, POLICIES["greedy"])
    assert sim.cards.dice_var.max() > 0  # the deck's dice cards have their rolled types
    bad = _compare(sim, seed=4141)
    assert not bad, "\n".join(bad)
