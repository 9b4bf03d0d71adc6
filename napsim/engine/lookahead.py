"""The planned kernel: EPIC 1-4 a side and the standard game with a `lookahead` side (rule P8).

A separate kernel, compiled only when a side plays `lookahead` (napsim.sim.runner picks it), so
the greedy kernel of napsim.engine.epic and its compile stay as they were. Both play a turn with
the same helper, napsim.engine.epic._ply.

The planning (napsim.engine.planner, one algorithm for every format) drives this format's turn
through EPIC_OPS (layout.TurnOps): `_choice_point` plays a turn up to its card choice (the turn's
first step, epic._turn_choice), `_turn` a whole turn with the planner's Decisions, `_candidates`
lists the card choice's candidates: every legal (hand card, rack card) pair with one placement, in
greedy order (the greedy choice first, then by P1 score, one per pair of card types; a pair's
placement is greedy's for the greedy pair, else one of its tied best placements, picked by a hash
of the decision's key). A rollout switches to its own stream where the decision's turn leaves the
game's draws: after the card choice for the choice and the spend (the French card is known before
the die), after the Scout's two cards for the keep; there too a fair rollout deals the opponent's
hand again from the cards the player has not seen (napsim.engine.unseen).

The real turn is then played with those choices given, on the game's own stream; the policy's own
draws of the card choice are still made, so the stream is consumed as greedy would consume it up
to the spend (a counter spent rolls its die, one kept does not; a rollout's kept counter draws and
drops the die, layout G_KEEP_DIE, so that both candidates see the same numbers afterwards). D = 0,
or a turn with a single candidate, plays the greedy choice. The lookahead plans the card choice,
the Spanish spend and the Scout keep: its stars (P3), Guerrilla gaining (P5), the target of a
counter (P4) and First Strike (P7) are greedy's.
"""

import numpy as np
from numba import njit

from napsim.engine import jit
from napsim.engine.blocks import add_game
from napsim.engine.choice import _pin_of
from napsim.engine.epic import (
    _end_game,
    _game_scratch,
    _ply,
    _turn_choice,
    chunk_on,
    game_of,
    game_state,
    start_of_game,
    trace_on,
)
from napsim.engine.epic_guerrilla import held_counters
from napsim.engine.jit import counted, inlined, outlined
from napsim.engine.layout import (
    G_FRENCH,
    G_OFF,
    G_RULE,
    MAX_HAND,
    P_KEEP_WEIGHT,
    P_KIND,
    PIN_LAYER,
    PIN_LIST,
    PR_SCOUT_A,
    PR_SCOUT_B,
    PR_SCOUT_KEEP,
    RACK,
    RD_LATE,
    RD_POST,
    RES_CA,
    RES_HAND,
    RES_PROBE,
    RES_RACK,
    RES_RMAP,
    WAIT_BINS,
    EpicArgs,
    Plan,
    TurnOps,
)
from napsim.engine.planner import (
    ALL_GAME,
    CA_CODE,
    N_CAND,
    STEP_KEEP,
    decide,
    greedy_order,
    hash_pick,
    plans_spend,
    put_candidate,
    rollouts_a_candidate,
)
from napsim.engine.unseen import kernel_deals

N_WORK = 20  # arrays of the rollout scratch (work_scratch)


# the turn of napsim.engine.epic, called (not inlined) from this kernel's three call sites
_turn = outlined(getattr(_ply, "py_func", _ply))  # the plain function under NUMBA_DISABLE_JIT


@inlined
def copy_cards(gm, wgm):
    """What EPIC and LGB games share into the rollout scratch wgm from the game gm (each a game
    bundle, layout.EpicGame or its La Grande Battles twin): the stream, the counters array st,
    the draw pile, discards, rack, the CIC hands and Square Tracks."""
    wgm.rs[0] = gm.rs[0]
    wgm.rs[1] = gm.rs[1]
    for i in range(gm.st.shape[0]):
        wgm.st[i] = gm.st[i]
    for i in range(gm.pn[0]):
        wgm.pile[i] = gm.pile[i]
    for i in range(gm.dn[0]):
        wgm.disc[i] = gm.disc[i]
    for j in range(gm.rn[0]):
        wgm.rack[j] = gm.rack[j]
        wgm.rack_t[j] = gm.rack_t[j]
    for k in range(2):
        for i in range(gm.hn[k]):
            wgm.hand[k, i] = gm.hand[k, i]
        for i in range(gm.sqn[k]):
            wgm.sq[k, i] = gm.sq[k, i]


