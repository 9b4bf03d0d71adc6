"""The third pass over the rule texts: the CIC of EPIC three a side and two multi-section cards
(M6.1), I Am Spartacus' reshuffle (E9.4), inputs refused instead of ignored (L10, G6), the base
Guerrilla rule in an EPIC format as a what-if (G1), and the deck facts of the card lists (D1)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from support.decks import write_deck
from support.tracetools import CODE, SIDE, A, B, E, F, by_ply, rows_of

from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import load_scenario, what_if_notes
from napsim.output.views import scenario_text
from napsim.sim.packing import Simulation, commander_config, rule_options
from napsim.sim.tables import KIND_MULTI

SEED = 4141


# ---------------------------------------------------------------------------------------------
# M6.1: with cic_keeps = one the CIC never lays two multi-section cards


@pytest.mark.parametrize("keeps", ["one", "both"])
def test_m6_1_cic_keeps_one_never_lays_two_multi_section_cards(keeps):
    # rule M6.1: under cic_keeps = one the CIC plays at most one card and a multi-section card is
    # never passed on (M4), so a hand and a rack multi-section card are no legal pair; under
    # both they are, and greedy plays such pairs
    sc = load_scenario("epic3-tamames", {"rules.cic_keeps": keeps})
    sim = Simulation.build(sc)
    ct = sim.cards
    multi = np.flatnonzero(ct.kind == KIND_MULTI)
    assert len(multi) >= 2
    pairs = sim.tables.n_place[:, multi][:, :, multi]
    assert (pairs == 0).all() if keeps == "one" else (pairs > 0).all()
    both_multi = 0
    for g in range(40):
        for _, rows in by_ply(sim.trace(SEED, g)[1]).items():
            for ch in rows_of(rows, layout.EV_CHOICE):
                both_multi += ct.kind[int(ch[E])] == KIND_MULTI and ct.kind[int(ch[F])] == KIND_MULTI
    assert (both_multi == 0) if keeps == "one" else (both_multi > 0)


# ---------------------------------------------------------------------------------------------
# E9.4: I Am Spartacus reshuffles before the new card is drawn


def _elan_before_draw(sim: Simulation, games: int) -> list[bool]:
    """Per turn with an Elan reshuffle: whether it came before the turn's Command draw."""
    out = []
    for g in range(games):
        for ply, rows in by_ply(sim.trace(SEED, g)[1]).items():
            turn = rows_of(rows, layout.EV_TURN)
            if ply < 0 or not len(turn):
                continue
            s = int(turn[0, SIDE])  # the draws of the side whose turn it is, and the Elan
            codes = [int(r[CODE]) for r in rows if int(r[SIDE]) == s or r[CODE] == layout.EV_ELAN]
            if layout.EV_ELAN not in codes or layout.EV_DRAW not in codes:
                continue
            out.append(codes.index(layout.EV_ELAN) < codes.index(layout.EV_DRAW))
    return out


def test_e9_4_i_am_spartacus_reshuffles_before_the_draw():
    # rules E9.4, D3: the Ancients card's note: "before drawing a new card, reshuffle the deck with
    # the discards, including this card"; the deck file says so (elan_reshuffle: before_draw),
    # while the GM&T Elan keeps EPIC's end-of-turn order (the draw first, option elan_order)
    cca = load_deck("cca60")
    assert cca.elan_before_draw and not load_deck("gmt90").elan_before_draw
    sc = load_scenario("symmetric", {"scenario.format": "standard", "scenario.deck": "cca60",
                                     "sides.A.hand": 4, "sides.B.hand": 4})
    sim = Simulation.build(sc, deck=cca)
    assert rule_options(sc, cca)[layout.R_SHUFFLE_FIRST] == 1
    first = _elan_before_draw(sim, 150)
    assert len(first) > 20 and all(first)
    gmt = Simulation.build(load_scenario("symmetric"))
    assert rule_options(gmt.scenario, gmt.deck)[layout.R_SHUFFLE_FIRST] == 0
    later = _elan_before_draw(gmt, 60)
    assert len(later) > 10 and not any(later)


