"""The choices of the La Grande Battles kernel (docs/rules.md L2, L5, P6): the CIC's two gifts and
their receivers, a Corps commander's best own card and the option a card is played with. They read
the tables of napsim.sim.tables_lgb (best_t[side, corps, source, command, card], val_t and bopt_t the
same with the option)."""

import numpy as np
from numba import njit

from napsim.engine.cardflow import _resolve
from napsim.engine.jit import inlined
from napsim.engine.layout import (
    C_KIND,
    GB_HAND,
    GB_RACK,
    GR_HAND,
    GR_HAND_OK,
    GR_RACK,
    GR_RACK_OK,
    GSC_BOUND,
    GSC_HAND,
    GSC_HAND_GAIN,
    GSC_HAND_PAIR,
    GSC_RACK,
    GSC_RACK_GAIN,
    GSC_RACK_PAIR,
    KIND_SECTION,
    PL_ALT,
    PL_OWN_BEST,
)
from napsim.engine.rng import bounded, mix64, next_u64

NEG_HALF = -5.0e8  # a table score below this marks an illegal card or option


@inlined
def _own_best(s, k, chand, cn, ctab, opp_last, void, best, cmax):
    """(score, hand slot) of the best card in Corps commander k's own hand; (-1e18, -1) if empty."""
    b = -1.0e18
    slot = -1
    c = min(cn[s, k], cmax)
    for i in range(cn[s, k]):
        r = _resolve(ctab, chand[s, k, i], opp_last, void)
        v = best[s, k, 1, c, r]
        if v > b + 1e-9:
            b = v
            slot = i
    return b, slot


@inlined
def _pick_opt(rs, is_random, s, k, src, c, r, val, bopt):
    """The option a card is played with: the best (greedy) or a uniform legal one (random)."""
    if not is_random:
        return bopt[s, k, src, c, r]
    if val[s, k, src, c, r, 1] > NEG_HALF and val[s, k, src, c, r, 0] > NEG_HALF:
        return bounded(rs, np.int64(2))
    return 0 if val[s, k, src, c, r, 0] > NEG_HALF else 1


@njit(cache=True, _nrt=True)
def gift_table(best_t):
    """The CIC's gift scores best_t[side, corps, 0, command, type] as gift_t[side, command, type,
    receiver] (a fourth column of padding): the three receivers of a card in one cache line."""
    ns, nq, _, nc, nt = best_t.shape
    out = np.zeros((ns, nc, nt, 4), np.float64)
    for s in range(ns):
        for c in range(nc):
            for t in range(nt):
                for q in range(nq):
                    out[s, c, t, q] = best_t[s, q, 0, c, t]
    return out


@njit(inline="always")  # a leaf called with layout constants: inlined at numba IR level, one copy
def _card_scores(gsc, res, row, gain_row, pair_row, res_row, ok_row, bound_col, i, t, void, v0, v1, v2,
                 own0, own1, own2, alt0, alt1, alt2, margin):
    """One CIC card's scores v0-v2 per receiver into gsc and res (see _gift_scores)."""
    g0 = (v0 if v0 + margin >= own0 else own0) - alt0
    g1 = (v1 if v1 + margin >= own1 else own1) - alt1
    g2 = (v2 if v2 + margin >= own2 else own2) - alt2
    gsc[row, i, 0] = v0
    gsc[row, i, 1] = v1
    gsc[row, i, 2] = v2
    gsc[gain_row, i, 0] = g0
    gsc[gain_row, i, 1] = g1
    gsc[gain_row, i, 2] = g2
    ok0 = not v0 < NEG_HALF
    ok1 = not v1 < NEG_HALF
    ok2 = not v2 < NEG_HALF
    p0 = g0 if ok0 else -np.inf
    p1 = g1 if ok1 else -np.inf
    p2 = g2 if ok2 else -np.inf
    res[res_row, i] = t
    if t == void:
        gsc[pair_row, i, 0] = 0.0
        gsc[pair_row, i, 1] = 0.0
        gsc[pair_row, i, 2] = 0.0
        res[ok_row, i] = 1
        gsc[GSC_BOUND, i, bound_col] = 0.0
    else:
        gsc[pair_row, i, 0] = p0
        gsc[pair_row, i, 1] = p1
        gsc[pair_row, i, 2] = p2
        res[ok_row, i] = (1 if ok0 else 0) | (2 if ok1 else 0) | (4 if ok2 else 0)
        top = p0 if p0 > p1 else p1  # -inf when none is legal (a NaN gain is left out)
        gsc[GSC_BOUND, i, bound_col] = top if top > p2 else p2


