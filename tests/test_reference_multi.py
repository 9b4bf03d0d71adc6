"""EPIC with 2, 3 and 4 players a side: the kernel (napsim.engine.epic.play_blocks, commander layer)
against the pure-Python reference engine of tests/reference/engine.py. Per-game means of the side
metrics and the per-commander metrics must agree within Z standard errors of the difference of
means; a metric without variance in either sample must agree exactly.

Rules exercised: M4 the pass to the sub-commander, M6.1 / M8.1 receivers by placement section,
M6.2 / M8.2 initiative rolls (D5 battle die), M6.3 / M8.2 Tactician cards per commander, M6.4
Elan, the E card flow underneath (E1-E11, D4, D6, D7, P1-P3, P7), and the Spanish Guerrilla Action
with several commanders: G1 / G3 base rule, G4 / G5 EPIC rule with the sections mirrored between
the sides (S4), G6 counters per section commander. The scenarios play the default readings of the
[rules] table (napsim.scenarios.RULE_OPTIONS); test_rule_options and the guerrilla_share case play
the other readings.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from support.sizes import quick_and_full

from napsim.engine.layout import CM_NAMES, METRIC_NAMES, N_CM, N_METRICS
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation

sys.path.insert(0, str(Path(__file__).parent))
from reference.engine import play_games, play_games_multi  # noqa: E402

KERNEL_GAMES = 4000
REF_GAMES = 800  # reference games a test plays: 40 in the default run, 800 under -m slow (ref_games)
Z = 4.0
SEED = 4242

@pytest.fixture(autouse=True, params=quick_and_full(40, REF_GAMES))
def ref_games(request, monkeypatch) -> int:
    """Every test here runs at two sizes: 40 reference games (the default run) and 800 (slow)."""
    monkeypatch.setitem(globals(), "REF_GAMES", request.param)
    return request.param


# every side metric: rules S2, E2-E11 (orders, picks, refills, stars, Scout, Elan, E4, squares),
# D4 / D6 (Tactician deck, reshuffles), P7, and G1-G7 (zero on a side without the guerrilla rule)
METRICS = METRIC_NAMES

COMMANDER_METRICS = (
    "commander_turns",                                # rules M4, M6.1, M8.1
    "cards_received", "turns_without_card",           # rules M4, M6.1, M8.1
    "cards_passed",                                   # rule M4
    "cic_keep_one", "cic_give_both",                  # rule M6.1
    "card_nominal", "card_effective",                 # rules M4, M6.1, M8.1, E5
    "initiative_rolls",                               # rules M6.2, M8.2
    "face_infantry", "face_cavalry", "face_artillery", "face_flag", "face_sabre",  # rule D5
    "initiative_ordered", "initiative_march", "initiative_melee",  # rule M6.2
    "initiative_doubles", "initiative_tactician", "initiative_two_sabres",
    "tactician_drawn", "tactician_played",            # rules M6.3, M6.4, M8.2, E9.3
    "tactician_held_sum", "tactician_held_end",
    "g_start",                                        # rule G6
)

POLICIES = {"greedy": (("greedy", {}), ("greedy", {})), "random": (("random", {}), ("random", {}))}
GREEDY = POLICIES["greedy"]


def _columns(rows: np.ndarray, crows: np.ndarray) -> np.ndarray:
    """Per-game values [games, column] of every compared metric, in the order of _labels()."""
    # [games, metric, side], flattened metric-major as _labels() names them
    side = rows[:, :, [METRIC_NAMES.index(n) for n in METRICS]].transpose(0, 2, 1).reshape(len(rows), -1)
    # the commander slots the EPIC layer never fills (La Grande Battles ones) must stay zero too
    cm = crows[:, :, :, [CM_NAMES.index(n) for n in CM_ORDER]].transpose(0, 3, 1, 2)
    return np.concatenate([side, cm.reshape(len(crows), -1)], axis=1).astype(float)


CM_ORDER = COMMANDER_METRICS + tuple(n for n in CM_NAMES if n not in COMMANDER_METRICS)


def _labels() -> list[str]:
    return ([f"{n}[side {s}]" for n in METRICS for s in range(2)]
            + [f"{n}[side {s}, commander {c}]" for n in CM_ORDER for s in range(2) for c in range(4)])


def _compare(sim: Simulation, seed: int = SEED, ref_games: int | None = None) -> list[str]:
    ref_games = ref_games or REF_GAMES
    k = sim.run(KERNEL_GAMES, seed, per_game=True)
    r_rows, r_crows = play_games_multi(sim, ref_games, seed=seed, per_game=True)
    assert r_rows.shape == (ref_games, 2, N_METRICS) and r_crows.shape == (ref_games, 2, 4, N_CM)
    kc, rc = _columns(k.per_game, k.commander_rows), _columns(r_rows, r_crows)
    # standard error of the difference of means; a rare event the smaller reference sample lacks
    # takes the kernel's variance, and zero variance in both samples demands exact agreement
    vk, vr = kc.var(axis=0, ddof=1), rc.var(axis=0, ddof=1)
    se = np.sqrt(vk / len(kc) + np.maximum(vk, vr) / len(rc))
    km, rm = kc.mean(axis=0), rc.mean(axis=0)
    diff = np.abs(km - rm)
    return [f"{label}: kernel {km[i]:.4f} reference {rm[i]:.4f} (diff {diff[i]:.4f}, "
            f"{Z:g} se = {Z * se[i]:.4f})"
            for i, label in enumerate(_labels()) if diff[i] > Z * se[i] + 1e-12]


def _assert_agree(sim: Simulation, **kw) -> None:
    bad = _compare(sim, **kw)
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_epic2_talavera(policy):
    # rule M4: the CIC keeps the better placed card by the P1 single-card score and passes the
    # other (never a multi-section card), the sub-commander's orders are his card's section's;
    # rules M4 / E9.3 / E9.4: the CIC holds every Tactician card; rule G6: the Allied counter is
    # the CIC's (G4 / G5 EPIC rule against the French); rules E1-E11, P1-P3, P7 underneath
    _assert_agree(Simulation.build("epic2-talavera", POLICIES[policy]), ref_games=REF_GAMES // 2)


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_epic3_tamames(policy):
    # rule M6.1: cards go to the commander of the section they are placed in (the CIC holds C),
    # keep one / give both; rule M6.2: initiative for a commander without a card or multi-section
    # orders (unit symbols, flag March Move, sabre melee, a double draws a Tactician card); rule
    # M6.3: one Tactician card each plus an even share, draws to the card's commander, a
    # multi-section card's to the CIC; rule M6.4: Elan draws for every player of both sides;
    # rule G6: the Spanish counters split among the section commanders (G4 / G5 per section)
    _assert_agree(Simulation.build("epic3-tamames", POLICIES[policy]))


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_epic4_symmetric(policy):
    # rule M8.1: the CIC commands no section and gives his cards to the Corps commanders of the
    # sections they are placed in; rule M8.2: initiative for each Corps commander without a card
    # or multi-section orders; Tactician cards with the Corps commanders only (the CIC none), a
    # multi-section card's draws to the Corps commander holding the fewest; rule M6.4: Elan
    # draws for every Corps commander of both sides
    _assert_agree(Simulation.build("epic4-symmetric", POLICIES[policy]))


def test_epic2_guerrillas_end_turns():
    # rules G1 / G3 (base rule) with two a side: a turn the Guerrillas end is still a turn of
    # both commanders (commander_turns) but nobody's card, no pass (M4), no Tactician draw
    sc = load_scenario("epic2-talavera", {"sides.A.guerrilla_rule": "base"})
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


@pytest.mark.parametrize("share", ["lost", "shared"])
def test_epic3_cic_left_one_guerrilla_section(share):
    # rule M6.1 with the Spanish CIC on the left (sub-commanders C and R); rule G6: only the
    # centre has four Spanish units, so only its commander holds counters (G4 gains there):
    # guerrilla_share = lost gives him his third of the three (the other two stay in the pool),
    # shared gives him all three; rules S4 / G5: his counters reach the French centre only
    sc = load_scenario("epic3-tamames", {"sides.S.cic_section": "L", "sides.S.sections.L.spanish": 2,
                                         "sides.S.sections.R.spanish": 3,
                                         "rules.guerrilla_share": share})
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


@pytest.mark.parametrize("share", ["lost", "shared"])
def test_epic4_guerrillas_on_one_wing(share):
    # rules S4 / G5: only the Spanish left has four Spanish units (rule G6: its Corps commander
    # holds one counter under guerrilla_share = lost, the two others staying in the pool, or all
    # three under shared), and his counters reach only French cards in the French right section
    sc = load_scenario("epic4-symmetric", {
        "sides.A.sections.L.spanish": 6, "sides.A.sections.C.spanish": 2,
        "sides.A.sections.R.spanish": 0, "sides.A.guerrilla": 3, "sides.A.guerrilla_rule": "epic",
        "sides.B.french": True, "scenario.guerrilla_pool": 3, "rules.guerrilla_share": share})
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


# the non-default readings of the scenario's [rules] table with three and four a side
RULE_VARIANTS = {
    # rule M6.2: no initiative roll where a multi-section card gave orders (initiative)
    "epic3_initiative_no_orders": ("epic3-tamames", {"rules.initiative": "no_card_no_orders"}),
    # rule M8.2: the same with four a side
    "epic4_initiative_no_orders": ("epic4-symmetric", {"rules.initiative": "no_card_no_orders"}),
    # rules E4 / M6.1 with one-card hands, where the E4 situation is frequent: the pair is not
    # played (same_section_receiver = two_commanders, the default: the hand card alone) ...
    "epic3_e4_two_commanders": ("epic3-tamames", {"sides.F.hand": 1, "sides.S.hand": 1}),
    # ... or goes to the section's commander (one_commander)
    "epic3_e4_one_commander": ("epic3-tamames", {"sides.F.hand": 1, "sides.S.hand": 1,
                                                 "rules.same_section_receiver": "one_commander"}),
    # rules E4 / M8.1: the same with four a side
    "epic4_e4_one_commander": ("epic4-symmetric", {"sides.A.hand": 1, "sides.B.hand": 1,
                                                   "rules.same_section_receiver": "one_commander"}),
    # rule M6.1: the CIC may keep a card of his section beside a multi-section card (cic_keeps)
    "epic3_cic_keeps_both": ("epic3-tamames", {"rules.cic_keeps": "both"}),
    # rule D4: a deck without a Tactician deck (initiative doubles, stars, Elan draw nothing,
    # and no draw is starved); rules M6.3 / M8.2: nobody starts with a Tactician card
    "epic4_no_tactician_deck": ("epic4-symmetric", {"scenario.deck": "ccn70"}),
    # rules E9.4 / M6.4 (elan_order) and D3 (counter_attack_copies) with several commanders
    "epic3_elan_first_ca_hand": ("epic3-tamames", {"rules.elan_order": "shuffle_first",
                                                   "rules.counter_attack_copies": "hand"}),
}


@pytest.mark.parametrize("variant", list(RULE_VARIANTS))
def test_rule_options(variant):
    # rules M6.1, M6.2, M8.1, M8.2, E4, E9.4, D3 under their non-default readings, D4 without a
    # Tactician deck, with the
    # commander layer (M6.3, M6.4) and the Spanish Guerrillas (G4-G6, S4) underneath
    name, overrides = RULE_VARIANTS[variant]
    _assert_agree(Simulation.build(load_scenario(name, overrides), GREEDY),
                  ref_games=REF_GAMES // 2)


def test_epic4_guerrilla_leftovers_base_rule():
    # rule G6: no section has four Spanish units, so the counters go to the unacquired pool;
    # rules G1 / G3 (base rule) with four a side: a Scout gains a counter for the CIC, a spent one
    # ends the French turn (every Corps commander's turn, nobody's card); rule M8.2 initiative
    sc = load_scenario("epic4-symmetric", {
        "sides.A.sections.L.spanish": 3, "sides.A.sections.C.spanish": 3,
        "sides.A.sections.R.spanish": 2, "sides.A.guerrilla": 2, "sides.A.guerrilla_rule": "base",
        "sides.B.french": True, "scenario.guerrilla_pool": 3})
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


def test_play_games_multi_shapes():
    # rules M6.1 / M8.1: every section commander takes every turn of his side; with one player a
    # side there are no commander metrics; play_games keeps its one-array return for any format
    sim = Simulation.build("epic3-tamames", GREEDY)
    met, cmet = play_games_multi(sim, 2, seed=1)
    assert met.shape == (2, N_METRICS) and met.dtype == np.int64
    assert cmet.shape == (2, 4, N_CM) and cmet.dtype == np.int64
    turns = 2 * sim.scenario.turns
    assert (cmet[:, :3, CM_NAMES.index("commander_turns")] == turns).all()
    assert (cmet[:, 3] == 0).all()
    assert play_games(sim, 2, seed=1).shape == (2, N_METRICS)
    _, cmet1 = play_games_multi(Simulation.build("symmetric", GREEDY), 2, seed=1)
    assert not cmet1.any()
