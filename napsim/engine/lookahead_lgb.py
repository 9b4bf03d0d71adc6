"""The planned kernel of La Grande Battles with a `lookahead` side (rule P8).

napsim.engine.lookahead's planning, on the LGB turn: a separate kernel, compiled only when a side
plays `lookahead` (napsim.sim.runner picks it), so the greedy kernel of napsim.engine.lgb and its
compile stay as they were. Both play a turn with the same helper, napsim.engine.lgb._ply_lgb.

At each turn of a lookahead side, `_plan_lgb` (no recursion, no allocation):

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
   discount ** n. With `lookahead_info` fair (the default) each rollout deals the cards the
   player has not seen again where the decision's ply leaves the game's draws for the rollout's:
   the opposing CIC's and Corps commanders' hands, each the same size, from the draw pile and
   those hands (napsim.engine.unseen); with `lookahead_corps` hidden, its own Corps commanders'
   hands too (the default, known: a CIC knows what his Corps commanders hold, docs/rules.md P8);
4. returns the candidate of the highest value (ties: the earlier in greedy order).

5. In a French turn, once the French CIC's choice is made (by a planning French side as above,
   else by its policy), a planning Spanish side whose Corps commanders hold a counter decides
   whether to spend one (`_plan_lgb` too), as in EPIC (napsim.engine.lookahead, 5): the
   French turn is played on a copy as the real one will be, the French Corps commanders' plays
   included; where P4 offers a counter, spend and keep, P4's decision first, are played out as in
   3 from that turn (rollout streams k + 512; the draws up to the Guerrilla attempt are the game's
   own), the keep candidate drawing and dropping the battle die the spend rolls.

6. In its own turn, once its CIC's choice (and any Spanish spend against it) is known, a planning
   side whose CIC draws a Scout's two cards decides which he keeps, the other going to a Corps
   commander as P2 and P6 say (`lookahead_keep` plan), as in EPIC (napsim.engine.lookahead, 6):
   the turn is played on a copy up to the Command draw (st[LST_SCOUT:] shows the two cards), and
   where they differ both keeps, P2's first, are played out as in 3 (rollout streams k + 768), the
   decision's ply on the game's own draws up to the two cards and on the rollout's after them
   (`_ply_lgb`'s rs_after: the receiver's tie, the Corps commanders' draws, the rack's refill).

The real turn is then played with those choices forced, on the game's own stream; the CIC's own
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
    G_KEEP,
    G_POLICY,
    G_SPEND,
    GR_HAND,
    GR_RACK,
    INFO_FAIR,
    K_POLICY,
    KIND_LOOKAHEAD,
    LST_SCOUT,
    M_G_OFFERED,
    M_G_SPENT,
    M_SCOUT,
    MAX_HAND,
    N_CM,
    N_METRICS,
    P_KIND,
    P_LOOKAHEAD_CORPS,
    P_LOOKAHEAD_D,
    P_LOOKAHEAD_DISCOUNT,
    P_LOOKAHEAD_INFO,
    P_LOOKAHEAD_K,
    P_LOOKAHEAD_TOP,
    P_LOOKAHEAD_VALUE,
    RACK,
    RD_AFTER,
    RD_LATE,
    RD_NONE,
    RD_POST,
    S_FRENCH,
    S_G_RULE,
    TRACE_WIDTH,
    VALUE_MARGIN,
    WAIT_BINS,
    LgbArgs,
    LgbDecisions,
    LgbPlan,
)
from napsim.engine.lgb import (
    CHOOSE,
    PROBE,
    _end_game,
    _gift_gain,
    _open_game_lgb,
    _ply_lgb,
    _scratch,
    chunk_on_lgb,
    lgb_game,
    lgb_state,
    trace_on_lgb,
)
from napsim.engine.lgb_gifts import _pairs_ok
from napsim.engine.lookahead import (
    STEP_CHOICE,
    STEP_KEEP,
    STEP_SPEND,
    _best,
    _value,
    copy_cards,
    planned_step,
    ply_gain,
    rollout_key,
    two_candidates,
)
from napsim.engine.unseen import redeal_code

# the turn of napsim.engine.lgb, called (not inlined) from this kernel's call sites: the probes, the
# rollouts and the real turn (one compiled copy: inlined at each, the planned spend took the
# kernel's first compile from 30.6 to 46.3 s of CPU)
_turn_lgb = outlined(getattr(_ply_lgb, "py_func", _ply_lgb))  # the plain function under NUMBA_DISABLE_JIT

N_CAND = 6   # columns of a candidate: hand slot, rack slot, receivers, card code, spend (G_*)


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
def _candidates_lgb(s, e4, ctab, choice, work, cand, cscore):
    """The candidates of the CIC's choice into cand[m] = (hand slot, rack slot, receiver of each,
    card code), in greedy order: the greedy choice (choice: hand slot, rack slot, receivers) first,
    then by greedy's gain (napsim.engine.lgb._gift_gain on the turn's gift scores of the probed
    game `work`), one per (hand card type, rack card type, receivers); the legal ones of
    napsim.engine.lgb_gifts's search. Returns how many."""
    ghi, grj, gka, gkb = choice
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
    _greedy_order(n, cand, cscore)
    return n


