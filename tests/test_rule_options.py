"""The open readings of the rule texts as named options (the scenario's [rules] table).

Every option is played both ways on the same games, and each test sets up a situation where the two
readings must differ and asserts what each one does (docs/rules.md, "Rule options").
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from support.decks import write_deck
from support.tracetools import CODE, SIDE, A, B, C, D, E, F, G, M, by_ply, one, rows_of  # noqa: F401

from napsim import NapsimInputError
from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.house_rules import HOUSE_OPTIONS
from napsim.model.rulebook import get_option
from napsim.model.scenarios import DEFAULT_RULES, RULE_OPTIONS, load_scenario
from napsim.sim.packing import Simulation, guerrilla_split, rule_options
from napsim.sim.tables import KIND_MULTI

SEED = 777
CM = {name: i for i, name in enumerate(layout.CM_NAMES)}


@cache
def _sim(scenario: str, overrides: tuple, deck: str | None = None, policy: str = "greedy") -> Simulation:
    return Simulation.build(load_scenario(scenario, dict(overrides)), ((policy, {}), (policy, {})), deck)


def sim_for(scenario: str, deck: str | None = None, policy: str = "greedy", **rules) -> Simulation:
    return _sim(scenario, tuple(sorted((f"rules.{k}", v) for k, v in rules.items())), deck, policy)


def traces(sim: Simulation, games: int):
    for g in range(games):
        yield sim.trace(SEED, g)[1]


# ---------------------------------------------------------------------------------------------
# the [rules] table


def test_defaults_give_every_clause_a_meaning_and_every_option_has_two():
    # rules M6.2, E4: issue 26 made no_card_no_orders and one_commander the defaults
    sc = load_scenario("symmetric")
    assert sc.rules == DEFAULT_RULES  # every option's default (tests/test_rules_doc.py lists them)
    assert DEFAULT_RULES == {o: v[0] for o, v in RULE_OPTIONS.items()}
    assert (DEFAULT_RULES["initiative"], DEFAULT_RULES["same_section_receiver"]) == (
        "no_card_no_orders", "one_commander")
    assert DEFAULT_RULES["tactic_reach"] == "one_section"  # a house rule: the rule as written
    assert all(len(v) == 2 for v in RULE_OPTIONS.values())
    assert load_scenario("symmetric", {"rules.elan_order": "shuffle_first"}).rule("elan_order") \
        == "shuffle_first"


@pytest.mark.parametrize("path,value,says", [
    ("rules.initiative", "sometimes", "'sometimes' is not allowed"),
    ("rules.initiative", 3, "3 is not allowed"),
    ("rules.dragons", "yes", "unknown key"),
])
def test_bad_rule_options_are_one_line_errors(path, value, says):
    with pytest.raises(NapsimInputError) as e:
        load_scenario("symmetric", {path: value})
    msg = str(e.value)
    assert says in msg and "\n" not in msg and msg.startswith(f"--set: field '{path}': ")  # as given


def test_rule_options_are_sweepable_study_paths(tmp_path):
    from napsim.study.spec import load_study
    p = tmp_path / "s.toml"
    p.write_text('[study]\nname = "r"\nscenario = "symmetric"\ngames = 100\n'
                 'main_metric = "effective_per_turn"\nmain_side = "A"\n'
                 '[sweep]\n"rules.elan_order" = ["draw_first", "shuffle_first"]\n')
    st = load_study(p)
    assert [pt.params["rules.elan_order"] for pt in st.points] == ["draw_first", "shuffle_first"]
    sc, _, _ = st.load_point(st.points[1])
    assert sc.rule("elan_order") == "shuffle_first"


def test_every_rule_option_reaches_the_kernels_as_a_flag():
    # each reading is a flag of ropt (napsim.sim.packing.rule_options) in a format the option
    # applies to; only the Guerrilla split (guerrilla_share, packed with the counters) and the house
    # rules (packed into the card table) reach the kernels another way
    deck = load_deck("gmt90")
    elsewhere = {"guerrilla_share", *HOUSE_OPTIONS}
    for name, values in RULE_OPTIONS.items():
        flags = {f: {tuple(rule_options(load_scenario("formats-armies", {
            "scenario.format": f, f"rules.{name}": v}), deck)) for v in values}
            for f in get_option(name).formats}
        assert any(len(per_value) > 1 for per_value in flags.values()) == (name not in elsewhere), name


def test_the_flag_slots_fill_ropt():
    # the R_* slots of napsim.engine.layout are 0 .. N_ROPT - 1, each once
    slots = sorted(v for k, v in vars(layout).items() if k.startswith("R_") and isinstance(v, int))
    assert slots == list(range(layout.N_ROPT))
    assert len(rule_options(load_scenario("symmetric"), load_deck("gmt90"))) == layout.N_ROPT


# ---------------------------------------------------------------------------------------------
# initiative (M6.2, M8.2)


@pytest.mark.parametrize("scenario", ["epic3-tamames", "epic4-symmetric"])
def test_m6_2_initiative_no_card_rolls_whenever_a_commander_gets_no_card(scenario):
    # rules M6.2, M8.2: "no_card": every section commander without a card rolls, multi-section
    # orders in his section or not; "no_card_no_orders": multi-section orders there stop the roll
    lit = sim_for(scenario, initiative="no_card").run(600, SEED)
    old = sim_for(scenario, initiative="no_card_no_orders").run(600, SEED)
    for res in (lit, old):
        assert res.metric("invariant_violations").tolist() == [0, 0]
    rolls_lit = lit.commanders[:, :, CM["initiative_rolls"]]
    rolls_old = old.commanders[:, :, CM["initiative_rolls"]]
    assert (rolls_lit == lit.commanders[:, :, CM["turns_without_card"]]).all()
    holds = rolls_lit > 0  # the commanders who hold a section (epic3: CIC and two; epic4: three)
    assert holds.sum() == 6 and rolls_old.sum() > 0
    # rule M6.1 (cic_keeps = one): with three a side a multi-section card is always the CIC's
    # own card, so a CIC without a card never sees one order in his section: for him the two
    # readings roll alike (on every turn without a card); every other section commander rolls
    # less under no_card_no_orders
    differ = holds.copy()
    if scenario == "epic3-tamames":
        assert (rolls_old[:, 0] == old.commanders[:, 0, CM["turns_without_card"]]).all()
        differ[:, 0] = False
    assert (rolls_old[differ] < rolls_lit[differ]).all()
    sim = sim_for(scenario, initiative="no_card_no_orders")
    multi_rolls = 0
    for ev in traces(sim, 30):
        for rows in by_ply(ev).values():
            choice = rows_of(rows, layout.EV_CHOICE)
            if not len(choice):
                continue
            kinds = [sim.cards.kind[int(choice[0, E])], sim.cards.kind[int(choice[0, F])]]
            for roll in rows_of(rows, layout.EV_INITIATIVE):
                multi_rolls += KIND_MULTI in kinds and _multi_orders(sim, choice[0], int(roll[G])) > 0
    assert multi_rolls == 0
    sim = sim_for(scenario, initiative="no_card")
    for ev in traces(sim, 30):
        for rows in by_ply(ev).values():
            choice = rows_of(rows, layout.EV_CHOICE)
            for roll in rows_of(rows, layout.EV_INITIATIVE):
                multi_rolls += _multi_orders(sim, choice[0], int(roll[G])) > 0
    assert multi_rolls > 0


def _multi_orders(sim: Simulation, choice: np.ndarray, x: int) -> int:
    """Nominal orders the turn's multi-section card(s) give section x."""
    orders = 0
    for t in (int(choice[E]), int(choice[F])):
        if sim.cards.kind[t] == KIND_MULTI:
            orders += int(sim.cards.orders[t, x])
    return orders


