"""The planner's information set, probed from Python (rule P8): run with NUMBA_DISABLE_JIT=1.

`python tests/support/infoset.py epic|lgb INFO GAMES [LAST_PLY]` plays each game to several plies on the
planned kernel's own functions (plain Python without the JIT), and at each ply asks the planner for
every decision it makes there twice: from the real state, and from a copy in which one card of a
hidden hand (the opponent's; in La Grande Battles the opposing CIC's or a Corps commander's) is
swapped with a card of another type in the draw pile. The two states hold the same unseen cards
(the same multiset in the draw pile and those hands) and the same history. Where the swap leaves
what the player sees at the decision unchanged (the opponent's First Strike, the French card
played, a Scout's two cards), the two decisions are printed as one JSON line a case:
{"step", "game", "ply", "same"}. With `lookahead_info` fair they must always agree; with open they
may differ (tests/test_lookahead_info.py). A fifth argument names the search
(`lookahead_search`, default full).

`python tests/support/infoset.py epic|lgb legal GAMES [LAST_PLY] [SEARCH]` asks instead, at each
decision of those plies, another search (SEARCH: halving, the default, or race) and the full one
from the same state, and prints {"step", "game", "ply", "n", "legal", "same"}: n the decision's
candidates under the full search (-1: none to plan), legal whether the other search's decision is
one of them (or, with none, the same pass-through as full's), same whether the two decide alike.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

assert os.environ.get("NUMBA_DISABLE_JIT") == "1", "run under NUMBA_DISABLE_JIT=1"

from napsim.engine import lookahead as la  # noqa: E402
from napsim.engine import lookahead_lgb as la_lgb  # noqa: E402
from napsim.engine import planner  # noqa: E402
from napsim.engine.decisions import CHOOSE, decisions  # noqa: E402
from napsim.engine.epic import _open_game, game_of  # noqa: E402
from napsim.engine.layout import (  # noqa: E402
    C_FS,
    G_POLICY,
    K_POLICY,
    LST_SCOUT,
    M_SCOUT,
    P_LOOKAHEAD_SEARCH,
    PR_SCOUT_A,
    PR_SCOUT_B,
    RD_NONE,
    RES_CA,
    RES_PROBE,
    RES_RMAP,
    SEARCH_FULL,
    SEARCH_HALVING,
    TRACE_WIDTH,
    WAIT_BINS,
    Plan,
)
from napsim.engine.lgb import _lst_views, _open_game_lgb, lgb_game  # noqa: E402
from napsim.engine.lgb_gifts import gift_records, gift_table  # noqa: E402
from napsim.engine.rng import seed_key  # noqa: E402
from napsim.model.policies import SEARCHES  # noqa: E402
from napsim.model.scenarios import load_scenario  # noqa: E402
from napsim.sim.packing import Simulation  # noqa: E402

SEED = 20261207
STEPS = ("choice", "spend", "keep")
# lgb-symmetric with Spanish Corps commanders on side A against the French B (G4-G6)
LGB_GUERRILLA = {
    "sides.B.french": True, "sides.A.guerrilla_rule": "epic", "sides.A.corps_guerrilla": [1, 1, 1],
    "scenario.guerrilla_pool": 6, "sides.A.sections.L1.spanish": 3, "sides.A.sections.L2.spanish": 2,
    "sides.A.sections.C1.spanish": 2, "sides.A.sections.C2.spanish": 2,
    "sides.A.sections.R1.spanish": 2, "sides.A.sections.R2.spanish": 1,
}


def _copy(arrays):
    return tuple(np.copy(a) if isinstance(a, np.ndarray) else _copy(a) for a in arrays)


def _swaps(rng, game_st, rows, pile_at, pn, ctab, tries=6):
    """Up to `tries` swaps (row, slot, pile slot) of a hidden card with a draw pile card of another
    type, neither a First Strike (whether the opponent holds one shows before the decision).
    rows: (array position in game_st, row index, cards in it) of each hidden hand."""
    pile = game_st[pile_at]
    out = []
    for _ in range(60):
        if len(out) == tries or pn == 0:
            break
        at, idx, n = rows[rng.integers(len(rows))]
        if n == 0:
            continue
        i, j = int(rng.integers(n)), int(rng.integers(pn))
        a, b = int(game_st[at][idx][i]), int(pile[j])
        if a != b and ctab[a, C_FS] == 0 and ctab[b, C_FS] == 0:
            out.append((at, idx, i, j))
    return out


def _swapped(game_st, pile_at, swap):
    other = _copy(game_st)
    at, idx, i, j = swap
    row, pile = other[at][idx], other[pile_at]
    row[i], pile[j] = pile[j], row[i]
    return other


# ---------------------------------------------------------------- EPIC and the standard game

def _game(game_st, wait=None, tturn=None, turns=1):
    """The EpicGame over a game's state arrays (epic.game_of), with fresh records unless given."""
    wait = np.zeros((4, WAIT_BINS), np.int64) if wait is None else wait
    tturn = np.zeros((2, turns), np.int64) if tturn is None else tturn
    return game_of(game_st, wait, tturn, game_st[14], game_st[15])


