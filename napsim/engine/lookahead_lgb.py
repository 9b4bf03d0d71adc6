"""The planned kernel of La Grande Battles with a `lookahead` side (rule P8).

napsim.engine.lookahead's planning, on the LGB turn: a separate kernel, compiled only when a side
plays `lookahead` (napsim.sim.runner picks it), so the greedy kernel of napsim.engine.lgb and its
compile stay as they were. Both play a turn with the same helper, napsim.engine.lgb._ply_lgb.

The planning (napsim.engine.planner, one algorithm for every format) drives this format's turn
through lgb_ops (layout.TurnOps): `_choice_point` plays a turn up to the CIC's choice (the turn's
first step, lgb._turn_choice_lgb: the hand, rack and gift scores as the real turn will see them,
and the greedy choice, L2, P6), `_turn_lgb` a whole turn with the planner's Decisions,
`_candidates_lgb` lists the CIC's candidates: every legal (hand card, rack card, receiver of each)
in greedy order (the greedy choice first, then by the gain greedy scores gifts with; cards of the
same types given to the same receivers count once). A rollout switches to its own stream where
the decision's turn leaves the game's draws: after the CIC's gifts for his choice (the Corps
commanders' plays are the rollout's), at the Guerrilla attempt for the spend (the French Corps
commanders' plays are the game's), after the Scout's two cards for the keep (the receiver's tie,
the Corps commanders' draws, the rack's refill are the rollout's); there too a fair rollout deals
again the opposing CIC's and Corps commanders' hands, each the same size, from the draw pile and
those hands (napsim.engine.unseen), and with `lookahead_corps` hidden its own Corps commanders'
hands too (the default, known: a CIC knows what his Corps commanders hold, docs/rules.md P8).

The real turn is then played with those choices given, on the game's own stream; the CIC's own
draw of the choice (its tie key) is still made, so the stream is consumed exactly as greedy
consumes it up to the spend (a counter spent rolls its die, one kept does not). D = 0, or a turn
with a single candidate, plays the greedy choice. The CIC's gifts, the Spanish spend and the
CIC's Scout keep are planned: the Corps commanders' plays (L5), stars (L7), the receiver of the
Scout's other card (P6), the target of a counter (P4, the facing Corps commander's best card),
Guerrilla gaining (P5) and First Strike (P7) are greedy's.
"""

import numpy as np
from numba import njit

from napsim.engine import jit
from napsim.engine.blocks import add_game
from napsim.engine.jit import counted, inlined, inlined_ir, outlined
from napsim.engine.layout import (
    CORPS_HIDDEN,
    GR_HAND,
    GR_RACK,
    LST_SCOUT,
    MAX_HAND,
    N_CM,
    N_METRICS,
    P_KIND,
    P_LOOKAHEAD_CORPS,
    PR_SCOUT_A,
    PR_SCOUT_B,
    PR_SCOUT_KEEP,
    RACK,
    RD_AFTER,
    RD_LATE,
    RD_POST,
    S_FRENCH,
    S_G_RULE,
    TRACE_WIDTH,
    WAIT_BINS,
    LgbArgs,
    Plan,
    TurnOps,
)
from napsim.engine.lgb import (
    _end_game,
    _gift_gain,
    _open_game_lgb,
    _ply_lgb,
    _scratch,
    _turn_choice_lgb,
    chunk_on_lgb,
    lgb_game,
    lgb_state,
    trace_on_lgb,
)
from napsim.engine.lgb_gifts import _pairs_ok
from napsim.engine.lookahead import copy_cards
from napsim.engine.planner import (
    ALL_GAME,
    CA_CODE,
    N_CAND,
    STEP_KEEP,
    STEP_SPEND,
    decide,
    greedy_order,
    plans_spend,
    put_candidate,
    rollouts_a_candidate,
)
from napsim.engine.unseen import kernel_deals

# the turn of napsim.engine.lgb, called (not inlined) from this kernel's call sites: the probes, the
# rollouts and the real turn (one compiled copy: inlined at each, the planned spend took the
# kernel's first compile from 30.6 to 46.3 s of CPU)
_turn_lgb = outlined(getattr(_ply_lgb, "py_func", _ply_lgb))  # the plain function under NUMBA_DISABLE_JIT