# ---------------------------------------------------------------------------------------------
# same_section_receiver (E4 with M6.1, M8.1) and cic_keeps (M6.1)


@pytest.fixture(scope="module")
def one_section_deck(tmp_path_factory):
    """A deck where hand and rack are often all Left section cards, so that E4 arises."""
    path = tmp_path_factory.mktemp("decks") / "mostly_left.csv"
    return str(write_deck(path, {"Probe Left": 30, "Attack Left": 20, "Scout Left": 4,
                                 "Probe Center": 4, "Forward": 4, "Bayonet Charge": 4}))


@pytest.mark.parametrize("scenario", ["epic3-tamames", "epic4-symmetric"])
def test_e4_same_section_pair_needs_one_commander_reading_with_3_4_a_side(scenario, one_section_deck):
    # rules E4, M6.1, M8.1: the CIC's two cards go to two different commanders
    # ("two_commanders"), so the same-section pair is never played though the situation arises;
    # "one_commander" lets that section's commander play both
    lit = sim_for(scenario, one_section_deck, same_section_receiver="two_commanders").run(400, SEED)
    alt = sim_for(scenario, one_section_deck, same_section_receiver="one_commander").run(400, SEED)
    assert lit.metric("same_section_turns").sum() > 200
    assert lit.metric("same_section_used").sum() == 0
    assert alt.metric("same_section_used").sum() > 100
    # with one or two a side the option does not apply: the pair is always playable
    two = sim_for("epic2-talavera", one_section_deck, same_section_receiver="two_commanders")
    assert two.run(200, SEED).metric("same_section_used").sum() > 0