def _epic(scenario, policies, info, games, plies):
    sim = Simulation.build(load_scenario(scenario), policies, None)
    a = sim.kernel_args()[1]
    key = seed_key(SEED)
    rng = np.random.default_rng(SEED)
    units = None if a.players_a_side < 2 else a.units
    for game in range(games):
        game_st, a_roll, work_st, fair = la.planned_state(a)
        wstate, wrs2, wwait, wgturn, wtturn, cand, cscore, cval, g_lean, cvals = work_st
        work = (Plan(a_roll, _game(wstate, wwait, wtturn), wrs2, cand, cscore, cval, cvals, fair),
                wgturn)
        gm = _game(game_st, turns=a.turns)
        g_total, n_ca = _open_game(np.int64(game), key, a, gm)
        wres = wstate[8]
        wres[RES_RMAP, :] = game_st[8][RES_RMAP, :]
        wres[RES_CA, :] = game_st[8][RES_CA, :]
        for ply in range(2 * a.turns):
            if ply in plies and info == "legal":
                yield from _epic_legal_cases(a, a_roll, game, ply, game_st, units, (n_ca, g_total),
                                             work, g_lean, key)
            elif ply in plies:
                yield from _epic_cases(a, a_roll, game, ply, game_st, units, (n_ca, g_total), work,
                                       g_lean, key, rng)
            _epic_turn(a, ply, gm, units, (n_ca, g_total), g_lean, CHOOSE, -1, 0)


def _epic_turn(a, ply, gm, units, counters, g_turn, fh, fr, fp, fg=G_POLICY, fk=K_POLICY):
    la._turn(np.int64(ply), (gm.rs, gm.rs, gm.rs), decisions(fh, fr, fp, -1, fg, fk, RD_NONE), a,
             gm, units, g_turn, False, counters[0], counters[1])


def _epic_plan(a, a_roll, step, ply, p, fh, fr, fp, fg, game_st, units, counters, work, key, game):
    plan, wgturn = work
    ctx = (units, wgturn, counters[0], counters[1])
    return tuple(int(x) for x in planner.plan(
        np.int64(step), np.int64(ply), np.int64(p),
        (np.int64(fh), np.int64(fr), np.int64(fp), np.int64(-1), np.int64(fg)),
        (key, np.int64(game)), la.epic_ops(), a, ctx, _game(game_st, turns=a.turns), plan))


def _epic_seen(a, step, ply, game_st, units, counters, g_lean, fh, fr, fp):
    """What the player sees of the decision's ply before it decides, played on a copy."""
    st_c = _copy(game_st)
    gm = _game(st_c, turns=a.turns)
    if step == "choice":
        choice, point = la._choice_point(np.int64(ply), a, (units, g_lean) + counters, gm)
        return tuple(int(x) for x in choice[:3] + point)
    if step == "spend":
        return (fh, fr, fp)
    _epic_turn(a, ply, gm, units, counters, g_lean, fh, fr, fp)
    s = (int(a.first) + ply) % 2
    res, met = st_c[8], st_c[11]
    return (int(met[s, M_SCOUT]), int(res[RES_PROBE, PR_SCOUT_A]), int(res[RES_PROBE, PR_SCOUT_B]))


