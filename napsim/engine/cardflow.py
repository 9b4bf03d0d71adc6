"""The card flow both kernels share (EPIC and La Grande Battles): the event log, draws from the
Command deck (D6) and the Tactician deck (D4), the Elan reshuffle (E9.4, L9), the rack refill
(E9.6), how a card plays this turn (First Strike, Counter-Attack, the roll of a card that rolls
its orders) and one Spanish Guerrilla attempt once its target is chosen (G1, G5, P4).

Every helper is inlined into the kernels by LLVM (napsim.engine.jit.inlined).
"""

import numpy as np
from numba import njit

from napsim.engine.jit import inlined, inlined_cached, inlined_py
from napsim.engine.layout import (
    C_COUNTER,
    C_DICE,
    C_DICE_VAR,
    C_FS,
    C_MIRROR,
    DIE_SABRE,
    EV_DICE,
    EV_ELAN,
    EV_G_ATTEMPT,
    EV_REFILL,
    EV_RESHUFFLE,
    EV_STARVED,
    G_KEEP,
    G_KEEP_DIE,
    G_OUT_DECLINED,
    G_OUT_NULLIFIED,
    G_OUT_SABRE,
    G_SPEND,
    GT_NULLIFIED,
    GT_OFFERED,
    GT_SPENT,
    K_FIRST,
    K_SECOND,
    M_ELAN,
    M_G_NOT_SPENT,
    M_G_NULL_SEC,
    M_G_NULLIFIED,
    M_G_OFFERED,
    M_G_SABRE,
    M_G_SPENT,
    M_REFILLS,
    M_RESHUFFLE,
    M_STARVED,
    M_TAC_DRAWN,
    M_TAC_STARVED,
    NO_TACTICIAN_DECK,
    P_G_SPEND_MODE,
    P_G_THRESHOLD,
    PR_SCOUT_A,
    PR_SCOUT_B,
    PR_SCOUT_KEEP,
    R_SPENT_RETURN_ALL,
    R_TWO_SCOUTS_GAIN,
    RACK,
    SPEND_ALWAYS,
    SPEND_ASSAULT,
    SPEND_THRESHOLD,
)
from napsim.engine.rng import battle_die, bounded, uniform


@inlined
def _trace_event(trace, tn, code, ply, side, a, b, c, d, e, f, g, h):
    """Append one event (only when a trace buffer was given, and room is left in it); every value
    an int64. Without one, nothing is written: the chunk kernels' threads share one empty buffer
    and its counter, and a counter written by every event of both threads made each thread's cache
    line travel to the other core at every event (2 threads ran 1.3-1.6x one, 672fd31's 1.9)."""
    k = tn[0]
    if k < trace.shape[0]:
        trace[k, 0] = code
        trace[k, 1] = ply
        trace[k, 2] = side
        trace[k, 3] = a
        trace[k, 4] = b
        trace[k, 5] = c
        trace[k, 6] = d
        trace[k, 7] = e
        trace[k, 8] = f
        trace[k, 9] = g
        trace[k, 10] = h
        tn[0] = k + 1


@njit(inline="always")
def _trace(trace, tn, code, ply, side, a, b, c, d, e, f, g, h):
    """Append one event (only when a trace buffer was given). Inlined at numba IR level (it is
    tiny), it passes every value on as an int64, so that one compiled copy of _trace_event serves
    all callers (they pass bools, small and 64-bit integers in every mix: 22 copies before)."""
    _trace_event(trace, tn, np.int64(code), np.int64(ply), np.int64(side), np.int64(a),
                 np.int64(b), np.int64(c), np.int64(d), np.int64(e), np.int64(f), np.int64(g),
                 np.int64(h))


@inlined_py
def _draw_card(rs, pile, pn, disc, dn, met, side, trace, tn, ply):
    """The next card of the draw pile, reshuffling the discards into it when it is empty (D6);
    -1 if starved.

    The pile is kept unordered and shuffled lazily: each draw takes a uniformly random card of
    it (one Fisher-Yates step). The cards come out in the same distribution as drawing from the
    top of a fully shuffled pile, at one random draw per card dealt instead of one per card
    shuffled, and a reshuffle is only the move of the discards."""
    if pn[0] == 0:
        if dn[0] == 0:
            met[side, M_STARVED] += 1
            _trace(trace, tn, EV_STARVED, ply, side, 0, 0, 0, 0, 0, 0, 0, 0)
            return -1
        for i in range(dn[0]):
            pile[i] = disc[i]
        pn[0] = dn[0]
        dn[0] = 0
        met[side, M_RESHUFFLE] += 1
        _trace(trace, tn, EV_RESHUFFLE, ply, side, pn[0], 0, 0, 0, 0, 0, 0, 0)
    n = pn[0] - 1
    j = bounded(rs, n + 1)
    t = pile[j]
    pile[j] = pile[n]
    pn[0] = n
    return t