@inlined
def _greedy_order(n, cand, cscore):
    """Sort the n candidates by cscore, the highest first; stable (cand[n] is the spare row)."""
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


@inlined
def _two_candidates_lgb(spend, p, offered, spent, scouts, choice, work, cand):
    """The spend's or the Scout keep's two candidates into cand (the CIC choice `choice` with
    the rule's decision first, then the other: lookahead.two_candidates on the probed game `work`).
    Returns (none to plan, the decision that leaves it to the rule)."""
    none, greedy, other, idle = two_candidates(spend, work.met, p, offered, spent, scouts,
                                               work.st[LST_SCOUT:])
    for m in range(2):
        cand[m, 0] = choice[0]
        cand[m, 1] = choice[1]
        cand[m, 2] = choice[2]
        cand[m, 3] = choice[3]
        cand[m, 5] = greedy if m == 0 else other
    return none, idle


@inlined
def _rollout_setup(step, ply, p, tab):
    """The rollouts' settings of side p's decision `step` at ply `ply` (P8): (K, the ply after the
    last one played, the discount, the margin reading, where the unseen cards are dealt again).
    With lookahead_info fair, the opposing hands (and, with lookahead_corps hidden, its own Corps
    commanders') are dealt again from the cards p has not seen (napsim.engine.unseen), where the
    turn leaves the game's draws for the rollout's."""
    pol = tab.pol
    k_roll = np.int64(pol[p, P_LOOKAHEAD_K])
    end = min(ply + 2 * np.int64(pol[p, P_LOOKAHEAD_D]) + 1, 2 * tab.turns)
    discount = pol[p, P_LOOKAHEAD_DISCOUNT]
    margin = pol[p, P_LOOKAHEAD_VALUE] == VALUE_MARGIN
    redeal = np.int64(RD_NONE)
    if pol[p, P_LOOKAHEAD_INFO] == INFO_FAIR:
        at = RD_LATE if step == STEP_SPEND else (RD_AFTER if step == STEP_KEEP else RD_POST)
        redeal = redeal_code(np.int64(at), 1 - p, pol[p, P_LOOKAHEAD_CORPS] == CORPS_HIDDEN)
    return k_roll, end, discount, margin, redeal


@inlined
def _candidate_decisions(m, step, fg, redeal, cand):
    """The decisions of the decision's ply in candidate m's rollouts (layout.LgbDecisions): the
    CIC choice forced, and for the spend or the keep its decision (the keep with the spend fg)."""
    g = np.int64(G_POLICY)
    k = np.int64(K_POLICY)
    if step == STEP_SPEND:
        g = cand[m, 5]
    if step == STEP_KEEP:
        g = fg
        k = cand[m, 5]
    return LgbDecisions(cand[m, 0], cand[m, 1], cand[m, 2], cand[m, 3], g, k, redeal)