@inlined
def _copy_state(gm, wgm):
    """The game's state (its cards, counters, Guerrilla state and stream) into the scratch."""
    copy_cards(gm, wgm)
    for k in range(2):
        for i in range(gm.gst.shape[1]):
            wgm.gst[k, i] = gm.gst[k, i]
        for i in range(gm.tacc.shape[1]):
            wgm.tacc[k, i] = gm.tacc[k, i]


@inlined
def _choice_point(ply, tab, ctx, wgm):
    """The turn of ply `ply` played on wgm up to its card choice (its first step, epic._turn_choice):
    (the policy's choice (hand slot, rack slot, placement, -1), the choice point (command column c,
    hand and rack cards on offer, E4, the Counter-Attack pin))."""
    s = (tab.first + ply) % 2
    hi, rj, p, _, c, n_h, n_r, e4, pin_y, _ = _turn_choice(ply, s, wgm.rs, np.bool_(False), ctx[2],
                                                           tab, wgm)
    return (hi, rj, p, np.int64(-1)), (np.int64(c), np.int64(n_h), np.int64(n_r), np.int64(e4),
                                       np.int64(pin_y))


@inlined
def _turn_epic(ply, streams, dec, tab, ctx, gm, check):
    """One turn (epic._ply, called) with the planner's Decisions dec; ctx (units, Guerrilla
    histogram, Counter-Attack types, Guerrilla counters in all)."""
    units, g_turn, n_ca, g_total = ctx
    _turn(ply, streams, dec, tab, gm, units, g_turn, check, n_ca, g_total)


@inlined
def _streams(switch, rs, rs2):
    """The turn's streams (rs, rs_post, rs_late): rs before the switch, rs2 from it on."""
    return (rs if switch > 0 else rs2, rs if switch > 1 else rs2, rs if switch > 2 else rs2)


@inlined
def _switch(step):
    """Where a decision's rollouts leave the game's draws for their own, and deal the unseen cards
    again: after the card choice for the choice and the spend, after the Scout's two cards for the
    keep."""
    if step == STEP_KEEP:
        return np.int64(2), np.int64(RD_LATE)
    return np.int64(1), np.int64(RD_POST)


@inlined
def _own_hidden(p, pol):
    """EPIC has no Corps commanders: only the opponent's hand is unseen."""
    return np.bool_(False)


@inlined
def _scout_record(wgm):
    """The last Scout draw's two cards and P2's keep (napsim.engine.cardflow.scout_keep)."""
    rec = wgm.res_scratch
    return rec[RES_PROBE, PR_SCOUT_A], rec[RES_PROBE, PR_SCOUT_B], rec[RES_PROBE, PR_SCOUT_KEEP]


@inlined
def _spend_planned(s, o, tab, gm):
    """Whether the Spanish side o plans its spend in the French turn of side s (planner.plans_spend
    on EPIC's Guerrilla settings and counters)."""
    gcfg = tab.gcfg
    return plans_spend(o, tab.pol, gcfg[o, G_RULE] != G_OFF, gcfg[s, G_FRENCH] == 1,
                       held_counters(gm.gst, o))


@inlined
def _candidates(p, choice, point, dkey, tab, wgm, cand, cscore):
    """The candidates of the card choice into cand (planner.N_CAND columns), in greedy order: the
    greedy choice first, then by P1 score (play_val less the keep term), one per pair of card
    types. A placement is the greedy one for the greedy pair, else one of the pair's tied best
    placements, picked by a hash of dkey. Returns how many (0: nothing legal, the policy's)."""
    if choice[0] == -1:
        return np.int64(0)
    c, n_h, n_r, e4, pin_y = point
    n = _candidate_pairs(p, c, n_h, n_r, e4, pin_y, choice, dkey, tab, wgm, cand, cscore)
    return greedy_order(n, cand, cscore)