def _cic_plays_both(sim: Simulation, games: int) -> tuple[int, int]:
    """(turns where the CIC plays a multi-section card and a card in his own section, turns with
    a multi-section card and another card) in traced epic3 games."""
    both = multi = 0
    for ev in traces(sim, games):
        for rows in by_ply(ev).values():
            ch = rows_of(rows, layout.EV_CHOICE)
            if not len(ch):
                continue
            s = int(ch[0, SIDE])
            ca, cb = int(ch[0, E]), int(ch[0, F])
            pa, pb = int(ch[0, C]), int(ch[0, D])
            kinds = sim.cards.kind
            for t_multi, t_other, p_other in ((ca, cb, pb), (cb, ca, pa)):
                if kinds[t_multi] != KIND_MULTI or t_other == sim.cards.void:
                    continue
                multi += 1
                sec = sim.cards.sec[t_other] if kinds[t_other] == 0 else p_other
                both += kinds[t_other] != KIND_MULTI and sec == sim.scenario.sides[s].cic_section
    return both, multi


def test_m6_1_cic_keeps_one_card_with_three_a_side():
    # rule M6.1: "one": the CIC keeps one card and gives one away, so a multi-section card (laid by
    # him) never comes with a card in his own section; "both" allows it
    both_lit, multi_lit = _cic_plays_both(sim_for("epic3-tamames", cic_keeps="one"), 60)
    both_alt, _ = _cic_plays_both(sim_for("epic3-tamames", cic_keeps="both"), 60)
    assert multi_lit > 50 and both_lit == 0 and both_alt > 5
    res = sim_for("epic3-tamames", cic_keeps="one").run(300, SEED, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]


# ---------------------------------------------------------------------------------------------
# guerrilla_share (G6)


def test_g6_guerrilla_share_lost_or_shared():
    # rule G6: three counters, only the left commander has four Spanish units: he receives his
    # third ("lost": the other thirds are not given out) or all three ("shared")
    assert guerrilla_split(3, [6, 3, 2], "lost") == [1, 0, 0]
    assert guerrilla_split(3, [6, 3, 2], "shared") == [3, 0, 0]
    assert guerrilla_split(4, [5, 4, 0], "lost") == [2, 1, 0]  # 4 // 3 each + one extra
    assert guerrilla_split(4, [5, 4, 0], "shared") == [2, 2, 0]
    assert guerrilla_split(5, [0, 0, 3], "lost") == [0, 0, 0]
    over = {"sides.S.sections.L.spanish": 6, "sides.S.sections.C.spanish": 0,
            "sides.S.sections.R.spanish": 0, "sides.S.guerrilla": 3}
    for share, held in (("lost", 1), ("shared", 3)):
        sc = load_scenario("epic3-tamames", {**over, "rules.guerrilla_share": share})
        res = Simulation.build(sc).run(50, SEED, check=True)
        left_cmd = 1 if sc.sides[1].cic_section != 0 else 0
        assert res.commanders[1, left_cmd, CM["g_start"]] == 50 * held
        assert res.metric("invariant_violations").tolist() == [0, 0]  # counters conserved


# ---------------------------------------------------------------------------------------------
# elan_order (E9.4)


def test_e9_4_elan_order_draw_first_or_shuffle_first(tmp_path):
    # rules E9.4, E9.1: "draw_first": the turn's Command draw comes before the Elan reshuffle (the
    # order of the end-of-turn list); "shuffle_first": the reshuffle comes first, so this turn's
    # discards can be drawn at once
    deck = str(write_deck(tmp_path / "elan.csv", {"Elan": 10, "Probe Left": 10, "Probe Center": 10,
                                                  "Probe Right": 10, "Attack Center": 10}))
    for order in ("draw_first", "shuffle_first"):
        sim = sim_for("symmetric", deck, elan_order=order)
        seen = 0
        for ev in traces(sim, 20):
            for rows in by_ply(ev).values():
                codes = rows[:, CODE].tolist()
                if layout.EV_ELAN not in codes:
                    continue
                s = int(rows_of(rows, layout.EV_ELAN)[0, SIDE])
                draw = next(i for i, r in enumerate(rows)
                            if r[CODE] == layout.EV_DRAW and r[SIDE] == s)
                elan = codes.index(layout.EV_ELAN)
                assert (draw < elan) == (order == "draw_first")
                seen += 1
        assert seen > 20
    a = sim_for("symmetric", deck, elan_order="draw_first").run(300, SEED, check=True)
    b = sim_for("symmetric", deck, elan_order="shuffle_first").run(300, SEED, check=True)
    assert a.metric("invariant_violations").sum() == b.metric("invariant_violations").sum() == 0
    assert a.metric("elan_reshuffles").sum() > 0 and b.metric("elan_reshuffles").sum() > 0
    assert not np.array_equal(a.totals, b.totals)


