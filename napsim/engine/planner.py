"""The planning player (rule P8) of every format: one algorithm over a format's turn.

A format hands the planner its turn as napsim.engine.layout.TurnOps (EPIC 1-4 a side and the
standard game: napsim.engine.lookahead; La Grande Battles: napsim.engine.lookahead_lgb), and the
planner decides, at each turn of a `lookahead` side, with no recursion and no allocation:

1. the probe: the decision's turn played on a copy of the game as the real turn will play it, up to
   the decision: the card choice (the policy's choice and what is on offer), or, for the Spanish
   spend and the Scout keep, the whole turn with the choice given (whether P4 offered a counter and
   what it decided; the Scout's two cards and P2's keep);
2. the candidates, in greedy order: the card choice's from the format (every legal choice, cards of
   the same types to the same places once, the greedy choice first, then by its greedy score; only
   the first `lookahead_top` when that is not 0), the spend's and the keep's two (the rule's
   decision first, then the other);
3. the rollouts: each candidate played out K = `lookahead_k` times on a copy of the game: its turn
   with the candidate given, then the next 2 D turns (D = `lookahead_d` own turns), both sides
   greedy. The draws before the decision are the game's own; from the decision on (where the
   format's `switch` says) they come from rollout stream k, keyed on (run key, game, ply, k) with a
   salt, the same for every candidate (common random numbers). With `lookahead_info` fair the
   rollout first deals again what the player cannot see (napsim.engine.unseen) at the same point.
   A candidate's value is the mean over its rollouts of what each turn adds (`ply_gain`): the
   side's effective orders, less the opponent's under the margin reading, the turn n turns after
   the decision's weighed by discount ** n. That is `lookahead_search` full. Halving spends fewer:
   a screen first (each candidate's turn alone, or `lookahead_screen` own turns ahead, on rollout
   0's stream; a screen as deep as the rollouts is rollout 0), then greedy's choice and the best
   others of the screen, `lookahead_finalists` in all, race on rollouts 0, 1, ... in rounds, the
   better half of each round (`halve`) going on to twice the rollouts until one is left, the last
   two with K / 2 each (`first_round`); two candidates alone (a spend, a keep) play K each. The
   rounds are a function of n and K alone: no timing, no block, no thread decides. The race
   plays every candidate's rollouts in turn, rollout 0 for all, then 1, ..., and from rollout 2
   on leaves out each candidate whose mean difference to the leader is below 0 by more than
   RACE_Z standard errors (`race_cut`), until one is left or all have played K;
4. the candidate of the highest value (ties: the earlier in greedy order).

`decide` plans a turn's three decisions in order (the mover's card choice, the Spanish side's
spend against it, the mover's Scout keep), each where `planned_step` says, and returns them as the
real turn's Decisions.
"""

import numpy as np

from napsim.engine.decisions import CHOOSE, decisions, policy_decisions
from napsim.engine.jit import inlined
from napsim.engine.layout import (
    G_KEEP,
    G_KEEP_DIE,
    G_POLICY,
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
    P_KIND,
    P_LOOKAHEAD_D,
    P_LOOKAHEAD_DISCOUNT,
    P_LOOKAHEAD_FINALISTS,
    P_LOOKAHEAD_INFO,
    P_LOOKAHEAD_K,
    P_LOOKAHEAD_KEEP,
    P_LOOKAHEAD_SCREEN,
    P_LOOKAHEAD_SEARCH,
    P_LOOKAHEAD_TOP,
    P_LOOKAHEAD_VALUE,
    SEARCH_HALVING,
    SEARCH_RACE,
    VALUE_MARGIN,
)
from napsim.engine.rng import game_key, mix64
from napsim.engine.unseen import no_deal, rollout_deal

STEP_CHOICE, STEP_SPEND, STEP_KEEP = 0, 1, 2  # the decisions the planner plans (its `step`)
# the columns of a candidate (Plan.cand)
CA_HAND, CA_RACK, CA_PLACE, CA_PLACE_B, CA_CODE, CA_DECISION = 0, 1, 2, 3, 4, 5
N_CAND = 6
ALL_GAME = 4  # a stream switch after every stream of a turn: the game's stream throughout
_SALT = np.uint64(0x6C6F6F6B61686561)  # "lookahea": rollout streams apart from the game's
_GAMMA = np.uint64(0xD1B54A32D192ED03)
RACE_Z = 2.0  # the race search: how many standard errors behind the leader a candidate leaves
_S32 = np.uint64(32)


