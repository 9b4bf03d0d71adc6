"""La Grande Battles L1-L5 and P6: the setup, the CIC's gifts, the order arithmetic of a Corps
commander's card (napsim.sim.tables_lgb) and his choice to play it or one of his own."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from support.decks import write_deck
from support.lgbtools import (
    GREEDY,
    HAND0,
    N_DECK,
    QUIET,
    RACK0,
    RANDOM,
    SCEN,
    both,
    cards_played,
    corps_card,
    corps_metric,
    corps_rows,
    sim_for,
    traced,
    units6,
)
from support.tracetools import (
    SIDE,
    A,
    B,
    C,
    D,
    F,
    G,
    H,
    M,
    one,
    rows_of,
)

from napsim.engine import layout
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.tables import KIND_SECTION, NEG
from napsim.sim.tables_lgb import SRC_CIC, SRC_OWN

# ---------------------------------------------------------------------------------------------
# L1 setup


def test_setup_deals_the_scenario_hands_and_tactician_cards():
    # rule L1, rule D4, rule E1, rule L10: the CIC's hand, each Corps commander's hand and Tactician cards,
    # then 5 cards to the rack; unequal sizes on every commander so a mix-up shows
    hands = {"A": (5, [2, 3, 4], [0, 1, 2]), "B": (7, [4, 1, 0], [2, 0, 1])}
    over = {}
    for s, (h, ch, ct) in hands.items():
        over.update({f"sides.{s}.hand": h, f"sides.{s}.corps_hand": ch,
                     f"sides.{s}.corps_tactician": ct})
    sim = sim_for(over, ("greedy", QUIET))
    dealt = sum(h + sum(ch) for h, ch, _ in hands.values())
    for _, _, ps in traced(sim, 11, 40):
        for ply in (0, 1):  # each side's first turn (A moves first)
            rows = ps[ply]
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            assert s == ply
            h, ch, ct = hands["AB"[s]]
            corps = one(rows, layout.EV_CORPS_HANDS)
            assert turn[D] == h and turn[A] == h  # hand held, and the E6 command
            assert (turn[HAND0:HAND0 + h] >= 0).all() and (turn[HAND0 + h:RACK0] == -1).all()
            assert list(corps[A:D]) == ch
            # Tactician cards: dealt ones, plus one each after an Elan played in ply 0 (L9)
            elans = len(rows_of(ps[0], layout.EV_ELAN)) if ply == 1 else 0
            assert list(corps[D:G]) == [t + elans for t in ct]
            assert turn[F] == sum(ct) + 3 * elans
        first = one(ps[0], layout.EV_TURN)
        assert first[B] == layout.RACK and (first[RACK0:RACK0 + layout.RACK] >= 0).all()
        assert first[G] == N_DECK - dealt - layout.RACK and first[H] == 0  # draw pile, discards


# ---------------------------------------------------------------------------------------------
# L2 gifts


def _check_gifts(sim: Simulation, seed: int, n: int) -> Counter:
    """Every gift of n traced games against L2 / E4; returns what was seen."""
    ct = sim.cards
    void = ct.void
    seen = Counter()
    for _, _, ps in traced(sim, seed, n):
        for rows in ps:
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            give = one(rows, layout.EV_GIVE)
            ta, tb, ka, kb, ra, rb = (int(x) for x in give[A:G])
            hand = turn[HAND0:HAND0 + turn[D]].tolist()
            rack = turn[RACK0:RACK0 + turn[B]].tolist()
            assert ta in hand and tb in rack  # one card from his hand, one from the rack
            for t, k, r in ((ta, ka, ra), (tb, kb, rb)):
                assert (k >= 0) == (r != void)  # only a card that plays as nothing goes to nobody
                if k < 0:
                    continue
                if ct.kind[r] == KIND_SECTION:
                    assert k == ct.sec[r], (ct.names[r], k)  # the wing it names
                    seen["section"] += 1
                # the receiver plays it, or discards it for one of his own (L5)
                plays = cards_played(rows, s, k)
                rejects = corps_rows(rows, layout.EV_REJECT, s, k)
                assert t in plays[plays[:, B] == layout.SRC_CIC, C].tolist() or t in rejects[:, B]
            if ka >= 0 and kb >= 0:
                if ka == kb:  # E4: every hand and rack card a section card of one section
                    assert turn[C] == 1
                    assert ct.kind[ra] == ct.kind[rb] == KIND_SECTION and ct.sec[ra] == ka
                    seen["e4_same"] += 1
                else:
                    seen["two"] += 1
                if turn[C] == 1:
                    assert ka == kb  # section cards of one section can only go to that wing
    return seen


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_gifts_go_to_two_different_corps_commanders(pol):
    # rule L2, rule E2, rule P6: two different Corps commanders; a section card goes to its wing
    seen = _check_gifts(sim_for(None, pol), 21, 80)
    assert seen["two"] > 4000 and seen["section"] > 1000


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_gifts_in_the_same_section_situation(tmp_path, pol):
    # rule L2, rule E4: a deck of mostly Left section cards makes E4 common; then (and only then)
    # both cards go to the left wing's Corps commander
    deck = write_deck(tmp_path / "left.csv", {
        "Probe Left": 30, "Attack Left": 20, "Scout Left": 5, "Assault Left": 5,
        "Probe Center": 5, "Attack Right": 5, "Bayonet Charge": 5, "Flank Attack": 5})
    sim = Simulation.build(load_scenario(SCEN), ((pol[0], {}), (pol[0], {})), str(deck))
    seen = _check_gifts(sim, 22, 60)
    assert seen["e4_same"] > 20 and seen["two"] > 1000


# ---------------------------------------------------------------------------------------------
# L3-L5 order arithmetic on the tables


def test_cic_section_card_orders_across_both_sections():
    # rule L3, rule L2, rule S2: split as evenly as the units allow, odd order to the left half
    full = units6(C1=(3, 1, 1, 0), C2=(3, 1, 1, 0))
    assert corps_card("Attack Center", SRC_CIC, 0, 6, full, 1) == (3, 2, 1)
    assert corps_card("Probe Center", SRC_CIC, 0, 6, full, 1) == (2, 1, 1)
    assert corps_card("Scout Center", SRC_CIC, 0, 6, full, 1) == (1, 1, 0)
    assert corps_card("Attack Center", SRC_CIC, 0, 6, units6(C1=(1, 0, 0, 0), C2=(5, 0, 0, 0)),
                      1) == (3, 1, 2)
    assert corps_card("Attack Center", SRC_CIC, 0, 6, units6(C2=(5, 0, 0, 0)), 1) == (3, 0, 3)
    assert corps_card("Attack Center", SRC_CIC, 0, 6, units6(C1=(1, 0, 0, 0), C2=(0, 0, 0, 1)),
                      1) == (3, 1, 1)
    # E6: a CIC's Assault is equal to the CIC's command
    assert corps_card("Assault Left", SRC_CIC, 0, 5, units6(L1=(9, 0, 0, 0), L2=(9, 0, 0, 0)),
                      0) == (5, 3, 2)
    # a CIC section card for another wing, or a second option, is illegal
    for k in (0, 2):
        assert corps_card("Attack Center", SRC_CIC, 0, 6, full, k) is None
    assert corps_card("Probe Right", SRC_CIC, 0, 6, full, 0) is None
    assert corps_card("Attack Center", SRC_CIC, 1, 6, full, 1) is None


def test_tactic_and_force_march_from_the_cic():
    # rule L3, rule D3: a tactic orders across both sections; Force March infantry in one only
    u = units6(L1=(3, 1, 1, 0), L2=(2, 0, 0, 0))
    assert corps_card("Bayonet Charge", SRC_CIC, 0, 6, u, 0) == (4, 2, 2)
    assert corps_card("Bayonet Charge", SRC_CIC, 1, 6, u, 0) is None
    assert corps_card("Force March", SRC_CIC, 0, 4, u, 0) == (4, 3, 0)
    assert corps_card("Force March", SRC_CIC, 1, 4, u, 0) == (4, 0, 2)
    assert corps_card("Force March", SRC_CIC, 0, 2, u, 0) == (2, 2, 0)


@pytest.mark.parametrize("src", [SRC_CIC, SRC_OWN])
def test_multi_section_card_splits(src):
    # rule L4: Recon in Force 2+1 or 1+2, Coordinated Advance 3+1 or 1+3, Flank Attack 2+2 only,
    # Forward 4+2 or 2+4 (his left + right)
    u = units6(C1=(9, 0, 0, 0), C2=(9, 0, 0, 0))
    expect = {"Recon in Force": ((3, 2, 1), (3, 1, 2)),
              "Coordinated Advance": ((4, 3, 1), (4, 1, 3)),
              "Flank Attack": ((4, 2, 2), None),
              "Forward": ((6, 4, 2), (6, 2, 4))}
    for name, (opt0, opt1) in expect.items():
        assert corps_card(name, src, 0, 6, u, 1) == opt0, name
        assert corps_card(name, src, 1, 6, u, 1) == opt1, name
    # effective orders are capped by the units in each half (S2)
    assert corps_card("Forward", src, 0, 6, units6(C1=(1, 0, 0, 0), C2=(9, 0, 0, 0)), 1) == (6, 1, 2)


def test_own_hand_cards_order_one_section():
    # rule L5: a Left card his left section only, a Right card his right only, a Center card
    # either; a tactic card both sections, Force March infantry in one; "equal to command" is
    # his own hand including the card
    u = units6(R1=(3, 0, 0, 0), R2=(1, 1, 0, 0))
    k = 2  # the right wing's commander plays a Left card in his left section (R1)
    assert corps_card("Probe Left", SRC_OWN, 0, 3, u, k) == (2, 2, 0)
    assert corps_card("Probe Left", SRC_OWN, 1, 3, u, k) is None
    assert corps_card("Probe Right", SRC_OWN, 0, 3, u, k) == (2, 0, 2)
    assert corps_card("Probe Right", SRC_OWN, 1, 3, u, k) is None
    assert corps_card("Probe Center", SRC_OWN, 0, 3, u, k) == (2, 2, 0)
    assert corps_card("Probe Center", SRC_OWN, 1, 3, u, k) == (2, 0, 2)
    assert corps_card("Attack Right", SRC_OWN, 0, 3, u, k) == (3, 0, 2)
    assert corps_card("Assault Left", SRC_OWN, 0, 2, u, k) == (2, 2, 0)
    assert corps_card("Assault Left", SRC_OWN, 0, 5, u, k) == (5, 3, 0)
    assert corps_card("Give Them Cold Steel", SRC_OWN, 0, 3, u, k) == (5, 3, 2)
    assert corps_card("Force March", SRC_OWN, 0, 4, u, k) == (4, 3, 0)
    assert corps_card("Force March", SRC_OWN, 1, 4, u, k) == (4, 0, 1)


# small wings (3, 4 and 3 units): a Take Command from a CIC hand of 6 orders beyond them
SMALL_WINGS = {"L1": (1, 0, 0, 0), "L2": (1, 1, 0, 0), "C1": (2, 0, 1, 0), "C2": (1, 0, 0, 0),
               "R1": (1, 0, 0, 1), "R2": (0, 1, 0, 0)}
SMALL = both(**{f"sections__{x}__{f}": v[j] for x, v in SMALL_WINGS.items()
                for j, f in enumerate(("infantry", "cavalry", "artillery", "leaders"))})
NEXT_DOOR = {0: ((), (2,)), 1: ((1,), (4,)), 2: ((3,), ())}  # sections next to his, left / right


def test_take_command_from_the_cic_reaches_the_sections_next_to_his():
    # rule E7, rule L3, rule D3: a Take Command given by the CIC orders his two sections first;
    # the orders left may go to the sections next to his two (C1 for the left wing, L2 and R1 for
    # the centre, C2 for the right wing), at most their units; from his own hand it does not reach
    # (L5: a tactic card orders his two sections); no other card reaches
    sim = sim_for(SMALL)
    ct, t = sim.cards, sim.lgb
    tc = ct.names.index("Take Command")
    assert (t.units[0] == units6(**SMALL_WINGS)).all()
    c = 6
    for k, (nom, ea, eb, reach) in enumerate(((6, 1, 2, 3), (6, 3, 1, 2), (6, 2, 1, 1))):
        assert t.nom[0, k, SRC_CIC, c, tc, 0] == nom
        assert t.eff[0, k, SRC_CIC, c, tc, 0].tolist() == [ea, eb, reach]
        assert t.eff[0, k, SRC_OWN, c, tc, 0, 2] == 0
    assert t.eff[0, 0, SRC_CIC, 3, tc, 0].tolist() == [1, 2, 0]  # his own units take 3 orders
    assert t.eff[0, 1, SRC_CIC, 5, tc, 0, 2] == 1
    other = np.ones(len(ct.names), bool)
    other[tc] = False
    assert not t.eff[:, :, :, :, other, :, 2].any() and not t.eff[:, :, SRC_OWN, ..., 2].any()


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_take_command_orders_in_a_neighbouring_corps_section(pol):
    # rule E7, rule L3, rule S2: in play, a Take Command from the CIC orders units of the sections
    # next to his that their own Corps commander left unordered (no unit ordered twice), as
    # evenly between L2 and R1 as they allow; those orders count in the wing and section where the
    # units stand and in the card_effective of the commander who played the card. march_prob 0:
    # no March Moves, so what a commander leaves unordered is known from the log
    sim = sim_for(SMALL, (pol[0], (("march_prob", 0.0),)))
    tc = sim.cards.names.index("Take Command")
    cmax = sim.lgb.best.shape[3] - 1
    reached = Counter()
    for _, _met, ps in traced(sim, 85, 40):
        for rows in ps:
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            u = sim.lgb.units[s].sum(axis=0)  # units per section
            room = u.copy()
            free = np.array([u[0] + u[1], u[2] + u[3], u[4] + u[5]])
            own = np.zeros(3, np.int64)
            for k in range(3):
                for p in cards_played(rows, s, k):
                    if p[F] >= 0:  # an E4 second card has its orders on the first row
                        room[2 * k:2 * k + 2] -= p[G:H + 1]
                        own[k] += p[G] + p[H]
                for ini in corps_rows(rows, layout.EV_INITIATIVE, s, k):
                    free[k] -= ini[D]
                free[k] -= own[k]
            eff = own.copy()
            for r in rows_of(rows, layout.EV_CORPS_REACH):
                k, n, into_l, into_r = (int(x) for x in r[A:D + 1])
                p = cards_played(rows, s, k)
                assert len(p) == 1 and p[0, B] == layout.SRC_CIC and p[0, D] == tc
                cmd = min(int(turn[A]), cmax)
                assert n == sim.lgb.eff[s, k, SRC_CIC, cmd, tc, 0, 2] > 0
                assert p[0, G] + p[0, H] == u[2 * k] + u[2 * k + 1]  # his own sections first
                left, right = NEXT_DOOR[k]
                rl = min(room[left[0]], free[k - 1]) if left else 0
                rr = min(room[right[0]], free[k + 1]) if right else 0
                exp_l = max(min(rl, max(n - rr, (n + 1) // 2)), 0)
                assert (into_l, into_r) == (exp_l, max(min(rr, n - exp_l), 0))
                for secs, took, v in ((left, into_l, k - 1), (right, into_r, k + 1)):
                    if secs:
                        room[secs[0]] -= took
                        free[v] -= took
                        eff[v] += took
                reached[k] += into_l + into_r
            assert (room >= 0).all() and (free >= 0).all()  # no unit is ordered twice
            assert one(rows, layout.EV_ORDERS)[D:F + 1].tolist() == eff.tolist()
    assert reached[0] > 0 and reached[1] > 0 and reached[2] > 0
    # per game: the wings' effective orders, the Corps commanders' card_effective and their
    # sections' effective orders agree in total; wasted is nominal less effective
    res = sim.run(500, seed=86, per_game=True)
    rows, crows = res.per_game, res.commander_rows[:, :, 1:]
    eff = rows[:, :, M["effective_L"]:M["effective_R"] + 1].sum(axis=2)
    nom = rows[:, :, M["nominal_L"]:M["nominal_R"] + 1].sum(axis=2)
    assert (crows[..., layout.CM_EFF].sum(axis=2) == eff).all()
    assert ((crows[..., layout.CM_EFF_A] + crows[..., layout.CM_EFF_A + 1]).sum(axis=2) == eff).all()
    assert (rows[:, :, M["wasted"]] == nom - eff).all()
    assert (crows[..., layout.CM_EFF] != crows[..., layout.CM_EFF_A] + crows[..., layout.CM_EFF_A + 1]).any()


def test_tables_mark_the_illegal_plays():
    # rule L2, rule L4, rule L5, rule P6: lgb_tables scores illegal (source, option) as NEG and
    # the best option is a legal one
    sim = sim_for()
    ct, t = sim.cards, sim.lgb
    i = ct.names.index
    for c in range(t.best.shape[3]):
        for s in range(2):
            for name, wing in (("Probe Left", 0), ("Attack Center", 1), ("Assault Right", 2)):
                for k in range(3):
                    cic = t.val[s, k, SRC_CIC, c, i(name)]
                    assert (cic[0] > NEG / 2) == (k == wing) and cic[1] <= NEG / 2
                    assert t.val[s, k, SRC_OWN, c, i(name), 0] > NEG / 2  # any wing, own hand
            assert (t.val[s, :, :, c, i("Flank Attack"), 1] <= NEG / 2).all()
            assert (t.bopt[s, :, :, c, i("Flank Attack")] == 0).all()
            assert (t.val[s, :, :, c, i("Forward"), :] > NEG / 2).all()
    # the tables agree with eval_corps_card
    u = t.units[0]
    for name in ("Attack Center", "Forward", "Force March", "Probe Center"):
        for src in (SRC_CIC, SRC_OWN):
            for opt in (0, 1):
                got = corps_card(name, src, opt, 4, u, 1)
                if got is not None:
                    assert t.nom[0, 1, src, 4, i(name), opt] == got[0]
                    assert tuple(t.eff[0, 1, src, 4, i(name), opt, :2]) == got[1:]


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_kernel_orders_match_the_tables(pol):
    # rule L3, rule L4, rule L5, rule E6: every Corps play in traced games orders what
    # eval_corps_card gives for its source, option and command: the CIC's hand at the start of
    # the turn for his cards, the Corps commander's own hand (including the card) for his
    sim = sim_for(None, pol)
    cmax = sim.lgb.best.shape[3] - 1
    assaults = Counter()
    for _, _, ps in traced(sim, 23, 40):
        for rows in ps:
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            hands = one(rows, layout.EV_CORPS_HANDS)
            for k in range(3):
                plays = cards_played(rows, s, k)
                if len(plays) != 1:
                    continue  # no card, or an E4 pair (orders of both on the first row)
                _, src, t, r, opt, nom, ea, eb = (int(x) for x in plays[0, A:H + 1])
                cmd = min(int(turn[A]) if src == layout.SRC_CIC else int(hands[A + k]), cmax)
                exp = corps_card(sim.cards.names[r], src, opt, cmd, sim.lgb.units[s], k)
                assert exp == (nom, ea, eb), (sim.cards.names[r], src, opt, cmd)
                if sim.cards.eq_cmd[r] == 1:
                    assaults[src] += 1
                    if src == layout.SRC_OWN:
                        assert nom == min(hands[A + k], cmax)
    assert assaults[layout.SRC_OWN] > 10 and assaults[layout.SRC_CIC] > 10


# ---------------------------------------------------------------------------------------------
# L5 accept or own card (policy)


def test_corps_never_plays_his_own_card_when_the_policy_says_no():
    # rule L5, rule P6: corps_own_min and corps_swap_margin so high that an own card is never
    # worth it: no own cards played, no CIC card rejected (the default policy does both)
    base = sim_for().run(2000, seed=41)
    assert corps_metric(base, layout.CM_OWN_PLAYED).sum() > 1000
    assert corps_metric(base, layout.CM_REJECTED).sum() > 100
    never = ("greedy", (("corps_own_min", 1e5), ("corps_swap_margin", 1e5)))
    res = sim_for(None, never).run(2000, seed=41, check=True)
    assert corps_metric(res, layout.CM_OWN_PLAYED).sum() == 0
    assert corps_metric(res, layout.CM_REJECTED).sum() == 0
    assert res.metric("invariant_violations").tolist() == [0, 0]


def test_corps_rejects_every_gift_with_a_negative_margin():
    # rule L5, rule P6: corps_swap_margin -1e5: every (single) gift to a Corps commander holding
    # cards is discarded for one of his own; a commander with an empty hand plays it
    always = ("greedy", (("corps_swap_margin", -1e5),))
    sim = sim_for(None, always)
    n_games = 40
    res = sim.run(n_games, seed=42, per_game=True)
    seen = Counter()
    for g, _, ps in traced(sim, 42, n_games):
        rejected = np.zeros((2, 3), np.int64)
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            hands = one(rows, layout.EV_CORPS_HANDS)
            give = one(rows, layout.EV_GIVE)
            ka, kb = int(give[C]), int(give[D])
            for k in range(3):
                n_rej = len(corps_rows(rows, layout.EV_REJECT, s, k))
                rejected[s, k] += n_rej
                got = (k == ka) + (k == kb)
                if got == 1 and hands[A + k] > 0:
                    assert n_rej == 1
                    own = cards_played(rows, s, k)
                    assert own[:, B].tolist() == [layout.SRC_OWN]
                    seen["rejected"] += 1
                else:
                    assert n_rej == 0
                    seen["kept" if got else "none"] += 1
        assert (res.commander_rows[g, :, 1:, layout.CM_REJECTED] == rejected).all()
    assert seen["rejected"] > 400 and seen["kept"] > 400
