"""La Grande Battles L6-L9 and G4-G6: initiative, stars, squares, the end of the turn and the
Guerrilla counters on traced games of lgb-symmetric variants; determinism and section views (the
contract run is tests/test_engine_contract.py's, over every format).
Per-commander metrics are [side, commander 0 CIC / 1-3 Corps left, centre, right, CM slot]."""

from __future__ import annotations

import tomllib
from collections import Counter

import numba
import numpy as np
import pytest
from support.lgbtools import (
    GREEDY,
    RACK0,
    RANDOM,
    SCEN,
    both,
    cards_played,
    corps_metric,
    corps_rows,
    se,
    sim_for,
    traced,
)
from support.sizes import quick_and_full
from support.threads import thread_counts
from support.tomlwrite import dump_toml
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
    M,
    first_strikes_under_their_turn,
    one,
    rows_of,
)

from napsim import NapsimInputError
from napsim.engine import layout
from napsim.model.scenarios import SCENARIO_DIR, load_scenario
from napsim.output.tracefmt import format_trace
from napsim.sim.packing import Simulation
from napsim.sim.tables import KIND_MULTI


def test_lgb_packs_only_its_own_tables():
    """A La Grande Battles simulation packs its per-Corps card tables and not EPIC's pair tables,
    which its kernel never reads (building them compiled EPIC's table builder on a first LGB run)."""
    sim = Simulation.build("lgb-symmetric")
    assert sim.tables is None and sim.lgb is not None
    assert sim.kernel_args()[0] == "lgb"
    epic = Simulation.build("symmetric")
    assert epic.tables is not None and epic.lgb is None


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
    assert (corps_metric(res, layout.CM_STAR_CMD).sum(axis=1) == res.metric("stars_tactician")).all()
    assert (res.metric("stars_tactician") > 1000).all() and res.metric("stars_march").sum() == 0


def test_used_stars_draw_nothing():
    # rule L7: with march_prob 1 and free units (20 infantry in every section) stars always
    # March Move: no Command or Tactician draw for them
    big = both(**{f"sections__{x}__infantry": 20 for x in ("L1", "L2", "C1", "C2", "R1", "R2")})
    sim = sim_for(big, ("greedy", (("march_prob", 1.0),)), ("random", (("march_prob", 1.0),)))
    res = sim.run(2000, seed=63)
    assert corps_metric(res, layout.CM_STAR_CMD).sum() == 0 and res.metric("stars_tactician").sum() == 0
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
    assert (corps_metric(res, layout.CM_SQUARE_CARDS).sum(axis=1) > 100).all()
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
    games = [(83, g, sim.trace(83, g)[1]) for g in range(8)]
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
def test_guerrilla_counters_target_the_facingcorps_metric(french):
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
        gone = 0  # G1: a counter that nullified a card is out of play
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
                    pool += 0 if nullified else 1
                    gone += 1 if nullified else 0
                    seen["attempt"] += 1
            if give[A] != ct.void:
                # rule D8: a hand card its Corps commander discarded unplayed leaves nothing to copy
                ka = int(give[C])
                rejected = ka >= 0 and len(corps_rows(rows, layout.EV_REJECT, s, ka)) > 0
                last[s] = ct.void if rejected else int(give[E])
        assert min(held) >= 0 and sum(held) + pool + gone == 9
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
    gone = rows[:, M["g_spent"]] - rows[:, M["g_stopped_by_sabre"]]  # G1: out of play once used
    assert (rows[:, M["g_held_end"]] + rows[:, M["g_pool_end"]] + gone == 9).all()


def test_guerrilla_validation_errors():
    # rule G4, rule G6: LGB plays the EPIC clarifications only; Corps counters need the rule on
    for change, field in (({"sides.A.guerrilla_rule": "base"}, "guerrilla_rule"),
                          ({"sides.A.guerrilla_rule": "off"}, "corps_guerrilla")):
        with pytest.raises(NapsimInputError) as e:
            load_scenario(SCEN, {**GUERRILLA, **change})
        msg = str(e.value)
        # named as the override gave it: --set and the path
        assert e.value.field == f"sides.A.{field}" and f"'sides.A.{field}'" in msg and "\n" not in msg
        assert e.value.where == "--set"
    assert load_scenario(SCEN, {**GUERRILLA, "sides.A.guerrilla_rule": "off",
                                "sides.A.corps_guerrilla": [0, 0, 0]}).format == "lgb"


# ---------------------------------------------------------------------------------------------
# determinism (the contract over every format is tests/test_engine_contract.py)

GAMES = 10_000


@pytest.mark.parametrize("games", quick_and_full(3000, GAMES))
def test_same_results_for_any_chunk_size_and_thread_count(restore_threads, games):
    # rule D6 (determinism): a game is a pure function of (seed, game index); lgb-symmetric with
    # the guerrilla variant, greedy against random, so every random stream of the kernel is used
    sim = sim_for(GUERRILLA, GREEDY, RANDOM)
    threads = thread_counts()
    out = {}
    for t in threads:
        numba.set_num_threads(t)
        for chunk in (1000, games):
            if t == 1 or chunk == games:
                out[t, chunk] = sim.run(games, seed=102, chunk=chunk, per_game=True, check=True)
    ref = out[threads[-1], games]
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
        side["tactician"] = 0  # rule L10: a La Grande Battles CIC holds none
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
    for game_format in ("lgb", "epic4"):
        sc = load_scenario(SCEN, {"scenario.format": game_format})
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