@inlined
def _copy_state_lgb(gm, work):
    """The game's state (its cards, counters, Guerrilla counters and pool, stream) into the
    scratch game `work` (both napsim.engine.layout.LgbGame)."""
    copy_cards(gm, work)
    sqn, sq_own, cn, tac, gst, chand = gm.sqn, gm.sq_own, gm.cn, gm.tac, gm.gst, gm.chand
    for k in range(2):
        for i in range(sqn[k]):
            work.sq_own[k, i] = sq_own[k, i]
        for kc in range(3):
            work.cn[k, kc] = cn[k, kc]
            work.tac[k, kc] = tac[k, kc]
            work.gst[k, kc] = gst[k, kc]
            for i in range(cn[k, kc]):
                work.chand[k, kc, i] = chand[k, kc, i]


@inlined
def _choice_point(ply, tab, ctx, wgm):
    """The turn of ply `ply` played on wgm up to the CIC's choice (its first step,
    lgb._turn_choice_lgb): (the policy's choice (hand slot, rack slot, receivers), the choice point
    (command column, E4, the opponent's last hand card, 0, 0))."""
    g_total, gift_t, grec = ctx
    hi, rj, ka, kb, _, c, e4, opp_last, _, _, _ = _turn_choice_lgb(ply, wgm.rs, tab, np.bool_(False),
                                                                   wgm, gift_t, grec, False)
    return (np.int64(hi), np.int64(rj), np.int64(ka), np.int64(kb)), (
        np.int64(c), np.int64(e4), np.int64(opp_last), np.int64(0), np.int64(0))


@inlined
def _turn(ply, streams, dec, tab, ctx, gm, check):
    """One turn (lgb._ply_lgb, called) with the planner's Decisions dec; ctx (Guerrilla counters
    in all, the gift tables)."""
    g_total, gift_t, grec = ctx
    _turn_lgb(ply, streams, dec, tab, check, g_total, gm, gift_t, grec, False)


@inlined
def _streams(switch, rs, rs2):
    """The turn's streams (rs, rs_post, rs_late, rs_after): rs before the switch, rs2 from it on."""
    return (rs if switch > 0 else rs2, rs if switch > 1 else rs2, rs if switch > 2 else rs2,
            rs if switch > 3 else rs2)


@inlined
def _switch(step):
    """Where a decision's rollouts leave the game's draws for their own, and deal the unseen cards
    again: after the CIC's gifts (the choice), at the Guerrilla attempt (the spend), after the
    Scout's two cards (the keep)."""
    if step == STEP_SPEND:
        return np.int64(2), np.int64(RD_LATE)
    if step == STEP_KEEP:
        return np.int64(3), np.int64(RD_AFTER)
    return np.int64(1), np.int64(RD_POST)


@inlined
def _own_hidden(p, pol):
    """With lookahead_corps hidden, p's rollouts deal his own Corps commanders' hands again too."""
    return pol[p, P_LOOKAHEAD_CORPS] == CORPS_HIDDEN


@inlined
def _scout_record(wgm):
    """The last Scout draw's two cards and P2's keep (napsim.engine.cardflow.scout_keep)."""
    st = wgm.st
    return st[LST_SCOUT + PR_SCOUT_A], st[LST_SCOUT + PR_SCOUT_B], st[LST_SCOUT + PR_SCOUT_KEEP]


@inlined
def _spend_planned(s, o, tab, gm):
    gst = gm.gst
    return plans_spend(o, tab.pol, tab.scfg[o, S_G_RULE] != 0, tab.scfg[s, S_FRENCH] == 1,
                       gst[o, 0] + gst[o, 1] + gst[o, 2])


