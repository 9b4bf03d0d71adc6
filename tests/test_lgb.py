"""La Grande Battles (docs/rules.md L1-L9, G4-G6 in LGB, P6): one test or more per rule ID.

Order arithmetic is checked on napsim.sim.tables_lgb (`eval_corps_card`, `lgb_tables`) with hand-built
unit arrays [4, 6] (infantry, cavalry, artillery, leaders x sections L1 L2 C1 C2 R1 R2). Card flow
is checked on whole games of lgb-symmetric and variants of it (dotted scenario overrides, custom
decks and scenario files in tmp_path), through summed and per-game metrics, per-commander metrics
(`SimResult.commanders`, [side, commander 0 CIC / 1-3 Corps left, centre, right, CM slot]) and
the event log of `Simulation.trace` (engine.lgb events: EV_CORPS_HANDS, EV_GIVE, EV_CORPS_PLAY,
EV_REJECT, EV_INITIATIVE, EV_CORPS_DRAW, EV_CORPS_TACTICIAN, and engine.epic's).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from functools import cache

import numba
import numpy as np
import pytest
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
from napsim.engine import layout
from napsim.model.cards import load_deck
from napsim.model.scenarios import SCENARIO_DIR, load_scenario
from napsim.output.tracefmt import format_trace
from napsim.sim.packing import Simulation
from napsim.sim.tables import KIND_MULTI, KIND_SECTION, NEG, card_table
from napsim.sim.tables_lgb import SRC_CIC, SRC_OWN, eval_corps_card

SCEN = "lgb-symmetric"
HAND0, RACK0 = 11, 11 + layout.MAX_HAND  # EV_TURN rows list the CIC's hand and the rack here
N_DECK = 90
GREEDY, RANDOM = ("greedy", ()), ("random", ())
QUIET = (("first_strike_prob", 0.0), ("tactician_use_prob", 0.0))  # nothing leaves a hand early


# ---------------------------------------------------------------------------------------------
# helpers: cached simulations of lgb-symmetric variants, event-log views


def _freeze(d: dict | None) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (d or {}).items()))


@cache
def _sim(over: tuple, pa: tuple, pb: tuple) -> Simulation:
    sc = load_scenario(SCEN, {k: list(v) if isinstance(v, tuple) else v for k, v in over})
    return Simulation.build(sc, ((pa[0], dict(pa[1])), (pb[0], dict(pb[1]))))


def sim_for(overrides: dict | None = None, a: tuple = GREEDY, b: tuple | None = None) -> Simulation:
    """lgb-symmetric with dotted overrides; a, b = (policy name, ((param, value), ...)) for sides
    A and B (b defaults to a); builds are cached."""
    b = b or a
    return _sim(_freeze(overrides), (a[0], tuple(a[1])), (b[0], tuple(b[1])))


def both(**changes) -> dict:
    """The same dotted side change for sides A and B (`corps_hand=[0, 0, 0]`)."""
    return {f"sides.{s}.{k.replace('__', '.')}": v for s in "AB" for k, v in changes.items()}


def plies(ev: np.ndarray) -> list[np.ndarray]:
    """The rows of each ply of a traced game in order (setup rows left out)."""
    return [rows for ply, rows in sorted(by_ply(ev).items()) if ply >= 0]


def traced(sim: Simulation, seed: int, n: int):
    """(game, metrics, plies) of games 0..n-1."""
    for g in range(n):
        met, ev = sim.trace(seed, g)
        yield g, met, plies(ev)


def corps_rows(rows: np.ndarray, code: int, s: int, k: int) -> np.ndarray:
    r = rows_of(rows, code)
    return r[(r[:, SIDE] == s) & (r[:, A] == k)]


def cards_played(rows: np.ndarray, s: int, k: int) -> np.ndarray:
    """EV_CORPS_PLAY rows of Corps commander k that carry a card (CIC's or his own)."""
    r = corps_rows(rows, layout.EV_CORPS_PLAY, s, k)
    return r[(r[:, B] == layout.SRC_CIC) | (r[:, B] == layout.SRC_OWN)]


def units6(**sections) -> np.ndarray:
    """[4, 6]: (infantry, cavalry, artillery, leaders) per LGB section, zero where not given."""
    u = np.zeros((4, 6), np.int64)
    for name, v in sections.items():
        u[:, ("L1", "L2", "C1", "C2", "R1", "R2").index(name)] = v
    return u


@cache
def _cards():
    deck = load_deck("gmt90")
    ct = card_table(deck)
    fm = np.zeros(len(ct.names), np.int64)
    fm[:-1] = deck.cards["force_march"].to_numpy()
    return ct, fm


def corps_card(name: str, src: int, opt: int, cmd: int, u: np.ndarray, k: int):
    """(nominal, effective left, effective right) of a card for Corps commander k, or None when
    (src, opt) is not a legal way to play it."""
    ct, fm = _cards()
    out = np.zeros(3, np.int64)
    ok = eval_corps_card(ct.names.index(name), src, opt, cmd, u, k, ct.kind, ct.sec, ct.orders,
                         ct.eq_cmd, ct.cap, ct.filt, ct.fallback, fm, out)
    return tuple(int(x) for x in out) if ok else None


def se(p: float, n: int) -> float:
    return float(np.sqrt(p * (1 - p) / n))


# ---------------------------------------------------------------------------------------------
# L1 setup


def test_setup_deals_the_scenario_hands_and_tactician_cards():
    # rule L1, rule D4, rule E1: the CIC's hand, each Corps commander's hand and Tactician cards,
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


def _corps(res, slot) -> np.ndarray:
    return res.commanders[:, 1:, slot]


def test_corps_never_plays_his_own_card_when_the_policy_says_no():
    # rule L5, rule P6: corps_own_min and corps_swap_margin so high that an own card is never
    # worth it: no own cards played, no CIC card rejected (the default policy does both)
    base = sim_for().run(2000, seed=41)
    assert _corps(base, layout.CM_OWN_PLAYED).sum() > 1000 and _corps(base, layout.CM_REJECTED).sum() > 100
    never = ("greedy", (("corps_own_min", 1e5), ("corps_swap_margin", 1e5)))
    res = sim_for(None, never).run(2000, seed=41, check=True)
    assert _corps(res, layout.CM_OWN_PLAYED).sum() == 0
    assert _corps(res, layout.CM_REJECTED).sum() == 0
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


# ---------------------------------------------------------------------------------------------
# L6 initiative

EMPTY_CORPS = both(corps_hand=[0, 0, 0])


def _initiative_orders(units: np.ndarray, d1: int, d2: int) -> int:
    """Units ordered by an LGB initiative roll (L6), from the die faces (D5)."""
    sym = [0 if d <= 1 else d - 1 for d in (d1, d2)]
    if sym == [4, 4]:
        return 0
    free = int(units.sum())
    used = Counter()
    n = 0
    for x in sym:
        if x <= 2 and units[x] > used[x] and free > 0:
            used[x] += 1
            free -= 1
            n += 1
        elif x == 3 and free > 0:
            free -= 1
            n += 1
    return n


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_only_a_corps_commander_without_cards_rolls(pol):
    # rule L6: a Corps commander rolls iff his hand is empty and he got no card; a unit symbol
    # orders a unit of that type if he has one, a flag one unit; two sabres draw a Command card
    sim = sim_for(EMPTY_CORPS, pol)
    seen = Counter()
    for _, met, ps in traced(sim, 51, 40):
        assert met[:, M["starved_draws"]].sum() == 0
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            hands = one(rows, layout.EV_CORPS_HANDS)
            give = one(rows, layout.EV_GIVE)
            got = {int(give[C]), int(give[D])}
            init = rows_of(rows, layout.EV_INITIATIVE)
            assert (init[:, SIDE] == s).all()
            expect = [k for k in range(3) if hands[A + k] == 0 and k not in got]
            assert sorted(init[:, A].tolist()) == expect
            for row in init:
                k, d1, d2, ordered, tdr, cdr = (int(x) for x in row[A:G])
                u = sim.lgb.units[s, :, 2 * k:2 * k + 2].sum(axis=1)
                assert ordered == _initiative_orders(u, d1, d2)
                assert tdr == 0 and cdr == (d1 == d2 == 5)
                assert len(corps_rows(rows, layout.EV_CORPS_DRAW, s, k)) == cdr
                assert len(corps_rows(rows, layout.EV_CORPS_PLAY, s, k)) == 0
                seen["two_sabres" if cdr else "roll"] += 1
    assert seen["roll"] > 1000 and seen["two_sabres"] > 20


def test_initiative_dice_rates():
    # rule L6, rule D5: a double 2/9, two sabres 1/36, a block lost per single sabre (10/36 a
    # roll, every Corps here has units), a Command card drawn for each two-sabre roll
    res = sim_for(EMPTY_CORPS).run(3000, seed=52, check=True)
    x = res.commanders[:, 1:, :].sum(axis=(0, 1))
    n = int(x[layout.CM_INIT])
    assert n > 100_000
    for slot, p in ((layout.CM_DOUBLES, 2 / 9), (layout.CM_TWO_SABRES, 1 / 36),
                    (layout.CM_BLOCKS_LOST, 10 / 36)):
        assert abs(x[slot] / n - p) <= 4 * se(p, n), (layout.CM_NAMES[slot], x[slot] / n, p)
    assert x[layout.CM_INIT_CMD] == x[layout.CM_TWO_SABRES] > 0
    assert x[layout.CM_INIT_TAC] == 0 and x[layout.CM_INIT_MELEE] == 0  # not the EPIC M6.2 roll
    assert x[layout.CM_FACE:layout.CM_FACE + 5].sum() == 2 * n
    assert res.metric("invariant_violations").tolist() == [0, 0]


# ---------------------------------------------------------------------------------------------
# L7 stars


def test_unused_stars_draw_a_command_and_a_tactician_card():
    # rule L7, rule L9: with march_prob 0 every star card played by a Corps commander draws one
    # Command card into his hand and one Tactician card (besides the card's own Tactician draw)
    no_march = ("greedy", (("march_prob", 0.0), ("tactician_use_prob", 1.0)))
    sim = sim_for(None, no_march)
    ct = sim.cards
    n_star = 0
    for _, met, ps in traced(sim, 61, 40):
        assert met[:, M["starved_draws"]].sum() == 0 and met[:, M["tactician_starved"]].sum() == 0
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            elan = np.flatnonzero(rows[:, CODE] == layout.EV_ELAN)
            own_part = rows[: elan[0]] if len(elan) else rows
            for k in range(3):
                r = cards_played(rows, s, k)[:, D]
                r = r[r != ct.void]
                stars = int((ct.stars[r] > 0).sum())
                sabres = int(corps_rows(rows, layout.EV_INITIATIVE, s, k)[:, F].sum())
                assert len(corps_rows(rows, layout.EV_CORPS_DRAW, s, k)) == stars + sabres
                tac = len(corps_rows(own_part, layout.EV_CORPS_TACTICIAN, s, k))
                assert tac == stars + int(ct.tdraw[r].sum())
                n_star += stars
    assert n_star > 200
    res = sim.run(2000, seed=62)
    assert (_corps(res, layout.CM_STAR_CMD).sum(axis=1) == res.metric("stars_tactician")).all()
    assert (res.metric("stars_tactician") > 1000).all() and res.metric("stars_march").sum() == 0


def test_used_stars_draw_nothing():
    # rule L7: with march_prob 1 and free units (20 infantry in every section) stars always
    # March Move: no Command or Tactician draw for them
    big = both(**{f"sections__{x}__infantry": 20 for x in ("L1", "L2", "C1", "C2", "R1", "R2")})
    sim = sim_for(big, ("greedy", (("march_prob", 1.0),)), ("random", (("march_prob", 1.0),)))
    res = sim.run(2000, seed=63)
    assert _corps(res, layout.CM_STAR_CMD).sum() == 0 and res.metric("stars_tactician").sum() == 0
    assert (res.metric("stars_march") > 1000).all()
    assert (res.metric("march_units") == 3 * res.metric("stars_march")).all()
    for _, _, ps in traced(sim, 63, 20):
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            for k in range(3):
                sabres = int(corps_rows(rows, layout.EV_INITIATIVE, s, k)[:, F].sum())
                assert len(corps_rows(rows, layout.EV_CORPS_DRAW, s, k)) == sabres


# ---------------------------------------------------------------------------------------------
# L8 squares


def test_squares_track_limit_and_the_cic_keeps_a_card():
    # rule L8, rule E11: at most (CIC's starting hand) cards on the Square Track; a card from a
    # Corps hand, or lent by the CIC only when a Corps hand is empty, never his last card
    over = {**both(square_form=1.0, square_leave=0.2, corps_hand=[1, 1, 1]),
            "sides.B.hand": 4}
    sim = sim_for(over, GREEDY, RANDOM)
    res = sim.run(2000, seed=71, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert (res.commanders[:, 0, layout.CM_SQUARE_CARDS] > 100).all()  # the CIC lends
    assert (_corps(res, layout.CM_SQUARE_CARDS).sum(axis=1) > 100).all()
    full = Counter()
    for _, met, ps in traced(sim, 71, 40):
        assert met[:, M["invariant_violations"]].sum() == 0
        for rows in ps:
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            h = sim.scenario.sides[s].hand
            hands = one(rows, layout.EV_CORPS_HANDS)
            assert turn[E] <= h and turn[D] >= 1  # track limit; the CIC keeps one card
            full[s] += turn[E] == h
            sq = rows_of(rows, layout.EV_SQUARE)
            assert len(sq) <= 1 and (sq[:, SIDE] == s).all()
            if len(sq) and sq[0, B] == 3:
                assert hands[A:D].min() == 0  # lent only for a Corps commander without cards
            # the CIC's cards on the track: starting hand - hand held
            assert h - turn[D] <= turn[E]
    assert full[0] > 0 and full[1] > 0


# ---------------------------------------------------------------------------------------------
# L9 end of turn


def test_scout_gift_goes_to_the_corps_commander_with_fewest_cards():
    # rule L9, rule E9.2, rule P2, rule P6: after a Scout the CIC draws two, keeps one and gives
    # the other to a Corps commander (napsim: the one with the fewest cards, ties drawn uniformly)
    sim = sim_for(None, ("greedy", (("first_strike_prob", 0.0),)))
    n_games = 60
    res = sim.run(n_games, seed=81, per_game=True)
    n_scout = 0
    tied = Counter()  # receiver among the tied fewest (first, second or third of them)
    for g, met, ps in traced(sim, 81, n_games):
        assert met[:, M["starved_draws"]].sum() == 0
        gifts = np.zeros((2, 3), np.int64)
        for i, rows in enumerate(ps):
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            hands = one(rows, layout.EV_CORPS_HANDS)
            scouted = False
            cn = []
            for k in range(3):
                p = cards_played(rows, s, k)
                r = p[:, D][p[:, D] != sim.cards.void]
                scouted |= bool(sim.cards.scout[r].any())
                cn.append(int(hands[A + k]) - int((p[:, B] == layout.SRC_OWN).sum()))
            sc = rows_of(rows, layout.EV_SCOUT)
            assert len(sc) == int(scouted)
            if scouted:
                keep, give, to = (int(x) for x in sc[0, A:D])
                assert cn[to] == min(cn)
                low = [k for k in range(3) if cn[k] == min(cn)]
                if len(low) > 1:
                    tied[low.index(to)] += 1
                gifts[s, to] += 1
                draw = rows_of(rows, layout.EV_DRAW)
                assert draw[draw[:, SIDE] == s, A].tolist() == [keep]  # he keeps one
                if i + 2 < len(ps):  # his hand is still his starting hand
                    assert one(ps[i + 2], layout.EV_TURN)[D] == sim.scenario.sides[s].hand
                n_scout += 1
        assert (res.commander_rows[g, :, 1:, layout.CM_SCOUT_GIFT] == gifts).all()
        assert (res.per_game[g, :, M["scout_draws"]] == gifts.sum(axis=1)).all()
    assert n_scout > 100
    assert tied[0] > 0 and tied[1] > 0  # not always the leftmost of the tied


def test_scout_gifts_favour_neither_flank():
    # rule L9, rule P2, rule P6: on lgb-symmetric (the left and right wings mirror each other) the
    # CIC's Scout gifts reach the left and right wing equally often: the mean per-game difference
    # lies within 4 standard errors of zero (ties for the fewest cards are no longer broken
    # leftmost, which gave the left wing over four times the right wing's gifts)
    sim = sim_for()
    res = sim.run(GAMES, seed=84, per_game=True)
    gifts = res.commander_rows[:, :, 1:, layout.CM_SCOUT_GIFT].sum(axis=1)  # [game, wing]
    assert gifts.sum() > 5 * GAMES
    d = (gifts[:, 0] - gifts[:, 2]).astype(float)
    assert abs(d.mean()) <= 4 * d.std(ddof=1) / np.sqrt(GAMES), gifts.sum(axis=0)


def test_trace_prints_a_first_strike_under_the_turn_it_is_played_in():
    # rule P7: the kernel logs a First Strike of the opponent's CIC or Corps commander (and the
    # CIC's replacement draw) before the turn's header; the text shows it under that header
    sim = sim_for(None, ("greedy", (("first_strike_prob", 1.0),)))
    games = [(83, g, sim.trace(83, g)[1]) for g in range(5)]
    assert first_strikes_under_their_turn(sim, games) > 10


def test_elan_gives_every_corps_commander_a_tactician_card():
    # rule L9, rule E9.4, rule D4: after an Elan all six Corps commanders (his side first, left to
    # right) draw a Tactician card; the rack is not shuffled in; draws come before the refill
    sim = sim_for(None, GREEDY, RANDOM)
    n_elan = 0
    for _, met, ps in traced(sim, 82, 80):
        starved = met[:, M["tactician_starved"]].sum() > 0
        for i, rows in enumerate(ps):
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            give = one(rows, layout.EV_GIVE)
            idx = np.flatnonzero(rows[:, CODE] == layout.EV_ELAN)
            refill = np.flatnonzero(rows[:, CODE] == layout.EV_REFILL)
            own_draws = np.flatnonzero(np.isin(rows[:, CODE], (
                layout.EV_CORPS_DRAW, layout.EV_CORPS_TACTICIAN, layout.EV_ELAN, layout.EV_SCOUT))
                | ((rows[:, CODE] == layout.EV_DRAW) & (rows[:, SIDE] == s)))
            if len(refill) and len(own_draws):
                assert own_draws.max() < refill[0]  # L9: draws before the refill
            if not len(idx):
                continue
            n_elan += 1
            after = rows[idx[0] + 1:idx[0] + 7]
            if not starved:
                assert (after[:, CODE] == layout.EV_CORPS_TACTICIAN).all() and len(after) == 6
                assert after[:, SIDE].tolist() == [s] * 3 + [1 - s] * 3
                assert after[:, A].tolist() == [0, 1, 2] * 2
            if not len(refill) and i + 1 < len(ps):  # the rack, less the card taken, stays
                nxt = one(ps[i + 1], layout.EV_TURN)
                before = Counter(turn[RACK0:RACK0 + turn[B]].tolist())
                before[int(give[B])] -= 1
                assert Counter(nxt[RACK0:RACK0 + nxt[B]].tolist()) == +before
    assert n_elan > 50


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_rack_pick_cycle(pol):
    # rule L9, rule E9.6, rule E10: refill at 2; with 30 turns each side picks from 5, 4 and 3
    # cards exactly ten times each per game
    res = sim_for(None, pol).run(2000, seed=83, per_game=True, check=True)
    rows = res.per_game
    picks = rows[:, :, M["pick_from_0"]:M["pick_from_5"] + 1]
    assert (picks[:, :, 3:] == 10).all() and (picks[:, :, :3] == 0).all()
    assert (rows[:, :, M["refills"]] == 10).all()


# ---------------------------------------------------------------------------------------------
# G4-G6 in LGB

SPANISH, FRENCH = 0, 1
GUERRILLA = {
    "sides.B.french": True, "sides.A.guerrilla_rule": "epic", "sides.A.corps_guerrilla": [1, 1, 1],
    "scenario.guerrilla_pool": 6,
    # Spanish units per Corps commander: left 5, centre 4, right 3 (fewer than four: no gain)
    "sides.A.sections.L1.spanish": 3, "sides.A.sections.L2.spanish": 2,
    "sides.A.sections.C1.spanish": 2, "sides.A.sections.C2.spanish": 2,
    "sides.A.sections.R1.spanish": 2, "sides.A.sections.R2.spanish": 1,
}


def _resolve(ct, t: int, opp_last: int) -> int:
    if ct.first_strike[t]:
        return ct.void
    if ct.counter[t]:
        return ct.mirror[opp_last] if opp_last != ct.void else ct.void
    return t


@pytest.mark.parametrize("french", [GREEDY, RANDOM])
def test_guerrilla_counters_target_the_facing_corps(french):
    # rule G5, rule S4, rule G6, rule G4, rule G2: a counter held by the Spanish Corps commander of
    # a wing is spent only against a card played by the French Corps commander facing him (the
    # mirror: the Spanish left wing faces the French right wing), never
    # a multi-section card, at most one a French turn, at every chance (spend mode 0); counters
    # gained only by a Scout of a Corps commander with four Spanish units or more
    sim = sim_for(GUERRILLA, GREEDY, french)
    assert sim.scenario.sides[SPANISH].corps_guerrilla == (1, 1, 1)
    ct = sim.cards
    seen = Counter()
    for _, met, ps in traced(sim, 91, 80):
        assert met[:, M["invariant_violations"]].sum() == 0
        held = [1, 1, 1]
        pool = 6
        last = [ct.void, ct.void]
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            give = one(rows, layout.EV_GIVE)
            att = rows_of(rows, layout.EV_G_ATTEMPT)
            gain = rows_of(rows, layout.EV_G_GAIN)
            if s == SPANISH:
                assert len(att) == 0
                for row in gain:
                    k = int(row[A])
                    assert k != 2  # G4: three Spanish units on the right wing
                    p = cards_played(rows, s, k)
                    assert ct.scout[p[:, D][p[:, D] != ct.void]].any()
                    held[k] += 1
                    pool -= 1
                    assert row[B] == pool >= 0
                    seen["gain"] += 1
            else:
                assert len(gain) == 0
                targets = {}
                for k in range(3):
                    for which, row in enumerate(cards_played(rows, s, k)):
                        r = _resolve(ct, int(row[C]), last[SPANISH])
                        if held[2 - k] > 0 and r != ct.void and ct.kind[r] != KIND_MULTI:
                            targets[k, which] = row
                        seen["multi"] += held[2 - k] > 0 and r != ct.void and ct.kind[r] == KIND_MULTI
                assert len(att) == (1 if targets else 0)
                if targets:
                    which, k, _, roll, outcome = (int(x) for x in att[0, A:F])
                    assert att[0, SIDE] == SPANISH and (k, which) in targets
                    nullified = targets[k, which][D] == ct.void
                    assert nullified == (outcome == layout.G_OUT_NULLIFIED) == (roll != 5)
                    held[2 - k] -= 1
                    pool += 1
                    seen["attempt"] += 1
            if give[A] != ct.void:
                last[s] = int(give[E])
        assert min(held) >= 0 and sum(held) + pool == 9
    assert seen["attempt"] > 300 and seen["gain"] > 30 and seen["multi"] > 10


def test_s4_spanish_left_wing_counters_stop_only_french_right_wing_cards():
    # rules S4, G5: Spanish units (and counters) only on the Spanish left wing; the six sections
    # face each other in reverse order, so every nullified French card was played by the French
    # right wing (trace and metrics), and the Spanish left wing spent every counter
    only_left = {**GUERRILLA, "sides.A.corps_guerrilla": [3, 0, 0],
                 "sides.A.sections.L1.spanish": 3, "sides.A.sections.L2.spanish": 2,
                 **{f"sides.A.sections.{x}.spanish": 0 for x in ("C1", "C2", "R1", "R2")}}
    sim = sim_for(only_left, GREEDY, GREEDY)
    res = sim.run(1000, 17, check=True)
    m = res.totals[SPANISH]
    assert m[M["g_nullified_in_french_R"]] > 100
    assert m[M["g_cards_nullified"]] == m[M["g_nullified_in_french_R"]]
    assert m[M["g_nullified_in_french_L"]] == m[M["g_nullified_in_french_C"]] == 0
    spent = res.commanders[SPANISH, :, layout.CM_NAMES.index("g_spent")]
    assert spent[1] == m[M["g_spent"]] > 0 and spent[2] == spent[3] == 0  # the left wing's
    n = 0
    for g in range(20):
        for row in rows_of(sim.trace(17, g)[1], layout.EV_G_ATTEMPT):
            assert row[B] == 2  # the French right wing's card
            n += 1
        text = format_trace(sim, sim.trace(17, g)[1], 17, g)
        for ln in text.splitlines():
            if "spends a counter" in ln:
                assert "left wing (facing it)" in ln and "by the French right wing" in ln
    assert n > 5


def test_guerrilla_rates_and_conservation():
    # rule G5, rule G6, rule G7, rule G4: a spent counter is stopped only by a sabre (success
    # 5/6); counters are conserved; the right wing (3 Spanish units) never gains one
    res = sim_for(GUERRILLA, GREEDY, RANDOM).run(4000, seed=92, check=True, per_game=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    sp = res.totals[SPANISH]
    n = int(sp[M["g_spent"]])
    assert n > 10_000
    rate = sp[M["g_cards_nullified"]] / n
    assert abs(rate - 5 / 6) <= 4 * se(5 / 6, n), rate
    assert sp[M["g_cards_nullified"]] + sp[M["g_stopped_by_sabre"]] == n
    assert res.totals[FRENCH, M["g_spent"]] == 0
    acq = res.commanders[SPANISH, 1:, layout.CM_G_ACQUIRED]
    assert acq[2] == 0 and acq[0] > 100 and acq[1] > 100
    assert res.commanders[SPANISH, 3, layout.CM_G_SPENT] > 0  # he spends his starting counter
    rows = res.per_game[:, SPANISH]
    assert (rows[:, M["g_held_end"]] + rows[:, M["g_pool_end"]] == 9).all()


def test_guerrilla_validation_errors():
    # rule G4, rule G6: LGB plays the EPIC clarifications only; Corps counters need the rule on
    for change, field in (({"sides.A.guerrilla_rule": "base"}, "guerrilla_rule"),
                          ({"sides.A.guerrilla_rule": "off"}, "corps_guerrilla")):
        with pytest.raises(NapsimInputError) as e:
            load_scenario(SCEN, {**GUERRILLA, **change})
        msg = str(e.value)
        assert e.value.field == field and f"'{field}'" in msg and "\n" not in msg
    assert load_scenario(SCEN, {**GUERRILLA, "sides.A.guerrilla_rule": "off",
                                "sides.A.corps_guerrilla": [0, 0, 0]}).format == "lgb"


# ---------------------------------------------------------------------------------------------
# contract

GAMES = 10_000


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_contract(pol):
    # rule D6, rule D7, rule L1, rule L2, rule L9, rule E10, rule D4: 10,000 games with the
    # kernel's recount of every card after every turn
    sim = sim_for(None, pol)
    res = sim.run(GAMES, seed=101, check=True, per_game=True)
    rows, crows = res.per_game, res.commander_rows
    assert (rows >= 0).all() and (crows >= 0).all()
    assert (rows[:, :, M["invariant_violations"]] == 0).all()
    assert (rows[:, :, M["turns"]] == 30).all() and (crows[:, :, :, layout.CM_TURNS][:, :, 1:] == 30).all()
    picks = rows[:, :, M["pick_from_0"]:M["pick_from_5"] + 1]
    assert (picks[:, :, 3:] == 10).all() and (picks[:, :, :3] == 0).all()
    hand = rows[:, :, M["hand_section"]:M["hand_other"] + 1].sum(axis=2)
    assert (hand == 30).all()
    # Tactician cards per Corps commander: dealt + drawn - played = held at the end
    tac0 = np.array([s.corps_tactician for s in sim.scenario.sides])
    held = crows[:, :, 1:, layout.CM_TAC_HELD_END]
    assert (held == tac0 + crows[:, :, 1:, layout.CM_TAC_DRAWN] - crows[:, :, 1:, layout.CM_TAC_PLAYED]).all()
    assert (held.sum(axis=(1, 2)) <= layout.TACTICIAN_DECK).all()
    nom = rows[:, :, M["nominal_L"]:M["nominal_R"] + 1].sum(axis=2)
    eff = rows[:, :, M["effective_L"]:M["effective_R"] + 1].sum(axis=2)
    assert (eff <= nom).all() and (rows[:, :, M["wasted"]] == nom - eff).all()
    assert (crows[:, :, 1:, layout.CM_EFF] == crows[:, :, 1:, layout.CM_EFF_A]
            + crows[:, :, 1:, layout.CM_EFF_A + 1]).all()


def test_same_results_for_any_chunk_size_and_thread_count():
    # rule D6 (determinism): a game is a pure function of (seed, game index); lgb-symmetric with
    # the guerrilla variant, greedy against random, so every random stream of the kernel is used
    sim = sim_for(GUERRILLA, GREEDY, RANDOM)
    threads = [t for t in (1, 2) if t <= numba.config.NUMBA_NUM_THREADS]
    out = {}
    before = numba.get_num_threads()
    try:
        for t in threads:
            numba.set_num_threads(t)
            for chunk in (1000, GAMES):
                if t == 1 or chunk == GAMES:
                    out[t, chunk] = sim.run(GAMES, seed=102, chunk=chunk, per_game=True, check=True)
    finally:
        numba.set_num_threads(before)
    ref = out[threads[-1], GAMES]
    assert len(out) == 1 + len(threads)
    for key, r in out.items():
        for name in ("totals", "per_game", "commanders", "commander_rows", "rack_wait",
                     "guerrilla_turns", "tactician_turns"):
            assert np.array_equal(getattr(r, name), getattr(ref, name)), (key, name)
    assert not np.array_equal(sim.run(500, seed=103).totals, sim.run(500, seed=102).totals)


# ---------------------------------------------------------------------------------------------
# scenario parsing (S1, L1)


def _three_section_lgb() -> dict:
    data = tomllib.loads((SCENARIO_DIR / "symmetric.toml").read_text(encoding="utf-8"))
    data["scenario"]["format"] = "lgb"
    for side in data["sides"].values():
        side["corps_hand"] = [3, 3, 3]
        side["corps_tactician"] = [1, 1, 1]
        side["sections"] = {
            "L": dict(infantry=5, cavalry=2, artillery=1, leaders=1, spanish=0),
            "C": dict(infantry=1, cavalry=1, artillery=1, leaders=0, spanish=3),
            "R": dict(infantry=3, cavalry=3, artillery=0, leaders=3, spanish=5),
        }
    return data


def test_three_sections_played_as_lgb_split_in_halves(tmp_path):
    # rule S1, rule L1: each EPIC section becomes two halves, the odd unit (and leader) in the
    # first, Spanish units kept within each half's units
    path = tmp_path / "three.toml"
    path.write_text(dump_toml(_three_section_lgb()), encoding="utf-8")
    sc = load_scenario(path)
    for side in sc.sides:
        assert len(side.lgb_sections) == 6
        for x, whole in enumerate(side.sections):
            h1, h2 = side.lgb_sections[2 * x], side.lgb_sections[2 * x + 1]
            for f in ("infantry", "cavalry", "artillery", "leaders"):
                v = getattr(whole, f)
                assert (getattr(h1, f), getattr(h2, f)) == ((v + 1) // 2, v // 2), (x, f)
            assert h1.spanish + h2.spanish == whole.spanish
            assert h1.spanish <= h1.units and h2.spanish <= h2.units
        c1, c2 = side.lgb_sections[2:4]
        assert (c1.units, c1.spanish, c2.units, c2.spanish) == (3, 3, 0, 0)
        r1, r2 = side.lgb_sections[4:6]
        assert (r1.spanish, r2.spanish) == (3, 2)
    sim = Simulation.build(sc)
    assert sim.lgb.units[0, :, 0].tolist() == [3, 1, 1, 1] and sim.lgb.units[0, :, 1].tolist() == [2, 1, 0, 0]
    res = sim.run(300, seed=111, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    assert res.metric("turns").tolist() == [300 * 30] * 2


def test_six_sections_merge_for_the_epic_view():
    # rule S1: a six-section file gives the three EPIC sections by merging pairs
    for fmt in ("lgb", "epic4"):
        sc = load_scenario(SCEN, {"scenario.format": fmt})
        for side in sc.sides:
            for x, whole in enumerate(side.sections):
                h1, h2 = side.lgb_sections[2 * x], side.lgb_sections[2 * x + 1]
                assert (whole.infantry, whole.cavalry, whole.artillery, whole.leaders) == (5, 2, 1, 1)
                assert whole.infantry == h1.infantry + h2.infantry and whole.units == h1.units + h2.units


def test_mixing_section_keys_is_refused(tmp_path):
    # rule S1: sections are L C R or L1 L2 C1 C2 R1 R2, not both
    data = _three_section_lgb()
    data["sides"]["A"]["sections"]["L1"] = dict(infantry=1, cavalry=0, artillery=0, leaders=0)
    path = tmp_path / "mixed.toml"
    path.write_text(dump_toml(data), encoding="utf-8")
    with pytest.raises(NapsimInputError) as e:
        load_scenario(path)
    assert e.value.field in ("L", "C", "R") and "\n" not in str(e.value)
    # and a six-section side must name all six
    data = _three_section_lgb()
    data["sides"]["A"]["sections"] = {"L1": dict(infantry=1, cavalry=0, artillery=0, leaders=0)}
    path.write_text(dump_toml(data), encoding="utf-8")
    with pytest.raises(NapsimInputError) as e:
        load_scenario(path)
    assert e.value.field == "L2"
