"""The planned kernel of La Grande Battles with a `lookahead` side (rule P8).

napsim.engine.lookahead's planning, on the LGB turn: a separate kernel, compiled only when a side
plays `lookahead` (napsim.sim.runner picks it), so the greedy kernel of napsim.engine.lgb and its
compile stay as they were. Both play a turn with the same helper, napsim.engine.lgb._ply_lgb.

At each turn of a lookahead side, `_lookahead_gifts` (no recursion, no allocation):

1. copies the game's state and stream (piles, hands, Corps hands, rack, squares, counters,
   Tactician cards, Guerrilla counters and pool) into block-owned scratch and plays the turn there
   up to the CIC's choice (`_ply_lgb` with PROBE): the hand, rack and gift scores as the real turn
   will see them, and the greedy choice (L2, P6);
2. lists the candidates, every legal (hand card, rack card, receiver of each) in greedy order (the
   greedy choice first, then by the gain greedy scores gifts with); cards of the same types given
   to the same receivers count once; only the first `lookahead_top` when that is not 0;
3. plays each candidate out K = `lookahead_k` times: the state copied again, the turn played with
   the candidate forced, then the next 2 D plies (D = `lookahead_d` own turns), both sides greedy.
   The draws up to the choice are the game's own; from the choice on they come from rollout stream
   k, keyed on (run key, game, ply, k) as in EPIC (napsim.engine.lookahead.rollout_key), the same
   for every candidate (common random numbers). A candidate's value is the mean over the K rollouts
   of what each ply adds (napsim.engine.lookahead.ply_gain): its side's effective orders, less the
   opponent's under `lookahead_value` margin (the default), the ply n turns ahead weighed by
   discount ** n;
4. returns the candidate of the highest value (ties: the earlier in greedy order).

The real turn is then played with that choice forced, on the game's own stream; the CIC's own draw
of the choice (its tie key) is still made, so the stream is consumed exactly as greedy consumes it.
D = 0, or a turn with a single candidate, plays the greedy choice. Only the CIC's gifts are
planned: the Corps commanders' plays (L5), stars (L7), the Scout gift (P2), Guerrilla spending and
gaining (P4, P5; EPIC plans the spend, napsim.engine.lookahead) and First Strike (P7) are greedy's.
"""

import numpy as np
from numba import njit

from napsim.engine import jit
from napsim.engine.blocks import add_game
from napsim.engine.jit import counted, inlined
from napsim.engine.layout import (
    GR_HAND,
    GR_RACK,
    KIND_LOOKAHEAD,
    MAX_HAND,
    N_CM,
    N_METRICS,
    P_KIND,
    P_LOOKAHEAD_D,
    P_LOOKAHEAD_DISCOUNT,
    P_LOOKAHEAD_K,
    P_LOOKAHEAD_TOP,
    P_LOOKAHEAD_VALUE,
    RACK,
    TRACE_WIDTH,
    VALUE_MARGIN,
    WAIT_BINS,
    LgbArgs,
)
from napsim.engine.lgb import (
    CHOOSE,
    PROBE,
    _end_game,
    _gift_gain,
    _lst_views,
    _open_game_lgb,
    _ply_lgb,
    _scratch,
    chunk_on_lgb,
    lgb_state,
    trace_on_lgb,
)
from napsim.engine.lgb_gifts import _pairs_ok
from napsim.engine.lookahead import _best, _value, copy_cards, ply_gain, rollout_key

N_CAND = 5   # columns of a candidate: hand slot, rack slot, receivers, card code


