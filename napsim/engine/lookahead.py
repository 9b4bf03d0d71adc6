"""The planned kernel: EPIC 1-4 a side and the standard game with a `lookahead` side (rule P8).

A separate kernel, compiled only when a side plays `lookahead` (napsim.sim.runner picks it), so
the greedy kernel of napsim.engine.epic and its compile stay as they were. Both play a turn with
the same helper, napsim.engine.epic._ply.

At each turn of a lookahead side, `_plan` (no recursion, no allocation):

1. copies the game's state and stream into caller-owned scratch and plays the turn there up to
   the choice point (`_ply` with PROBE): the hand and rack as the real turn will see them, and the
   greedy choice it would make (P1);
2. lists the candidates, every legal (hand card, rack card) pair with one placement, in greedy
   order (the greedy choice first, then by P1 score); cards of the same types count once; only the
   first `lookahead_top` when that is not 0;
3. plays each candidate out K = `lookahead_k` times: the state copied again, the
   turn played with the candidate forced, then the next 2 D plies (D = `lookahead_d` own turns),
   both sides greedy. The draws before the choice are the game's own (already made when the
   player chooses); from the choice on they come from rollout stream k, keyed on (run key, game,
   ply, k) with a salt, the same for every candidate (common random numbers). A candidate's value
   is the mean over the K rollouts of what each ply of the window adds (`ply_gain`), the ply n
   turns after the decision's weighed by discount ** n: the side's effective orders in its own
   plies (`lookahead_value` own), or its effective orders less the opponent's in every ply
   (margin, the default). With `lookahead_info` fair (the default) each rollout knows only what
   the player can know: where the decision's ply leaves the game's draws for the rollout's, it
   deals the opponent's hand again from the cards the player has not seen (the draw pile and that
   hand, napsim.engine.unseen), the same for every candidate; open rollouts see the real hand;
4. returns the candidate of the highest value (ties: the earlier in greedy order).

5. In a French turn, once the French card is chosen (by a planning French side as above, else by
   its policy), a planning Spanish side holding a counter decides whether to spend it
   (`_plan` too): the French turn is played on a copy as the real one will be; where P4
   offers a counter, the two candidates, greedy's decision first, are played out as in 3 from that
   turn (rollout streams k + 512), the keep candidate drawing and dropping the battle die the spend
   rolls (layout G_KEEP_DIE) so that both see the same numbers afterwards.

6. In its own turn, once its card choice (and any Spanish spend against it) is known, a planning
   side whose turn draws a Scout's two cards decides which to keep (`lookahead_keep` plan; `_plan`
   too): the turn is played on a copy as the real one will be, up to the Command draw, which
   shows the two cards (res_scratch[RES_PROBE]); where they differ, the two candidates, P2's keep
   first, are played out as in 3 (rollout streams k + 768), the decision's ply on the game's own
   draws up to the two cards and on the rollout's after them (`_ply`'s rs_late), so that no
   candidate sees a draw the player has not seen.

The real turn is then played with those choices forced, on the game's own stream; the policy's own
draws of the card choice are still made, so the stream is consumed as greedy would consume it up
to the spend (a counter spent rolls its die, one kept does not). D = 0, or a turn with a single
candidate, plays the greedy choice. The lookahead plans the card choice, the Spanish spend and the
Scout keep: its stars (P3), Guerrilla gaining (P5), the target of a counter (P4) and First Strike
(P7) are greedy's. Extending it to those means forcing them in `_ply` the way the card choice, the
spend and the keep are forced, and listing them among the candidates.
"""

import numpy as np
from numba import njit