@inlined
def _gift_scores(s, c, hand, n_h, rack, n_r, opp_last, void, ctab, gift_t, pl, margin, gsc, res):
    """Each CIC hand and rack card as it plays (res rows GR_HAND, GR_RACK), its score and gain per
    receiver (gsc), the receivers it may legally go to (GR_HAND_OK, GR_RACK_OK; a card that plays
    as nothing goes to nobody: bit 0), the gains the greedy search adds up (GSC_HAND_PAIR,
    GSC_RACK_PAIR) and its best gain (GSC_BOUND; 0.0 for a card that plays as nothing, -inf with no
    legal receiver)."""
    own0 = pl[PL_OWN_BEST, 0]
    own1 = pl[PL_OWN_BEST, 1]
    own2 = pl[PL_OWN_BEST, 2]
    alt0 = pl[PL_ALT, 0]
    alt1 = pl[PL_ALT, 1]
    alt2 = pl[PL_ALT, 2]
    for i in range(max(n_h, 1)):
        t = _resolve(ctab, hand[s, i], opp_last, void) if n_h > 0 else void
        _card_scores(gsc, res, GSC_HAND, GSC_HAND_GAIN, GSC_HAND_PAIR, GR_HAND, GR_HAND_OK, GB_HAND,
                     i, t, void, gift_t[s, c, t, 0], gift_t[s, c, t, 1], gift_t[s, c, t, 2], own0,
                     own1, own2, alt0, alt1, alt2, margin)
    for j in range(max(n_r, 1)):
        t = _resolve(ctab, rack[j], opp_last, void) if n_r > 0 else void
        _card_scores(gsc, res, GSC_RACK, GSC_RACK_GAIN, GSC_RACK_PAIR, GR_RACK, GR_RACK_OK, GB_RACK,
                     j, t, void, gift_t[s, c, t, 0], gift_t[s, c, t, 1], gift_t[s, c, t, 2], own0,
                     own1, own2, alt0, alt1, alt2, margin)


@inlined
def _pair_gain(i, j, qa, qb, a_void, b_void, pl, gsc):
    """The gain of giving hand card i to qa and rack card j to qb, both legal receivers (a card
    that plays as nothing: receiver 0, gain 0): the gains over each receiver's alternative (P6);
    the same receiver only with E4, who plays both: both scores minus his alternative."""
    ga = 0.0 if a_void else gsc[GSC_HAND_GAIN, i, qa]
    if b_void:
        return ga + 0.0
    if not a_void and qb == qa:
        gb = gsc[GSC_HAND, i, qa] + gsc[GSC_RACK, j, qb] - pl[PL_ALT, qa] - ga
        return ga + gb
    return ga + gsc[GSC_RACK_GAIN, j, qb]


@inlined
def _pairs_ok(i, j, e4, void, ctab, res):
    """(hand card's receivers, rack card's receivers, the same receiver may take both (E4)) as
    bit masks (napsim.engine.layout GR_HAND_OK)."""
    ra = res[GR_HAND, i]
    rb = res[GR_RACK, j]
    both = (e4 and ctab[ra, C_KIND] == KIND_SECTION and ctab[rb, C_KIND] == KIND_SECTION) or (
        ra == void or rb == void)
    return res[GR_HAND_OK, i], res[GR_RACK_OK, j], both


@inlined
def _bits(m):
    return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1)


@inlined
def _random_gifts(rs, e4, n_h, n_r, void, ctab, pl, gsc, res):
    """Random play: uniform over every legal (hand card, rack card, receivers), in the order of
    the greedy search (hand slot, rack slot, receiver of each)."""
    na = max(n_h, 1)
    nb = max(n_r, 1)
    total = np.int64(0)
    for i in range(na):
        for j in range(nb):
            ok_a, ok_b, both = _pairs_ok(i, j, e4, void, ctab, res)
            total += _bits(ok_a) * _bits(ok_b) - (0 if both else _bits(ok_a & ok_b))
    if total == 0:
        return -2, -1, -1, -1, -1.0e18
    pick = bounded(rs, total)
    for i in range(na):
        a_void = res[GR_HAND, i] == void
        for j in range(nb):
            b_void = res[GR_RACK, j] == void
            ok_a, ok_b, both = _pairs_ok(i, j, e4, void, ctab, res)
            n = _bits(ok_a) * _bits(ok_b) - (0 if both else _bits(ok_a & ok_b))
            if pick >= n:
                pick -= n
                continue
            for qa in range(3):
                for qb in range(3):
                    if (ok_a >> qa) & 1 and (ok_b >> qb) & 1 and (both or qa != qb):
                        if pick == 0:
                            return ((i if n_h > 0 else -2), (j if n_r > 0 else -1),
                                    (-1 if a_void else qa), (-1 if b_void else qb),
                                    _pair_gain(i, j, qa, qb, a_void, b_void, pl, gsc))
                        pick -= 1
    return -2, -1, -1, -1, -1.0e18