@inlined
def _plan_lgb(step, ply, p, dec, run_key, game, tab, g_total, gift_t, grec, gm, plan):
    """One planned decision of side p at ply `ply` (module text) on the game gm and the planner's
    scratch plan (layout.LgbGame, LgbPlan): (hand slot, rack slot, receivers of the CIC's choice,
    decision). `step` STEP_CHOICE: p's CIC's gifts (steps 1-4), G_POLICY. STEP_SPEND: the Spanish
    side p's spend decision in the French turn (step 5; layout G_*, G_POLICY where P4 offers no
    counter), whose CIC choice is dec's (hi, rj, ka, kb) (CHOOSE: the French policy's; returned as
    given). STEP_KEEP: which of a Scout's two cards p's CIC keeps (step 6; layout K_*, K_POLICY
    where the turn draws no two different cards), the choice and the spend dec.g given (returned
    as given). One function for all three, so that the planned kernel compiles the planning once:
    every jitted function between the kernel and the turn optimises the turn's code once more.

    The probes play the decision's ply on a copy of the game as the real turn will play it: x 0,
    up to the CIC's choice (PROBE: the choice greedy, or the French policy, makes); x 1, for the
    spend and the keep, the whole turn with that choice forced (a forced choice's draws are still
    made, so the policy's own choice plays as it would, a random one's too), and for the keep the
    spend decided. The rollouts (step 3): ply `ply` plays candidate m forced (the CIC's choice,
    and for the spend or the keep its decision); the draws up to the decision are the game's own
    (up to the CIC's choice; for the spend up to the Guerrilla attempt, the French Corps
    commanders' plays included; for the keep up to the Scout's two cards), the rest rollout stream
    k (k + 512 for the spend, k + 768 for the keep), the same for every candidate."""
    work, cand, cval, wrs, wrs2 = plan.work, plan.cand, plan.cval, plan.work.rs, plan.rs2
    wmet = work.met
    no = np.bool_(False)
    spend = step == STEP_SPEND
    keep = step == STEP_KEEP
    fh, fr, fa, fb, fg = dec.hi, dec.rj, dec.ka, dec.kb, dec.g
    offered = wmet[p, M_G_OFFERED]
    spent = wmet[p, M_G_SPENT]
    scouts = wmet[p, M_SCOUT]
    e4 = np.bool_(False)
    for x in range(2):  # the probes
        if (x == 0 and (step == STEP_CHOICE or fh == CHOOSE)) or (x == 1 and step != STEP_CHOICE):
            offered = wmet[p, M_G_OFFERED]
            spent = wmet[p, M_G_SPENT]
            scouts = wmet[p, M_SCOUT]
            _copy_state_lgb(gm, work)
            how = np.int64(PROBE) if x == 0 else fh  # a variable: numba's call takes no branch
            probe = LgbDecisions(how, fr, fa, fb, fg if keep else np.int64(G_POLICY),
                                 np.int64(K_POLICY), np.int64(RD_NONE))
            hi, rj, ka, kb, _, e4x, _ = _turn_lgb(ply, (wrs, wrs, wrs, wrs), probe, tab, no, g_total,
                                                  work, gift_t, grec, False)
            if x == 0:
                fh, fr, fa, fb = hi, rj, ka, kb
                e4 = e4x
    if step != STEP_CHOICE:  # two candidates: the rule's decision first (P4 spends, P2 keeps)
        none, idle = _two_candidates_lgb(spend, p, offered, spent, scouts, (fh, fr, fa, fb), work,
                                         cand)
        if none:
            return dec.hi, dec.rj, dec.ka, dec.kb, idle
        n = np.int64(2)
    else:  # the CIC's candidates, greedy's choice first
        n = _candidates_lgb(p, e4, tab.ctab, (fh, fr, fa, fb), work, cand, plan.cscore)
        top = np.int64(tab.pol[p, P_LOOKAHEAD_TOP])
        if top > 0:
            n = min(n, top)
        if n <= 1:
            return fh, fr, fa, fb, np.int64(G_POLICY)
    k_roll, end, discount, margin, redeal = _rollout_setup(step, ply, p, tab)
    rest = LgbDecisions(np.int64(CHOOSE), np.int64(-1), np.int64(-1), np.int64(-1),
                        np.int64(G_POLICY), np.int64(K_POLICY), np.int64(RD_NONE))
    for m in range(n):
        cval[m] = 0.0
    for k in range(k_roll):
        for m in range(n):
            _copy_state_lgb(gm, work)
            wrs2[0] = rollout_key(run_key, game, ply, k + 512 if spend else (k + 768 if keep else k))
            wrs2[1] = np.uint64(0)
            weight = 1.0
            forced = _candidate_decisions(m, step, fg, redeal, cand)
            for t in range(ply, end):
                at = t == ply  # the game's draws before this turn's decision, then the rollout's
                rss = (wrs if at else wrs2, wrs if at and (spend or keep) else wrs2,
                       wrs if at and keep else wrs2, wrs2)
                before = _value(wmet, p, margin)
                _turn_lgb(t, rss, forced if at else rest, plan.tab_roll, no, g_total, work, gift_t,
                          grec, False)
                gain, weight = ply_gain(wmet, p, before, margin, (tab.first + t) % 2 == p, t - ply,
                                        weight, discount)
                cval[m] += gain
    best = _best(n, cval)
    if spend:
        return dec.hi, dec.rj, dec.ka, dec.kb, np.int64(G_SPEND if cand[best, 5] == G_SPEND else G_KEEP)
    if keep:
        return dec.hi, dec.rj, dec.ka, dec.kb, cand[best, 5]
    return cand[best, 0], cand[best, 1], cand[best, 2], cand[best, 3], np.int64(G_POLICY)