from napsim.engine import jit
from napsim.engine.blocks import add_game
from napsim.engine.choice import _pin_of
from napsim.engine.epic import (
    CHOOSE,
    PROBE,
    _end_game,
    _game_scratch,
    _ply,
    chunk_on,
    decisions,
    game_of,
    game_state,
    start_of_game,
    trace_on,
)
from napsim.engine.jit import counted, inlined, outlined
from napsim.engine.layout import (
    G_FRENCH,
    G_HELD_ANY,
    G_HELD_L,
    G_KEEP,
    G_KEEP_DIE,
    G_OFF,
    G_POLICY,
    G_RULE,
    G_SPEND,
    INFO_FAIR,
    K_FIRST,
    K_POLICY,
    K_SECOND,
    KEEP_PLAN,
    KIND_LOOKAHEAD,
    M_EFF,
    M_G_OFFERED,
    M_G_SPENT,
    M_SCOUT,
    MAX_HAND,
    P_KEEP_WEIGHT,
    P_KIND,
    P_LOOKAHEAD_D,
    P_LOOKAHEAD_DISCOUNT,
    P_LOOKAHEAD_INFO,
    P_LOOKAHEAD_K,
    P_LOOKAHEAD_KEEP,
    P_LOOKAHEAD_TOP,
    P_LOOKAHEAD_VALUE,
    PIN_LAYER,
    PIN_LIST,
    PR_SCOUT_A,
    PR_SCOUT_B,
    PR_SCOUT_KEEP,
    RACK,
    RD_LATE,
    RD_NONE,
    RD_POST,
    RES_CA,
    RES_HAND,
    RES_PROBE,
    RES_RACK,
    RES_RMAP,
    VALUE_MARGIN,
    WAIT_BINS,
    EpicArgs,
)
from napsim.engine.rng import game_key, mix64
from napsim.engine.unseen import redeal_code

STEP_CHOICE, STEP_SPEND, STEP_KEEP = 0, 1, 2  # the decisions _plan plans (its `step`)
_SALT = np.uint64(0x6C6F6F6B61686561)  # "lookahea": rollout streams apart from the game's
_GAMMA = np.uint64(0xD1B54A32D192ED03)
_S32 = np.uint64(32)
N_WORK = 20  # arrays of the rollout scratch (work_scratch)


# the turn of napsim.engine.epic, called (not inlined) from this kernel's three call sites
_turn = outlined(getattr(_ply, "py_func", _ply))  # the plain function under NUMBA_DISABLE_JIT


@inlined
def rollout_key(run_key, game, ply, k):
    """The key of rollout stream k (0-1023) of the decision at ply `ply` of game `game`: the card
    choice's rollouts use k 0-254, the spend's 512-766, the Scout keep's 768-1022 (`lookahead_k`
    is at most 255) and the candidates' tie-breaks 1023."""
    return mix64(game_key(run_key ^ _SALT, game) ^ (np.uint64(ply * 1024 + k + 1) * _GAMMA))


@inlined
def _hash_pick(key, code, n):
    """A number in [0, n) from a hash of (key, code): no draw from any stream."""
    return np.int64(((mix64(key ^ np.uint64(code)) >> _S32) * np.uint64(n)) >> _S32)


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
def _candidates(s, point, greedy_choice, dkey, tab, wgm, cand, cscore):
    """The candidates of a choice into cand[m] = (hand slot, rack slot, placement, card code), in
    greedy order: the greedy choice (ghi, grj, gp) first, then by P1 score (play_val less the keep
    term), one per pair of card types. A placement is the greedy one for the greedy pair, else one
    of the pair's tied best placements, picked by a hash of dkey. point: the choice point (c, hand
    and rack cards on offer, E4, the Counter-Attack pin) as the probe found it. Returns how many."""
    c, n_h, n_r, e4, pin_y = point
    n = _candidate_pairs(s, c, n_h, n_r, e4, pin_y, greedy_choice, dkey, tab, wgm, cand, cscore)
    return _greedy_order(n, cand, cscore)


@inlined
def _candidate_pairs(s, c, n_h, n_r, e4, pin_y, greedy_choice, dkey, tab, wgm, cand, cscore):
    """The legal pairs of the choice into cand and their P1 scores into cscore (the greedy choice
    scored +inf), one per pair of card types; the greedy choice appended if the list misses it.
    Returns how many."""
    ghi, grj, gp = greedy_choice
    pol, ctab, best_val, best_list, play_val = tab.pol, tab.ctab, tab.best_val, tab.best_list, \
        tab.play_val
    hand, rack, res = wgm.hand, wgm.rack, wgm.res_scratch
    void = ctab.shape[0] - 1
    if grj == -1 and n_r > 0:
        n_r = 0  # no legal pair: the hand card alone (as in _ply)
    keep_w = pol[s, P_KEEP_WEIGHT]
    e4i = 1 if e4 else 0
    n = 0
    found = False
    for i in range(max(n_h, 1)):
        ra = res[RES_HAND, i]
        for j in range(max(n_r, 1)):
            rb = res[RES_RACK, j]
            q = _pin_of(s, i, j, n_h, n_r, pin_y, ctab, hand, rack)
            if q == -2:
                continue
            v = play_val[s, e4i if q < 0 else PIN_LAYER + q, c, ra, rb]
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
                p = best_list[s, c, ra, rb, at + 1 + _hash_pick(dkey, code, best_list[s, c, ra, rb, at])]
                score = v - keep_w * best_val[s, c, void, ra]
            else:
                p = best_list[s, c, ra, rb, _hash_pick(dkey, code, tab.best_k[s, c, ra, rb])]
                score = v - keep_w * best_val[s, c, void, ra]
            m = 0
            while m < n and cand[m, 3] != code:
                m += 1
            if m < n and not greedy:
                continue  # the same cards as an earlier candidate
            cand[m, 0] = hi
            cand[m, 1] = rj
            cand[m, 2] = p
            cand[m, 3] = code
            cscore[m] = score
            n = max(n, m + 1)
    if not found:  # the greedy choice leads even where the list would not hold it
        cand[n, 0] = ghi
        cand[n, 1] = grj
        cand[n, 2] = gp
        cand[n, 3] = -1
        cscore[n] = np.inf
        n += 1
    return n