@inlined
def _copy_state_lgb(rs, pile, disc, hand, chand, rack, rack_t, sq, sq_own, st, cn, tac, gst, wrs,
                    wpile, wdisc, whand, wchand, wrack, wrack_t, wsq, wsq_own, wst, wcn, wtac,
                    wgst):
    """The game's state (its cards, counters, Guerrilla counters and pool, stream) into the
    scratch."""
    pn, dn, rn, hn, sqn = _lst_views(st)[:5]
    copy_cards(rs, st, pn, dn, rn, hn, sqn, pile, disc, hand, rack, rack_t, sq, wrs, wst, wpile,
               wdisc, whand, wrack, wrack_t, wsq)
    for k in range(2):
        for i in range(sqn[k]):
            wsq_own[k, i] = sq_own[k, i]
        for kc in range(3):
            wcn[k, kc] = cn[k, kc]
            wtac[k, kc] = tac[k, kc]
            wgst[k, kc] = gst[k, kc]
            for i in range(cn[k, kc]):
                wchand[k, kc, i] = chand[k, kc, i]


@inlined
def _candidates_lgb(s, n_h, n_r, e4, void, ctab, ghi, grj, gka, gkb, hand, rack, pl, gsc, res,
                    cand, cscore):
    """The candidates of the CIC's choice into cand[m] = (hand slot, rack slot, receiver of each,
    card code), in greedy order: the greedy choice (ghi, grj, gka, gkb) first, then by greedy's
    gain (napsim.engine.lgb._gift_gain on the turn's gift scores gsc, res, pl), one per (hand card
    type, rack card type, receivers); the legal ones of napsim.engine.lgb_gifts's search. Returns
    how many."""
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
                    while m < n and cand[m, 4] != code:
                        m += 1
                    if m < n and not greedy:
                        continue  # the same cards to the same receivers as an earlier candidate
                    cand[m, 0] = hi
                    cand[m, 1] = rj
                    cand[m, 2] = ka
                    cand[m, 3] = kb
                    cand[m, 4] = code
                    cscore[m] = np.inf if greedy else _gift_gain(hi, rj, ka, kb, void, pl, gsc,
                                                                 res)
                    found = found or greedy
                    n = max(n, m + 1)
    if not found:  # the greedy choice leads even where the list would not hold it
        cand[n, 0] = ghi
        cand[n, 1] = grj
        cand[n, 2] = gka
        cand[n, 3] = gkb
        cand[n, 4] = -1
        cscore[n] = np.inf
        n += 1
    for m in range(1, n):  # insertion sort, stable: greedy order
        for x in range(N_CAND):
            cand[n, x] = cand[m, x]
        sc = cscore[m]
        k = m
        while k > 0 and cscore[k - 1] < sc:
            for x in range(N_CAND):
                cand[k, x] = cand[k - 1, x]
            cscore[k] = cscore[k - 1]
            k -= 1
        for x in range(N_CAND):
            cand[k, x] = cand[n, x]
        cscore[k] = sc
    return n