@inlined
def _spend_planned_lgb(s, o, pol, scfg, gst):
    """Whether the Spanish side o plans its spend decision in the French turn of side s (P8, P4):
    it plays `lookahead` with lookahead_d > 0 and more than one candidate (lookahead_top not 1),
    the Guerrilla rules are on for it, s is French and one of its Corps commanders holds a
    counter."""
    return (pol[o, P_KIND] == KIND_LOOKAHEAD and pol[o, P_LOOKAHEAD_D] > 0
            and pol[o, P_LOOKAHEAD_TOP] != 1 and scfg[o, S_G_RULE] != 0 and scfg[s, S_FRENCH] == 1
            and gst[o, 0] + gst[o, 1] + gst[o, 2] > 0)


@counted
def work_scratch_lgb(n_cards, n_types, turns, pol):
    """The rollout scratch of one thread's run of blocks: (the rollout policies (greedy both sides),
    the rollout game's arrays in napsim.engine.lgb.lgb_state's order, the rollout stream, the
    rollout game's records (napsim.engine.lgb.lgb_game's), the candidate arrays)."""
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
            np.zeros(n_cand, np.float64), np.zeros(n_cand, np.float64))


def planned_state_lgb(deck, counts, turns, pol) -> tuple:
    """The state of one thread's call of play_blocks_planned_lgb: the game's (lgb.lgb_state) and the
    rollouts' (work_scratch_lgb), allocated here because the kernel counts no references."""
    return lgb_state(deck, counts), work_scratch_lgb(deck.shape[0], counts.shape[0], turns, pol)


@inlined_ir
def roll_tab(tab, pol_roll):
    """The tables of the rollouts (layout.LgbArgs): tab with the rollout policies."""
    return LgbArgs(tab.turns, tab.first, tab.scfg, tab.sqp, pol_roll, tab.ctab, tab.deck, tab.counts,
                   tab.nom_t, tab.eff_t, tab.rem_t, tab.val_t, tab.best_t, tab.bopt_t, tab.units,
                   tab.g_pool0, tab.ropt)


@inlined_ir
def lgb_plan(tab, plan_state):
    """The planner's scratch (layout.LgbPlan) on work_scratch_lgb's arrays."""
    pol_roll, wstate, rs2, records, cand, cscore, cval = plan_state
    return LgbPlan(roll_tab(tab, pol_roll), lgb_game(wstate, records), rs2, cand, cscore, cval)


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks_planned_lgb(b_lo, b_hi, nb, run_key, first_game, n, tab, check, per_game, gift_t,
                            grec, out, trace, tn, state):
    """napsim.engine.lgb.play_blocks_lgb on the planned kernel: its games with the lookahead's gifts
    and Spanish spend (module text) for every side whose policy is `lookahead` with lookahead_d >
    0, the other sides as there. The game loop is here so that numba optimises and compiles the
    planned game once (a trace plays one block of one game on it); without reference counting, on
    the state planned_state_lgb allocates: the game's and the planner's (lgb_plan: the rollouts'
    tables with their greedy policies, their game, the candidates, their greedy order and
    values)."""
    game_st, plan_st = state
    met, cmet = game_st[1], game_st[2]
    plan = lgb_plan(tab, plan_st)
    for b in range(b_lo, b_hi):
        gm = lgb_game(game_st, (out.wait_b[b], out.gturn_b[b], out.tturn_b[b], trace, tn))
        rss = (gm.rs, gm.rs, gm.rs, gm.rs)
        for g in range((n * b) // nb, (n * (b + 1)) // nb):
            game = first_game + g
            met[:, :] = 0
            cmet[:, :, :] = 0
            g_total = _open_game_lgb(game, run_key, tab, gm)
            for ply in range(2 * tab.turns):
                s = (tab.first + ply) % 2
                dec = LgbDecisions(np.int64(CHOOSE), np.int64(-1), np.int64(-1), np.int64(-1),
                                   np.int64(G_POLICY), np.int64(K_POLICY), np.int64(RD_NONE))
                # the mover's gifts, the Spanish spend, the mover's Scout keep: one call site
                for step in range(3):
                    if planned_step(step, s, tab.pol, _spend_planned_lgb(s, 1 - s, tab.pol, tab.scfg,
                                                                         gm.gst)):
                        p = (s + 1) % 2 if step == STEP_SPEND else s
                        fh, fr, fa, fb, d = _plan_lgb(np.int64(step), ply, p, dec, run_key, game, tab,
                                                      g_total, gift_t, grec, gm, plan)
                        dec = LgbDecisions(fh, fr, fa, fb, d if step == STEP_SPEND else dec.g,
                                           d if step == STEP_KEEP else dec.k, dec.redeal)
                _turn_lgb(ply, rss, dec, tab, check, g_total, gm, gift_t, grec, False)
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