@inlined
def _greedy_order(n, cand, cscore):
    """Sort the n candidates by score, highest first, stably (insertion sort): greedy order.
    Returns n."""
    for m in range(1, n):  # insertion sort, stable: greedy order
        for x in range(4):
            cand[n, x] = cand[m, x]
        sc = cscore[m]
        k = m
        while k > 0 and cscore[k - 1] < sc:
            for x in range(4):
                cand[k, x] = cand[k - 1, x]
            cscore[k] = cscore[k - 1]
            k -= 1
        for x in range(4):
            cand[k, x] = cand[n, x]
        cscore[k] = sc
    return n


@inlined
def _effective(met, s):
    return met[s, M_EFF] + met[s, M_EFF + 1] + met[s, M_EFF + 2]


@inlined
def _value(met, s, margin):
    """What a rollout counts for side s (P8, `lookahead_value`): its effective orders, less the
    opponent's under the margin reading."""
    v = _effective(met, s)
    if margin:
        v -= _effective(met, 1 - s)
    return v


@inlined
def ply_gain(met, s, before, margin, own, off, weight, discount):
    """The rollout value of one ply (module text, 3) and the weight of the next: `before` is
    _value(met, s, margin) before the ply, `own` whether the ply is side s's, `off` the ply's
    distance from the decision's. Ply `off` weighs discount ** (off // 2); the own reading counts
    own plies only."""
    gain = 0.0
    if margin or own:
        gain = weight * (_value(met, s, margin) - before)
    if off % 2 == 1:
        weight *= discount
    return gain, weight


@inlined
def _best(n, cval):
    """The candidate of the highest value (ties: the earlier)."""
    best = 0
    for m in range(1, n):
        if cval[m] > cval[best] + 1e-9:
            best = m
    return best


@inlined
def _probe(step, ply, p, given, tab, units, counters, gm, work):
    """The probes of a decision: its ply played on a copy of the game as the real turn will play it.
    x 0, up to the choice point (PROBE: the choice greedy, or the French policy, makes); x 1, for the
    spend and the keep, the whole turn with that choice forced (a forced choice's draws are still
    made, so the policy's own choice plays as it would, a random one's too), and for the keep the
    spend decided. Returns (the card choice, the choice point (c, hand and rack cards on offer, E4,
    the pin), p's Guerrilla offers, spends and Scout draws before the last probe)."""
    wgm, _, wgturn = work[:3]
    fh, fr, fp, fg = given
    wmet = wgm.met
    n_ca, g_total = counters
    no = np.bool_(False)
    offered = wmet[p, M_G_OFFERED]
    spent = wmet[p, M_G_SPENT]
    scouts = wmet[p, M_SCOUT]
    point = (np.int64(0), np.int64(0), np.int64(0), np.bool_(False), np.int64(-1))
    for x in range(2):
        if (x == 0 and (step == STEP_CHOICE or fh == CHOOSE)) or (x == 1 and step != STEP_CHOICE):
            offered = wmet[p, M_G_OFFERED]
            spent = wmet[p, M_G_SPENT]
            scouts = wmet[p, M_SCOUT]
            how = np.int64(PROBE) if x == 0 else fh  # a variable: numba's call takes no branch
            g_probe = fg if step == STEP_KEEP else np.int64(G_POLICY)
            _copy_state(gm, wgm)
            hi, rj, pp, cx, n_hx, n_rx, e4x, pin_yx = _turn(
                ply, (wgm.rs, wgm.rs, wgm.rs), decisions(how, fr, fp, g_probe, K_POLICY, RD_NONE),
                tab, wgm, units, wgturn, no, n_ca, g_total)
            if x == 0:
                fh, fr, fp = hi, rj, pp
                point = (cx, n_hx, n_rx, e4x, pin_yx)
    return (fh, fr, fp), point, (offered, spent, scouts)