@inlined
def _lookahead_gifts(ply, s, run_key, game, turns, first, scfg, sqp, pol, pol_roll, ctab, counts,
                     nom_t, eff_t, val_t, best_t, bopt_t, units, ropt, g_total, gift_t, grec, rs, pile,
                     disc, hand, chand, rack, rack_t, sq, sq_own, st, cn, tac, gst, work, cand,
                     cscore, cval):
    """The lookahead's (hand slot, rack slot, receivers) at ply `ply` of side s (module text), or
    (CHOOSE, -1, -1, -1) to leave the choice to the greedy policy."""
    (wrs, wrs2, wpile, wdisc, whand, wchand, wrack, wrack_t, wsq, wsq_own, wscratch, wpl, wgsc, wres,
     wst, wcn, wtac, wgst, wmet, wcmet, wwait, wgturn, wtturn, wtrace, wtn) = work
    no = np.bool_(False)
    _copy_state_lgb(rs, pile, disc, hand, chand, rack, rack_t, sq, sq_own, st, cn, tac, gst, wrs,
                    wpile, wdisc, whand, wchand, wrack, wrack_t, wsq, wsq_own, wst, wcn, wtac, wgst)
    ghi, grj, gka, gkb, _, e4, _ = _ply_lgb(
        ply, wrs, wrs, np.int64(PROBE), np.int64(-1), np.int64(-1), np.int64(-1), first, scfg, sqp,
        pol, ctab, counts, nom_t, eff_t, val_t, best_t, bopt_t, units, ropt, no, g_total, wmet,
        wcmet, wwait, wgturn, wtturn, wtrace, wtn, wpile, wdisc, whand, wchand, wrack, wrack_t, wsq,
        wsq_own, wscratch, wpl, wgsc, wres, wcn, wtac, wgst, gift_t, grec, False, wst)
    void = ctab.shape[0] - 1
    _, _, rn, hn = _lst_views(wst)[:4]
    n = _candidates_lgb(s, hn[s], rn[0], e4, void, ctab, ghi, grj, gka, gkb, whand, wrack, wpl,
                        wgsc, wres, cand, cscore)
    top = np.int64(pol[s, P_LOOKAHEAD_TOP])
    if top > 0:
        n = min(n, top)
    if n <= 1:
        return ghi, grj, gka, gkb
    k_roll = np.int64(pol[s, P_LOOKAHEAD_K])
    end = min(ply + 2 * np.int64(pol[s, P_LOOKAHEAD_D]) + 1, 2 * turns)
    discount = pol[s, P_LOOKAHEAD_DISCOUNT]
    margin = pol[s, P_LOOKAHEAD_VALUE] == VALUE_MARGIN
    for m in range(n):
        cval[m] = 0.0
    for k in range(k_roll):
        for m in range(n):
            _copy_state_lgb(rs, pile, disc, hand, chand, rack, rack_t, sq, sq_own, st, cn, tac, gst,
                            wrs, wpile, wdisc, whand, wchand, wrack, wrack_t, wsq, wsq_own, wst,
                            wcn, wtac, wgst)
            wrs2[0] = rollout_key(run_key, game, ply, k)
            wrs2[1] = np.uint64(0)
            weight = 1.0
            for t in range(ply, end):
                pre = wrs2  # the game's draws before this turn's choice, then the rollout's
                forced = np.int64(CHOOSE)
                if t == ply:
                    pre = wrs
                    forced = cand[m, 0]
                before = _value(wmet, s, margin)
                _ply_lgb(t, pre, wrs2, forced, cand[m, 1], cand[m, 2], cand[m, 3], first, scfg, sqp,
                         pol_roll, ctab, counts, nom_t, eff_t, val_t, best_t, bopt_t, units, ropt,
                         no, g_total, wmet, wcmet, wwait, wgturn, wtturn, wtrace, wtn, wpile, wdisc,
                         whand, wchand, wrack, wrack_t, wsq, wsq_own, wscratch, wpl, wgsc, wres,
                         wcn, wtac, wgst, gift_t, grec, False, wst)
                gain, weight = ply_gain(wmet, s, before, margin, (t - ply) % 2 == 0, t - ply,
                                        weight, discount)
                cval[m] += gain
    best = _best(n, cval)
    return cand[best, 0], cand[best, 1], cand[best, 2], cand[best, 3]


@counted
def work_scratch_lgb(n_cards, n_types, turns, pol):
    """The rollout scratch of one thread's run of blocks: (the rollout policies (greedy both sides),
    the state arrays of napsim.engine.lgb._scratch with two streams, rollout metrics and histograms,
    the candidate arrays)."""
    (wpile, wdisc, whand, wchand, wrack, wrack_t, wsq, wsq_own, wscratch, wpl, wgsc, wres, wst, wcn,
     wtac, wgst) = _scratch(n_cards, n_types)
    pol_roll = pol.copy()
    pol_roll[:, P_KIND] = 0.0  # the rollouts: both sides greedy
    work = (np.empty(2, np.uint64), np.empty(2, np.uint64), wpile, wdisc, whand, wchand, wrack,
            wrack_t, wsq, wsq_own, wscratch, wpl, wgsc, wres, wst, wcn, wtac, wgst,
            np.zeros((2, N_METRICS), np.int64), np.zeros((2, 4, N_CM), np.int64),
            np.zeros((4, WAIT_BINS), np.int64), np.zeros((3, turns), np.int64),
            np.zeros((2, turns), np.int64), np.zeros((0, TRACE_WIDTH), np.int64),
            np.zeros(1, np.int64))
    n_cand = max(MAX_HAND + n_cards, 1) * RACK * 9 + 2
    return (pol_roll, work, np.zeros((n_cand, N_CAND), np.int64), np.zeros(n_cand, np.float64),
            np.zeros(n_cand, np.float64))