@inlined
def _candidate_pairs(s, c, n_h, n_r, e4, pin_y, greedy_choice, dkey, tab, wgm, cand, cscore):
    """The legal pairs of the choice into cand and their P1 scores into cscore (the greedy choice
    scored +inf), one per pair of card types; the greedy choice appended if the list misses it.
    Returns how many."""
    ghi, grj, gp, _ = greedy_choice
    pol, ctab, best_val, best_list, play_val = tab.pol, tab.ctab, tab.best_val, tab.best_list, \
        tab.play_val
    hand, rack, res = wgm.hand, wgm.rack, wgm.res_scratch
    void = ctab.shape[0] - 1
    if grj == -1 and n_r > 0:
        n_r = 0  # no legal pair: the hand card alone (as in _ply)
    keep_w = pol[s, P_KEEP_WEIGHT]
    n = 0
    found = False
    for i in range(max(n_h, 1)):
        ra = res[RES_HAND, i]
        for j in range(max(n_r, 1)):
            rb = res[RES_RACK, j]
            q = _pin_of(s, i, j, n_h, n_r, pin_y, ctab, hand, rack)
            if q == -2:
                continue
            v = play_val[s, e4 if q < 0 else PIN_LAYER + q, c, ra, rb]
            if v < -1.0e8:  # illegal
                continue
            hi = i if n_h > 0 else -2
            rj = j if n_r > 0 else -1
            code = (np.int64(hand[s, i]) if n_h > 0 else void) * (void + 1) + (
                np.int64(rack[j]) if n_r > 0 else void)
            greedy = hi == ghi and rj == grj
            if greedy:
                p = gp
                score = np.inf
                found = True
            elif q >= 0:
                at = PIN_LIST + 4 * q
                p = best_list[s, c, ra, rb, at + 1 + hash_pick(dkey, code, best_list[s, c, ra, rb, at])]
                score = v - keep_w * best_val[s, c, void, ra]
            else:
                p = best_list[s, c, ra, rb, hash_pick(dkey, code, tab.best_k[s, c, ra, rb])]
                score = v - keep_w * best_val[s, c, void, ra]
            m = 0
            while m < n and cand[m, CA_CODE] != code:
                m += 1
            if m < n and not greedy:
                continue  # the same cards as an earlier candidate
            put_candidate(cand, m, (np.int64(hi), np.int64(rj), np.int64(p), np.int64(-1)), code)
            cscore[m] = score
            n = max(n, m + 1)
    if not found:  # the greedy choice leads even where the list would not hold it
        put_candidate(cand, n, greedy_choice, -1)
        cscore[n] = np.inf
        n += 1
    return n


@counted
def work_scratch(n_cards, n_types, turns, n_k):
    """The rollout scratch of one thread's run of blocks: (the state arrays of
    napsim.engine.epic._game_scratch, a second stream, rollout histograms (rack waits, Guerrilla
    attempts, Tactician cards per turn), the candidate arrays (cand, cscore, cval), a Guerrilla
    histogram for a lean scenario's real games, each candidate's n_k rollout values)."""
    n_cand = (MAX_HAND + n_cards) * RACK + 2
    return (_game_scratch(n_cards, n_types), np.empty(2, np.uint64),
            np.zeros((4, WAIT_BINS), np.int64), np.zeros((3, turns), np.int64),
            np.zeros((2, turns), np.int64), np.zeros((n_cand, N_CAND), np.int64),
            np.zeros(n_cand, np.float64), np.zeros(n_cand, np.float64),
            np.zeros((3, turns), np.int64), np.zeros((n_cand, n_k), np.float64))


def planned_state(tab: EpicArgs) -> tuple:
    """The state of one thread's call of play_blocks_planned: the game's (epic.game_state), the
    rollouts' tables (tab with both sides greedy) and scratch (work_scratch), allocated here because
    the kernel counts no references; and whether a side plans fair (unseen.kernel_deals: None
    compiles no deal of unseen cards into the kernel)."""
    pol_roll = tab.pol.copy()
    pol_roll[:, P_KIND] = 0.0  # the rollouts: both sides greedy
    work = getattr(work_scratch, "py_func", work_scratch)(tab.deck.shape[0], tab.counts.shape[0],
                                                          tab.turns, rollouts_a_candidate(tab.pol))
    return game_state(tab.deck, tab.counts), tab._replace(pol=pol_roll), work, kernel_deals(tab.pol)