@inlined
def rollout_key(run_key, game, ply, k):
    """The key of rollout stream k (0-1023) of the decision at ply `ply` of game `game`: the card
    choice's rollouts use k 0-254, the spend's 512-766, the Scout keep's 768-1022 (`lookahead_k`
    is at most 255) and the candidates' tie-breaks 1023."""
    return mix64(game_key(run_key ^ _SALT, game) ^ (np.uint64(ply * 1024 + k + 1) * _GAMMA))


@inlined
def hash_pick(key, code, n):
    """A number in [0, n) from a hash of (key, code): no draw from any stream."""
    return np.int64(((mix64(key ^ np.uint64(code)) >> _S32) * np.uint64(n)) >> _S32)


@inlined
def greedy_order(n, cand, cscore):
    """Sort the n candidates by cscore, the highest first, stably (insertion sort; cand[n] is the
    spare row): greedy order. Returns n."""
    for m in range(1, n):
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
def put_candidate(cand, m, choice, code):
    """Row m of the candidates: the card choice (hand slot, rack slot, place, place_b), its code."""
    for x in range(4):
        cand[m, x] = choice[x]
    cand[m, CA_CODE] = code


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
def two_candidates(spend, wmet, p, offered, spent, scouts, scout):
    """The spend's or the Scout keep's two candidates after the probe of the turn: (none to plan,
    the rule's decision, the other, the decision that leaves it to the rule). The spend: none where
    P4 offered no counter (M_G_OFFERED did not move since `offered`), P4's decision from whether it
    spent. The keep: none without a Scout's two cards (M_SCOUT since `scouts`) or with two of one
    type, P2's keep from the draw's record `scout` (its two cards and P2's keep,
    napsim.engine.cardflow.scout_keep)."""
    if spend:
        greedy = np.int64(G_SPEND if wmet[p, M_G_SPENT] > spent else G_KEEP_DIE)
        none = wmet[p, M_G_OFFERED] == offered
        return none, greedy, G_SPEND + G_KEEP_DIE - greedy, np.int64(G_POLICY)
    card_a, card_b, p2_keep = scout
    greedy = np.int64(p2_keep)
    none = wmet[p, M_SCOUT] == scouts or card_a == card_b
    return none, greedy, K_FIRST + K_SECOND - greedy, np.int64(K_POLICY)


@inlined
def planned_step(step, s, pol, spend_planned):
    """Whether the ply of mover s plans decision `step`: the card choice where s plays lookahead
    with lookahead_d > 0; the Scout keep too, where it has more than one candidate (lookahead_top
    not 1) and lookahead_keep is plan; the spend where the Spanish side plans it
    (`spend_planned`)."""
    planner = pol[s, P_KIND] == KIND_LOOKAHEAD and pol[s, P_LOOKAHEAD_D] > 0
    if step == STEP_CHOICE:
        return planner
    if step == STEP_SPEND:
        return spend_planned
    return planner and pol[s, P_LOOKAHEAD_TOP] != 1 and pol[s, P_LOOKAHEAD_KEEP] == KEEP_PLAN


@inlined
def plans_spend(o, pol, rule, french, held):
    """Whether the Spanish side o plans its spend in a French turn (P8, P4): it plays `lookahead`
    with lookahead_d > 0 and more than one candidate (lookahead_top not 1), its Guerrilla rule is
    on, the mover is French and o holds a counter (`held`)."""
    return (pol[o, P_KIND] == KIND_LOOKAHEAD and pol[o, P_LOOKAHEAD_D] > 0
            and pol[o, P_LOOKAHEAD_TOP] != 1 and rule and french and held > 0)


@inlined
def first_round(n, n_k):
    """The rollouts of the halving search's first round among n candidates of lookahead_k n_k:
    n_k halved once a halving the race needs (3-4 candidates: n_k / 4), at least 1, so that the
    last two play n_k / 2 each; two candidates alone (a spend, a Scout keep) play n_k each."""
    if n <= 2:
        return n_k
    r = n_k
    left = n
    while left > 1 and r > 1:
        left = (left + 1) // 2
        r = r // 2
    return max(r, np.int64(1))