def _epic_cases(a, a_roll, game, ply, game_st, units, counters, work, g_lean, key, rng):
    s = (int(a.first) + ply) % 2
    planner = [int(a.pol[x, 0]) == 2 for x in range(2)]
    gm = _game(game_st, turns=a.turns)
    pn, hn = int(gm.pn[0]), gm.hn
    for step in STEPS:
        p = 1 - s if step == "spend" else s
        if not planner[p]:
            continue
        h = 1 - p
        hand = game_st[3]
        probe = _epic_seen(a, "choice", ply, game_st, units, counters, g_lean, 0, 0, 0)
        fh, fr, fp = probe[:3] if step != "choice" else (CHOOSE, -1, 0)
        stepno = STEPS.index(step)
        base = _epic_plan(a, a_roll, stepno, ply, p, fh, fr, fp, G_POLICY, game_st, units, counters,
                          work, key, game)
        seen = _epic_seen(a, step, ply, game_st, units, counters, g_lean, fh, fr, fp)
        for swap in _swaps(rng, game_st, [(3, h, int(hn[h]))], 1, pn, a.ctab):
            other = _swapped(game_st, 1, swap)
            ohand = other[3]
            if _epic_seen(a, step, ply, other, units, counters, g_lean, fh, fr, fp) != seen:
                continue  # the swap changed what the player sees: another history
            if step == "spend" and hand[s, max(fh, 0)] != ohand[s, max(fh, 0)]:
                continue
            alt = _epic_plan(a, a_roll, stepno, ply, p, fh, fr, fp, G_POLICY, other, units,
                             counters, work, key, game)
            yield {"step": step, "game": game, "ply": ply, "same": base == alt,
                   "live": step == "choice" or base[4] not in (G_POLICY, K_POLICY)}


OTHER_SEARCH = [SEARCH_HALVING]  # the legal mode's search beside full (main sets it)


def _searches(tab):
    """tab with every side's search full, and with it the legal mode's other search."""
    out = []
    for search in (SEARCH_FULL, OTHER_SEARCH[0]):
        pol = tab.pol.copy()
        pol[:, P_LOOKAHEAD_SEARCH] = search
        out.append(tab._replace(pol=pol))
    return out


def _legal(step, got_full, got_half, n, cand):
    """One legal case: the other search's decision among the full search's n candidates (cand
    rows)."""
    if n <= 0:  # nothing to plan: both pass the policy's or the rule's decision on
        legal = got_half == got_full
    elif step == "choice":
        legal = got_half[:4] in {tuple(int(x) for x in cand[m, :4]) for m in range(n)}
    else:
        legal = got_half[4] in {int(cand[m, planner.CA_DECISION]) for m in range(n)}
    return {"step": step, "n": int(n), "legal": bool(legal), "same": got_half == got_full}


def _epic_legal_cases(a, a_roll, game, ply, game_st, units, counters, work, g_lean, key):
    s = (int(a.first) + ply) % 2
    full, half = _searches(a)
    plan = work[0]
    for step in STEPS:
        p = 1 - s if step == "spend" else s
        if int(a.pol[p, 0]) != 2:
            continue
        probe = _epic_seen(a, "choice", ply, game_st, units, counters, g_lean, 0, 0, 0)
        fh, fr, fp = probe[:3] if step != "choice" else (CHOOSE, -1, 0)
        stepno = STEPS.index(step)
        got = [_epic_plan(tab, a_roll, stepno, ply, p, fh, fr, fp, G_POLICY, game_st, units,
                          counters, work, key, game) for tab in (full, half)]
        given = (np.int64(fh), np.int64(fr), np.int64(fp), np.int64(-1), np.int64(G_POLICY))
        ctx = (units, work[1], counters[0], counters[1])
        gm = _game(game_st, turns=a.turns)
        probed = planner._probe(np.int64(stepno), np.int64(ply), np.int64(p), given, la.epic_ops(),
                                full, ctx, gm, plan)
        n = planner._candidates(np.int64(stepno), np.int64(ply), np.int64(p), probed,
                                (key, np.int64(game)), la.epic_ops(), full, plan)
        yield dict(_legal(step, got[0], got[1], n, plan.cand), game=game, ply=ply)


