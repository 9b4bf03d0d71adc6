"""Rules D (the cards, the Tactician deck, the battle die, reshuffles) and S (what a scenario
fixes): one test or more per rule ID, on the card table and on whole games of small custom decks."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from numba import njit
from support.decks import write_deck
from support.enginerules import (
    PLAIN,
    gmt_table,
    idx,
    orders,
    pols,
    traces,
    units,
    write_scenario,
)
from support.sizes import quick_and_full
from support.tracetools import (
    CODE,
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
    first_strikes_under_their_turn,
    one,
    rows_of,
)

from napsim import NapsimInputError
from napsim.engine import epic, layout
from napsim.engine.rng import battle_die, seed_key, start_game
from napsim.model.cards import load_deck
from napsim.model.scenarios import load_scenario
from napsim.sim.odds import battle_dice_double
from napsim.sim.packing import Simulation
from napsim.sim.tables import (
    KIND_MULTI,
    KIND_PLACED,
    KIND_SECTION,
    CardTable,
    card_table,
    units_array,
)


@pytest.fixture(scope="module")
def gmt() -> CardTable:
    return gmt_table()


# ---------------------------------------------------------------------------------------------
# D. Components

def test_d1_default_deck_builtin_decks_and_user_deck(tmp_path):
    # rule D1
    assert {n: load_deck(n).n_cards for n in ("gmt90", "ccn70", "cca60")} == {
        "gmt90": 90, "ccn70": 70, "cca60": 60}
    sim = Simulation.build("symmetric", pols())
    assert sim.scenario.deck == "gmt90" and sim.deck.name == "gmt90"
    assert sim.counts.sum() == 90 and sim.cards.deck.size == 90
    assert sim.deck.estimated_warning()  # estimated counts are flagged for every report
    # a user's deck file replaces it, and the engine deals exactly its cards
    path = write_deck(tmp_path / "mine.csv", PLAIN)
    user = Simulation.build("symmetric", pols(), deck=str(path))
    assert user.counts[:-1].tolist() == list(PLAIN.values()) and user.counts[-1] == 0
    res = user.run(200, seed=1, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert res.metric("scout_draws").sum() == res.metric("elan_reshuffles").sum() == 0


def test_d2_card_kinds_and_orders(gmt):
    # rule D2
    big = units(left=(9, 3, 2, 1), centre=(9, 3, 2, 1), right=(9, 3, 2, 1))
    assert orders(gmt, "Scout Left", None, big)[0] == [1, 0, 0]
    assert orders(gmt, "Probe Center", None, big)[0] == [0, 2, 0]
    assert orders(gmt, "Attack Right", None, big)[0] == [0, 0, 3]
    assert orders(gmt, "Assault Center", None, big, cmd=7)[0] == [0, 7, 0]
    assert orders(gmt, "Recon in Force", None, big)[0] == [1, 1, 1]
    assert orders(gmt, "Coordinated Advance", None, big)[0] == [1, 2, 1]
    assert orders(gmt, "Flank Attack", None, big)[0] == [2, 0, 2]
    assert orders(gmt, "Forward", None, big)[0] == [2, 2, 2]
    # tactic: played in one chosen section, up to its cap of the allowed unit types
    for p in range(3):
        nom, eff, _ = orders(gmt, "Bayonet Charge", None, big, pa=p)
        assert nom == eff == [4 if x == p else 0 for x in range(3)]
    kinds = {n: int(k) for n, k in zip(gmt.names, gmt.kind, strict=True)}
    assert kinds["Probe Left"] == KIND_SECTION and kinds["Forward"] == KIND_MULTI
    assert kinds["Bayonet Charge"] == KIND_PLACED


def test_d3_card_marks_in_the_table(gmt):
    # rule D3
    def marked(col):
        return {n for n, v in zip(gmt.names, col, strict=True) if v}

    scouts = {"Scout Left", "Scout Center", "Scout Right"}
    assert marked(gmt.stars) == scouts | {"Elan", "Leadership", "Take Command"}
    assert set(gmt.stars[gmt.stars > 0].tolist()) == {3}
    assert marked(gmt.tdraw) == scouts | {"Leadership", "Recon in Force"}
    assert marked(gmt.scout) == scouts
    assert marked(gmt.elan) == {"Elan"}
    assert marked(gmt.first_strike) == {"First Strike"}
    assert marked(gmt.counter) == {"Counter-Attack"}
    assert marked(gmt.take_command) == {"Take Command"}
    # Counter-Attack repeats a card with left and right swapped
    for a, b in (("Attack Left", "Attack Right"), ("Scout Right", "Scout Left"),
                 ("Assault Left", "Assault Right"), ("Probe Center", "Probe Center"),
                 ("Forward", "Forward")):
        assert gmt.names[gmt.mirror[idx(gmt, a)]] == b
    # Force March: infantry only, in one section
    u = units(left=(4, 0, 0, 0), centre=(3, 4, 2, 1), right=(5, 0, 0, 0))
    nom, eff, _ = orders(gmt, "Force March", None, u, cmd=6, pa=1)
    assert nom == [0, 6, 0] and eff == [0, 3, 0]


def test_d3_first_strike_is_played_in_the_opponents_turn():
    # rule D3 (first_strike; P7 with probability 1)
    sim = Simulation.build("symmetric", pols(first_strike_prob=1.0))
    fs = idx(sim.cards, "First Strike")
    void = sim.cards.void
    seen = own = 0
    for _, ev in traces(sim, 3, 40):
        for ply, rows in by_ply(ev).items():
            if ply < 0:
                continue
            turn = one(rows, layout.EV_TURN)
            for row in rows_of(rows, layout.EV_FIRST_STRIKE):
                seen += 1
                assert row[SIDE] == 1 - turn[SIDE] and row[A] == fs
                # its owner draws a replacement at once: an EV_DRAW for the opponent
                assert any(r[SIDE] == row[SIDE] for r in rows_of(rows, layout.EV_DRAW))
            ch = one(rows, layout.EV_CHOICE)
            for t, r in ((ch[A], ch[E]), (ch[B], ch[F])):
                if t == fs:  # taken on its owner's turn (from the rack): it orders nothing
                    own += 1
                    assert r == void
    assert seen > 20 and own > 0


def test_p7_trace_prints_a_first_strike_under_the_turn_it_is_played_in():
    # rule P7, rule D3: the kernel logs the opponent's First Strike (and his replacement draw)
    # before the turn's header; the text shows it under that header, not the previous turn's
    sim = Simulation.build("symmetric", pols(first_strike_prob=1.0))
    games = [(3, g, ev) for g, (_, ev) in enumerate(traces(sim, 3, 12))]
    assert first_strikes_under_their_turn(sim, games) > 10


def test_d3_counter_attack_repeats_the_opponents_last_card_mirrored():
    # rule D3 (counter_attack), S4: under counter_attack_copies = hand it copies the opponent's last
    # hand card (tests/test_rule_options.py checks the default, either card)
    sim = Simulation.build(load_scenario("symmetric", {"rules.counter_attack_copies": "hand"}),
                           pols(first_strike_prob=0.0))
    ct = sim.cards
    ca = idx(ct, "Counter-Attack")
    checked = 0
    for _, ev in traces(sim, 5, 40):
        last = [ct.void, ct.void]
        for ply, rows in sorted(by_ply(ev).items()):
            if ply < 0:
                continue
            ch = one(rows, layout.EV_CHOICE)
            s = ch[SIDE]
            expect = ct.mirror[last[1 - s]]
            for t, r in ((ch[A], ch[E]), (ch[B], ch[F])):
                if t == ca:
                    checked += 1
                    assert r == expect
            if ch[A] != ct.void:
                last[s] = ch[E]
    assert checked > 10


def test_d4_tactician_deck_of_fifty_without_hand_limit():
    # rule D4
    sc = load_scenario("symmetric", overrides={"scenario.turns": 60})
    keep = Simulation.build(sc, pols(tactician_use_prob=0.0, march_prob=0.0))
    rows = keep.run(300, seed=2, per_game=True).per_game
    held = rows[:, :, M["tactician_held_end"]]
    drawn = rows[:, :, M["tactician_drawn"]]
    assert (held.sum(axis=1) <= 50).all()
    assert (held == np.array([2, 2]) + drawn).all()  # none spent: all kept
    assert (held.sum(axis=1) == 50).any() and rows[:, :, M["tactician_starved"]].sum() > 0
    assert held.max() > 25  # no hand limit
    # spent cards go to the Tactician discards and are reshuffled: more than 50 draws a game
    spend = Simulation.build(sc, pols(tactician_use_prob=1.0, march_prob=0.0))
    rows = spend.run(300, seed=2, per_game=True).per_game
    drawn = rows[:, :, M["tactician_drawn"]].sum(axis=1)
    played = rows[:, :, M["tactician_played"]]
    held = rows[:, :, M["tactician_held_end"]]
    assert drawn.max() > 50
    assert (held == 2 + rows[:, :, M["tactician_drawn"]] - played).all()
    assert (held >= 0).all()


def test_d5_battle_die_faces():
    # rule D5
    rs = np.array([seed_key(11), 0], np.uint64)
    n = 60_000
    faces = np.array([battle_die(rs) for _ in range(n)])
    counts = np.bincount(faces, minlength=6)
    assert counts.size == 6
    se = np.sqrt(n * (1 / 6) * (5 / 6))
    assert (np.abs(counts - n / 6) < 4 * se).all()
    symbol = np.array([0, 0, 1, 2, 3, 4])[faces]  # infantry appears on two faces
    double = symbol[0::2] == symbol[1::2]
    p = float(battle_dice_double())
    assert battle_dice_double() == Fraction(2, 9)
    assert abs(double.mean() - p) < 4 * np.sqrt(p * (1 - p) / double.size)


def test_d6_reshuffle_rebuilds_from_discards_only(tmp_path):
    # rule D6
    deck = write_deck(tmp_path / "tiny.csv", {"Probe Left": 5, "Probe Center": 5,
                                              "Probe Right": 5, "Forward": 3})
    sc = write_scenario(tmp_path / "tiny.toml", {"sides.*.hand": 3, "scenario.turns": 20})
    sim = Simulation.build(sc, pols(), deck=str(deck))
    res = sim.run(500, seed=4, check=True)
    assert res.metric("deck_reshuffles").sum() > 500
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert res.metric("starved_draws").sum() == 0
    n_reshuffles = 0
    for met, ev in traces(sim, 4, 20):
        assert met[:, M["invariant_violations"]].sum() == 0
        for ply, rows in by_ply(ev).items():
            if ply < 0:
                continue
            turn = one(rows, layout.EV_TURN)
            for r in rows_of(rows, layout.EV_RESHUFFLE):
                n_reshuffles += 1
                # the discards (the turn's start plus the two cards just played), nothing more
                assert r[A] == turn[H] + 2
    assert n_reshuffles > 20


@njit(cache=True)
def _deal_orders(run_key, games, n, first, merge_at):
    """Deal a pile of cards 0..n-1 through epic._draw_card, game by game. With 0 < merge_at < n,
    cards first..n-1 start in the discards and join the pile through _elan_reshuffle after
    merge_at draws (E9.4). Returns the dealt orders [games, n]."""
    out = np.empty((games, n), np.int64)
    rs = np.empty(2, np.uint64)
    pile = np.empty(n, np.uint16)
    disc = np.empty(n, np.uint16)
    st = np.zeros(2, np.int64)
    met = np.zeros((2, layout.N_METRICS), np.int64)
    trace = np.zeros((0, layout.TRACE_WIDTH), np.int64)
    tn = np.zeros(1, np.int64)
    for g in range(games):
        start_game(rs, run_key, g)
        for i in range(n):
            if i < first:
                pile[i] = i
            else:
                disc[i - first] = i
        st[0] = first
        st[1] = n - first
        for k in range(n):
            if k == merge_at:
                epic._elan_reshuffle(pile, st[0:1], disc, st[1:2], met, 0, trace, tn, k)
            out[g, k] = epic._draw_card(rs, pile, st[0:1], disc, st[1:2], met, 0, trace, tn, k)
    return out


@pytest.mark.parametrize("games", quick_and_full(30_000, 120_000))
@pytest.mark.parametrize("merge_at", [0, 2])
def test_d6_e9_4_lazy_draws_deal_every_order_equally_often(merge_at, games):
    # rule D6, rule E9.4: the kernel keeps its draw pile unordered and takes a uniformly random
    # card at each draw. Dealt in full, a 5-card pile must come out in each of its 5! = 120 orders
    # with probability 1/120; after an Elan (merge_at=2: cards 0-2 in the pile, 3-4 discarded,
    # merged after two draws) the last three cards are a uniform order of the three left.
    n = 5
    first = n if merge_at == 0 else 3
    orders = _deal_orders(seed_key(23), games, n, first, merge_at)
    assert (np.sort(orders, axis=1) == np.arange(n)).all()  # each card dealt exactly once
    if merge_at == 0:
        codes = orders @ (n ** np.arange(n))
        counts = np.array(list(Counter(codes.tolist()).values()))
        assert counts.size == 120
        p = 1 / 120
    else:
        assert np.isin(orders[:, :2], [0, 1, 2]).all()  # before the Elan only the pile deals
        rest = orders[:, 2:]
        left = np.sort(rest, axis=1)
        codes = (rest[:, :, None] == left[:, None, :]).argmax(axis=2) @ (3 ** np.arange(3))
        counts = np.bincount(codes)
        counts = counts[counts > 0]
        assert counts.size == 6
        p = 1 / 6
    se = np.sqrt(games * p * (1 - p))
    assert (np.abs(counts - games * p) < 4.5 * se).all(), counts  # 4.5 sigma over 120 cells


def test_d6_starved_draws_counted(tmp_path):
    # rule D6: hands (2 + 2) and the rack hold nearly all of an 8-card deck
    deck = write_deck(tmp_path / "eight.csv", {"Probe Left": 3, "Probe Center": 2,
                                               "Probe Right": 3})
    sc = write_scenario(tmp_path / "eight.toml", {"sides.*.hand": 2, "scenario.turns": 12})
    sim = Simulation.build(sc, pols(), deck=str(deck))
    res = sim.run(300, seed=6, check=True)
    starved = res.metric("starved_draws")
    assert starved.sum() > 300
    assert res.metric("invariant_violations").tolist() == [0, 0]  # no card lost or invented
    assert res.metric("rack_other").sum() == 0  # no phantom card played from the rack
    assert res.metric("turns").tolist() == [12 * 300, 12 * 300]
    for _, ev in traces(sim, 6, 10):
        plies = by_ply(ev)
        assert len(rows_of(plies[-1], layout.EV_STARVED)) == 1  # the fifth rack card of the deal
        for ply in range(24):
            rows = plies[ply]
            turn = one(rows, layout.EV_TURN)
            assert turn[B] == (4 if ply % 2 == 0 else 3) and turn[D] == 2  # 4-3-refill
            starved = rows_of(rows, layout.EV_STARVED)
            if turn[B] == 3:  # refill from the 2 cards not in hands or on the rack: 1 starved
                assert len(starved) == 1 and one(rows, layout.EV_REFILL)[A] == 4
                k = np.flatnonzero(rows[:, CODE] == layout.EV_STARVED)[0]
                assert rows[k + 1][CODE] == layout.EV_REFILL
            else:
                assert len(starved) == 0 and not len(rows_of(rows, layout.EV_REFILL))


def test_d7_played_cards_reach_the_discards_at_end_of_turn(tmp_path):
    # rule D7
    deck = write_deck(tmp_path / "plain.csv", PLAIN)
    sim = Simulation.build("symmetric", pols(), deck=str(deck))
    checked = 0
    for _, ev in traces(sim, 8, 10):
        plies = by_ply(ev)
        for ply in range(59):
            turn, nxt = one(plies[ply], layout.EV_TURN), one(plies[ply + 1], layout.EV_TURN)
            reshuffled = rows_of(plies[ply], layout.EV_RESHUFFLE)
            if len(reshuffled):
                assert nxt[H] == 0 and reshuffled[0][A] == turn[H] + 2
            else:
                assert nxt[H] == turn[H] + 2  # both played cards, nothing else
                checked += 1
    assert checked > 400


# ---------------------------------------------------------------------------------------------
# S. Scenario abstraction

def test_s1_scenario_fields_reach_the_engine(tmp_path):
    # rule S1
    sc = write_scenario(tmp_path / "asym.toml", {
        "scenario.first": "B", "scenario.turns": 7,
        "sides.A.hand": 5, "sides.A.tactician": 1, "sides.B.hand": 4, "sides.B.tactician": 3,
        "sides.B.sections.C.infantry": 9, "sides.B.sections.C.spanish": 4,
        "sides.A.sections.R.leaders": 3,
    })
    assert [s.hand for s in sc.sides] == [5, 4] and [s.tactician for s in sc.sides] == [1, 3]
    assert sc.first == 1 and sc.turns == 7 and sc.format == "epic1"
    assert sc.sides[1].sections[1].spanish == 4
    u = units_array(sc)
    assert u.shape == (2, 4, 3)
    assert u[1, :, 1].tolist() == [9, 2, 1, 1] and u[0, :, 2].tolist() == [5, 2, 1, 3]
    sim = Simulation.build(sc, pols(tactician_use_prob=0.0))
    res = sim.run(100, seed=1, check=True)
    assert res.metric("turns").tolist() == [700, 700]
    assert res.metric("invariant_violations").tolist() == [0, 0]
    _, ev = sim.trace(1, 0)
    plies = by_ply(ev)
    t0, t1 = one(plies[0], layout.EV_TURN), one(plies[1], layout.EV_TURN)
    assert t0[SIDE] == 1 and t0[D] == 4 and t0[F] == 3
    assert t1[SIDE] == 0 and t1[D] == 5
    tam = load_scenario("tamames")
    assert [s.hand for s in tam.sides] == [6, 6] and tam.sides[tam.first].french
    with pytest.raises(NapsimInputError):
        write_scenario(tmp_path / "bad.toml", {"sides.A.sections.L.spanish": 99})
    with pytest.raises(NapsimInputError):
        write_scenario(tmp_path / "bad2.toml", {"sides.A.guerrilla": 2})


def test_s2_effective_orders_capped_by_units(gmt):
    # rule S2
    u = units(left=(1, 0, 0, 0), centre=(2, 3, 1, 0), right=(0, 0, 0, 0))
    nom, eff, rem = orders(gmt, "Attack Left", None, u)
    assert nom == [3, 0, 0] and eff == [1, 0, 0] and rem == [0, 6, 0]  # 2 wasted
    assert orders(gmt, "Attack Right", None, u)[:2] == ([0, 0, 3], [0, 0, 0])
    # tactic filter: Bayonet Charge (up to 4 infantry) with 2 infantry orders 2
    assert orders(gmt, "Bayonet Charge", None, u, pa=1)[:2] == ([0, 4, 0], [0, 2, 0])
    assert orders(gmt, "Bombard", None, u, pa=1)[1] == [0, 1, 0]
    assert orders(gmt, "Fire and Hold", None, u, pa=1)[1] == [0, 3, 0]
    assert orders(gmt, "Cavalry Charge", None, u, pa=1)[1] == [0, 3, 0]
    # no eligible unit: falls back to one unit of any type, when the card says so
    assert orders(gmt, "Bayonet Charge", None, units(centre=(0, 3, 1, 0)), pa=1)[1] == [0, 1, 0]
    assert orders(gmt, "Cavalry Charge", None, units(left=(4, 0, 0, 0)), pa=0)[1] == [1, 0, 0]
    assert orders(gmt, "Cavalry Charge", None, units(), pa=0)[1] == [0, 0, 0]  # nobody there
    assert gmt.fallback[idx(gmt, "Bayonet Charge")] == 1


def test_s2_no_fallback_without_the_mark(tmp_path):
    # rule S2: "when its card says so"
    path = write_deck(tmp_path / "nofb.csv", {"Bayonet Charge": 2, "Stubborn Charge": 2},
                      {"Stubborn Charge": ("Bayonet Charge", {"fallback": "0"})})
    ct = card_table(load_deck(path))
    u = units(centre=(0, 3, 1, 0))
    assert orders(ct, "Bayonet Charge", None, u, pa=1)[1] == [0, 1, 0]
    assert orders(ct, "Stubborn Charge", None, u, pa=1)[1] == [0, 0, 0]



def test_s2_no_fallback_without_the_mark_in_the_standard_game(tmp_path):
    # rule S2, standard game: an unplaced tactic card reaches every section, and with none of its
    # unit types anywhere it orders nothing unless its card carries the fallback mark
    path = write_deck(tmp_path / "nofb.csv", {"Bayonet Charge": 2, "Stubborn Charge": 2},
                      {"Stubborn Charge": ("Bayonet Charge", {"fallback": "0"})})
    ct = card_table(load_deck(path))
    u = units(left=(0, 2, 0, 0), centre=(0, 3, 1, 0), right=(0, 1, 0, 0))  # no infantry at all
    with_mark = orders(ct, "Bayonet Charge", None, u, pa=1, standard=True)
    without = orders(ct, "Stubborn Charge", None, u, pa=1, standard=True)
    assert sum(with_mark[1]) == 1 and with_mark[1][1] == 1  # one unit, its own section first
    assert without[1] == [0, 0, 0]
    assert without[2] == [2, 4, 1]  # every unit left unordered

def test_s2_wasted_orders_metric():
    # rule S2
    sc = load_scenario("symmetric", overrides={"sides.A.sections.L.infantry": 0,
                                               "sides.A.sections.L.cavalry": 0})
    res = Simulation.build(sc, pols()).run(500, seed=3)
    nom = res.totals[:, M["nominal_L"]:M["nominal_R"] + 1].sum(axis=1)
    eff = res.totals[:, M["effective_L"]:M["effective_R"] + 1].sum(axis=1)
    assert (res.metric("wasted") == nom - eff).all()
    assert res.metric("wasted")[0] > res.metric("wasted")[1]  # side A has 2 units left there


def test_s3_units_stay_fixed_through_a_game():
    # rule S3: every turn's orders come from the tables built once from the scenario's units
    # (guerrillas off: a nullified card would change the orders after the choice, rule G5)
    no_guerrilla = {"sides.S.guerrilla_rule": "off", "sides.S.guerrilla": 0}
    sim = Simulation.build(load_scenario("tamames", no_guerrilla), pols("greedy"))
    before = {k: v.copy() for k, v in vars(sim.tables).items()}
    sim.run(200, seed=9)
    for k, v in vars(sim.tables).items():
        assert np.array_equal(v, before[k]), k
    totals = units_array(sim.scenario).sum(axis=1)  # [side, section]
    cmax = sim.tables.eff.shape[1] - 1
    for _, ev in traces(sim, 9, 5):
        plies = by_ply(ev)
        for ply in range(2 * sim.scenario.turns):
            turn = one(plies[ply], layout.EV_TURN)
            ch, od = one(plies[ply], layout.EV_CHOICE), one(plies[ply], layout.EV_ORDERS)
            s, c = ch[SIDE], min(turn[A], cmax)
            p = 3 * ch[C] + ch[D]
            assert od[D:G].tolist() == sim.tables.eff[s, c, ch[E], ch[F], p].tolist()
            assert (od[D:G] <= totals[s]).all()