@inlined
def _candidates_lgb(s, choice, point, dkey, tab, work, cand, cscore):
    """The candidates of the CIC's choice into cand (planner.N_CAND columns), in greedy order: the
    greedy choice (choice: hand slot, rack slot, receivers) first, then by greedy's gain
    (napsim.engine.lgb._gift_gain on the turn's gift scores of the probed game `work`), one per
    (hand card type, rack card type, receivers); the legal ones of napsim.engine.lgb_gifts's
    search. Returns how many."""
    ghi, grj, gka, gkb = choice
    e4 = point[1] != 0
    ctab = tab.ctab
    hand, rack, pl, gsc, res = work.hand, work.rack, work.pl, work.gsc, work.res
    n_h = work.hn[s]
    n_r = work.rn[0]
    void = ctab.shape[0] - 1
    n = 0
    found = False
    for i in range(max(n_h, 1)):
        a_void = res[GR_HAND, i] == void
        ta = np.int64(hand[s, i]) if n_h > 0 else void
        for j in range(max(n_r, 1)):
            b_void = res[GR_RACK, j] == void
            tb = np.int64(rack[j]) if n_r > 0 else void
            ok_a, ok_b, both = _pairs_ok(i, j, e4, void, ctab, res)
            for qa in range(3):
                if not (ok_a >> qa) & 1:
                    continue
                for qb in range(3):
                    if not ((ok_b >> qb) & 1 and (both or qa != qb)):
                        continue
                    hi = i if n_h > 0 else -2
                    rj = j if n_r > 0 else -1
                    ka = -1 if a_void else qa
                    kb = -1 if b_void else qb
                    code = ((ta * (void + 1) + tb) * 4 + ka + 1) * 4 + kb + 1
                    greedy = hi == ghi and rj == grj and ka == gka and kb == gkb
                    m = 0
                    while m < n and cand[m, CA_CODE] != code:
                        m += 1
                    if m < n and not greedy:
                        continue  # the same cards to the same receivers as an earlier candidate
                    put_candidate(cand, m, (np.int64(hi), np.int64(rj), np.int64(ka), np.int64(kb)),
                                  code)
                    cscore[m] = np.inf if greedy else _gift_gain(hi, rj, ka, kb, void, pl, gsc,
                                                                 res)
                    found = found or greedy
                    n = max(n, m + 1)
    if not found:  # the greedy choice leads even where the list would not hold it
        put_candidate(cand, n, choice, -1)
        cscore[n] = np.inf
        n += 1
    return greedy_order(n, cand, cscore)


@counted
def work_scratch_lgb(n_cards, n_types, turns, pol, n_k):
    """The rollout scratch of one thread's run of blocks: (the rollout policies (greedy both sides),
    the rollout game's arrays in napsim.engine.lgb.lgb_state's order, the rollout stream, the
    rollout game's records (napsim.engine.lgb.lgb_game's), the candidate arrays, each candidate's
    n_k rollout values)."""
    (wpile, wdisc, whand, wchand, wrack, wrack_t, wsq, wsq_own, wscratch, wpl, wgsc, wres, wst, wcn,
     wtac, wgst) = _scratch(n_cards, n_types)
    pol_roll = pol.copy()
    pol_roll[:, P_KIND] = 0.0  # the rollouts: both sides greedy
    wstate = (np.empty(2, np.uint64), np.zeros((2, N_METRICS), np.int64),
              np.zeros((2, 4, N_CM), np.int64), wpile, wdisc, whand, wchand, wrack, wrack_t, wsq,
              wsq_own, wscratch, wpl, wgsc, wres, wst, wcn, wtac, wgst)
    records = (np.zeros((4, WAIT_BINS), np.int64), np.zeros((3, turns), np.int64),
               np.zeros((2, turns), np.int64), np.zeros((0, TRACE_WIDTH), np.int64),
               np.zeros(1, np.int64))
    n_cand = max(MAX_HAND + n_cards, 1) * RACK * 9 + 2
    return (pol_roll, wstate, np.empty(2, np.uint64), records, np.zeros((n_cand, N_CAND), np.int64),
            np.zeros(n_cand, np.float64), np.zeros(n_cand, np.float64),
            np.zeros((n_cand, n_k), np.float64))


def planned_state_lgb(deck, counts, turns, pol) -> tuple:
    """The state of one thread's call of play_blocks_planned_lgb: the game's (lgb.lgb_state) and the
    rollouts' (work_scratch_lgb), allocated here because the kernel counts no references; and
    whether a side plans fair (unseen.kernel_deals: None compiles no deal of unseen cards)."""
    return (lgb_state(deck, counts), work_scratch_lgb(deck.shape[0], counts.shape[0], turns, pol,
                                                        rollouts_a_candidate(pol)),
            kernel_deals(pol))