def test_d1_a_bad_elan_reshuffle_header_is_one_line(tmp_path):
    # rule D1: a deck file's header values are checked, naming the file, the line and the values
    src = load_deck("cca60").path.read_text(encoding="utf-8")
    bad = tmp_path / "bad.csv"
    bad.write_text(src.replace("# elan_reshuffle: before_draw", "# elan_reshuffle: sometimes"),
                   encoding="utf-8")
    with pytest.raises(NapsimInputError) as e:
        load_deck(str(bad))
    msg = str(e.value)
    assert "bad.csv:" in msg and "elan_reshuffle" in msg and "after_draw, before_draw" in msg
    assert "\n" not in msg


# ---------------------------------------------------------------------------------------------
# inputs refused instead of ignored


def test_l10_a_la_grande_battles_cic_holds_no_tactician_cards():
    # rule L10: Tactician cards belong to the Corps commanders; a side's `tactician` in La
    # Grande Battles would be ignored, so it is refused with one line naming the key
    with pytest.raises(NapsimInputError) as e:
        load_scenario("lgb-symmetric", {"sides.A.tactician": 2})
    msg = str(e.value)
    assert "sides.A.tactician" in msg and "corps_tactician" in msg  # named as the --set path
    assert "\n" not in msg
    assert load_scenario("lgb-symmetric", {"sides.A.tactician": 0}).sides[0].tactician == 0
    # an army written for EPIC and played as La Grande Battles (one army in every format): its
    # `tactician` is the EPIC value, and the Corps commanders' own come from corps_tactician
    armies = load_scenario("formats-armies", {"scenario.format": "lgb"})
    assert armies.format == "lgb" and armies.sides[0].tactician == 3


def test_g6_counters_given_both_as_a_total_and_per_corps_are_refused():
    # rule G6: La Grande Battles counters are given per Corps commander (corps_guerrilla) or as a
    # total to split (guerrilla); both at once would lose some, so the scenario is refused
    over = {"sides.B.french": True, "sides.A.guerrilla_rule": "epic",
            "scenario.guerrilla_pool": 4, "sides.A.sections.L1.spanish": 4}
    with pytest.raises(NapsimInputError) as e:
        load_scenario("lgb-symmetric", {**over, "sides.A.guerrilla": 2,
                                        "sides.A.corps_guerrilla": [1, 0, 0]})
    msg = str(e.value)
    assert "guerrilla" in msg and "corps_guerrilla" in msg and "\n" not in msg
    assert load_scenario("lgb-symmetric", {**over, "sides.A.corps_guerrilla": [1, 0, 0]})
    assert load_scenario("lgb-symmetric", {**over, "sides.A.guerrilla": 2})


def test_g1_the_base_rule_in_an_epic_format_is_a_what_if(tmp_path):
    # rules G1, G4: the base rule belongs to the standard game; in EPIC with the GM&T deck it
    # plays, but `napsim scenarios show` and `napsim simulate` say it is a what-if
    assert what_if_notes(load_scenario("tamames")) == []
    sc = load_scenario("tamames", {"sides.S.guerrilla_rule": "base"})
    notes = what_if_notes(sc)
    assert len(notes) == 1 and "what-if" in notes[0] and "side S" in notes[0]
    path = tmp_path / "base.toml"
    text = sc.path.read_text(encoding="utf-8")
    path.write_text(text.replace('guerrilla_rule = "epic"', 'guerrilla_rule = "base"'), "utf-8")
    assert "note: side S plays guerrilla_rule" in scenario_text(path)
    std = load_scenario("tamames", {"sides.S.guerrilla_rule": "base",
                                    "scenario.format": "standard"})
    assert what_if_notes(std) == []


# ---------------------------------------------------------------------------------------------
# D1: what the card lists confirm