@inlined
def _greedy_gifts(tie_key, e4, n_h, n_r, void, ctab, pl, gsc, res):
    """Greedy play: the best gain; a gain within 1e-9 of the best found so far replaces it when
    the hash of the tie key and the choice is larger. Without E4 a pair whose two best gains
    cannot reach the best score so far is skipped (it would change nothing)."""
    na = max(n_h, 1)
    nb = max(n_r, 1)
    hi = -2
    rj = -1
    ka = -1
    kb = -1
    best_score = -1.0e18
    best_pr = np.uint64(0)
    rack_top = -np.inf
    for j in range(nb):
        rack_top = max(rack_top, gsc[GSC_BOUND, j, GB_RACK])
    for i in range(na):
        a_void = res[GR_HAND, i] == void
        top_a = gsc[GSC_BOUND, i, GB_HAND]
        if not e4 and top_a + rack_top < best_score - 1e-9:
            continue
        for j in range(nb):
            if not e4 and top_a + gsc[GSC_BOUND, j, GB_RACK] < best_score - 1e-9:
                continue
            b_void = res[GR_RACK, j] == void
            ok_a, ok_b, both = _pairs_ok(i, j, e4, void, ctab, res)
            for qa in range(3):
                if not (ok_a >> qa) & 1:
                    continue
                for qb in range(3):
                    if not ((ok_b >> qb) & 1 and (both or qa != qb)):
                        continue
                    v = _pair_gain(i, j, qa, qb, a_void, b_void, pl, gsc)
                    if v >= best_score - 1e-9:
                        pr = mix64(tie_key ^ np.uint64(((i * 8 + j) * 4 + qa) * 4 + qb))
                        if v > best_score + 1e-9 or pr > best_pr:
                            if v > best_score + 1e-9:
                                best_score = v
                            best_pr = pr
                            hi, rj = (i if n_h > 0 else -2), (j if n_r > 0 else -1)
                            ka, kb = (-1 if a_void else qa), (-1 if b_void else qb)
    return hi, rj, ka, kb, best_score


@inlined
def _top2(a0, a1, a2, b0, b1, b2):
    """The largest a[qa] + b[qb] with qa != qb (in floating point: the largest of the six sums)."""
    return max(max(max(a0 + b1, a0 + b2), max(a1 + b0, a1 + b2)), max(a2 + b0, a2 + b1))


@inlined
def _pair_top(i, j, gsc):
    """The best gain of giving hand card i and rack card j to two different receivers (rows
    GSC_HAND_PAIR, GSC_RACK_PAIR), in the arithmetic of _pair_gain; -inf when none is legal."""
    return _top2(gsc[GSC_HAND_PAIR, i, 0], gsc[GSC_HAND_PAIR, i, 1], gsc[GSC_HAND_PAIR, i, 2],
                 gsc[GSC_RACK_PAIR, j, 0], gsc[GSC_RACK_PAIR, j, 1], gsc[GSC_RACK_PAIR, j, 2])


TIE_GAP = 1.0e-6  # the fast greedy search needs every gain but the best this far below it
GAIN_LIMIT = 1.0e6  # ... and the best gain below this in size (the 1e-9 tolerance then holds)