# ---------------------------------------------------------------- La Grande Battles

def _lgb(scenario, policies, info, games, plies, overrides=None):
    sim = Simulation.build(load_scenario(scenario, overrides or {}), policies, None)
    a = sim.kernel_args()[1]
    key = seed_key(SEED)
    rng = np.random.default_rng(SEED)
    gift_t, grec = gift_table(a.best_t), gift_records(a.best_t, a.pol)
    for game in range(games):
        game_st, plan_st, fair = la_lgb.planned_state_lgb(a.deck, a.counts, a.turns, a.pol)
        g_total = _open_game_lgb(np.int64(game), key, a, _lgb_game(a, game_st))
        ctx = (a, game, key, (g_total, gift_t, grec), la_lgb.lgb_plan(a, plan_st, fair))
        for ply in range(2 * a.turns):
            if ply in plies and info == "legal":
                yield from _lgb_legal_cases(ctx, ply, game_st)
            elif ply in plies:
                yield from _lgb_cases(ctx, ply, game_st, rng)
            _lgb_turn(ctx, ply, game_st, CHOOSE, -1, -1, -1)


def _lgb_game(a, game_st):
    """The game bundle (layout.LgbGame) on the arrays of game_st (lgb.lgb_state's order), with
    records of its own and no trace."""
    return lgb_game(game_st, (np.zeros((4, WAIT_BINS), np.int64), np.zeros((3, a.turns), np.int64),
                              np.zeros((2, a.turns), np.int64), np.zeros((0, TRACE_WIDTH), np.int64),
                              np.zeros(1, np.int64)))


def _lgb_turn(ctx, ply, game_st, fh, fr, fa, fb, fg=G_POLICY, fk=K_POLICY):
    a, game, key, turn_ctx, _ = ctx
    rs = game_st[0]
    la_lgb._turn(np.int64(ply), (rs, rs, rs, rs), decisions(fh, fr, fa, fb, fg, fk, RD_NONE), a,
                 turn_ctx, _lgb_game(a, game_st), False)


def _lgb_plan(ctx, step, ply, p, fh, fr, fa, fb, game_st):
    a, game, key, turn_ctx, plan = ctx
    given = (np.int64(fh), np.int64(fr), np.int64(fa), np.int64(fb), np.int64(G_POLICY))
    return tuple(int(x) for x in planner.plan(
        np.int64(step), np.int64(ply), np.int64(p), given, (key, np.int64(game)), la_lgb.lgb_ops(),
        a, turn_ctx, _lgb_game(a, game_st), plan))


def _lgb_seen(ctx, step, ply, game_st, fh, fr, fa, fb):
    """What the player sees of the decision's ply before it decides, played on a copy."""
    st_c = _copy(game_st)
    if step == "choice":
        choice, point = la_lgb._choice_point(np.int64(ply), ctx[0], ctx[3], _lgb_game(ctx[0], st_c))
        return tuple(int(x) for x in choice + point[:3])
    _lgb_turn(ctx, ply, st_c, fh, fr, fa, fb)
    s = (int(ctx[0].first) + ply) % 2
    met, pl, st = st_c[1], st_c[12], st_c[15]
    if step == "spend":  # the French CIC's gifts and the Corps commanders' plays
        return (fh, fr, fa, fb) + tuple(int(x) for x in pl.ravel())
    return (int(met[s, M_SCOUT]), int(st[LST_SCOUT]), int(st[LST_SCOUT + 1]))


