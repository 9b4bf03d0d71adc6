"""EPIC with 2, 3 and 4 players a side (docs/rules.md M4, M6, M8, G6 and P6): the commander layer of
the EPIC kernel.

Card flow is checked on whole games of the shipped scenarios (epic2-talavera, epic3-tamames,
epic4-symmetric, formats-armies) and variants of them (dotted scenario overrides), through the
event log of `Simulation.trace` (engine.epic events plus the commander layer's EV_INITIATIVE,
EV_PASS and EV_COMMANDER_TACTICIAN) and the per-commander metrics of the same games
(`SimResult.commander_rows`, [game, side, commander 0 CIC / 1-3 sub- or Corps commanders, CM]):
game g of a run is a pure function of (seed, g), so the trace of game g and row g describe the
same game. What a commander should get is rebuilt from the cards the trace shows (EV_CHOICE) and
the card table `sim.cards`, never from the kernel's own bookkeeping.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

import numpy as np
import pytest
from scipy import stats
from support.tracetools import CODE, PLY, SIDE, A, B, C, D, E, F, G, H, M, by_ply, one, rows_of  # noqa: F401

from napsim.engine import layout
from napsim.engine.rng import seed_key
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation, commander_config, guerrilla_config, guerrilla_split
from napsim.sim.runner import play_chunk
from napsim.sim.tables import KIND_MULTI, KIND_PLACED, KIND_SECTION

GREEDY, RANDOM = ("greedy", ()), ("random", ())
NO_TAC_USE = ("greedy", (("tactician_use_prob", 0.0),))  # Tactician cards are only counted
EPIC2, EPIC3, EPIC4 = "epic2-talavera", "epic3-tamames", "epic4-symmetric"


# ---------------------------------------------------------------------------------------------
# helpers: cached simulations of scenario variants, the cards of a turn, initiative arithmetic


def _freeze(d: dict | None) -> tuple:
    return tuple(sorted((d or {}).items()))


@cache
def _sim(name: str, over: tuple, pa: tuple, pb: tuple) -> Simulation:
    sc = load_scenario(name, overrides=dict(over))
    return Simulation.build(sc, ((pa[0], dict(pa[1])), (pb[0], dict(pb[1]))))


def sim_for(name: str, overrides: dict | None = None, a: tuple = GREEDY,
            b: tuple | None = None) -> Simulation:
    """A shipped scenario with dotted overrides; a, b = (policy name, ((param, value), ...)) for
    the first and second side (b defaults to a); builds are cached."""
    b = b or a
    return _sim(name, _freeze(overrides), (a[0], tuple(a[1])), (b[0], tuple(b[1])))


def plies(ev: np.ndarray) -> list[np.ndarray]:
    """The rows of each ply of a traced game in order (setup rows left out)."""
    return [rows for ply, rows in sorted(by_ply(ev).items()) if ply >= 0]


def games(sim: Simulation, seed: int, n: int):
    """(run of n games with per-game rows, [(metrics, plies) of each game's trace])."""
    res = sim.run(n, seed, check=True, per_game=True)
    out = []
    for g in range(n):
        met, ev = sim.trace(seed, g)
        assert np.array_equal(met, res.per_game[g])  # the trace replays the run's game g
        out.append((met, plies(ev)))
    return res, out


def played(sim: Simulation, choice: np.ndarray) -> list[tuple[int, int, int]]:
    """(card as it plays, kind, section it is placed in or -1) of the hand card and the rack card
    of an EV_CHOICE row (E3: a section card in its own section, a tactic where it was placed)."""
    ct = sim.cards
    out = []
    for t, p in ((int(choice[E]), int(choice[C])), (int(choice[F]), int(choice[D]))):
        k = int(ct.kind[t])
        x = int(ct.sec[t]) if k == KIND_SECTION else (p if k == KIND_PLACED else -1)
        out.append((t, k, x))
    return out


def multi_orders(sim: Simulation, cards, x: int) -> int:
    """Nominal orders that the turn's multi-section cards give in section x (D2)."""
    return sum(int(sim.cards.orders[t, x]) for t, k, _ in cards if k == KIND_MULTI)


def symbol(d: int) -> int:
    """D5: die face 0-5 -> 0 infantry, 1 cavalry, 2 artillery, 3 flag, 4 sabre."""
    return 0 if d <= 1 else d - 1


def initiative_orders(u: np.ndarray, free: int, d1: int, d2: int) -> int:
    """Units an EPIC initiative roll orders (M6.2) in a section holding u = (infantry, cavalry,
    artillery, leaders) of which `free` are not yet ordered: a unit symbol one unit of that
    type, a flag one unit (March Move), a sabre one unit (melee)."""
    used = Counter()
    n = 0
    for sym in (symbol(d1), symbol(d2)):
        if free == 0:
            break
        if sym <= 2:
            if u[sym] > used[sym]:
                used[sym] += 1
                free -= 1
                n += 1
        else:
            free -= 1
            n += 1
    return n


def wilson_ref(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval, written out from its formula."""
    z = stats.norm.ppf(0.5 + level / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def se(p: float, n: int) -> float:
    return float(np.sqrt(p * (1 - p) / n))


# ---------------------------------------------------------------------------------------------
# M4 two a side


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_epic2_cic_passes_one_card_never_a_multi_section_card(pol):
    # rule M4, rule E3, rule P6: each turn the sub-commander receives one of the CIC's two cards;
    # with a multi-section card among them he receives the other one, a multi-section card is
    # never passed; of two placed cards the CIC keeps the one with the higher single-card score
    sim = sim_for(EPIC2, None, pol)
    ct = sim.cards
    cmax = sim.tables.best_val.shape[1] - 1
    res, traced = games(sim, 41, 40)
    seen = Counter()
    for g, (_, ps) in enumerate(traced):
        passed = np.zeros(2, np.int64)
        for rows in ps:
            turn = one(rows, layout.EV_TURN)
            s = int(turn[SIDE])
            cards = played(sim, one(rows, layout.EV_CHOICE))
            (ta, ka, xa), (tb, kb, xb) = cards
            pas = rows_of(rows, layout.EV_PASS)
            assert (pas[:, SIDE] == s).all()
            if xa >= 0 and xb >= 0:
                assert len(pas) == 1
                t, x = int(pas[0, A]), int(pas[0, B])
                kept = tb if (t, x) == (ta, xa) else ta
                assert (t, x) in ((ta, xa), (tb, xb))
                c = min(int(turn[A]), cmax)
                val = sim.tables.best_val[s, c]
                assert val[t, ct.void] <= val[kept, ct.void], (ct.names[t], ct.names[kept])
                seen["two placed"] += 1
                seen["kept the better"] += val[t, ct.void] < val[kept, ct.void]
            elif (xa >= 0 and kb == KIND_MULTI) or (xb >= 0 and ka == KIND_MULTI):
                assert len(pas) == 1
                assert (int(pas[0, A]), int(pas[0, B])) == ((ta, xa) if xa >= 0 else (tb, xb))
                seen["with a multi"] += 1
            else:
                assert len(pas) == 0  # two multi-section cards, or only one card to play
                seen["none"] += 1
            for row in pas:
                assert ct.kind[row[A]] != KIND_MULTI
            passed[s] += len(pas)
        crow = res.commander_rows[g]
        assert crow[:, 0, layout.CM_PASSED].tolist() == passed.tolist()
        assert crow[:, 1, layout.CM_RECEIVED].tolist() == passed.tolist()
        assert (crow[:, 1, layout.CM_NO_CARD] + passed == sim.scenario.turns).all()
    assert seen["two placed"] > 500 and seen["with a multi"] > 50 and seen["none"] > 5
    assert seen["kept the better"] > 100


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_epic2_cic_holds_every_tactician_card_and_nobody_rolls(pol):
    # rule M4, rule M6.2, rule E9.3, rule E9.4: in epic2 the CIC draws every Tactician card
    # (the sub-commander never holds one) and no commander rolls for initiative
    sim = sim_for(EPIC2, None, pol)
    res, traced = games(sim, 42, 30)
    n_draws = 0
    for _, ps in traced:
        for rows in ps:
            assert len(rows_of(rows, layout.EV_INITIATIVE)) == 0
            assert len(rows_of(rows, layout.EV_TACTICIAN)) == 0  # the commander layer draws them
            tac = rows_of(rows, layout.EV_COMMANDER_TACTICIAN)
            assert (tac[:, A] == 0).all()
            n_draws += len(tac)
    assert n_draws > 100
    x = res.commanders
    assert x[:, :, layout.CM_INIT].sum() == 0 and x[:, :, layout.CM_DOUBLES].sum() == 0
    assert x[:, 1, layout.CM_TAC_DRAWN].sum() == 0 and x[:, 1, layout.CM_TAC_HELD_END].sum() == 0
    assert x[:, 0, layout.CM_TAC_DRAWN].tolist() == res.metric("tactician_drawn").tolist()
    assert (x[:, 0, layout.CM_TAC_DRAWN] > 0).all()
    assert x[:, 2:, :].sum() == 0  # only two players a side
    big = sim.run(2000, seed=43, check=True)
    assert big.commanders[:, :, layout.CM_INIT].sum() == 0
    assert big.commanders[:, 1, layout.CM_TAC_DRAWN].sum() == 0


# ---------------------------------------------------------------------------------------------
# M6.1 / M8.1 who receives each card


@pytest.mark.parametrize("name, pol", [(EPIC3, GREEDY), (EPIC3, RANDOM), (EPIC4, GREEDY),
                                       (EPIC4, RANDOM)])
def test_placed_cards_go_to_the_section_commander(name, pol):
    # rule M6.1, rule M8.1, rule E3, rule P6: a section card, or a tactic where it is placed,
    # goes to the commander of that section; epic3: the CIC keeps one (a card in his own
    # section) or gives both; with the turns holding a multi-section card (or one card only)
    # these add up to the turns; epic4: the CIC holds no section and receives nothing
    sim = sim_for(name, None, pol)
    sc = sim.scenario
    game_format = sc.format
    cmd_sec = commander_config(sc)[0]
    if game_format == "epic3":
        for k, side in enumerate(sc.sides):
            subs = [x for x in range(3) if x != side.cic_section]
            assert cmd_sec[k, side.cic_section] == 0 and cmd_sec[k, subs].tolist() == [1, 2]
    else:
        assert cmd_sec.tolist() == [[1, 2, 3], [1, 2, 3]]
    res, traced = games(sim, 44, 40)
    seen = Counter()
    for g, (_, ps) in enumerate(traced):
        got = np.zeros((2, 4), np.int64)
        keep = np.zeros(2, np.int64)
        give_both = np.zeros(2, np.int64)
        other = np.zeros(2, np.int64)
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            cards = played(sim, one(rows, layout.EV_CHOICE))
            xs = [x for _, _, x in cards]
            for x in xs:
                if x >= 0:
                    got[s, cmd_sec[s, x]] += 1
            xc = sc.sides[s].cic_section
            if xc in xs:
                keep[s] += 1
            elif min(xs) >= 0:
                give_both[s] += 1
            else:
                other[s] += 1
                seen["multi"] += any(k == KIND_MULTI for _, k, _ in cards)
            seen["both placed"] += min(xs) >= 0
        crow = res.commander_rows[g]
        assert crow[:, :, layout.CM_RECEIVED].tolist() == got.tolist()
        if game_format == "epic3":
            assert crow[:, 0, layout.CM_KEEP].tolist() == keep.tolist()
            assert crow[:, 0, layout.CM_GIVE_BOTH].tolist() == give_both.tolist()
            assert (keep + give_both + other == sc.turns).all()
            assert (crow[:, :3, layout.CM_TURNS] == sc.turns).all()
            seen["keep"] += keep.sum()
            seen["give both"] += give_both.sum()
        else:
            assert (got[:, 0] == 0).all()
            assert crow[:, 0, layout.CM_KEEP].sum() == crow[:, 0, layout.CM_GIVE_BOTH].sum() == 0
            assert (crow[:, 0, layout.CM_TURNS] == 0).all()
            assert (crow[:, 1:, layout.CM_TURNS] == sc.turns).all()
    assert seen["both placed"] > 500 and seen["multi"] > 50
    if game_format == "epic3":
        assert seen["keep"] > 300 and seen["give both"] > 100


# ---------------------------------------------------------------------------------------------
# M6.2 / M8.2 initiative

TINY = {  # French left: one infantry unit; French right: no cavalry, no artillery
    "sides.F.sections.L.infantry": 1, "sides.F.sections.L.cavalry": 0,
    "sides.F.sections.L.artillery": 0, "sides.F.sections.L.leaders": 0,
    "sides.F.sections.R.cavalry": 0, "sides.F.sections.R.artillery": 0,
}


@pytest.mark.parametrize("name, over, pol", [(EPIC3, None, GREEDY), (EPIC3, TINY, RANDOM),
                                             (EPIC3, {"scenario.format": "epic4", **TINY}, GREEDY),
                                             (EPIC4, None, RANDOM)])
def test_a_section_commander_rolls_exactly_when_his_section_gets_nothing(name, over, pol):
    # rule M6.2, rule M8.2, rule D5, rule S2: a section commander rolls two dice exactly when no
    # card was placed in his section (and, with initiative = no_card_no_orders, no multi-section
    # card orders there); each unit symbol
    # orders a free unit of that type, a flag or a sabre any free unit, never more than the
    # units left unordered; a double draws the roller a Tactician card
    sim = sim_for(name, over, pol)
    sc = sim.scenario
    cmd_sec = commander_config(sc)[0]
    units = sim._commander_args()[3]  # [side, type, section], as in units_array
    res, traced = games(sim, 45, 40)
    seen = Counter()
    for g, (met, ps) in enumerate(traced):
        rolls = np.zeros((2, 4), np.int64)
        starved = met[:, M["tactician_starved"]].sum() > 0
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            cards = played(sim, one(rows, layout.EV_CHOICE))
            eff = one(rows, layout.EV_ORDERS)[D:G]
            laid_multi = any(sim.cards.kind[t] == KIND_MULTI for t, _, _ in cards)
            expect = [x for x in range(3)  # option initiative: multi-section orders may stop it
                      if all(px != x for _, _, px in cards)
                      and (sc.rule("initiative") == "no_card" or multi_orders(sim, cards, x) == 0)
                      # a CIC (3 a side) who laid a multi-section card has played a card
                      and not (sc.format == "epic3" and cmd_sec[s, x] == 0 and laid_multi)]
            init_idx = np.flatnonzero(rows[:, CODE] == layout.EV_INITIATIVE)
            init = rows[init_idx]
            assert (init[:, SIDE] == s).all()
            assert init[:, G].tolist() == expect
            for i, row in zip(init_idx, init, strict=True):
                cx, d1, d2, ordered, tdr, cdr, x = (int(v) for v in row[A:H])
                assert cx == cmd_sec[s, x]
                u = units[s, :, x]
                free = int(u.sum() - eff[x])  # nothing of the turn's cards is in x but reach
                assert ordered == initiative_orders(u, free, d1, d2) <= free
                double = symbol(d1) == symbol(d2)
                assert tdr == int(double) and cdr == 0
                if double and not starved:
                    nxt = rows[i + 1]
                    assert nxt[CODE] == layout.EV_COMMANDER_TACTICIAN and nxt[SIDE] == s
                    assert nxt[A] == cx
                rolls[s, cx] += 1
                seen["roll"] += 1
                seen["double"] += double
                seen["capped"] += free < 2
        assert res.commander_rows[g, :, :, layout.CM_INIT].tolist() == rolls.tolist()
    assert seen["roll"] > 1000 and seen["double"] > 100
    if over:
        assert seen["capped"] > 50


def test_initiative_in_a_tiny_section_orders_only_the_types_there():
    # rule M6.2, rule S2, rule D5: French left holds one infantry unit and nothing else: a roll
    # there orders at most one unit and only an infantry face can order it as a unit symbol;
    # French right has no cavalry or artillery: its symbol orders come from infantry faces only
    sim = sim_for(EPIC3, TINY)
    assert sim._commander_args()[3][0, :, 0].tolist() == [1, 0, 0, 0]
    res = sim.run(3000, seed=46, check=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    french = res.commanders[0]
    for c in (1, 2):  # sub-commander 1 holds L, 2 holds R (the CIC holds C)
        x = french[c]
        assert x[layout.CM_INIT] > 5000
        assert x[layout.CM_FACE + 1] > 500 and x[layout.CM_FACE + 2] > 500  # the dice show them...
        assert 0 < x[layout.CM_INIT_ORDERED] <= x[layout.CM_FACE]  # ...but only infantry is ordered
    tiny = french[1]
    assert (tiny[layout.CM_INIT_ORDERED] + tiny[layout.CM_INIT_MARCH] + tiny[layout.CM_INIT_MELEE]
            <= tiny[layout.CM_INIT])  # one unit to order: at most one order a roll
    # the Spanish left (5 infantry, 1 cavalry, 1 artillery) does order cavalry and artillery
    spanish = res.commanders[1, 1]
    assert spanish[layout.CM_INIT_ORDERED] > spanish[layout.CM_FACE]


def test_initiative_double_and_two_sabre_rates():
    # rule M6.2, rule M8.2, rule D5: a double 2/9 (infantry 1/9, each other face 1/36), two
    # sabres 1/36; every double draws a Tactician card; the summary's per-commander rates carry
    # Wilson intervals with n = the commander's rolls
    res = sim_for(EPIC4).run(4000, seed=47, check=True)
    x = res.commanders[:, 1:, :].sum(axis=(0, 1))
    n = int(x[layout.CM_INIT])
    assert n > 50_000
    for slot, p in ((layout.CM_DOUBLES, 2 / 9), (layout.CM_TWO_SABRES, 1 / 36)):
        assert abs(x[slot] / n - p) <= 4 * se(p, n), (layout.CM_NAMES[slot], x[slot] / n, p)
    for face, p in enumerate((2 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6)):
        k = x[layout.CM_FACE + face]
        assert abs(k / (2 * n) - p) <= 4 * se(p, 2 * n) * np.sqrt(2), (face, k / (2 * n))
    assert x[layout.CM_INIT_TAC] == x[layout.CM_DOUBLES]
    assert x[layout.CM_INIT_CMD] == 0 and x[layout.CM_BLOCKS_LOST] == 0  # not the LGB roll (L6)
    assert res.commanders[:, 0, layout.CM_INIT].sum() == 0  # the epic4 CIC has no section
    rows = res.summary().set_index(["side", "metric"])
    for s, side in enumerate(res.sim.scenario.sides):
        for c in (1, 2, 3):
            key = layout.COMMANDER_KEYS[c]
            k, n_c = int(res.commanders[s, c, layout.CM_DOUBLES]), int(res.commanders[s, c, layout.CM_INIT])
            row = rows.loc[(side.name, f"{key}.initiative_double_rate")]
            assert row["n"] == n_c > 5000 and row["kind"] == "rate"
            assert row["value"] == pytest.approx(k / n_c)
            lo, hi = wilson_ref(k, n_c)
            assert row["ci_low"] == pytest.approx(lo, abs=1e-12)
            assert row["ci_high"] == pytest.approx(hi, abs=1e-12)
            assert abs(row["value"] - 2 / 9) <= 4 * se(2 / 9, n_c)
            two = rows.loc[(side.name, f"{key}.initiative_two_sabres_rate")]
            assert two["n"] == n_c
            assert two["value"] == pytest.approx(res.commanders[s, c, layout.CM_TWO_SABRES] / n_c)


# ---------------------------------------------------------------------------------------------
# M6.3 / M8.2 / M6.4 Tactician cards per commander

# (format, scenario Tactician cards) -> starting cards of CIC, commander 1, 2, 3: one each for
# every holder plus an even share, the remainder to the CIC first, then commander 1, 2
START_TACTICIAN = {
    ("epic2", 4): [4, 0, 0, 0], ("epic2", 0): [0, 0, 0, 0],
    ("epic3", 4): [3, 2, 2, 0], ("epic3", 5): [3, 3, 2, 0], ("epic3", 0): [1, 1, 1, 0],
    ("epic4", 4): [0, 3, 2, 2], ("epic4", 5): [0, 3, 3, 2], ("epic4", 6): [0, 3, 3, 3],
}


@pytest.mark.parametrize("game_format, tac_a, tac_b", [("epic2", 4, 0), ("epic3", 4, 5), ("epic3", 0, 5),
                                               ("epic4", 4, 5), ("epic4", 6, 4)])
def test_starting_tactician_cards_per_commander(game_format, tac_a, tac_b):
    # rule M6.3, rule M8.2, rule M4, rule E1: epic3 every player 1 + an even share (remainder
    # CIC, then sub 1, sub 2), epic4 the Corps commanders likewise and the CIC none, epic2 all
    # to the CIC: the first turn's Tactician count, and each commander's end count less what he
    # drew, on formats-armies (Tactician cards are never used here)
    over = {"scenario.format": game_format, "sides.A.tactician": tac_a, "sides.B.tactician": tac_b}
    sim = sim_for("formats-armies", over, NO_TAC_USE)
    start = np.array([START_TACTICIAN[game_format, tac_a], START_TACTICIAN[game_format, tac_b]])
    assert commander_config(sim.scenario)[1].tolist() == start.tolist()
    res, traced = games(sim, 48, 20)
    first = sim.scenario.first
    for g, (_, ps) in enumerate(traced):
        t0, t1 = one(ps[0], layout.EV_TURN), one(ps[1], layout.EV_TURN)
        assert (t0[SIDE], t1[SIDE]) == (first, 1 - first)
        assert t0[F] == start[first].sum()
        elan = rows_of(ps[0], layout.EV_COMMANDER_TACTICIAN)  # an Elan in the first turn
        assert t1[F] == start[1 - first].sum() + (elan[:, SIDE] == 1 - first).sum()
        crow = res.commander_rows[g]
        assert crow[:, :, layout.CM_TAC_PLAYED].sum() == 0
        assert (crow[:, :, layout.CM_TAC_HELD_END] - crow[:, :, layout.CM_TAC_DRAWN] == start).all()
    x = res.commanders
    drawn = x[:, :, layout.CM_TAC_DRAWN]
    assert (drawn.sum(axis=1) == res.metric("tactician_drawn")).all()
    assert (res.metric("tactician_held_end") == 20 * start.sum(axis=1) + drawn.sum(axis=1)).all()
    holders = {"epic2": [0], "epic3": [0, 1, 2], "epic4": [1, 2, 3]}[game_format]
    for c in range(4):
        if c in holders:
            assert (drawn[:, c] > 0).all(), c
        else:
            assert (drawn[:, c] == 0).all() and (x[:, c, layout.CM_TAC_HELD_END] == 0).all(), c


@pytest.mark.parametrize("pol", [GREEDY, RANDOM])
def test_epic4_cic_never_draws_a_tactician_card(pol):
    # rule M8.2, rule E8, rule E9.3: the epic4 CIC holds none, also when a multi-section card
    # earns a Tactician draw (Recon in Force) or after an Elan
    res = sim_for(EPIC4, None, pol).run(3000, seed=49, check=True, per_game=True)
    assert (res.commander_rows[:, :, 0, layout.CM_TAC_DRAWN] == 0).all()
    assert (res.commander_rows[:, :, 0, layout.CM_TAC_HELD_END] == 0).all()
    assert res.commanders[:, 1:, layout.CM_TAC_DRAWN].min() > 1000
    assert res.metric("elan_reshuffles").sum() > 1000


@pytest.mark.parametrize("name, holders", [(EPIC3, [0, 1, 2]), (EPIC4, [1, 2, 3])])
def test_elan_gives_every_player_a_tactician_card(name, holders):
    # rule M6.4, rule M8.2, rule E9.4: after an Elan every Tactician holder of both sides (his
    # side first) draws one: the three players of each side in epic3, the six Corps commanders
    # in epic4
    sim = sim_for(name, None, GREEDY, RANDOM)
    _, traced = games(sim, 50, 60)
    n_elan = 0
    for met, ps in traced:
        if met[:, M["tactician_starved"]].sum() > 0:
            continue
        for rows in ps:
            idx = np.flatnonzero(rows[:, CODE] == layout.EV_ELAN)
            if not len(idx):
                continue
            s = int(one(rows, layout.EV_TURN)[SIDE])
            after = rows[idx[0] + 1:idx[0] + 7]
            assert (after[:, CODE] == layout.EV_COMMANDER_TACTICIAN).all() and len(after) == 6
            assert after[:, SIDE].tolist() == [s] * 3 + [1 - s] * 3
            assert after[:, A].tolist() == holders * 2
            n_elan += 1
    assert n_elan > 40


# ---------------------------------------------------------------------------------------------
# G6 Guerrilla counters by section commander


@pytest.mark.parametrize("counters, spanish, lost, shared", [
    (3, [6, 8, 5], [1, 1, 1], [1, 1, 1]), (5, [6, 8, 5], [2, 2, 1], [2, 2, 1]),
    (4, [6, 8, 5], [1, 2, 1], [1, 2, 1]), (4, [3, 8, 5], [0, 2, 1], [0, 2, 2]),
    (5, [3, 8, 5], [0, 2, 2], [0, 3, 2]), (5, [4, 4, 4], [2, 2, 1], [2, 2, 1]),
    (3, [4, 9, 3], [1, 1, 0], [1, 2, 0]), (2, [0, 3, 4], [0, 0, 2], [0, 0, 2]),
    (1, [5, 6, 6], [0, 1, 0], [0, 1, 0]), (0, [6, 8, 5], [0, 0, 0], [0, 0, 0]),
    (3, [3, 2, 0], [0, 0, 0], [0, 0, 0]), (4, [0, 0, 0], [0, 0, 0], [0, 0, 0]),
])
def test_guerrilla_split(counters, spanish, lost, shared):
    # rule G6: fewer than four Spanish units: no counter. guerrilla_share = lost (default): an
    # even split among all the commanders, an ineligible one's share not given out; shared: an
    # even split among the eligible ones. Every extra counter (the remainder) goes to an eligible
    # commander, one each from the most Spanish units (leftmost on ties), again from the first when
    # extras outnumber them; with nobody eligible every counter stays unassigned
    assert guerrilla_split(counters, spanish) == guerrilla_split(counters, spanish, "lost") == lost
    assert guerrilla_split(counters, spanish, "shared") == shared


SPANISH_35 = {"sides.S.guerrilla": 5, "sides.S.sections.L.spanish": 3}  # split L 0, C 3, R 2


@pytest.mark.parametrize("game_format, over, g_start", [
    ("epic3", None, [1, 1, 1, 0]),        # CIC C 1, sub 1 L 1, sub 2 R 1
    ("epic3", SPANISH_35, [2, 0, 2, 0]),  # CIC C 2, sub 1 L none (3 Spanish units), sub 2 R 2
    ("epic4", SPANISH_35, [0, 0, 2, 2]),  # Corps L none (its share lost), C 2, R 2
])
def test_guerrilla_counters_start_with_the_section_commanders(game_format, over, g_start):
    # rule G6: with 3 or 4 players a side the Spanish counters are split by section commander;
    # the French hold none
    sim = sim_for(EPIC3, {"scenario.format": game_format, **(over or {})})
    sc = sim.scenario
    split = guerrilla_split(sc.sides[1].guerrilla, [x.spanish for x in sc.sides[1].sections])
    assert commander_config(sc)[2].tolist() == [[0, 0, 0], split]
    gcfg = guerrilla_config(sc)
    # the counters nobody may hold (guerrilla_share = lost) stay in the unacquired pool
    assert gcfg[0, layout.G_POOL0] == sc.guerrilla_pool + sc.sides[1].guerrilla - sum(split)
    res = sim.run(500, seed=51, check=True, per_game=True)
    assert (res.commander_rows[:, 1, :, layout.CM_G_START] == g_start).all()
    assert (res.commander_rows[:, 0, :, layout.CM_G_START] == 0).all()
    assert res.metric("invariant_violations").tolist() == [0, 0]  # counters conserved
    total = sc.guerrilla_pool + sc.sides[1].guerrilla  # held or in the pool, lost shares included
    rows = res.per_game[:, 1]
    gone = rows[:, M["g_spent"]] - rows[:, M["g_stopped_by_sabre"]]  # G1: out of play once used
    assert (rows[:, M["g_held_end"]] + rows[:, M["g_pool_end"]] + gone == total).all()


@pytest.mark.parametrize("game_format", ["epic3", "epic4"])
def test_counters_no_commander_may_hold_go_to_the_pool(game_format):
    # rule G6, rule G4: no Spanish section has four Spanish units: no commander gets a counter
    # and none can be gained; the scenario's counters join the unacquired pool
    over = {"scenario.format": game_format, **{f"sides.S.sections.{x}.spanish": 3 for x in "LCR"}}
    sim = sim_for(EPIC3, over)
    sc = sim.scenario
    assert commander_config(sc)[2].tolist() == [[0, 0, 0], [0, 0, 0]]
    gcfg = guerrilla_config(sc)
    assert gcfg[0, layout.G_POOL0] == sc.guerrilla_pool + sc.sides[1].guerrilla == 9
    assert gcfg[:, layout.G_START].tolist() == [0, 0]
    res = sim.run(500, seed=52, check=True, per_game=True)
    assert res.metric("invariant_violations").tolist() == [0, 0]
    rows = res.per_game[:, 1]
    assert (rows[:, M["g_pool_end"]] == 9).all() and (rows[:, M["g_held_end"]] == 0).all()
    assert res.metric("g_spent").tolist() == [0, 0] and res.metric("g_acquired").tolist() == [0, 0]
    assert res.commanders[:, :, layout.CM_G_START].sum() == 0
    # and with the counters in epic2 they would all be the CIC's (G6, 1-2 a side)
    two = load_scenario(EPIC3, overrides={**over, "scenario.format": "epic2"})
    assert guerrilla_config(two)[1, layout.G_START] == 3


FRENCH, SPANISH = 0, 1


@pytest.mark.parametrize("game_format, over, french", [("epic3", None, GREEDY), ("epic3", SPANISH_35, RANDOM),
                                               ("epic4", SPANISH_35, GREEDY)])
def test_a_section_counter_targets_only_a_french_card_in_that_section(game_format, over, french):
    # rule G5, rule S4, rule G6, rule G4: a counter held in the Spanish section y (by its
    # commander) is spent only against a French card played in the section facing it, the French
    # section 2 - y (each side names sections from its own seat), never a multi-section card, at most one a
    # French turn, at every chance (spend mode 0); a Scout in a section with four Spanish units
    # or more gains a counter for that section; counters are conserved (G1: a counter that
    # nullified a card is out of play)
    sim = sim_for(EPIC3, {"scenario.format": game_format, **(over or {})}, french, GREEDY)
    sc = sim.scenario
    spanish = [x.spanish for x in sc.sides[SPANISH].sections]
    start = guerrilla_split(sc.sides[SPANISH].guerrilla, spanish)
    total = sc.guerrilla_pool + sc.sides[SPANISH].guerrilla  # the ones nobody holds are in the pool
    ct = sim.cards
    _, traced = games(sim, 53, 60)
    seen = Counter()
    for met, ps in traced:
        held = list(start)
        pool = total - sum(start)
        for rows in ps:
            s = int(one(rows, layout.EV_TURN)[SIDE])
            cards = played(sim, one(rows, layout.EV_CHOICE))
            att = rows_of(rows, layout.EV_G_ATTEMPT)
            gain = rows_of(rows, layout.EV_G_GAIN)
            if s == SPANISH:
                assert len(att) == 0
                for row in gain:
                    x = int(row[A])
                    assert spanish[x] >= 4
                    assert any(ct.scout[t] and px == x for t, _, px in cards)
                    held[x] += 1
                    pool -= 1
                    assert row[B] == pool >= 0
                    seen["gain"] += 1
                continue
            assert len(gain) == 0
            targets = {(k, x) for k, (t, kd, x) in enumerate(cards) if x >= 0 and held[2 - x] > 0}
            seen["multi"] += sum(held) > 0 and any(kd == KIND_MULTI for _, kd, _ in cards)
            # counters held, a card placed, but none in a section holding a counter: no attempt
            seen["held elsewhere"] += sum(held) > 0 and not targets and max(c[2] for c in cards) >= 0
            assert len(att) == (1 if targets else 0)
            if targets:
                k, x, _, roll, outcome = (int(v) for v in att[0, A:F])
                assert (k, x) in targets and cards[k][2] == x
                assert outcome != layout.G_OUT_DECLINED
                assert (outcome == layout.G_OUT_NULLIFIED) == (roll != 5)
                held[2 - x] -= 1  # the Spanish section facing the French card spends it
                pool += 0 if outcome == layout.G_OUT_NULLIFIED else 1  # G1: used up, or back
                seen["attempt"] += 1
        gone = met[SPANISH, M["g_spent"]] - met[SPANISH, M["g_stopped_by_sabre"]]
        assert min(held) >= 0 and sum(held) + pool + gone == total
        assert met[SPANISH, M["g_held_end"]] == sum(held) and met[SPANISH, M["g_pool_end"]] == pool
    assert seen["attempt"] > 300 and seen["gain"] > 10 and seen["multi"] > 50
    assert seen["held elsewhere"] > 50


# ---------------------------------------------------------------------------------------------
# one player a side is untouched by the commander layer


def test_epic1_has_no_commander_metrics_and_the_same_results():
    # rule E2, rule M4: EPIC one a side ignores the commander inputs: the same totals for the
    # shipped symmetric scenario and the same scenario with format epic1 set explicitly (built
    # twice), and for the kernel called with other commander tables; no per-commander metric is
    # ever counted and the summary lists no commander rows (epic3 does)
    ref = Simulation.build("symmetric").run(2000, 5, per_game=True)
    assert ref.sim.scenario.format == "epic1"
    for _ in range(2):
        sc = load_scenario("symmetric", overrides={"scenario.format": "epic1"})
        again = Simulation.build(sc).run(2000, 5, per_game=True)
        for name in ("totals", "per_game", "rack_wait", "tactician_turns", "commanders"):
            assert np.array_equal(getattr(again, name), getattr(ref, name)), name
    assert ref.commanders.sum() == 0 and ref.commander_rows is None  # no all-zero rows kept
    assert ref.metric("turns").tolist() == [2000 * 30] * 2
    # the commander arrays (the three kernel inputs before the rule options) are read only with
    # 2-4 players a side
    kind, args = ref.sim.kernel_args()
    odd = (*args[:-4], np.array([[1, 2, 0], [2, 0, 1]], np.int64), np.full((2, 4), 7, np.int64),
           args[-2] + 1, args[-1])
    out = play_chunk((kind, odd), seed_key(5), 0, 2000, False, False)
    assert np.array_equal(out.totals, ref.totals)
    assert out.commander_totals.sum() == 0
    names = ref.summary()["metric"]
    assert not names.str.contains(".", regex=False).any()
    three = sim_for(EPIC3).run(200, 5).summary()["metric"]
    assert three.str.startswith("c1.").any() and three.str.startswith("cic.").any()
    assert not three.str.startswith("c3.").any()  # epic3 has three players a side


@pytest.mark.parametrize("game_format", ["standard", "epic1", "epic2", "epic3", "epic4", "lgb"])
def test_game_length_is_the_scenario_turn_limit(game_format):
    # rule V1: a game lasts the scenario's fixed number of turns per side, in every format, so
    # card-flow statistics compare across formats
    deck = "ccn70" if game_format == "standard" else "gmt90"
    sc = load_scenario("formats-armies", overrides={"scenario.format": game_format, "scenario.turns": 7,
                                                    "scenario.deck": deck})
    res = Simulation.build(sc, (("random", {}), ("random", {}))).run(300, seed=11, per_game=True)
    turns = res.per_game[:, :, layout.M_TURNS]
    assert (turns == 7).all()
    assert res.guerrilla_turns.shape == (3, 7) and res.tactician_turns.shape == (2, 7)