@inlined
def _greedy_ties(tie_key, n_h, n_r, void, ctab, pl, gsc, res):
    """The greedy choice without E4 (what _greedy_gifts returns) when every gain is either the
    best one or more than TIE_GAP below it: the first best gain in search order sets the best score
    and every later equal one competes on the hash alone, so the choice is the best gain with the
    largest hash. Returns (found, hand slot, rack slot, receivers, score); found is False when the
    gains do not allow the shortcut (near ties, no legal choice, huge or NaN gains).

    The best gain is found without visiting the pairs: rounding is monotonic, so the largest sum
    over hand cards, rack cards and two different receivers is the largest sum of each receiver's
    best hand gain and the other's best rack gain."""
    na = max(n_h, 1)
    nb = max(n_r, 1)
    h0 = h1 = h2 = r0 = r1 = r2 = -np.inf
    for i in range(na):
        h0 = max(h0, gsc[GSC_HAND_PAIR, i, 0])
        h1 = max(h1, gsc[GSC_HAND_PAIR, i, 1])
        h2 = max(h2, gsc[GSC_HAND_PAIR, i, 2])
    for j in range(nb):
        r0 = max(r0, gsc[GSC_RACK_PAIR, j, 0])
        r1 = max(r1, gsc[GSC_RACK_PAIR, j, 1])
        r2 = max(r2, gsc[GSC_RACK_PAIR, j, 2])
    top = _top2(h0, h1, h2, r0, r1, r2)
    if not abs(top) < GAIN_LIMIT:
        return False, -2, -1, -1, -1, 0.0
    low = top - TIE_GAP
    cols = 0  # the rack cards that may reach the best gain
    for j in range(nb):
        if _top2(h0, h1, h2, gsc[GSC_RACK_PAIR, j, 0], gsc[GSC_RACK_PAIR, j, 1],
                 gsc[GSC_RACK_PAIR, j, 2]) >= low:
            cols |= 1 << j
    hi = -2
    rj = -1
    ka = -1
    kb = -1
    best_score = top
    best_pr = np.uint64(0)
    found = False
    for i in range(na):
        if _top2(gsc[GSC_HAND_PAIR, i, 0], gsc[GSC_HAND_PAIR, i, 1], gsc[GSC_HAND_PAIR, i, 2],
                 r0, r1, r2) < low:
            continue
        a_void = res[GR_HAND, i] == void
        for j in range(nb):
            if not (cols >> j) & 1 or _pair_top(i, j, gsc) < low:
                continue
            b_void = res[GR_RACK, j] == void
            ok_a, ok_b, both = _pairs_ok(i, j, np.bool_(False), void, ctab, res)
            for qa in range(3):
                for qb in range(3):
                    if not ((ok_a >> qa) & 1 and (ok_b >> qb) & 1 and (both or qa != qb)):
                        continue
                    v = _pair_gain(i, j, qa, qb, a_void, b_void, pl, gsc)
                    if v < low:
                        continue
                    if v != top:
                        return False, -2, -1, -1, -1, 0.0
                    pr = mix64(tie_key ^ np.uint64(((i * 8 + j) * 4 + qa) * 4 + qb))
                    if not found or pr > best_pr:
                        if not found:
                            best_score = v
                        found = True
                        best_pr = pr
                        hi, rj = (i if n_h > 0 else -2), (j if n_r > 0 else -1)
                        ka, kb = (-1 if a_void else qa), (-1 if b_void else qb)
    return found, hi, rj, ka, kb, best_score


@inlined  # the CIC's choice: 41% of a turn; LLVM inlines it (a plain call before)
def _cic_gifts(rs, s, c, e4, is_random, hand, n_h, rack, n_r, opp_last, void, ctab, gift_t, pl,
               margin, gsc, res):
    """L2 / P6: the CIC's hand card, rack card and their receivers: (hand slot or -2, rack slot or
    -1, receiver of the hand card or -1, of the rack card or -1, score).

    greedy: each gift scores what the receiver gains over his own alternative (pl rows PL_OWN_BEST and
    PL_ALT: his best own card's score, and what he would do without a gift); ties go to the largest hash
    of a per-turn draw. random: uniform over every legal (hand card, rack card, receivers).
    Each card's score per receiver is computed once (gsc) before the pairs are combined."""
    _gift_scores(s, c, hand, n_h, rack, n_r, opp_last, void, ctab, gift_t, pl, margin, gsc, res)
    tie_key = next_u64(rs)
    if is_random:
        return _random_gifts(rs, e4, n_h, n_r, void, ctab, pl, gsc, res)
    if not e4:
        found, hi, rj, ka, kb, score = _greedy_ties(tie_key, n_h, n_r, void, ctab, pl, gsc, res)
        if found:
            return hi, rj, ka, kb, score
    return _greedy_gifts(tie_key, e4, n_h, n_r, void, ctab, pl, gsc, res)
