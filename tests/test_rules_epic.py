"""Rules E (EPIC, one player a side): one test or more per rule ID. Placements and orders are
checked on the pair tables, the turn's card flow on traced games (tests/support/enginerules.py)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from support.decks import write_deck
from support.enginerules import (
    FULL,
    PLAIN,
    gmt_table,
    idx,
    orders,
    placed_section,
    pols,
    tables_for,
    traces,
    turn_cards,
    units,
    write_scenario,
)
from support.tracetools import (
    CODE,
    PLY,
    SIDE,
    A,
    B,
    C,
    D,
    E,
    F,
    G,
    H,
    M,
    by_ply,
    one,
    rows_of,
)

from napsim.engine import layout
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.tables import (
    KIND_SECTION,
    CardTable,
)


@pytest.fixture(scope="module")
def gmt() -> CardTable:
    return gmt_table()


# ---------------------------------------------------------------------------------------------
# E. EPIC, one player a side

def test_e1_setup(tmp_path):
    # rule E1
    sc = write_scenario(tmp_path / "setup.toml", {"sides.A.hand": 6, "sides.B.hand": 5,
                                                  "sides.A.tactician": 2,
                                                  "sides.B.tactician": 3})
    sim = Simulation.build(sc, pols(tactician_use_prob=0.0))
    for _, ev in traces(sim, 12, 10):
        plies = by_ply(ev)
        assert -1 not in plies  # the deal from a fresh 90-card deck needs no reshuffle
        t0, t1 = one(plies[0], layout.EV_TURN), one(plies[1], layout.EV_TURN)
        assert (t0[SIDE], t0[A], t0[B], t0[D], t0[F]) == (0, 6, 5, 6, 2)
        assert (t0[G], t0[H]) == (90 - 6 - 5 - 5, 0)
        hand, rack = turn_cards(t0)
        assert len(hand) == 6 and len(rack) == 5 and min(hand + rack) >= 0
        elan = len(rows_of(plies[0], layout.EV_ELAN))
        assert (t1[SIDE], t1[D], t1[B]) == (1, 5, 4) and t1[F] == 3 + elan


def test_e2_one_hand_card_and_one_rack_card_each_turn():
    # rule E2
    sim = Simulation.build("symmetric", pols())
    res = sim.run(1000, seed=5)
    turns = res.metric("turns")
    assert turns.tolist() == [30_000, 30_000]
    hand = res.totals[:, M["hand_section"]:M["hand_other"] + 1].sum(axis=1)
    rack = res.totals[:, M["rack_section"]:M["rack_other"] + 1].sum(axis=1)
    assert hand.tolist() == rack.tolist() == turns.tolist()
    picks = res.totals[:, M["pick_from_0"]:M["pick_from_5"] + 1].sum(axis=1)
    assert picks.tolist() == turns.tolist()
    void = sim.cards.void
    for _, ev in traces(sim, 5, 5):
        ch = rows_of(ev, layout.EV_CHOICE)
        assert len(ch) == 60 and (ch[:, A] != void).all() and (ch[:, B] != void).all()


def test_e3_placement_tables(gmt):
    # rule E3
    t = tables_for(gmt, FULL)

    def legal(a, b):
        ia, ib = idx(gmt, a), idx(gmt, b)
        return sorted(divmod(int(p), 3) for p in t.place_list[0, ia, ib, :t.n_place[0, ia, ib]])

    assert legal("Probe Left", "Attack Right") == [(0, 0)]
    assert legal("Probe Left", "Bayonet Charge") == [(0, 1), (0, 2)]  # never in the left
    assert legal("Bombard", "Attack Center") == [(0, 0), (2, 0)]
    assert legal("Bombard", "Bayonet Charge") == [(a, b) for a in range(3) for b in range(3)
                                                  if a != b]
    assert legal("Forward", "Bayonet Charge") == [(0, 0), (0, 1), (0, 2)]
    assert legal("Forward", "Recon in Force") == [(0, 0)]
    assert legal("Forward", "Probe Center") == [(0, 0)]
    # a multi-section card orders in every section it names whatever the other card
    assert orders(gmt, "Flank Attack", "Bayonet Charge", FULL, pb=1)[0] == [2, 4, 2]


def test_e3_engine_never_places_two_cards_in_one_section():
    # rule E3
    for policy in ("random", "greedy"):
        sim = Simulation.build("symmetric", pols(policy))
        ct = sim.cards
        both_placed = 0  # turns whose two cards each went into a section: the ones E3 constrains
        for _, ev in traces(sim, 21, 20):
            turns = rows_of(ev, layout.EV_TURN)
            for turn, ch in zip(turns, rows_of(ev, layout.EV_CHOICE), strict=True):
                sa = placed_section(ct, ch[E], ch[C])
                sb = placed_section(ct, ch[F], ch[D])
                if sa < 0 or sb < 0:
                    continue
                both_placed += 1
                # one section for both only in the E4 situation, and then two section cards
                assert sa != sb or (turn[C] == 1 and ct.kind[ch[E]] == ct.kind[ch[F]] == KIND_SECTION)
        assert both_placed >= 500, policy  # of 1,200 turns (about 870 today)


def test_e4_same_section_pairs_flagged(gmt):
    # rule E4
    t = tables_for(gmt, FULL)
    e4 = t.e4_only[0]
    for a in gmt.names[:-1]:
        for b in gmt.names[:-1]:
            ia, ib = idx(gmt, a), idx(gmt, b)
            same = (gmt.kind[ia] == gmt.kind[ib] == KIND_SECTION and gmt.sec[ia] == gmt.sec[ib])
            assert bool(e4[ia, ib]) == same, (a, b)
    ia, ib = idx(gmt, "Attack Left"), idx(gmt, "Scout Left")
    assert t.n_place[0, ia, ib] == 1
    assert orders(gmt, "Attack Left", "Scout Left", FULL)[0] == [4, 0, 0]


def test_e4_arises_every_turn_with_a_one_section_deck(tmp_path):
    # rule E4
    deck = write_deck(tmp_path / "left.csv", {"Probe Left": 10, "Attack Left": 10,
                                              "Assault Left": 4, "Scout Left": 4})
    sim = Simulation.build("symmetric", pols(), deck=str(deck))
    res = sim.run(300, seed=7, check=True)
    turns = res.metric("turns")
    assert res.metric("same_section_turns").tolist() == turns.tolist()
    assert res.metric("same_section_used").tolist() == turns.tolist()
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert res.metric("nominal_C").sum() == res.metric("nominal_R").sum() == 0


def test_e4_flag_matches_hand_and_rack(tmp_path):
    # rule E4: flagged exactly when every hand and rack card is a section card of one section
    deck = write_deck(tmp_path / "mostly-left.csv", {"Probe Left": 14, "Attack Left": 10,
                                                     "Probe Center": 3, "Bayonet Charge": 3})
    sc = write_scenario(tmp_path / "h2.toml", {"sides.*.hand": 2})
    sim = Simulation.build(sc, pols(), deck=str(deck))
    ct = sim.cards
    flags = Counter()
    for _, ev in traces(sim, 13, 30):
        for turn, ch in zip(rows_of(ev, layout.EV_TURN), rows_of(ev, layout.EV_CHOICE),
                            strict=True):
            hand, rack = turn_cards(turn)
            secs = {int(ct.sec[x]) if ct.kind[x] == KIND_SECTION else -1 for x in hand + rack}
            expect = len(secs) == 1 and secs != {-1}
            flags[expect] += 1
            assert bool(turn[C]) == expect
            sa, sb = placed_section(ct, ch[E], ch[C]), placed_section(ct, ch[F], ch[D])
            if not expect:
                assert sa < 0 or sa != sb
    assert flags[True] > 50 and flags[False] > 50


def test_e5_orders_add_up_per_section(gmt):
    # rule E5
    assert orders(gmt, "Coordinated Advance", "Probe Center", FULL)[0] == [1, 4, 1]
    assert orders(gmt, "Recon in Force", "Flank Attack", FULL)[0] == [3, 1, 3]
    assert orders(gmt, "Recon in Force", "Flank Attack", FULL)[1] == [3, 1, 3]
    assert orders(gmt, "Forward", "Attack Left", FULL)[0] == [5, 2, 2]
    assert orders(gmt, "Attack Left", "Bayonet Charge", FULL, pb=2)[0] == [3, 0, 4]
    # the sum is then capped by the section's units (S2)
    few = units(left=(1, 1, 0, 0), centre=(1, 0, 0, 0), right=(2, 0, 0, 0))
    assert orders(gmt, "Recon in Force", "Flank Attack", few)[1] == [2, 1, 2]


def test_e6_equal_to_command(gmt):
    # rule E6
    for cmd in (1, 4, 6, 7):
        assert orders(gmt, "Assault Left", None, FULL, cmd=cmd)[0] == [cmd, 0, 0]
        assert orders(gmt, "Probe Center", "Assault Right", FULL, cmd=cmd)[0] == [0, 2, cmd]
        assert orders(gmt, "Assault Left", "Assault Right", FULL, cmd=cmd)[0] == [cmd, 0, cmd]
    assert orders(gmt, "Rally", None, FULL, cmd=5, pa=1)[0] == [0, 5, 0]


def test_e6_command_is_the_hand_without_square_cards(tmp_path):
    # rule E6: a side whose every card is an Assault orders 2 x (hand - squares)
    deck = write_deck(tmp_path / "assault.csv", {"Assault Left": 10, "Assault Center": 10,
                                                 "Assault Right": 10})
    sc = write_scenario(tmp_path / "sq.toml", {"sides.*.hand": 4, "sides.*.square_form": 1.0,
                                               "sides.*.square_leave": 0.4})
    sim = Simulation.build(sc, pols(), deck=str(deck))
    seen = Counter()
    for _, ev in traces(sim, 14, 10):
        for turn, od in zip(rows_of(ev, layout.EV_TURN), rows_of(ev, layout.EV_ORDERS), strict=True):
            assert turn[A] == turn[D] == 4 - turn[E]
            assert od[A:D].sum() == 2 * turn[A]
            seen[int(turn[E])] += 1
    assert seen[1] > 0 and seen[2] > 0 and seen[3] > 0  # squares form before the turn


def test_e7_take_command_reaches_neighbouring_sections(gmt):
    # rule E7
    u = units(left=(2, 0, 0, 0), centre=(0, 0, 0, 0), right=(3, 0, 0, 0))
    nom, eff, _ = orders(gmt, "Take Command", None, u, cmd=4, pa=1)
    assert nom == [0, 4, 0] and eff == [2, 0, 2]
    # from the left section it reaches the centre but not the right
    u = units(left=(1, 0, 0, 0), centre=(5, 0, 0, 0), right=(5, 0, 0, 0))
    assert orders(gmt, "Take Command", None, u, cmd=4, pa=0)[1] == [1, 3, 0]
    assert orders(gmt, "Take Command", None, u, cmd=4, pa=2)[1] == [0, 0, 4]
    # a unit is ordered at most once a turn
    u = units(left=(4, 0, 0, 0), centre=(1, 0, 0, 0), right=(4, 0, 0, 0))
    nom, eff, rem = orders(gmt, "Attack Left", "Take Command", u, cmd=4, pb=1)
    assert nom == [3, 4, 0] and eff == [4, 1, 2] and rem == [0, 0, 2]  # only 1 left in L
    nom, eff, rem = orders(gmt, "Flank Attack", "Take Command", u, cmd=7, pb=1)
    assert eff == [4, 1, 4] and rem == [0, 0, 0]


def _check_stars(sim: Simulation, seed: int, games: int, march: bool) -> Counter:
    ct, rem = sim.cards, sim.tables.rem
    cmax = rem.shape[1] - 1
    seen = Counter()
    for met, ev in traces(sim, seed, games):
        plies = by_ply(ev)
        for ply in range(2 * sim.scenario.turns):
            rows = plies[ply]
            turn, ch, od = (one(rows, e) for e in (layout.EV_TURN, layout.EV_CHOICE, layout.EV_ORDERS))
            s, c = ch[SIDE], min(turn[A], cmax)
            ra, rb = ch[E], ch[F]
            r = rem[s, c, ra, rb, 3 * ch[C] + ch[D]].astype(int).tolist()
            marched, draws = 0, int(ct.tdraw[ra] + ct.tdraw[rb])
            for t, p in ((ra, ch[C]), (rb, ch[D])):
                if ct.stars[t] == 0:
                    continue
                sx = placed_section(ct, t, p)
                avail = min(3, r[sx]) if sx >= 0 else 0
                if march and avail > 0:
                    marched += avail
                    r[sx] -= avail
                    seen["march"] += 1
                else:
                    draws += 1
                    seen["draw"] += 1
            assert od[G] == marched and od[H] == draws
            if met[s, M["tactician_starved"]] == 0:
                before_elan = rows[: np.flatnonzero(rows[:, CODE] == layout.EV_ELAN)[0]] \
                    if (rows[:, CODE] == layout.EV_ELAN).any() else rows
                tac = rows_of(before_elan, layout.EV_TACTICIAN)
                assert len(tac) == draws and (tac[:, SIDE] == s).all()  # E9.3
    return seen


def test_e8_stars_march_move_up_to_three_or_draw():
    # rule E8 (P3 with march_prob 1: March Move whenever units are free)
    # rule E13 (the part napsim models: March Moves only in the star card's section, no battle)
    # rule E9.3 (the Tactician draws the played cards call for, checked in _check_stars)
    sim = Simulation.build("symmetric", pols("greedy", tactician_use_prob=1.0))
    seen = _check_stars(sim, 15, 20, march=True)
    assert seen["march"] > 20
    # a section with no unit left to March Move: the stars draw a Tactician card instead
    sc = load_scenario("symmetric", overrides={"sides.A.sections.C.infantry": 0,
                                               "sides.A.sections.C.cavalry": 0,
                                               "sides.A.sections.C.artillery": 0,
                                               "sides.A.sections.C.leaders": 0})
    seen = _check_stars(Simulation.build(sc, pols("greedy", tactician_use_prob=1.0)), 15, 20,
                        march=True)
    assert seen["draw"] > 0


def test_e8_stars_unused_draw_a_tactician_card():
    # rule E8 (P3 with march_prob 0: never March Move)
    # rule E9.3
    sim = Simulation.build("symmetric", pols(march_prob=0.0, tactician_use_prob=1.0))
    seen = _check_stars(sim, 16, 20, march=False)
    assert seen["draw"] > 50 and seen["march"] == 0
    res = sim.run(500, seed=16)
    assert res.metric("stars_march").sum() == res.metric("march_units").sum() == 0
    assert res.metric("stars_tactician").min() > 0


def _ply_order(rows: np.ndarray, s: int) -> list[int]:
    """Codes of the end-of-turn events of the active side s, in log order."""
    keep = (layout.EV_DRAW, layout.EV_SCOUT, layout.EV_TACTICIAN, layout.EV_ELAN, layout.EV_REFILL)
    return [int(r[CODE]) for r in rows if r[CODE] in keep and (r[SIDE] == s or
                                                              r[CODE] == layout.EV_TACTICIAN)]


def test_e9_end_of_turn_order_draws_before_refill():
    # rule E9: draw (E9.1/E9.2), Tactician draws (E9.3), Elan (E9.4), then the refill (E9.6)
    # rule E9.5: all of these before the rack is refilled
    sim = Simulation.build("symmetric", pols(first_strike_prob=0.0, tactician_use_prob=1.0))
    rank = {layout.EV_SCOUT: 0, layout.EV_DRAW: 1, layout.EV_TACTICIAN: 2, layout.EV_ELAN: 3,
            layout.EV_REFILL: 4}
    seen = Counter()
    for _, ev in traces(sim, 17, 40):
        for ply, rows in by_ply(ev).items():
            if ply < 0:
                continue
            s = one(rows, layout.EV_TURN)[SIDE]
            codes = _ply_order(rows, s)
            ranks = [rank[c] for c in codes]
            elan_at = codes.index(layout.EV_ELAN) if layout.EV_ELAN in codes else None
            if elan_at is not None:  # after an Elan both sides draw one Tactician card
                after = [r for r in rows if r[CODE] == layout.EV_TACTICIAN][-2:]
                assert sorted(r[SIDE] for r in after) == [0, 1]
                ranks = ranks[:elan_at + 1] + [r for r in ranks[elan_at + 1:] if r != 2]
                seen["elan"] += 1
            assert ranks == sorted(ranks), codes
            assert codes.count(layout.EV_DRAW) == 1  # E9.1: one Command card
            if layout.EV_REFILL in codes:
                seen["refill"] += 1
                assert codes[-1] == layout.EV_REFILL
    assert seen["elan"] > 5 and seen["refill"] > 100


def test_e9_1_draw_one_card_without_scouts(tmp_path):
    # rule E9.1
    # rule E9.2: no Scout played, no Scout draw
    deck = write_deck(tmp_path / "plain.csv", PLAIN)
    sim = Simulation.build("symmetric", pols(), deck=str(deck))
    res = sim.run(500, seed=18, check=True)
    assert res.metric("scout_draws").sum() == 0
    assert res.metric("invariant_violations").tolist() == [0, 0]
    for _, ev in traces(sim, 18, 5):
        for rows in by_ply(ev).values():
            draws = rows_of(rows, layout.EV_DRAW)
            assert len(draws) == 1 and len(rows_of(rows, layout.EV_SCOUT)) == 0
            assert draws[0][SIDE] == one(rows, layout.EV_TURN)[SIDE]


def test_e9_2_scout_draw_two_keep_one_once_per_turn(tmp_path):
    # rule E9.2
    # rule E12: with Scouts the hand size stays the same
    deck = write_deck(tmp_path / "scouts.csv", {"Scout Left": 8, "Scout Center": 8,
                                                "Scout Right": 8, "Probe Center": 6,
                                                "Attack Left": 4, "Bayonet Charge": 4})
    sim = Simulation.build("symmetric", pols(tactician_use_prob=1.0), deck=str(deck))
    res = sim.run(500, seed=19, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert 0 < res.metric("scout_draws").max() and (res.metric("scout_draws")
                                                    <= res.metric("turns")).all()
    ct = sim.cards
    seen = Counter()
    for _, ev in traces(sim, 19, 20):
        plies = by_ply(ev)
        for ply in range(60):
            rows = plies[ply]
            turn, ch = one(rows, layout.EV_TURN), one(rows, layout.EV_CHOICE)
            assert turn[D] == 6  # E12
            n_scouts = int(ct.scout[ch[E]] + ct.scout[ch[F]])
            sc_rows = rows_of(rows, layout.EV_SCOUT)
            assert len(sc_rows) == (1 if n_scouts else 0)
            seen[n_scouts] += 1
            if n_scouts:
                keep, drop = sc_rows[0][A], sc_rows[0][B]
                draw = one(rows, layout.EV_DRAW)
                assert draw[A] == keep and draw[SIDE] == turn[SIDE]
                assert drop >= 0
                if ply + 1 < 60 and not len(rows_of(rows, layout.EV_RESHUFFLE)):
                    nxt = one(plies[ply + 1], layout.EV_TURN)
                    assert nxt[H] == turn[H] + 3  # two played + the card not kept
    assert seen[1] > 50 and seen[2] > 5  # two Scouts in one turn still draw only two cards


def test_e9_4_elan_reshuffles_and_gives_both_sides_a_tactician_card(tmp_path):
    # rule E9.4
    deck = write_deck(tmp_path / "elan.csv", dict(PLAIN, Elan=8))
    sim = Simulation.build("symmetric", pols(tactician_use_prob=1.0, first_strike_prob=0.0),
                           deck=str(deck))
    n_cards = sim.cards.deck.size
    res = sim.run(500, seed=20, check=True)
    assert res.metric("elan_reshuffles").sum() > 500
    assert res.metric("invariant_violations").tolist() == [0, 0]
    seen = 0
    for _, ev in traces(sim, 20, 20):
        plies = by_ply(ev)
        for ply in range(59):
            rows = plies[ply]
            elan = rows_of(rows, layout.EV_ELAN)
            if not len(elan):
                continue
            seen += 1
            turn, nxt = one(rows, layout.EV_TURN), one(plies[ply + 1], layout.EV_TURN)
            # draw pile + discards together; hands (6 + 6) and the rack (one taken) stay out
            assert elan[0][A] == n_cards - 12 - (turn[B] - 1)
            k = int(np.flatnonzero(rows[:, CODE] == layout.EV_ELAN)[0])
            tac = rows[k + 1:k + 3]
            assert (tac[:, CODE] == layout.EV_TACTICIAN).all()
            assert sorted(tac[:, SIDE].tolist()) == [0, 1]
            assert nxt[H] == 0
            if not len(rows_of(rows, layout.EV_REFILL)):  # the rack cards stayed on the rack
                ch = one(rows, layout.EV_CHOICE)
                _, rack = turn_cards(turn)
                rack.remove(ch[B])
                assert sorted(turn_cards(nxt)[1]) == sorted(rack)
    assert seen > 20


def test_e9_6_refill_at_two(tmp_path):
    # rule E9.6
    sim = Simulation.build("symmetric", pols())
    res = sim.run(1000, seed=22)
    assert res.metric("refills").sum() == 20 * 1000  # 60 plies, one refill every third ply
    for _, ev in traces(sim, 22, 5):
        for ply, rows in by_ply(ev).items():
            turn = one(rows, layout.EV_TURN)
            assert turn[B] == 5 - ply % 3
            refill = rows_of(rows, layout.EV_REFILL)
            assert len(refill) == (1 if turn[B] == 3 else 0)
            if len(refill):
                assert refill[0][A] == 5 and min(refill[0][B:G]) >= 0


def test_e10_rack_cycle_thirds_and_alternation():
    # rule E10
    sim = Simulation.build("symmetric", pols())
    res = sim.run(2000, seed=23)
    picks = res.totals[:, M["pick_from_0"]:M["pick_from_5"] + 1]
    n = picks.sum(axis=1)
    assert picks[:, :3].sum() == 0
    for s in range(2):
        for size in (5, 4, 3):
            share = picks[s, size] / n[s]
            se = np.sqrt((1 / 3) * (2 / 3) / n[s])
            assert abs(share - 1 / 3) <= 4 * se
            assert share == pytest.approx(1 / 3, abs=1e-12)
    # the side that picks from 5 alternates every cycle
    _, ev = sim.trace(23, 0)
    turns = rows_of(ev, layout.EV_TURN)
    from5 = turns[turns[:, B] == 5][:, SIDE]
    assert from5.tolist() == [c % 2 for c in range(20)]


def test_e11_squares(tmp_path):
    # rule E11
    sc = write_scenario(tmp_path / "squares.toml", {"sides.*.hand": 4,
                                                    "sides.*.square_form": 1.0,
                                                    "sides.*.square_leave": 0.3})
    sim = Simulation.build(sc, pols())
    res = sim.run(1000, seed=24, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert res.metric("squares_formed").min() > 1000
    max_sq = 0
    for _, ev in traces(sim, 24, 20):
        track: list[Counter] = [Counter(), Counter()]
        pool: list[Counter | None] = [None, None]  # each hand as the log says it must be
        for r in ev[ev[:, PLY] >= 0]:
            x, code, card = int(r[SIDE]), r[CODE], int(r[A])
            if code == layout.EV_UNSQUARE:  # the card comes back from the track to the hand
                assert track[x][card] > 0
                track[x][card] -= 1
                if pool[x] is not None:
                    pool[x][card] += 1
            elif code == layout.EV_SQUARE:  # a card of the hand goes to the track
                track[x][card] += 1
                if pool[x] is not None:
                    assert pool[x][card] > 0
                    pool[x][card] -= 1
            elif code == layout.EV_FIRST_STRIKE:
                if pool[x] is not None:
                    pool[x][card] -= 1
            elif code == layout.EV_DRAW:
                if pool[x] is not None:
                    pool[x][card] += 1
            elif code == layout.EV_CHOICE:
                pool[x][card] -= 1
            elif code == layout.EV_TURN:
                hand, _ = turn_cards(r)
                if pool[x] is not None:
                    assert +pool[x] == Counter(hand)
                pool[x] = Counter(hand)
                assert r[E] == sum(track[x].values()) <= 4 - 1
                assert r[D] + r[E] == 4
                max_sq = max(max_sq, int(r[E]))
    assert max_sq == 3


def test_e11_square_with_one_card_left(tmp_path):
    # rule E11: a hand of 2 forms a square and plays on with one card
    sc = write_scenario(tmp_path / "two.toml", {"sides.*.hand": 2, "sides.*.square_form": 1.0,
                                                "sides.*.square_leave": 0.0})
    sim = Simulation.build(sc, pols())
    res = sim.run(200, seed=25, check=True)
    assert res.metric("squares_formed").tolist() == [200, 200]  # then the cap (2 - 1) holds
    assert res.metric("invariant_violations").tolist() == [0, 0]
    hand = res.totals[:, M["hand_section"]:M["hand_other"] + 1].sum(axis=1)
    assert hand.tolist() == res.metric("turns").tolist()
    _, ev = sim.trace(25, 0)
    for turn in rows_of(ev, layout.EV_TURN):
        assert (turn[A], turn[D], turn[E]) == (1, 1, 1)


def test_e12_hand_size_constant():
    # rule E12
    sim = Simulation.build("talavera-epic", pols())
    hands = {s: side.hand for s, side in enumerate(sim.scenario.sides)}
    assert hands == {0: 10, 1: 11}
    res = sim.run(300, seed=26, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    for _, ev in traces(sim, 26, 10):
        for turn in rows_of(ev, layout.EV_TURN):
            assert turn[D] + turn[E] == hands[int(turn[SIDE])]
    sym = Simulation.build("symmetric", pols(first_strike_prob=1.0))
    for _, ev in traces(sym, 26, 10):
        assert (rows_of(ev, layout.EV_TURN)[:, D] == 6).all()