def _lgb_cases(ctx, ply, game_st, rng):
    a = ctx[0]
    s = (int(a.first) + ply) % 2
    planner = [int(a.pol[x, 0]) == 2 for x in range(2)]
    pn, _, _, hn = _lst_views(game_st[15])[:4]
    cn = game_st[16]
    for step in STEPS:
        p = 1 - s if step == "spend" else s
        if not planner[p]:
            continue
        h = 1 - p
        probe = _lgb_seen(ctx, "choice", ply, game_st, 0, 0, 0, 0)
        f = probe[:4] if step != "choice" else (CHOOSE, -1, -1, -1)
        stepno = STEPS.index(step)
        base = _lgb_plan(ctx, stepno, ply, p, *f, game_st)
        seen = _lgb_seen(ctx, step, ply, game_st, *f)
        rows = [(5, h, int(hn[h]))] + [(6, (h, kc), int(cn[h, kc])) for kc in range(3)]
        for swap in _swaps(rng, game_st, rows, 3, int(pn[0]), a.ctab):
            other = _swapped(game_st, 3, swap)
            if _lgb_seen(ctx, step, ply, other, *f) != seen:
                continue  # the swap changed what the player sees: another history
            alt = _lgb_plan(ctx, stepno, ply, p, *f, other)
            yield {"step": step, "game": ctx[1], "ply": ply, "same": base == alt,
                   "live": step == "choice" or base[4] not in (G_POLICY, K_POLICY)}


def _lgb_legal_cases(ctx, ply, game_st):
    a, game, key, turn_ctx, plan = ctx
    s = (int(a.first) + ply) % 2
    full, half = _searches(a)
    for step in STEPS:
        p = 1 - s if step == "spend" else s
        if int(a.pol[p, 0]) != 2:
            continue
        probe = _lgb_seen(ctx, "choice", ply, game_st, 0, 0, 0, 0)
        f = probe[:4] if step != "choice" else (CHOOSE, -1, -1, -1)
        stepno = STEPS.index(step)
        got = [_lgb_plan((tab,) + ctx[1:], stepno, ply, p, *f, game_st) for tab in (full, half)]
        given = tuple(np.int64(x) for x in f) + (np.int64(G_POLICY),)
        probed = planner._probe(np.int64(stepno), np.int64(ply), np.int64(p), given, la_lgb.lgb_ops(),
                                full, turn_ctx, _lgb_game(a, game_st), plan)
        n = planner._candidates(np.int64(stepno), np.int64(ply), np.int64(p), probed,
                                (key, np.int64(game)), la_lgb.lgb_ops(), full, plan)
        yield dict(_legal(step, got[0], got[1], n, plan.cand), game=game, ply=ply)


def main() -> None:
    family, info, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
    last = int(sys.argv[4]) if len(sys.argv) > 4 else 20  # the plies probed: 2, 5, ... below this
    search = sys.argv[5] if len(sys.argv) > 5 else ("halving" if info == "legal" else "full")
    if info == "legal":
        OTHER_SEARCH[0] = SEARCHES[search]
        search = "full"
    la_params = {"lookahead_k": 3, "lookahead_d": 1, "lookahead_search": search,
                 "lookahead_info": "fair" if info == "legal" else info}
    plies = set(range(2, last, 3))
    if family == "epic":
        runs = [("symmetric", (("lookahead", la_params), ("lookahead", la_params))),
                ("tamames", (("lookahead", la_params), ("lookahead", la_params)))]
        for scenario, policies in runs:
            for case in _epic(scenario, policies, info, games, plies):
                print(json.dumps(dict(case, scenario=scenario)), flush=True)
    else:
        both = (("lookahead", la_params), ("lookahead", la_params))
        for name, overrides in (("lgb-symmetric", {}), ("lgb-guerrilla", LGB_GUERRILLA)):
            for case in _lgb("lgb-symmetric", both, info, games, plies, overrides):
                print(json.dumps(dict(case, scenario=name)), flush=True)


if __name__ == "__main__":
    main()