def _rows(name: str) -> dict[str, dict[str, str]]:
    path = load_deck(name).path
    body = [ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    return {r["name"]: r for r in csv.DictReader(body)}


def test_d1_deck_facts_carry_their_sources():
    # rule D1: Assault Right is an assumption by symmetry (not confirmed); the base deck's five
    # tactic counts come from the GM&T card pages' second number, an inference labelled
    # secondary; Take Command has no public source
    ccn = _rows("ccn70")
    right = ccn["Assault Right"]
    assert right["confidence"] == "estimated" and "symmetry" in right["source"]
    assert ccn["Assault Left"]["confidence"] == "confirmed"
    for name, count in (("Bayonet Charge", 2), ("Bombard", 2), ("Cavalry Charge", 3),
                        ("Fire and Hold", 2), ("Leadership", 3)):
        row = ccn[name]
        assert int(row["count"]) == count and row["confidence"] == "secondary"
        assert "inference" in row["source"] and f"/ {count} cards" in row["source"]
    assert "no public source" in _rows("gmt90")["Take Command"]["source"]
    assert "Short Supply" not in _rows("gmt90")


# ---------------------------------------------------------------------------------------------
# M8.2: a multi-section card's Tactician draw with four a side


def test_m8_2_a_multi_section_tactician_draw_goes_to_the_fewest_ties_drawn(tmp_path):
    # rules M8.2, M6.3: the CIC holds no Tactician cards, so the draw a multi-section card earns
    # goes to the Corps commander holding the fewest; ties are drawn uniformly (taking the
    # leftmost on ties gave the left wing more). Holdings are followed in the trace: no card is
    # spent (tactician_use_prob 0) and every draw shows the drawer's new count.
    deck = str(write_deck(tmp_path / "recon.csv", {
        "Recon in Force": 30, "Probe Left": 10, "Probe Center": 10, "Probe Right": 10,
        "Attack Left": 8, "Attack Center": 8, "Attack Right": 8}))
    quiet = ("greedy", {"tactician_use_prob": 0.0, "first_strike_prob": 0.0})
    sim = Simulation.build(load_scenario("epic4-symmetric"), (quiet, quiet), deck)
    _, tac0, _ = commander_config(sim.scenario)
    ties = not_leftmost = 0
    for g in range(60):
        held = tac0.copy()
        for ply, rows in sorted(by_ply(sim.trace(SEED, g)[1]).items()):
            if ply < 0:
                continue
            skip = 0
            for r in rows:
                code = int(r[CODE])
                if code == layout.EV_INITIATIVE:
                    skip += int(r[E])  # the Tactician draws of a double follow it
                elif code == layout.EV_COMMANDER_TACTICIAN:
                    s, cc = int(r[SIDE]), int(r[A])
                    if skip:
                        skip -= 1
                    else:  # a multi-section card's draw
                        low = min(held[s, 1:])
                        assert held[s, cc] == low, (g, ply, held[s], cc)
                        tied = [k for k in (1, 2, 3) if held[s, k] == low]
                        if len(tied) > 1:
                            ties += 1
                            not_leftmost += cc != tied[0]
                    held[s, cc] = int(r[B])
    assert ties > 50 and not_leftmost > 0.3 * ties, (ties, not_leftmost)


# ---------------------------------------------------------------------------------------------
# P7 in La Grande Battles: who draws a First Strike's replacement, and when


def _first_strike_draws(sim: Simulation, games: int) -> list[tuple[int, list[str]]]:
    """Per First Strike in traced games: (who played it: 0 the CIC, 1-3 a Corps commander, the
    ply's draw events from it on as 'own CIC', 'own corps K' or 'active')."""
    out = []
    for g in range(games):
        for ply, rows in sorted(by_ply(sim.trace(SEED, g)[1]).items()):
            fs = [i for i, r in enumerate(rows) if int(r[CODE]) == layout.EV_FIRST_STRIKE]
            if ply < 0 or not fs:
                continue
            o = int(rows[fs[0], SIDE])
            holder = int(rows[fs[0], B])
            seq = []
            for r in rows[fs[0]:]:
                code = int(r[CODE])
                if code == layout.EV_DRAW:
                    seq.append("own CIC" if int(r[SIDE]) == o else "active")
                elif code == layout.EV_CORPS_DRAW:
                    seq.append(f"own corps {int(r[A]) + 1}" if int(r[SIDE]) == o else "active")
            out.append((holder, seq))
    return out


@pytest.mark.parametrize("when", ["end_of_turn", "cic_at_once"])
def test_p7_l1_lgb_first_strike_replacement(tmp_path, when):
    # rules P7, L1: the card text: "at the end of the turn, you draw your new Command card
    # first": under end_of_turn (the default) whoever played it, the CIC or a Corps commander,
    # draws one card before the side whose turn it is draws; under cic_at_once only a CIC draws,
    # at once, and a Corps commander's hand stays one card short
    deck = str(write_deck(tmp_path / "fs.csv", {
        "First Strike": 20, "Probe Left": 15, "Probe Center": 15, "Probe Right": 15,
        "Attack Left": 10, "Attack Center": 10, "Attack Right": 10}))
    fs = ("greedy", {"first_strike_prob": 0.5})
    sc = load_scenario("lgb-symmetric", {"rules.first_strike_draw": when})
    sim = Simulation.build(sc, (fs, fs), deck)
    seen = _first_strike_draws(sim, 40)
    by_holder = {h: [q for k, q in seen if k == h] for h in range(4)}
    assert len(by_holder[0]) > 10 and sum(len(by_holder[h]) for h in (1, 2, 3)) > 10
    for h, seqs in by_holder.items():
        own = "own CIC" if h == 0 else f"own corps {h}"
        for seq in seqs:
            if when == "end_of_turn":  # his draw first, then the active side's
                assert seq[:2] == [own, "active"], (h, seq)
            elif h == 0:  # at once: before any draw of the turn
                assert seq[0] == own and seq.count(own) == 1, seq
            else:  # a Corps commander draws none
                assert own not in seq, (h, seq)
    assert sim.run(300, SEED).metric("invariant_violations").tolist() == [0, 0]


# ---------------------------------------------------------------------------------------------
# D2, S2: the Ancients leadership and mounted cards


def test_d2_s2_ancients_leader_cards_need_a_leader_and_mounted_orders_take_leaders():
    # rules D2, S2: Leadership Any Section and the Inspired cards order the units under a leader's
    # command, so only where a leader stands (else the one unit of the player's choice); Order
    # Mounted Troops orders mounted units and leaders
    from napsim.sim.tables import card_table, eval_pair
    cca = load_deck("cca60")
    ct = card_table(cca)
    name = {n: i for i, n in enumerate(ct.names)}
    nominal, eff, rem = (np.zeros(3, np.int64) for _ in range(3))

    def orders(card, place, units, cmd=4, standard=False):
        eval_pair.py_func(name[card], place, ct.void, 0, cmd, units, ct.kind, ct.sec, ct.orders,
                          ct.eq_cmd, ct.cap, ct.filt, ct.take_command, ct.fallback, ct.reach, standard,
                          nominal, eff, rem)
        return nominal.tolist(), eff.tolist()

    # [type][section L, C, R]: infantry, cavalry, artillery, leaders; a leader on the left only
    units = np.array([[6, 6, 6], [2, 2, 2], [0, 0, 0], [1, 0, 0]], np.int64)
    assert orders("Inspired Left Leadership", 0, units) == ([5, 0, 0], [5, 0, 0])
    assert orders("Inspired Center Leadership", 0, units) == ([0, 5, 0], [0, 1, 0])
    assert orders("Leadership Any Section", 0, units) == ([4, 0, 0], [4, 0, 0])
    assert orders("Leadership Any Section", 1, units) == ([0, 4, 0], [0, 1, 0])
    assert orders("Order Mounted Troops", 0, units) == ([4, 0, 0], [3, 0, 0])  # 2 horse, 1 leader
    assert orders("Mounted Charge", 0, units) == ([4, 0, 0], [2, 0, 0])  # its text: mounted only