@inlined_ir
def roll_tab(tab, pol_roll):
    """The tables of the rollouts (layout.LgbArgs): tab with the rollout policies."""
    return LgbArgs(tab.turns, tab.first, tab.scfg, tab.sqp, pol_roll, tab.ctab, tab.deck, tab.counts,
                   tab.nom_t, tab.eff_t, tab.rem_t, tab.val_t, tab.best_t, tab.bopt_t, tab.units,
                   tab.g_pool0, tab.ropt)


@inlined_ir
def lgb_plan(tab, plan_state, fair):
    """The planner's scratch (layout.Plan) on work_scratch_lgb's arrays; fair: kernel_deals'."""
    pol_roll, wstate, rs2, records, cand, cscore, cval, cvals = plan_state
    return Plan(roll_tab(tab, pol_roll), lgb_game(wstate, records), rs2, cand, cscore, cval, cvals,
                fair)


@inlined
def lgb_ops():
    """La Grande Battles' turn as the planner drives it (layout.TurnOps)."""
    return TurnOps(_copy_state_lgb, _choice_point, _turn, _streams, _switch, _own_hidden,
                   _candidates_lgb, _scout_record, _spend_planned)


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks_planned_lgb(b_lo, b_hi, nb, run_key, first_game, n, tab, check, per_game, gift_t,
                            grec, out, trace, tn, state):
    """napsim.engine.lgb.play_blocks_lgb on the planned kernel: its games with the planner's
    decisions (napsim.engine.planner) for every side whose policy is `lookahead` with lookahead_d >
    0, the other sides as there. The game loop is here so that numba optimises and compiles the
    planned game once (a trace plays one block of one game on it); without reference counting, on
    the state planned_state_lgb allocates: the game's and the planner's (lgb_plan: the rollouts'
    tables with their greedy policies, their game, the candidates, their greedy order and
    values)."""
    game_st, plan_st, fair = state
    met, cmet = game_st[1], game_st[2]
    plan = lgb_plan(tab, plan_st, fair)
    ops = lgb_ops()
    for b in range(b_lo, b_hi):
        gm = lgb_game(game_st, (out.wait_b[b], out.gturn_b[b], out.tturn_b[b], trace, tn))
        for g in range((n * b) // nb, (n * (b + 1)) // nb):
            game = first_game + g
            met[:, :] = 0
            cmet[:, :, :] = 0
            g_total = _open_game_lgb(game, run_key, tab, gm)
            ctx = (g_total, gift_t, grec)
            for ply in range(2 * tab.turns):
                dec = decide(ply, (tab.first + ply) % 2, (run_key, game), ops, tab, ctx, gm, plan)
                ops.turn(ply, ops.streams(ALL_GAME, gm.rs, gm.rs), dec, tab, ctx, gm, check)
            _end_game(tab.scfg, gm.hn, gm.cn, gm.tac, gm.gst, gm.pool, met, cmet)
            add_game(b, g, met, cmet, out.mom_b, out.cmet_b, out.rows, out.crows, per_game, True)


def play_chunk_planned_lgb(run_key, first_game, n, *args):
    """napsim.engine.lgb.play_chunk_lgb on the planned kernel: the same arguments and outputs."""
    a = LgbArgs(*args[:-2])  # the last two: check, per_game
    return chunk_on_lgb(play_blocks_planned_lgb, run_key, first_game, n, *args,
                        state=lambda: planned_state_lgb(a.deck, a.counts, a.turns, a.pol))


def trace_game_planned_lgb(run_key, game, *args, max_events=40000):
    """napsim.engine.lgb.trace_game_lgb on the planned kernel: the same arguments and outputs."""
    a = LgbArgs(*args)
    return trace_on_lgb(play_blocks_planned_lgb, planned_state_lgb(a.deck, a.counts, a.turns, a.pol),
                        run_key, game, *args, max_events=max_events)


jit.check_cache_folder(globals())  # its cached kernels live in this version's cache folder