@inlined
def _rollout_values(step, ply, p, n, keys, tabs, units, counters, gm, work):
    """Step 3 of the module text: each of the n candidates of cand played out lookahead_k times
    from ply `ply` (the candidate forced: the card choice, and for the spend or the keep its
    decision, cand[m, 3]); the draws up to the choice are the game's own (for the keep, up to the
    Scout's two cards), the rest rollout stream k (k + 512 for the spend, k + 768 for the keep),
    the same for every candidate. Their values into cval."""
    wgm, wrs2, wgturn, cand, _, cval = work
    tab, tab_roll = tabs
    run_key, game, fg = keys
    pol = tab.pol
    spend = step == STEP_SPEND
    keep = step == STEP_KEEP
    end = min(ply + 2 * np.int64(pol[p, P_LOOKAHEAD_D]) + 1, 2 * tab.turns)
    discount = pol[p, P_LOOKAHEAD_DISCOUNT]
    margin = pol[p, P_LOOKAHEAD_VALUE] == VALUE_MARGIN
    # P8 fair: at the decision, the opponent's hand is dealt again from the cards p has not seen
    # (napsim.engine.unseen), where the turn leaves the game's draws for the rollout's
    redeal = np.int64(RD_NONE)
    if pol[p, P_LOOKAHEAD_INFO] == INFO_FAIR:
        redeal = redeal_code(np.int64(RD_LATE if keep else RD_POST), 1 - p, np.bool_(False))
    no = np.bool_(False)
    for m in range(n):
        cval[m] = 0.0
    for k in range(np.int64(pol[p, P_LOOKAHEAD_K])):
        for m in range(n):
            _copy_state(gm, wgm)
            wrs2[0] = rollout_key(run_key, game, ply, k + 512 if spend else (k + 768 if keep else k))
            wrs2[1] = np.uint64(0)
            weight = 1.0
            for t in range(ply, end):
                # the game's draws before this turn's choice, then the rollout's
                dec = decisions(CHOOSE, cand[m, 1], cand[m, 2], G_POLICY, K_POLICY, RD_NONE)
                pre = wrs2
                post = wrs2
                if t == ply:
                    pre = wgm.rs
                    dec = decisions(cand[m, 0], cand[m, 1], cand[m, 2],
                                    cand[m, 3] if spend else (fg if keep else G_POLICY),
                                    cand[m, 3] if keep else K_POLICY, redeal)
                    if keep:
                        post = wgm.rs
                before = _value(wgm.met, p, margin)
                _turn(t, (pre, post, wrs2), dec, tab_roll, wgm, units, wgturn, no, counters[0],
                      counters[1])
                gain, weight = ply_gain(wgm.met, p, before, margin, (tab.first + t) % 2 == p, t - ply,
                                        weight, discount)
                cval[m] += gain