@inlined
def epic_ops():
    """EPIC's turn as the planner drives it (layout.TurnOps)."""
    return TurnOps(_copy_state, _choice_point, _turn_epic, _streams, _switch, _own_hidden,
                   _candidates, _scout_record, _spend_planned)


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks_planned(b_lo, b_hi, nb, run_key, first_game, n, tab, units, gturn_b, check,
                        per_game, out, state):
    """napsim.engine.epic.play_blocks on the planned kernel: its games with the planner's choices
    (napsim.engine.planner) for every side whose policy is `lookahead` with lookahead_d > 0, the
    other sides as there. The game loop is here, not in a function of its own, so that numba
    optimises and compiles the planned game once (a trace plays one block of one game on it, as
    epic.trace_game does); without reference counting, on the state planned_state allocates: the
    game's, the rollouts' tables (greedy both sides) and the rollout scratch with the candidates
    (cand, cscore, cval), and whether a side plans fair (None: no deal of unseen cards compiled)."""
    mom_b, rows, wait_b, cmet_b, crows, tturn_b, trace, tn = out
    game_st, tab_roll, (wstate, wrs2, wwait, wgturn, wtturn, cand, cscore, cval, g_lean,
                                cvals), fair = state
    wgm = game_of(wstate, wwait, wtturn, wstate[14], wstate[15])
    plan = Plan(tab_roll, wgm, wrs2, cand, cscore, cval, cvals, fair)
    ops = epic_ops()
    for b in range(b_lo, b_hi):
        gm = game_of(game_st, wait_b[b], tturn_b[b], trace, tn)
        # a lean scenario (no Guerrillas: gturn_b None, epic.specialised) still passes an array, so
        # that the real turn and the rollouts' turns call _turn with one signature (one compiled
        # copy); the Guerrilla phase of such a game changes nothing (the full kernel plays it alike)
        g_turn = g_lean if gturn_b is None else gturn_b[b]
        for g in range((n * b) // nb, (n * (b + 1)) // nb):
            game = first_game + g
            gm.cmet[:, :, :] = 0  # (start_of_game zeroes it with 2-4 a side only)
            g_total, n_ca = start_of_game(game, run_key, tab, gm)
            for i in range(gm.res_scratch.shape[1]):  # the card map and Counter-Attack types
                wgm.res_scratch[RES_RMAP, i] = gm.res_scratch[RES_RMAP, i]
                wgm.res_scratch[RES_CA, i] = gm.res_scratch[RES_CA, i]
            ctx = (units, g_turn, n_ca, g_total)
            ctx_roll = (units, wgturn, n_ca, g_total)
            for ply in range(2 * tab.turns):
                dec = decide(ply, (tab.first + ply) % 2, (run_key, game), ops, tab, ctx_roll, gm,
                             plan)
                ops.turn(ply, ops.streams(ALL_GAME, gm.rs, gm.rs), dec, tab, ctx, gm, check)
            _end_game(tab.players_a_side >= 2, tab.gcfg, gm.gst, gm.tac, gm.tacc, gm.met, gm.cmet)
            add_game(b, g, gm.met, gm.cmet, mom_b, cmet_b, rows, crows, per_game,
                     tab.players_a_side >= 2)


def play_chunk_planned(run_key, first_game, n, *args):
    """napsim.engine.epic.play_chunk on the planned kernel: the same arguments and outputs."""
    tab = EpicArgs(*args[:-2])  # the last two: check, per_game
    return chunk_on(play_blocks_planned, run_key, first_game, n, *args,
                    state=lambda: planned_state(tab))


def trace_game_planned(run_key, game, *args, max_events=20000):
    """napsim.engine.epic.trace_game on the planned kernel: the same arguments and outputs."""
    return trace_on(play_blocks_planned, planned_state(EpicArgs(*args)), run_key, game, *args,
                    max_events=max_events)


jit.check_cache_folder(globals())  # its cached kernels live in this version's cache folder
