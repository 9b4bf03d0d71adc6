"""One test (at least) per rule ID of docs/rules.md sections D, S and E (issue 3, item 6).

Order arithmetic is checked on the packed pair tables (napsim.sim.tables.eval_pair / pair_tables) with
hand-built unit arrays [4, 3] (infantry, cavalry, artillery, leaders x sections L, C, R). Card flow
is checked on whole games of small custom scenarios (TOML) and decks (CSV) written to tmp_path,
through the summed metrics, per-game rows and the event log of Simulation.trace.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from numba import njit
from support.decks import write_deck
from support.tomlwrite import dump_toml
from support.tracetools import (  # noqa: F401
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
    first_strikes_under_their_turn,
    one,
    rows_of,
    turn_blocks,
)

from napsim import NapsimInputError
from napsim.engine import epic, layout
from napsim.engine.rng import battle_die, seed_key, start_game
from napsim.model.cards import load_deck
from napsim.model.policies import policy_vector
from napsim.model.scenarios import SCENARIO_DIR, load_scenario
from napsim.sim import exact
from napsim.sim.packing import Simulation
from napsim.sim.tables import (
    KIND_MULTI,
    KIND_PLACED,
    KIND_SECTION,
    CardTable,
    card_table,
    eval_pair,
    pair_tables,
    units_array,
)

# event-log columns (epic._trace): code, ply, side, then the event's fields a..h
HAND0, RACK0 = 11, 11 + layout.MAX_HAND

PLAIN = {  # no Scout, Elan, First Strike, Counter-Attack, star or Tactician-draw card
    "Probe Left": 4, "Probe Center": 6, "Probe Right": 4, "Attack Left": 4, "Attack Center": 6,
    "Attack Right": 4, "Assault Left": 2, "Assault Center": 2, "Assault Right": 2,
    "Coordinated Advance": 2, "Flank Attack": 2, "Forward": 2, "Bayonet Charge": 3,
    "Bombard": 2, "Cavalry Charge": 3, "Fire and Hold": 3, "Give Them Cold Steel": 2,
    "La Grande Manoeuvre": 1, "Rally": 2,
}


# ---------------------------------------------------------------------------------------------
# helpers: custom decks and scenarios, policies, tables, event logs

def write_scenario(path: Path, changes: dict[str, object]):
    """symmetric.toml copied to `path` with dotted changes; '*' in a path means every side (or
    every section). Returns the loaded Scenario."""
    data = tomllib.loads((SCENARIO_DIR / "symmetric.toml").read_text(encoding="utf-8"))

    def put(node, keys, value):
        if keys[0] == "*":
            for sub in node.values():
                put(sub, keys[1:], value)
        elif len(keys) == 1:
            node[keys[0]] = value
        else:
            put(node.setdefault(keys[0], {}), keys[1:], value)

    for dotted, value in changes.items():
        put(data, dotted.split("."), value)
    path.write_text(dump_toml(data), encoding="utf-8")
    return load_scenario(path)


def pols(name: str = "random", **params) -> tuple:
    return ((name, dict(params)), (name, dict(params)))


def units(left=(0, 0, 0, 0), centre=(0, 0, 0, 0), right=(0, 0, 0, 0)) -> np.ndarray:
    """[4, 3]: (infantry, cavalry, artillery, leaders) for sections L, C, R."""
    return np.array([left, centre, right], np.int64).T.copy()


@pytest.fixture(scope="module")
def gmt() -> CardTable:
    return card_table(load_deck("gmt90"))


def idx(ct: CardTable, name: str | None) -> int:
    return ct.void if name is None else ct.names.index(name)


def orders(ct: CardTable, a: str | None, b: str | None, u: np.ndarray, cmd: int = 6,
           pa: int = 0, pb: int = 0, standard: bool = False):
    """(nominal, effective, remaining) per section of card a placed at pa plus card b at pb."""
    nominal, eff, rem = (np.zeros(3, np.int64) for _ in range(3))
    eval_pair(idx(ct, a), pa, idx(ct, b), pb, cmd, u, ct.kind, ct.sec, ct.orders, ct.eq_cmd,
              ct.cap, ct.filt, ct.take_command, ct.fallback, standard, nominal, eff, rem)
    return nominal.tolist(), eff.tolist(), rem.tolist()


FULL = units(left=(5, 2, 1, 1), centre=(5, 2, 1, 1), right=(5, 2, 1, 1))


def tables_for(ct: CardTable, u: np.ndarray, cmax: int = 7):
    pol = np.stack([policy_vector("greedy"), policy_vector("greedy")])
    return pair_tables(ct, np.stack([u, u]), cmax, pol, False)





def turn_cards(turn: np.ndarray) -> tuple[list[int], list[int]]:
    """(hand, rack) card types shown in an EV_TURN row."""
    return (turn[HAND0:HAND0 + turn[D]].tolist(), turn[RACK0:RACK0 + turn[B]].tolist())


def placed_section(ct: CardTable, t: int, p: int) -> int:
    if ct.kind[t] == KIND_SECTION:
        return int(ct.sec[t])
    return p if ct.kind[t] == KIND_PLACED else -1


def traces(sim: Simulation, seed: int, games: int):
    for g in range(games):
        yield sim.trace(seed, g)


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
    p = float(exact.battle_dice_double())
    assert exact.battle_dice_double() == Fraction(2, 9)
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


@pytest.mark.parametrize("merge_at", [0, 2])
def test_d6_e9_4_lazy_draws_deal_every_order_equally_often(merge_at):
    # rule D6, rule E9.4: the kernel keeps its draw pile unordered and takes a uniformly random
    # card at each draw. Dealt in full, a 5-card pile must come out in each of its 5! = 120 orders
    # with probability 1/120; after an Elan (merge_at=2: cards 0-2 in the pile, 3-4 discarded,
    # merged after two draws) the last three cards are a uniform order of the three left.
    games, n = 120_000, 5
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
        for _, ev in traces(sim, 21, 20):
            turns = rows_of(ev, layout.EV_TURN)
            for turn, ch in zip(turns, rows_of(ev, layout.EV_CHOICE), strict=True):
                sa = placed_section(ct, ch[E], ch[C])
                sb = placed_section(ct, ch[F], ch[D])
                if sa >= 0 and sa == sb:
                    assert turn[C] == 1  # only in the E4 situation
                    assert ct.kind[ch[E]] == ct.kind[ch[F]] == KIND_SECTION


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