@inlined
def roll_orders(rs, s, ply, who, t, n_dice, ctab, trace, tn):
    """D2: the card type t plays as once rolled. A card that rolls its orders (the deck's dice
    mark) rolls n_dice battle dice, its Command, and each die showing one of the deck's ordering
    faces (the first ctab[t, C_DICE] of the six) orders one unit: it plays as its rolled type with
    that many ordering dice (napsim.sim.tables.card_table). Any other card is t itself, and draws
    nothing from the stream. `who`: the commander who rolls, for the trace (-1: the side's player)."""
    first = ctab[t, C_DICE_VAR]
    if first < 0:
        return t
    faces = ctab[t, C_DICE]
    hits = 0
    for _ in range(n_dice):
        if battle_die(rs) < faces:
            hits += 1
    _trace(trace, tn, EV_DICE, ply, s, t, n_dice, hits, who, 0, 0, 0, 0)
    return first + hits


@inlined
def _take_tactician(tac_pile, tac_disc, met, side):
    """Take one card from the Tactician deck (D4), reshuffled from its discards when empty;
    False (counted as starved) when both are empty, and False uncounted when the Command deck
    comes without a Tactician deck. The caller credits the holder."""
    if tac_pile[0] == 0:
        if tac_disc[0] == NO_TACTICIAN_DECK:
            return False
        tac_pile[0] = tac_disc[0]
        tac_disc[0] = 0
    if tac_pile[0] == 0:
        met[side, M_TAC_STARVED] += 1
        return False
    tac_pile[0] -= 1
    met[side, M_TAC_DRAWN] += 1
    return True


@inlined_py
def _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply):
    """E9.4 / L9 Elan: the draw pile and the discards shuffled together (rack cards stay). The
    pile is shuffled lazily (_draw_card), so the discards only join it."""
    for i in range(dn[0]):
        pile[pn[0]] = disc[i]
        pn[0] += 1
    dn[0] = 0
    met[s, M_ELAN] += 1
    _trace(trace, tn, EV_ELAN, ply, s, pn[0], 0, 0, 0, 0, 0, 0, 0)


@inlined_cached
def _refill_rack(rs, pile, pn, disc, dn, met, s, trace, tn, ply, rack, rack_t, rn):
    """E9.6: refill the Courier Rack to five from the draw pile (stops if the draws starve)."""
    met[s, M_REFILLS] += 1
    while rn[0] < RACK:
        t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
        if t < 0:
            break
        rack[rn[0]] = t
        rack_t[rn[0]] = ply + 1
        rn[0] += 1
    if trace.shape[0] > 0:
        _trace(trace, tn, EV_REFILL, ply, s, rn[0], rack[0], rack[1], rack[2], rack[3], rack[4],
               0, 0)


@inlined
def _resolve(ctab, t, opp_last, void):
    """The card a type plays as this turn: First Strike gives nothing on its owner's turn,
    Counter-Attack plays as the opponent's last hand card mirrored left/right."""
    if ctab[t, C_FS] == 1:
        return void
    if ctab[t, C_COUNTER] == 1:
        return ctab[opp_last, C_MIRROR] if opp_last != void else void
    return t


@inlined
def scout_keep(t1, t2, v1, v2, is_random, rs, record):
    """P2 for both kernels, the Scout keep's decision point: which of a Scout's two cards t1, t2
    (P2's scores v1, v2) the policy keeps, K_FIRST or K_SECOND: the better (ties: the lower type),
    either one at random for the random policy (its draw made here, whoever then decides). The two
    cards and P2's keep go to record[PR_SCOUT_*], where the planner's probe reads them."""
    second = v2 > v1 + 1e-9 or (abs(v2 - v1) <= 1e-9 and t2 < t1)
    record[PR_SCOUT_A] = t1
    record[PR_SCOUT_B] = t2
    record[PR_SCOUT_KEEP] = K_SECOND if second else K_FIRST
    if is_random and uniform(rs) < 0.5:
        second = not second
    return np.int64(K_SECOND if second else K_FIRST)


@inlined
def scout_kept(t1, t2, keep):
    """The Scout keep applied (keep K_FIRST or K_SECOND): (the card kept, the other)."""
    return (t2, t1) if keep == K_SECOND else (t1, t2)


@inlined
def scout_trade(n_scouts, can_gain, ropt):
    """G4 with E9.2 / L9, for both kernels: a Scout traded for a Guerrilla counter makes the CIC
    draw one Command card instead of two, so the gain and the two-card draw never both happen.
    With two Scouts in one turn the gain needs two_scouts = gain (else the CIC draws two and no
    counter is gained). can_gain: a Scout of this turn may gain (section, pool, policy). Returns
    (a counter is gained, the CIC draws two)."""
    gain = can_gain and (n_scouts <= 1 or ropt[R_TWO_SCOUTS_GAIN] == 1)
    return gain, n_scouts > 0 and not gain