@inlined
def keep_best(n, cval, alive, stay):
    """Of the candidates still in the race (alive 1.0), the `stay` best by value stay, ties to the
    earlier in greedy order, beside any already marked to stay (2.0); the others leave (alive 0.0,
    value -inf). Returns how many are left."""
    for _ in range(stay):
        b = -1
        for m in range(n):
            if alive[m] == 1.0 and (b < 0 or cval[m] > cval[b] + 1e-9):
                b = m
        if b >= 0:
            alive[b] = 2.0
    left = 0
    for m in range(n):
        if alive[m] == 2.0:
            alive[m] = 1.0
            left += 1
        elif alive[m] == 1.0:
            alive[m] = 0.0
            cval[m] = -np.inf
    return left


@inlined
def halve(n, cval, alive):
    """One round of the halving search: the better half (rounded up) of the candidates still in
    the race (all with the same rollouts) stays. Returns how many."""
    left = 0
    for m in range(n):
        if alive[m] == 1.0:
            left += 1
    return keep_best(n, cval, alive, (left + 1) // 2)


@inlined
def finalists(n, cval, alive, race, whole):
    """After the halving search's screen (cval: each candidate's screen value): the greedy choice
    and the race - 1 others of the best screen value race on; their values start again at 0 unless
    the screen was a `whole` rollout (rollout 0, which then counts). Returns how many race."""
    alive[0] = 2.0
    left = keep_best(n, cval, alive, race - 1)
    for m in range(n):
        if alive[m] == 1.0 and not whole:
            cval[m] = 0.0
    return left


@inlined
def race_cut(n, r, cval, cvals, alive):
    """One round of the race search, after r >= 2 rollouts of every candidate still in it (alive
    1.0; cval their sums, cvals each rollout's value): the leader is the highest value (ties: the
    earlier in greedy order); another leaves (alive 0.0, value -inf) once its mean difference to
    the leader, rollout by rollout (common random numbers), is below 0 by more than RACE_Z
    standard errors of such a difference, pooled over the candidates in the race. Returns how
    many stay."""
    lead = -1
    for m in range(n):
        if alive[m] == 1.0 and (lead < 0 or cval[m] > cval[lead] + 1e-9):
            lead = m
    var = 0.0
    others = 0
    for m in range(n):
        if alive[m] == 1.0 and m != lead:
            mean = (cval[m] - cval[lead]) / r
            ss = 0.0
            for k in range(r):
                d = cvals[m, k] - cvals[lead, k] - mean
                ss += d * d
            var += ss / (r - 1)
            others += 1
    se = np.sqrt(var / max(others, 1) / r)
    left = 0
    for m in range(n):
        if alive[m] == 1.0:
            if m != lead and (cval[m] - cval[lead]) / r + RACE_Z * se < -1e-9:
                alive[m] = 0.0
                cval[m] = -np.inf
            else:
                left += 1
    return left


def rollouts_a_candidate(pol: np.ndarray) -> int:
    """The most rollouts a candidate plays (the larger lookahead_k of the two sides): the columns
    of the race search's record of each rollout's value (layout.Plan.cvals)."""
    return max(int(pol[:, P_LOOKAHEAD_K].max()), 1)


@inlined
def _probe(step, ply, p, given, ops, tab, ctx, gm, scratch):
    """Step 1 of the module text, on the rollout game scratch.work: the card choice (given, or the
    policy's where given CHOOSE or the step is the choice), the choice point (format's), and p's
    Guerrilla offers, spends and Scout draws before the whole-turn probe of the spend and the keep."""
    wgm = scratch.work
    wmet = wgm.met
    choice = (given[0], given[1], given[2], given[3])
    point = (np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(0))
    if step == STEP_CHOICE or given[0] == CHOOSE:
        ops.copy(gm, wgm)
        choice, point = ops.choice_point(ply, tab, ctx, wgm)
    before = (wmet[p, M_G_OFFERED], wmet[p, M_G_SPENT], wmet[p, M_SCOUT])
    if step != STEP_CHOICE:
        ops.copy(gm, wgm)
        probe = decisions(choice[0], choice[1], choice[2], choice[3],
                          given[4] if step == STEP_KEEP else G_POLICY, K_POLICY,
                          no_deal(scratch.fair))
        ops.turn(ply, ops.streams(ALL_GAME, wgm.rs, wgm.rs), probe, tab, ctx, wgm, np.bool_(False))
    return choice, point, before


@inlined
def _rollout_values(step, ply, p, n, keys, fg, ops, tab, ctx, gm, scratch):
    """Step 3 of the module text: each of the n candidates of scratch.cand played out lookahead_k
    times from ply `ply` (halving: in rounds, the better half of each round on), their values
    (sums over their rollouts; -inf for a candidate out of the race) into scratch.cval."""
    wgm, cand, cval, rs2 = scratch.work, scratch.cand, scratch.cval, scratch.rs2
    pol = tab.pol
    spend = step == STEP_SPEND
    keep = step == STEP_KEEP
    end = min(ply + 2 * np.int64(pol[p, P_LOOKAHEAD_D]) + 1, 2 * tab.turns)
    discount = pol[p, P_LOOKAHEAD_DISCOUNT]
    margin = pol[p, P_LOOKAHEAD_VALUE] == VALUE_MARGIN
    switch, point = ops.switch(step)
    # P8 fair: what p cannot see, dealt again (None: the kernel compiles no deal)
    redeal = rollout_deal(scratch.fair, pol[p, P_LOOKAHEAD_INFO] == INFO_FAIR, np.int64(point),
                          1 - p, ops.own_hidden(p, pol))
    rest = policy_decisions(no_deal(scratch.fair))
    n_k = np.int64(pol[p, P_LOOKAHEAD_K])
    race = np.int64(pol[p, P_LOOKAHEAD_FINALISTS])
    halving = pol[p, P_LOOKAHEAD_SEARCH] == SEARCH_HALVING
    racing = pol[p, P_LOOKAHEAD_SEARCH] == SEARCH_RACE
    screen = halving and n > race  # every candidate screened on rollout 0's stream, then the race
    screen_end = min(ply + 2 * np.int64(pol[p, P_LOOKAHEAD_SCREEN]) + 1, end)
    whole = screen_end == end  # the screen is rollout 0 itself
    alive = scratch.cscore  # halving: 1.0 a candidate still in the race, 0.0 one out (greedy order is set)
    round_end = first_round(min(n, race), n_k) if halving else n_k
    for m in range(n):
        cval[m] = 0.0
        alive[m] = 1.0
    for kk in range(-1 if screen else 0, n_k):  # kk -1: the screen
        k = max(kk, 0)
        if kk == 0 and screen:
            if finalists(n, cval, alive, race, whole) == 1:
                break
            if whole:
                continue  # the finalists' rollout 0 is their screen
        if kk == round_end:  # halving only: the better half goes on to twice the rollouts
            if halve(n, cval, alive) == 1:
                break
            round_end = min(2 * round_end, n_k)
        if racing and kk >= 2 and race_cut(n, kk, cval, scratch.cvals, alive) == 1:
            break
        for m in range(n):
            if alive[m] == 0.0:
                continue
            ops.copy(gm, wgm)
            rs2[0] = rollout_key(keys[0], keys[1], ply, k + 512 if spend else (k + 768 if keep else k))
            rs2[1] = np.uint64(0)
            weight = 1.0
            v = 0.0
            forced = decisions(cand[m, CA_HAND], cand[m, CA_RACK], cand[m, CA_PLACE],
                               cand[m, CA_PLACE_B],
                               cand[m, CA_DECISION] if spend else (fg if keep else G_POLICY),
                               cand[m, CA_DECISION] if keep else K_POLICY, redeal)
            for t in range(ply, screen_end if kk < 0 else end):
                at = t == ply  # the game's draws before the decision, then the rollout's
                before = _value(wgm.met, p, margin)
                ops.turn(t, ops.streams(switch if at else 0, wgm.rs, rs2), forced if at else rest,
                         scratch.tab_roll, ctx, wgm, np.bool_(False))
                gain, weight = ply_gain(wgm.met, p, before, margin, (tab.first + t) % 2 == p,
                                        t - ply, weight, discount)
                cval[m] += gain
                v += gain
            if racing:
                scratch.cvals[m, k] = v


@inlined
def _candidates(step, ply, p, probed, keys, ops, tab, scratch):
    """Step 2 of the module text into scratch.cand: (how many; 0: leave the decision to the policy,
    -1: no decision to plan, the rule decides)."""
    choice, point, before = probed
    cand = scratch.cand
    if step != STEP_CHOICE:  # the rule's decision first (P4 spends, P2 keeps), then the other
        none, greedy, other, _ = two_candidates(step == STEP_SPEND, scratch.work.met, p, before[0],
                                                before[1], before[2], ops.scout_record(scratch.work))
        if none:
            return np.int64(-1)
        for m in range(2):
            put_candidate(cand, m, choice, -1)
            cand[m, CA_DECISION] = greedy if m == 0 else other
        return np.int64(2)
    n = ops.candidates(p, choice, point, rollout_key(keys[0], keys[1], ply, np.int64(1023)), tab,
                       scratch.work, cand, scratch.cscore)
    top = np.int64(tab.pol[p, P_LOOKAHEAD_TOP])
    if top > 0:
        n = min(n, top)
    return n


@inlined
def plan(step, ply, p, given, keys, ops, tab, ctx, gm, scratch):
    """One planned decision of side p at ply `ply` (module text): (hand slot, rack slot, place,
    place_b, decision). `step` STEP_CHOICE: p's card choice, the decision G_POLICY. STEP_SPEND:
    the Spanish side p's spend (G_*; G_POLICY where P4 offers no counter) in the French turn whose
    card choice `given` holds (CHOOSE: the French policy's; returned as given). STEP_KEEP: which of
    a Scout's two cards p keeps (K_*; K_POLICY without two different cards), the card choice and
    the spend given[4] given (returned as given). keys (run key, game index); ctx the format's
    turn context (its tables' companions, the game's counters)."""
    probed = _probe(step, ply, p, given, ops, tab, ctx, gm, scratch)
    n = _candidates(step, ply, p, probed, keys, ops, tab, scratch)
    idle = np.int64(G_POLICY if step == STEP_SPEND else K_POLICY)
    if n < 0:  # the spend or the keep: nothing to decide
        return given[0], given[1], given[2], given[3], idle
    if n == 0:  # the card choice: nothing legal, the policy's
        return np.int64(CHOOSE), np.int64(-1), np.int64(-1), np.int64(-1), np.int64(G_POLICY)
    if step == STEP_CHOICE and n == 1:
        c = probed[0]
        return c[0], c[1], c[2], c[3], np.int64(G_POLICY)
    _rollout_values(step, ply, p, n, keys, given[4], ops, tab, ctx, gm, scratch)
    best = _best(n, scratch.cval)
    d = scratch.cand[best, CA_DECISION]
    if step == STEP_SPEND:
        return given[0], given[1], given[2], given[3], np.int64(G_SPEND if d == G_SPEND else G_KEEP)
    if step == STEP_KEEP:
        return given[0], given[1], given[2], given[3], d
    cand = scratch.cand
    return (cand[best, CA_HAND], cand[best, CA_RACK], cand[best, CA_PLACE], cand[best, CA_PLACE_B],
            np.int64(G_POLICY))


@inlined
def decide(ply, s, keys, ops, tab, ctx, gm, scratch):
    """The planned decisions of ply `ply` of mover s, as the Decisions of its real turn: the mover's
    card choice, the Spanish spend, the mover's Scout keep, each planned where planned_step says
    (one call site of plan, so that the planned kernel compiles the planning once)."""
    given = (np.int64(CHOOSE), np.int64(-1), np.int64(-1), np.int64(-1), np.int64(G_POLICY))
    keep = np.int64(K_POLICY)
    spend_planned = ops.spend_planned(s, 1 - s, tab, gm)
    for step in range(3):
        if planned_step(step, s, tab.pol, spend_planned):
            p = (s + 1) % 2 if step == STEP_SPEND else s
            fh, fr, fa, fb, d = plan(np.int64(step), ply, p, given, keys, ops, tab, ctx, gm, scratch)
            given = (fh, fr, fa, fb, d if step == STEP_SPEND else given[4])
            if step == STEP_KEEP:
                keep = d
    return decisions(given[0], given[1], given[2], given[3], given[4], keep, no_deal(scratch.fair))