@inlined
def _plan(step, ply, p, given, keys, tabs, units, counters, gm, work):
    """One planned decision of side p at ply `ply` (module text): (hand slot, rack slot,
    placement, decision). `step` STEP_CHOICE: p's card choice (steps 1-4), or (CHOOSE, -1, 0) to
    leave it to the greedy policy; the decision G_POLICY. STEP_SPEND: the Spanish side p's spend
    decision in the French turn (step 5; layout G_*, G_POLICY where P4 offers no counter), whose
    card choice given = (fh, fr, fp, fg) holds (CHOOSE: the French policy's; returned as given).
    STEP_KEEP: which of a Scout's two cards p keeps in its own turn (step 6; layout K_*, K_POLICY
    where the turn draws no two different cards), the card choice and the spend fg given (returned
    as given). keys (run key, game index); tabs (the tables, the rollouts' tables: greedy both
    sides); counters (Counter-Attack types, Guerrilla counters in all); work the rollout scratch
    (play_blocks_planned). One function for all three, so that the planned kernel compiles the
    planning once: every jitted function between the kernel and the turn optimises the turn's code
    once more (napsim.engine.jit.outlined)."""
    wgm, _, _, cand, cscore, _ = work
    tab = tabs[0]
    fg = given[3]
    choice, point, before = _probe(step, ply, p, given, tab, units, counters, gm, work)
    fh, fr, fp = choice
    if step != STEP_CHOICE:  # two candidates: the rule's decision first (P4 spends, P2 keeps), then the other
        none, greedy, other, idle = two_candidates(step == STEP_SPEND, wgm.met, p, before[0],
                                                   before[1], before[2], wgm.res_scratch[RES_PROBE])
        if none:
            return given[0], given[1], given[2], idle
        for m in range(2):
            cand[m, 0] = fh
            cand[m, 1] = fr
            cand[m, 2] = fp
            cand[m, 3] = greedy if m == 0 else other
        n = np.int64(2)
    else:  # the candidates of the card choice, greedy's first
        if fh == -1:  # nothing legal
            return np.int64(CHOOSE), np.int64(-1), np.int64(0), np.int64(G_POLICY)
        n = _candidates(p, point, choice, rollout_key(keys[0], keys[1], ply, np.int64(1023)), tab,
                        wgm, cand, cscore)
        top = np.int64(tab.pol[p, P_LOOKAHEAD_TOP])
        if top > 0:
            n = min(n, top)
        if n <= 1:
            return fh, fr, fp, np.int64(G_POLICY)
    _rollout_values(step, ply, p, n, (keys[0], keys[1], fg), tabs, units, counters, gm, work)
    best = _best(n, work[5])
    if step == STEP_SPEND:
        return (given[0], given[1], given[2],
                np.int64(G_SPEND if cand[best, 3] == G_SPEND else G_KEEP))
    if step == STEP_KEEP:
        return given[0], given[1], given[2], cand[best, 3]
    return cand[best, 0], cand[best, 1], cand[best, 2], np.int64(G_POLICY)


@inlined
def two_candidates(spend, wmet, p, offered, spent, scouts, scout):
    """The spend's or the Scout keep's two candidates after the probe of the turn (the planned
    kernels of EPIC and La Grande Battles): (none to plan, the rule's decision, the other, the
    decision that leaves it to the rule). The spend: none where P4 offered no counter (M_G_OFFERED
    did not move since `offered`), P4's decision from whether it spent. The keep: none without a
    Scout's two cards (M_SCOUT since `scouts`) or with two of one type, P2's keep from the draw's
    record `scout` (slots PR_SCOUT_*, napsim.engine.cardflow.scout_keep)."""
    if spend:
        greedy = np.int64(G_SPEND if wmet[p, M_G_SPENT] > spent else G_KEEP_DIE)
        none = wmet[p, M_G_OFFERED] == offered
        return none, greedy, G_SPEND + G_KEEP_DIE - greedy, np.int64(G_POLICY)
    greedy = np.int64(scout[PR_SCOUT_KEEP])
    none = wmet[p, M_SCOUT] == scouts or scout[PR_SCOUT_A] == scout[PR_SCOUT_B]
    return none, greedy, K_FIRST + K_SECOND - greedy, np.int64(K_POLICY)


@inlined
def planned_step(step, s, pol, spend_planned):
    """Whether the ply of mover s plans decision `step` (the planned kernels of EPIC and La Grande
    Battles): the card choice where s plays lookahead with lookahead_d > 0; the Scout keep too,
    where it has more than one candidate (lookahead_top not 1) and lookahead_keep is plan; the
    spend where the Spanish side plans it (`spend_planned`)."""
    planner = pol[s, P_KIND] == KIND_LOOKAHEAD and pol[s, P_LOOKAHEAD_D] > 0
    if step == STEP_CHOICE:
        return planner
    if step == STEP_SPEND:
        return spend_planned
    return planner and pol[s, P_LOOKAHEAD_TOP] != 1 and pol[s, P_LOOKAHEAD_KEEP] == KEEP_PLAN


@inlined
def _spend_planned(s, o, pol, gcfg, gst):
    """Whether the Spanish side o plans its spend decision in French turn of side s (P8, P4): it
    plays `lookahead` with lookahead_d > 0 and more than one candidate (lookahead_top not 1), the
    Guerrilla rules are on for it, s is French and o holds a counter."""
    return (pol[o, P_KIND] == KIND_LOOKAHEAD and pol[o, P_LOOKAHEAD_D] > 0
            and pol[o, P_LOOKAHEAD_TOP] != 1 and gcfg[o, G_RULE] != G_OFF and gcfg[s, G_FRENCH] == 1
            and gst[o, G_HELD_ANY] + gst[o, G_HELD_L] + gst[o, G_HELD_L + 1] + gst[o, G_HELD_L + 2] > 0)