@inlined
def p4_spends(o, t_eff, t_assault, pol):
    """P4, the spend's decision point: whether side o's policy spends a counter on the target
    (its effective orders t_eff; t_assault 1 for an Assault card): G_SPEND or G_KEEP."""
    mode = pol[o, P_G_SPEND_MODE]
    spend = mode == SPEND_ALWAYS or (mode == SPEND_THRESHOLD and t_eff >= pol[o, P_G_THRESHOLD]) or (
        mode == SPEND_ASSAULT and t_assault == 1)
    return np.int64(G_SPEND if spend else G_KEEP)


@inlined
def guerrilla_offer(o, ply, met, g_turn):
    """A Spanish counter of side o offered against a French card this ply (G1, G5): counted."""
    met[o, M_G_OFFERED] += 1
    g_turn[GT_OFFERED, ply // 2] += 1


@inlined
def guerrilla_attempt(rs, o, ply, attempt, spend, held, col, pool, met, g_turn, trace, tn, ropt):
    """One Spanish Guerrilla attempt of side o against the French card its kernel chose and
    offered (G1, G5; guerrilla_offer), on the decision `spend` (layout G_*: G_SPEND, G_KEEP;
    G_KEEP_DIE keeps and draws the die all the same, so that a rollout's later draws are those of
    its spend twin, napsim.engine.planner): the counter spent (held[col], -1: none), the battle die
    (a sabre stops it) and the metrics of each outcome. The counter a sabre stopped returns to the
    unacquired pool (pool[0]); one that nullified a card is out of play (pool[1]), unless
    spent_counters = all_return sends it back to the pool too.
    Returns G_OUT_DECLINED, G_OUT_SABRE or G_OUT_NULLIFIED; on a nullification the caller voids
    the card(s) and adds what the orders lost (it differs per format).

    attempt = (tr_a, tr_b, t_eff, t_assault, n_null, null_sec): t_eff the target's effective
    orders; t_assault: 1 for an Assault card; n_null: cards a success nullifies (met
    M_G_NULLIFIED); null_sec: the French section of the target, counted in M_G_NULL_SEC (-1: not
    counted); tr_a, tr_b: the first two fields of the EV_G_ATTEMPT
    event (which card, and where), then t_eff, the die (-1: not rolled) and the outcome."""
    tr_a, tr_b, t_eff, t_assault, n_null, null_sec = attempt
    turn = ply // 2
    if spend != G_SPEND:
        if spend == G_KEEP_DIE:
            battle_die(rs)
        met[o, M_G_NOT_SPENT] += 1
        _trace(trace, tn, EV_G_ATTEMPT, ply, o, tr_a, tr_b, t_eff, -1, G_OUT_DECLINED, 0, 0, 0)
        return G_OUT_DECLINED
    if col >= 0:
        held[col] -= 1
    met[o, M_G_SPENT] += 1
    g_turn[GT_SPENT, turn] += 1
    roll = battle_die(rs)
    if roll == DIE_SABRE or ropt[R_SPENT_RETURN_ALL] == 1:
        pool[0] += 1  # G1: the counter a sabre stopped returns to the unacquired pool
    else:
        pool[1] += 1  # it nullified the card: spent, out of play
    if roll == DIE_SABRE:  # a sabre stops the guerrillas (G1)
        met[o, M_G_SABRE] += 1
        _trace(trace, tn, EV_G_ATTEMPT, ply, o, tr_a, tr_b, t_eff, roll, G_OUT_SABRE, 0, 0, 0)
        return G_OUT_SABRE
    met[o, M_G_NULLIFIED] += n_null
    if null_sec >= 0:
        met[o, M_G_NULL_SEC + null_sec] += 1
    g_turn[GT_NULLIFIED, turn] += 1
    _trace(trace, tn, EV_G_ATTEMPT, ply, o, tr_a, tr_b, t_eff, roll, G_OUT_NULLIFIED, 0, 0, 0)
    return G_OUT_NULLIFIED


@inlined
def _count_common_places(pile, pn, disc, dn, rack, rn, scratch):
    """The D6 check's first half, shared by both kernels: scratch[type] = the cards of each type in
    the draw pile, the discards and the rack (the caller adds the hands and Square Tracks)."""
    scratch[:] = 0
    for i in range(pn[0]):
        scratch[pile[i]] += 1
    for i in range(dn[0]):
        scratch[disc[i]] += 1
    for i in range(rn[0]):
        scratch[rack[i]] += 1


@inlined
def _types_miscounted(scratch, counts):
    """The D6 check's second half: how many card types are not all in exactly one place."""
    bad = 0
    for t in range(counts.shape[0]):
        if scratch[t] != counts[t]:
            bad += 1
    return bad