def planned_state_lgb(deck, counts, turns, pol) -> tuple:
    """The state of one thread's call of play_blocks_planned_lgb: the game's (lgb.lgb_state) and the
    rollouts' (work_scratch_lgb), allocated here because the kernel counts no references."""
    return lgb_state(deck, counts), work_scratch_lgb(deck.shape[0], counts.shape[0], turns, pol)


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks_planned_lgb(b_lo, b_hi, nb, run_key, first_game, n, turns, first, scfg, sqp, pol,
                            ctab, deck, counts, nom_t, eff_t, rem_t, val_t, best_t, bopt_t, units,
                            g_pool0, ropt, check, per_game, gift_t, grec, mom_b, rows, wait_b,
                            gturn_b, cmet_b, crows, tturn_b, trace, tn, state):
    """napsim.engine.lgb.play_blocks_lgb on the planned kernel: its games with the lookahead's gifts
    (module text) for every side whose policy is `lookahead` with lookahead_d > 0, the other sides
    as there. The game loop is here so that numba optimises and compiles the planned game once (a
    trace plays one block of one game on it); without reference counting, on the state
    planned_state_lgb allocates. pol_roll: the policies of the rollouts (greedy both); work: the
    rollout scratch; cand, cscore, cval: the candidates, their greedy order and their values."""
    game_st, (pol_roll, work, cand, cscore, cval) = state
    (rs, met, cmet, pile, disc, hand, chand, rack, rack_t, sq, sq_own, scratch, pl, gsc, res, st, cn,
     tac, gst) = game_st
    pn, dn, rn, hn, sqn, tac_pile, tac_disc, last_hand, pool = _lst_views(st)
    for b in range(b_lo, b_hi):
        wait_hist = wait_b[b]
        g_turn = gturn_b[b]
        tac_turn = tturn_b[b]
        for g in range((n * b) // nb, (n * (b + 1)) // nb):
            game = first_game + g
            met[:, :] = 0
            cmet[:, :, :] = 0
            g_total = _open_game_lgb(rs, game, run_key, first, scfg, ctab, deck, g_pool0, ropt, met,
                                     cmet, trace, tn, pile, disc, hand, chand, rack, rack_t, st, cn,
                                     tac, gst, pn, dn, rn, hn, tac_pile)
            for ply in range(2 * turns):
                s = (first + ply) % 2
                fh, fr, fa, fb = np.int64(CHOOSE), np.int64(-1), np.int64(-1), np.int64(-1)
                if pol[s, P_KIND] == KIND_LOOKAHEAD and pol[s, P_LOOKAHEAD_D] > 0:
                    fh, fr, fa, fb = _lookahead_gifts(
                        ply, s, run_key, game, turns, first, scfg, sqp, pol, pol_roll, ctab, counts,
                        nom_t, eff_t, val_t, best_t, bopt_t, units, ropt, g_total, gift_t, grec, rs,
                        pile, disc, hand, chand, rack, rack_t, sq, sq_own, st, cn, tac, gst, work,
                        cand, cscore, cval)
                _ply_lgb(ply, rs, rs, fh, fr, fa, fb, first, scfg, sqp, pol, ctab, counts, nom_t,
                         eff_t, val_t, best_t, bopt_t, units, ropt, check, g_total, met, cmet,
                         wait_hist, g_turn, tac_turn, trace, tn, pile, disc, hand, chand, rack,
                         rack_t, sq, sq_own, scratch, pl, gsc, res, cn, tac, gst, gift_t, grec,
                         False, st)
            _end_game(scfg, hn, cn, tac, gst, pool, met, cmet)
            add_game(b, g, met, cmet, mom_b, cmet_b, rows, crows, per_game, True)


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


jit.stamp_loaded()  # cached kernels recompile when any kernel source changes
