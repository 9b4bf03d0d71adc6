"""The La Grande Battles kernel (napsim.engine.lgb.play_blocks_lgb) against the pure-Python reference
engine of tests/reference/lgb.py: per-game means of the card-flow, per-commander and Guerrilla
metrics must agree within Z standard errors of the difference of means.

Rules exercised: L1 setup, L2 the CIC's two gifts to two Corps commanders, L3/L4 gift orders and
multi-section splits, L5 accept / swap / own card, L6 Corps initiative, L7 stars, L8 squares, L9 end
of turn (Scout gift, Tactician draws, Elan, refill), E4 same-section exception, E6 command, E9.6
refill, E10 rack cycle, D4 Tactician deck, D5 battle die, D6 reshuffle, D7 discards, P1-P3, P6, P7,
and the Spanish Guerrilla Action in LGB: G4 gain, G5 spending by the facing Spanish Corps (S4), G6
distribution (guerrilla_share for a total), G7 metrics, P4, P5. The scenarios play the default
readings of the [rules] table; test_guerrilla_total_split and test_elan_shuffle_first the others.
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
from reference.lgb import play_games_lgb  # noqa: E402

KERNEL_GAMES = 4000
REF_GAMES = 1000  # reference games a test plays: 40 in the default run, 1000 under -m slow (ref_games)
Z = 4.0
SEED = 2024


@pytest.fixture(autouse=True, params=quick_and_full(40, REF_GAMES))
def ref_games(request, monkeypatch) -> int:
    """Every test here runs at two sizes: 40 reference games (the default run) and 1000 (slow)."""
    monkeypatch.setitem(globals(), "REF_GAMES", request.param)
    return request.param


METRICS = (
    "effective_L", "effective_C", "effective_R",      # rules L3, L4, L5, E6, S2
    "nominal_L", "nominal_C", "nominal_R",
    "wasted",                                         # rule S2
    "stars_march", "stars_tactician", "march_units",  # rules L7, P3
    "elan_reshuffles",                                # rule L9
    "tactician_drawn", "tactician_played", "tactician_held_end",  # rules L9, D4
    "tactician_starved",
    "pick_from_5", "pick_from_4", "pick_from_3",      # rule E10
    "refills",                                        # rule E9.6
    "scout_draws",                                    # rule L9
    "first_strikes", "counter_attacks",               # rule P7
    "hand_section", "hand_multi", "hand_tactic",      # rules L2, P1
    "rack_section", "rack_multi", "rack_tactic",
    "same_section_turns",                             # rule E4
    "squares_formed",                                 # rule L8
    "deck_reshuffles",                                # rule D6
    # rules G4-G7, P4, P5 (zero on a side without the guerrilla rule)
    "g_french_turns", "g_offered", "g_spent", "g_stopped_by_sabre", "g_cards_nullified",
    "g_denied_nominal", "g_denied_effective", "g_available_not_spent",
    "g_nullified_in_french_L", "g_nullified_in_french_C", "g_nullified_in_french_R",
    "g_denied_effective_in_french_L", "g_denied_effective_in_french_C",
    "g_denied_effective_in_french_R",
    "g_acquired", "g_held_end", "g_pool_end",
)

COMMANDER_METRICS = (
    "cards_received", "own_cards_played", "cic_cards_rejected", "turns_without_card",  # L2, L5
    "initiative_rolls", "initiative_ordered", "initiative_march", "blocks_lost",      # L6, D5
    "initiative_command_draws",
    "card_nominal", "card_effective", "card_effective_first_half",                     # L3-L5
    "star_command_draws",                                                              # L7
    "scout_gifts",                                                                     # L9
    "tactician_drawn", "tactician_held_end",                                           # L9, D4
    "hand_end", "hand_sum",                                                            # L1, L9
    "square_cards",                                                                    # L8
    "g_start", "g_spent", "g_nullified", "g_acquired",                                 # G4-G6
)

GREEDY = (("greedy", {}), ("greedy", {}))
SPANISH_SECTIONS = {"L1": 4, "L2": 1, "C1": 2, "C2": 1, "R1": 3, "R2": 2}  # wings 5, 3, 5


def _spanish_french(extra: dict | None = None) -> dict:
    """Side A Spanish (G4-G6 with counters per Corps commander), side B French."""
    o = {f"sides.A.sections.{x}.spanish": n for x, n in SPANISH_SECTIONS.items()}
    o.update({"sides.A.guerrilla_rule": "epic", "sides.A.corps_guerrilla": [2, 1, 2],
              "sides.B.french": True, "scenario.guerrilla_pool": 4})
    o.update(extra or {})
    return o


def _compare(sim: Simulation, seed: int = SEED, ref_games: int | None = None) -> list[str]:
    ref_games = ref_games or REF_GAMES
    k = sim.run(KERNEL_GAMES, seed, per_game=True)
    r_rows, r_crows = play_games_lgb(sim, ref_games, seed=seed, per_game=True)
    assert r_rows.shape == (ref_games, 2, N_METRICS) and r_crows.shape == (ref_games, 2, 4, N_CM)
    pairs = [(f"{name}[side {s}]", k.per_game[:, s, METRIC_NAMES.index(name)],
              r_rows[:, s, METRIC_NAMES.index(name)]) for name in METRICS for s in range(2)]
    pairs += [(f"{name}[side {s}, commander {c}]", k.commander_rows[:, s, c, CM_NAMES.index(name)],
               r_crows[:, s, c, CM_NAMES.index(name)])
              for name in COMMANDER_METRICS for s in range(2) for c in range(4)]
    bad = []
    for label, kv, rv in pairs:
        kv, rv = kv.astype(float), rv.astype(float)
        # a rare event the small reference sample lacks: its variance estimated from the kernel's;
        # zero variance on both sides: the means must agree exactly
        vk, vr = kv.var(ddof=1), rv.var(ddof=1)
        se = np.sqrt(vk / len(kv) + max(vk, vr) / len(rv))
        diff = abs(kv.mean() - rv.mean())
        if diff > Z * se + 1e-12:
            bad.append(f"{label}: kernel {kv.mean():.4f} reference {rv.mean():.4f} "
                       f"(diff {diff:.4f}, {Z:g} se = {Z * se:.4f})")
    return bad


def _assert_agree(sim: Simulation, **kw) -> None:
    bad = _compare(sim, **kw)
    assert not bad, "\n".join(bad)


def test_greedy_lgb_symmetric():
    # rules L1-L5, L7, L9, E4, E6, E9.6, E10, D4, D6, D7, P1 (gift gain), P2, P3, P6 (swap margin,
    # own minimum), P7: greedy CIC and Corps commanders on the symmetric six-section field
    _assert_agree(Simulation.build("lgb-symmetric", GREEDY))


def test_random_lgb_symmetric():
    # rules L2 (uniform over legal gifts), L4/L5 (uniform options, coin-flip swaps and own plays),
    # L6, L7 with march_prob 0.5, P1 random, P2 random keep
    _assert_agree(Simulation.build("lgb-symmetric", (("random", {}), ("random", {}))))


def test_greedy_without_march_moves():
    # rule L7: stars never March Move, so every star card draws a Command and a Tactician card for
    # its Corps commander (star_command_draws), and P1's star term is 2 x tactician_bonus
    pol = ("greedy", {"march_prob": 0.0})
    _assert_agree(Simulation.build("lgb-symmetric", (pol, pol)))


def test_small_corps_hands_initiative():
    # rules L1 (Corps hands from the scenario), L6 (initiative rolls: unit symbols, flag, sabre
    # blocks, two sabres draw a Command card), L5 own play with an empty or one-card hand, L9 Scout
    # gift to the Corps commander with the fewest cards
    sc = load_scenario("lgb-symmetric", {"sides.A.corps_hand": [0, 1, 0],
                                         "sides.B.corps_hand": [1, 0, 2]})
    _assert_agree(Simulation.build(sc, GREEDY))


def test_squares():
    # rule L8: squares take a random Corps commander's card, or one the CIC lends when that hand is
    # empty (the CIC keeps one), at most the CIC's hand size at once; cards come back at
    # square_leave; E6 counts the CIC's hand without them
    sc = load_scenario("lgb-symmetric", {"sides.A.square_form": 0.3, "sides.B.square_form": 0.3,
                                         "sides.B.square_leave": 0.2,
                                         "sides.B.corps_hand": [1, 1, 1]})
    _assert_agree(Simulation.build(sc, GREEDY))


def test_take_command_reach():
    # rule E7, rule L3 (the reading of napsim.sim.tables_lgb): wings of 3, 4 and 3 units, so a Take
    # Command from a CIC hand of 6 orders units of the sections next to the receiver's that their
    # own Corps commander left unordered (by cards, March Moves or initiative); random gifts send
    # it to every wing
    small = {"L1": (1, 0, 0, 0), "L2": (1, 1, 0, 0), "C1": (2, 0, 1, 0), "C2": (1, 0, 0, 0),
             "R1": (1, 0, 0, 1), "R2": (0, 1, 0, 0)}
    sc = load_scenario("lgb-symmetric", {
        f"sides.{s}.sections.{x}.{f}": v[j] for s in "AB" for x, v in small.items()
        for j, f in enumerate(("infantry", "cavalry", "artillery", "leaders"))})
    _assert_agree(Simulation.build(sc, (("random", {}), ("random", {}))))


@pytest.mark.parametrize("spanish_policy", [
    {},  # P4 spend at every chance, P5 always gain
    {"g_spend_mode": "assault", "g_gain_mode": "below", "g_gain_below": 4},
    {"g_spend_mode": "threshold", "g_threshold": 3, "first_strike_prob": 0.0},
], ids=["always", "assault-below", "threshold"])
def test_spanish_french_guerrilla(spanish_policy):
    # rules G4 (a Scout gains a counter for a Corps commander with >= 4 Spanish units in his two
    # sections instead of the CIC's second draw, stars unused), G5 (one counter a French turn,
    # held by the Corps commander facing the card, never a multi-section card; a sabre stops it),
    # G6 (corps_guerrilla per Corps commander), G7 metrics, P4 spending, P5 gain
    sc = load_scenario("lgb-symmetric", _spanish_french())
    assert sc.sides[0].guerrilla_rule == "epic" and sc.sides[1].french
    sim = Simulation.build(sc, (("greedy", spanish_policy), ("greedy", {})))
    _assert_agree(sim, ref_games=REF_GAMES // 2 if spanish_policy else REF_GAMES)


# G6: the counters of a side's total that no Corps commander receives stay in the unacquired pool
# (this case found the kernel's packing dropping them; fixed)


@pytest.mark.parametrize("share", ["lost", "shared"])
def test_guerrilla_total_split(share):
    # rule G6: a scenario giving the Spanish only a total of 5 counters has it dealt to the Corps
    # commanders with at least four Spanish units (wings 5, 3, 2: the left one only):
    # guerrilla_share = lost, a third of 5 plus one of the remainder (2; the other 3 stay in the
    # pool); shared, all 5; rules G5 / S4: the left Spanish Corps spends only against the French
    # right wing, which faces it
    sc = load_scenario("lgb-symmetric", _spanish_french({"sides.A.corps_guerrilla": [0, 0, 0],
                                                         "sides.A.guerrilla": 5,
                                                         "sides.A.sections.R1.spanish": 1,
                                                         "sides.A.sections.R2.spanish": 1,
                                                         "rules.guerrilla_share": share}))
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


def test_elan_shuffle_first():
    # rule L9 with elan_order = shuffle_first: the Elan reshuffle comes before the CIC's and the
    # Corps commanders' Command draws; the Tactician draws of the Elan stay after them
    sc = load_scenario("lgb-symmetric", {"rules.elan_order": "shuffle_first"})
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


def test_first_strike_replacement_at_once():
    # rules P7, L1 with first_strike_draw = cic_at_once: only a CIC replaces a First Strike, at
    # once; a Corps commander who plays one draws none (the default, the card text, plays in
    # every other test of this file)
    sc = load_scenario("lgb-symmetric", {"rules.first_strike_draw": "cic_at_once"})
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


def test_no_tactician_deck():
    # rule D4: the base deck comes without a Tactician deck, so no Corps commander is dealt or
    # draws a Tactician card (L1, L7, L9 Elan), and none of those draws is starved
    sc = load_scenario("lgb-symmetric", {"scenario.deck": "ccn70"})
    _assert_agree(Simulation.build(sc, GREEDY), ref_games=REF_GAMES // 2)


def test_play_games_lgb_shapes():
    # rule L1: two sides, a CIC and three Corps commanders; totals shaped as the kernel's
    sim = Simulation.build("lgb-symmetric", GREEDY)
    met, cmet = play_games_lgb(sim, 2, seed=1)
    assert met.shape == (2, N_METRICS) and met.dtype == np.int64
    assert cmet.shape == (2, 4, N_CM) and cmet.dtype == np.int64
    assert (met[:, METRIC_NAMES.index("turns")] == 2 * sim.scenario.turns).all()
    assert (cmet[:, 1:, CM_NAMES.index("commander_turns")] == 2 * sim.scenario.turns).all()


def test_dice_cards_lgb():
    # rules D2, S2, L3-L5: the Ancients deck's I Am Spartacus and Rally, given by the CIC or played
    # from a Corps commander's hand, roll his Command in battle dice and order one unit per
    # ordering face; the gift scores take the expectation of the roll (P6)
    sc = load_scenario("lgb-symmetric", {"scenario.deck": "cca60"})
    _assert_agree(Simulation.build(sc, GREEDY))