@counted
def work_scratch(n_cards, n_types, turns):
    """The rollout scratch of one thread's run of blocks: (the state arrays of
    napsim.engine.epic._game_scratch, a second stream, rollout histograms (rack waits, Guerrilla
    attempts, Tactician cards per turn), the candidate arrays (cand, cscore, cval), a Guerrilla
    histogram for a lean scenario's real games)."""
    n_cand = (MAX_HAND + n_cards) * RACK + 2
    return (_game_scratch(n_cards, n_types), np.empty(2, np.uint64),
            np.zeros((4, WAIT_BINS), np.int64), np.zeros((3, turns), np.int64),
            np.zeros((2, turns), np.int64), np.zeros((n_cand, 4), np.int64),
            np.zeros(n_cand, np.float64), np.zeros(n_cand, np.float64),
            np.zeros((3, turns), np.int64))


def planned_state(tab: EpicArgs) -> tuple:
    """The state of one thread's call of play_blocks_planned: the game's (epic.game_state), the
    rollouts' tables (tab with both sides greedy) and scratch (work_scratch), allocated here because
    the kernel counts no references."""
    pol_roll = tab.pol.copy()
    pol_roll[:, P_KIND] = 0.0  # the rollouts: both sides greedy
    work = getattr(work_scratch, "py_func", work_scratch)(tab.deck.shape[0], tab.counts.shape[0],
                                                          tab.turns)
    return game_state(tab.deck, tab.counts), tab._replace(pol=pol_roll), work


@inlined
def _planned_decisions(ply, s, keys, tabs, units, counters, gm, work):
    """The planned decisions of ply `ply` of mover s, as a Decisions of its real turn: the mover's
    card choice, the Spanish spend, the mover's Scout keep, each planned where planned_step says
    (one call site of _plan)."""
    tab = tabs[0]
    given = (np.int64(CHOOSE), np.int64(-1), np.int64(0), np.int64(G_POLICY))
    fk = np.int64(K_POLICY)
    for step in range(3):
        if planned_step(step, s, tab.pol, _spend_planned(s, 1 - s, tab.pol, tab.gcfg, gm.gst)):
            p = (s + 1) % 2 if step == STEP_SPEND else s
            fh, fr, fp, d = _plan(np.int64(step), ply, p, given, keys, tabs, units, counters, gm,
                                  work)
            given = (fh, fr, fp, d if step == STEP_SPEND else given[3])
            if step == STEP_KEEP:
                fk = d
    return decisions(given[0], given[1], given[2], given[3], fk, RD_NONE)


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks_planned(b_lo, b_hi, nb, run_key, first_game, n, tab, units, gturn_b, check,
                        per_game, out, state):
    """napsim.engine.epic.play_blocks on the planned kernel: its games with the lookahead's choices
    (module text) for every side whose policy is `lookahead` with lookahead_d > 0, the other sides
    as there. The game loop is here, not in a function of its own, so that numba optimises and
    compiles the planned game once (a trace plays one block of one game on it, as epic.trace_game
    does); without reference counting, on the state planned_state allocates: the game's, the
    rollouts' tables (greedy both sides) and the rollout scratch with the candidates (cand, cscore,
    cval)."""
    mom_b, rows, wait_b, cmet_b, crows, tturn_b, trace, tn = out
    game_st, tab_roll, (wstate, wrs2, wwait, wgturn, wtturn, cand, cscore, cval, g_lean) = state
    wgm = game_of(wstate, wwait, wtturn, wstate[14], wstate[15])
    work = (wgm, wrs2, wgturn, cand, cscore, cval)
    tabs = (tab, tab_roll)
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
            counters = (n_ca, g_total)
            for i in range(gm.res_scratch.shape[1]):  # the card map and Counter-Attack types
                wgm.res_scratch[RES_RMAP, i] = gm.res_scratch[RES_RMAP, i]
                wgm.res_scratch[RES_CA, i] = gm.res_scratch[RES_CA, i]
            for ply in range(2 * tab.turns):
                dec = _planned_decisions(ply, (tab.first + ply) % 2, (run_key, game), tabs, units,
                                         counters, gm, work)
                _turn(ply, (gm.rs, gm.rs, gm.rs), dec, tab, gm, units, g_turn, check, counters[0],
                      counters[1])
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