# ---------------------------------------------------------------------------------------------
# counter_attack_copies (D3)


def _copies(sim: Simulation, games: int) -> tuple[int, int, int]:
    """(Counter-Attacks copying the opponent's last hand card, copying his last rack card, copying
    neither) in traced games, read from the choice events."""
    ct = sim.cards
    hand_n = rack_n = other = 0
    for ev in traces(sim, games):
        last = {0: (ct.void, ct.void), 1: (ct.void, ct.void)}
        last_hand = {0: ct.void, 1: ct.void}
        for rows in by_ply(ev).values():
            ch = rows_of(rows, layout.EV_CHOICE)
            if not len(ch):
                continue
            s = int(ch[0, SIDE])
            for t, r in ((int(ch[0, A]), int(ch[0, E])), (int(ch[0, B]), int(ch[0, F]))):
                if t == ct.void or not ct.counter[t] or r == ct.void:
                    continue
                if r == ct.mirror[last_hand[1 - s]]:
                    hand_n += 1
                elif r == ct.mirror[last[1 - s][1]]:
                    rack_n += 1
                else:
                    other += 1
            if int(ch[0, A]) != ct.void:
                last_hand[s] = int(ch[0, E])
            last[s] = (int(ch[0, E]), int(ch[0, F]))
    return hand_n, rack_n, other


def test_d3_counter_attack_copies_either_card_or_the_hand_card(tmp_path):
    # rule D3 (counter_attack), S4: "either": the Counter-Attack copies, mirrored, either card the
    # opponent played last turn (the better one alone); "hand": always his last hand card
    deck = str(write_deck(tmp_path / "ca.csv", {"Counter-Attack": 16, "Probe Left": 8, "Scout Left": 6,
                                                "Attack Right": 8, "Assault Center": 6, "Forward": 6}))
    hand_n, rack_n, other = _copies(sim_for("symmetric", deck, counter_attack_copies="hand"), 30)
    assert hand_n > 30 and rack_n == 0 and other == 0
    hand_n, rack_n, other = _copies(sim_for("symmetric", deck, counter_attack_copies="either"), 30)
    assert rack_n > 10 and other == 0


def test_d3_the_counter_attack_source_table_is_the_score_comparison():
    # the kernel reads the card a Counter-Attack copies from a table (sim.packing.ca_sources):
    # every entry is what comparing the two cards' scores gives, VOID and ties to the hand card
    for copies in ("either", "hand"):
        sim = sim_for("tamames", counter_attack_copies=copies)
        a = sim.kernel_args()[1]
        void, bv, mirror = a.ctab.shape[0] - 1, a.best_val, a.ctab[:, layout.C_MIRROR]
        for s, c, h, r in np.ndindex(a.ca_src_t.shape):
            want = h
            if copies == "either" and r != void and (
                    h == void or bv[s, c, void, mirror[r]] > bv[s, c, void, mirror[h]] + 1e-9):
                want = r
            assert a.ca_src_t[s, c, h, r] == want


# ---------------------------------------------------------------------------------------------
# a Command deck without a Tactician deck (D4)


def test_d4_no_tactician_cards_without_a_tactician_deck():
    # rule D4: the base deck (ccn70) comes without a Tactician deck: none is dealt or drawn, not
    # even after an Elan, and none is counted as a starved draw; gmt90 has one
    std = {"scenario.format": "standard"}
    res = Simulation.build(load_scenario("symmetric", std), deck="ccn70").run(2000, SEED, check=True)
    assert res.metric("elan_reshuffles").sum() > 100
    for name in ("tactician_drawn", "tactician_played", "tactician_held_end", "tactician_starved"):
        assert res.metric(name).sum() == 0, name
    res = Simulation.build(load_scenario("symmetric", std), deck="gmt90").run(500, SEED)
    assert res.metric("tactician_drawn").sum() > 0 and res.metric("tactician_held_end").sum() > 0
