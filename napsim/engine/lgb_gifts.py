"""The CIC's gift choice in La Grande Battles (docs/rules.md L2, P6): which hand card and which
rack card he gives, and to which two Corps commanders. The greedy search runs on per-scenario
integer records (gift_records, _greedy_int) where the scores allow, else on the float gift scores
(_gift_scores, _greedy_gifts); random play draws among the legal gifts. A Corps commander's own
choices are napsim.engine.lgb_corps."""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from napsim.engine.cardflow import _resolve
from napsim.engine.jit import inlined
from napsim.engine.layout import (
    C_KIND,
    C_MIRROR,
    GB_HAND,
    GB_RACK,
    GI_KEY,
    GI_OK,
    GI_OWN_KEY,
    GI_OWN_THR,
    GI_RANK,
    GR_ALT_KEY,
    GR_HAND,
    GR_HAND_OK,
    GR_OWN_KEY,
    GR_OWN_THR,
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
    N_GI,
    P_CORPS_SWAP_MARGIN,
    PL_ALT,
    PL_OWN_BEST,
)
from napsim.engine.lgb_corps import NEG_HALF, _plays_as
from napsim.engine.rng import bounded, mix64, next_u64


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


KEY_NONE = -(1 << 30)  # the gain key of a receiver who may not take the card: below every sum
RANK_NONE = 1 << 30  # its swap rank: never below a threshold, so its key stays KEY_NONE
KEY_BOUND = 1 << 26  # every score key is smaller in size (legal sums stay above KEY_NONE // 2)
KEY_DIGITS = 6  # scores are tried as multiples of 1, 0.1, ... 1e-6
KEY_TOL = 1.0e-11  # how close to such a multiple a score must lie
KEY_LIMIT = 1.0e4  # ... and how small it must be


@njit(cache=True)
def _key_scale(best_s):
    """The smallest 10**d (d <= KEY_DIGITS) of which every legal score of one side's best_s
    [corps, source, command, type] lies within KEY_TOL of a multiple; 0.0 if none does."""
    for d in range(KEY_DIGITS + 1):
        scale = 10.0 ** d
        good = True
        for x in best_s.ravel():
            if x < NEG_HALF:
                continue
            k = np.floor(x * scale + 0.5)
            if not (abs(x) <= KEY_LIMIT and abs(x - k / scale) <= KEY_TOL and abs(k) < KEY_BOUND):
                good = False
                break
        if good:
            return scale
    return 0.0


@njit(cache=True)
def gift_records(best_t, pol):
    """The CIC's gift scores as integer records, per scenario: grec[side, command, card type, GI_*]
    (napsim.engine.layout) with, per Corps commander q, the swap rank and score key of the card
    given by the CIC and the swap threshold and score key of the card from his own hand; grec[0, 0,
    0, GI_OK] is 1 when the integer search (_greedy_int) may play.

    A score key is the score in units of the side's scale (_key_scale): every gain and every sum of
    two gains then lies within 1e-10 of its key's multiple, and two different keys at least 1e-6
    apart, so comparing keys compares the float gains as the float search does (ties within its 1e-9
    are equal keys). The swap test (the receiver keeps his own card when the gift's score plus the
    swap margin is below his own card's, P6) is exact: the swap rank is the place of the gift's score
    plus the margin among all such sums of the side and receiver, the swap threshold the number of
    those sums below the own card's score. GI_OK is 0 when a side's scores have no such scale (the
    kernel then searches in floats)."""
    ns, nq, _, nc, nt = best_t.shape
    grec = np.zeros((ns, nc, nt, N_GI), np.int32)
    ok = True
    for s in range(ns):
        scale = _key_scale(best_t[s])
        margin = pol[s, P_CORPS_SWAP_MARGIN]
        if scale == 0.0 or not abs(margin) < np.inf:
            ok = False
            continue
        for q in range(nq):
            sums = np.empty(nc * nt, np.float64)
            n = 0
            for c in range(nc):
                for t in range(nt):
                    if best_t[s, q, 0, c, t] > NEG_HALF:
                        sums[n] = best_t[s, q, 0, c, t] + margin
                        n += 1
            ranked = np.unique(sums[:n])
            for c in range(nc):
                for t in range(nt):
                    v = best_t[s, q, 0, c, t]
                    rec = grec[s, c, t]
                    rec[GI_RANK + 2 * q] = RANK_NONE
                    rec[GI_KEY + 2 * q] = KEY_NONE
                    if v > NEG_HALF and t < nt - 1:  # the void type: a card that plays as nothing
                        rec[GI_RANK + 2 * q] = np.searchsorted(ranked, v + margin)
                        rec[GI_KEY + 2 * q] = np.int64(np.floor(v * scale + 0.5))
                    o = best_t[s, q, 1, c, t]
                    if o > NEG_HALF:
                        rec[GI_OWN_THR + 2 * q] = np.searchsorted(ranked, o)
                        rec[GI_OWN_KEY + 2 * q] = np.int64(np.floor(o * scale + 0.5))
    grec[0, 0, 0, GI_OK] = 1 if ok else 0
    return grec


@njit(inline="always")  # a leaf called with layout constants: inlined at numba IR level, one copy
def _card_scores(gsc, res, rows, i, t, void, v, own, alt, margin):
    """One CIC card's scores v = (v0, v1, v2) per receiver into gsc and res (see _gift_scores), on
    the receivers' own alternatives own and alt (three each). rows: (score row, gain row, pair row
    of gsc, res row, its legal-receivers row, GSC_BOUND column)."""
    row, gain_row, pair_row, res_row, ok_row, bound_col = rows
    v0, v1, v2 = v
    own0, own1, own2 = own
    alt0, alt1, alt2 = alt
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
    own = (pl[PL_OWN_BEST, 0], pl[PL_OWN_BEST, 1], pl[PL_OWN_BEST, 2])
    alt = (pl[PL_ALT, 0], pl[PL_ALT, 1], pl[PL_ALT, 2])
    for i in range(max(n_h, 1)):
        t = _resolve(ctab, hand[s, i], opp_last, void) if n_h > 0 else void
        _card_scores(gsc, res, (GSC_HAND, GSC_HAND_GAIN, GSC_HAND_PAIR, GR_HAND, GR_HAND_OK, GB_HAND),
                     i, t, void, (gift_t[s, c, t, 0], gift_t[s, c, t, 1], gift_t[s, c, t, 2]), own,
                     alt, margin)
    for j in range(max(n_r, 1)):
        t = _resolve(ctab, rack[j], opp_last, void) if n_r > 0 else void
        _card_scores(gsc, res, (GSC_RACK, GSC_RACK_GAIN, GSC_RACK_PAIR, GR_RACK, GR_RACK_OK, GB_RACK),
                     j, t, void, (gift_t[s, c, t, 0], gift_t[s, c, t, 1], gift_t[s, c, t, 2]), own,
                     alt, margin)


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


@inlined
def _gain_f(v, own, alt, margin):
    """A gift's float gain to one receiver (what _card_scores stores in the gain rows)."""
    return (v if v + margin >= own else own) - alt


# SPREAD[m]: bit i of m (a hand slot) moved to bit 8 i, so that SPREAD[hand mask] * rack mask has
# bit 8 i + j for every hand slot i and rack slot j of the two masks (the choice's code / 16)
SPREAD = np.array([sum(1 << (8 * i) for i in range(8) if (m >> i) & 1) for m in range(256)], np.int64)
MAX_INT_HAND = 8  # the integer search's masks hold up to 8 hand cards (the rack holds 5)


@inlined
def _best_of(g, h, m, bit):
    """(best key, bit mask of the cards holding it) after a card with key g at bit, without
    branches (which of the keys wins is random from turn to turn)."""
    gt = np.int64(g > h)
    return max(g, h), (m & (gt - 1)) | (bit & -(gt | np.int64(g == h)))


@inlined
def _gain_key(rank, key, thr, own):
    """A card's score key to one receiver: its own, or his own card's when he would swap the gift
    for it (rank below his threshold); without a branch. Less his alternative's key, the gain."""
    return own + ((np.int64(key) - own) & -np.int64(rank >= thr))


@inlined
def _key_gains(s, c, cards, n, tr, mirror, void, ctab, grec, res):
    """Pass one of _greedy_int over the CIC's hand or rack: each card as it plays into res[tr,
    slot]; returns the best gain key per receiver, the bit masks of the cards holding it and the
    bit mask of the cards that play as nothing (their records hold KEY_NONE). The alternative's key
    is taken off the best key only: it is the same for every card of a receiver."""
    thr0 = res[GR_OWN_THR, 0]
    thr1 = res[GR_OWN_THR, 1]
    thr2 = res[GR_OWN_THR, 2]
    own0 = res[GR_OWN_KEY, 0]
    own1 = res[GR_OWN_KEY, 1]
    own2 = res[GR_OWN_KEY, 2]
    alt0 = res[GR_ALT_KEY, 0]
    alt1 = res[GR_ALT_KEY, 1]
    alt2 = res[GR_ALT_KEY, 2]
    h0 = h1 = h2 = np.int64(2 * KEY_NONE)  # below every key
    m0 = m1 = m2 = voids = np.int64(0)
    for i in range(max(n, 1)):
        card = cards[i]  # loaded before the test: a load inside a conditional stays a branch
        t = _plays_as(card if n > 0 else void, mirror, void, ctab)
        res[tr, i] = t
        bit = np.int64(1) << i
        voids |= bit & -np.int64(t == void)
        g0 = _gain_key(grec[s, c, t, GI_RANK], grec[s, c, t, GI_KEY], thr0, own0)
        g1 = _gain_key(grec[s, c, t, GI_RANK + 2], grec[s, c, t, GI_KEY + 2], thr1, own1)
        g2 = _gain_key(grec[s, c, t, GI_RANK + 4], grec[s, c, t, GI_KEY + 4], thr2, own2)
        h0, m0 = _best_of(g0, h0, m0, bit)
        h1, m1 = _best_of(g1, h1, m1, bit)
        h2, m2 = _best_of(g2, h2, m2, bit)
    return h0 - alt0, h1 - alt1, h2 - alt2, m0, m1, m2, voids


@inlined
def _max3(a, b, c):
    x = a if a > b else b
    return x if x > c else c


@inlined
def _lowest(tie_key, w, low, best_pr, best_code):
    """The lowest candidate of one pair of receivers (w: bit 8 i + j per hand slot i and rack slot
    j, low = 4 qa + qb; none when w is 0) against the best so far: the larger hash of the tie key
    and the code wins. Without branches."""
    code = trailing_zeros(w) * 16 + low
    pr = mix64(tie_key ^ np.uint64(code))
    take = (w != 0) & ((best_code < 0) | (pr > best_pr))
    return (pr if take else best_pr), (code if take else best_code)


@inlined
def _pick_bits(tie_key, w, low, best_pr, best_code):
    """Every candidate of one pair of receivers (see _lowest)."""
    while w != 0:
        best_pr, best_code = _lowest(tie_key, w, low, best_pr, best_code)
        w &= w - 1
    return best_pr, best_code


@inlined
def _first(w, low, first_code):
    """The smaller of first_code and the code of w's lowest candidate (trailing_zeros(0) is 64:
    above every code)."""
    code = trailing_zeros(w) * 16 + low
    return code if code < first_code else first_code


@inlined
def _greedy_int(tie_key, s, c, hand, n_h, rack, n_r, opp_last, void, ctab, gift_t, grec, pl,
                margin, res):
    """The greedy choice without E4 (what _greedy_gifts returns) on the integer records of
    gift_records, for up to MAX_INT_HAND hand cards: the best gain key, ties to the largest hash of
    the tie key and the choice ((hand slot x 8 + rack slot) x 16 + receivers); the score is the
    float gain of the first best choice in search order, as the float search returns it. res rows
    GR_OWN_THR, GR_OWN_KEY and GR_ALT_KEY hold the receivers' own cards
    (napsim.engine.lgb_phases._own_alternatives). The cards that reach the best gain are bit masks:
    no search over pairs."""
    mirror = ctab[opp_last, C_MIRROR]  # read before the test: the void type's row exists
    mirror = mirror if opp_last != void else void
    h0, h1, h2, hm0, hm1, hm2, hv = _key_gains(s, c, hand[s], n_h, np.int64(GR_HAND), mirror, void,
                                                ctab, grec, res)
    r0, r1, r2, rm0, rm1, rm2, rv = _key_gains(s, c, rack, n_r, np.int64(GR_RACK), mirror, void,
                                               ctab, grec, res)
    top = _max3(_max3(h0 + r1, h0 + r2, h1 + r0), _max3(h1 + r2, h2 + r0, h2 + r1),
                _max3(r0, r1, r2) if hv != 0 else np.int64(KEY_NONE))
    top = _max3(top, _max3(h0, h1, h2) if rv != 0 else np.int64(KEY_NONE),
                np.int64(0) if hv != 0 and rv != 0 else np.int64(KEY_NONE))
    if top < KEY_NONE // 2:  # no legal choice
        return -2, -1, -1, -1, -1.0e18
    s0 = SPREAD[hm0]
    s1 = SPREAD[hm1]
    s2 = SPREAD[hm2]
    sv = SPREAD[hv]
    # the candidates per (qa, qb): two receivers, or a card that plays as nothing (receiver 0)
    w00 = ((sv * rm0 if r0 == top else 0) | (s0 * rv if h0 == top else 0)
           | (sv * rv if top == 0 else 0))
    w01 = (s0 * rm1 if h0 + r1 == top else 0) | (sv * rm1 if r1 == top else 0)
    w02 = (s0 * rm2 if h0 + r2 == top else 0) | (sv * rm2 if r2 == top else 0)
    w10 = (s1 * rm0 if h1 + r0 == top else 0) | (s1 * rv if h1 == top else 0)
    w12 = s1 * rm2 if h1 + r2 == top else 0
    w20 = (s2 * rm0 if h2 + r0 == top else 0) | (s2 * rv if h2 == top else 0)
    w21 = s2 * rm1 if h2 + r1 == top else 0
    # the lowest candidate of each pair of receivers, then (ties within a pair: rarer) the others
    best_pr = np.uint64(0)
    best_code = np.int64(-1)
    best_pr, best_code = _lowest(tie_key, w00, np.int64(0), best_pr, best_code)
    best_pr, best_code = _lowest(tie_key, w01, np.int64(1), best_pr, best_code)
    best_pr, best_code = _lowest(tie_key, w02, np.int64(2), best_pr, best_code)
    best_pr, best_code = _lowest(tie_key, w10, np.int64(4), best_pr, best_code)
    best_pr, best_code = _lowest(tie_key, w12, np.int64(6), best_pr, best_code)
    best_pr, best_code = _lowest(tie_key, w20, np.int64(8), best_pr, best_code)
    best_pr, best_code = _lowest(tie_key, w21, np.int64(9), best_pr, best_code)
    x00 = w00 & (w00 - 1)
    x01 = w01 & (w01 - 1)
    x02 = w02 & (w02 - 1)
    x10 = w10 & (w10 - 1)
    x12 = w12 & (w12 - 1)
    x20 = w20 & (w20 - 1)
    x21 = w21 & (w21 - 1)
    if (x00 | x01 | x02 | x10 | x12 | x20 | x21) != 0:
        best_pr, best_code = _pick_bits(tie_key, x00, np.int64(0), best_pr, best_code)
        best_pr, best_code = _pick_bits(tie_key, x01, np.int64(1), best_pr, best_code)
        best_pr, best_code = _pick_bits(tie_key, x02, np.int64(2), best_pr, best_code)
        best_pr, best_code = _pick_bits(tie_key, x10, np.int64(4), best_pr, best_code)
        best_pr, best_code = _pick_bits(tie_key, x12, np.int64(6), best_pr, best_code)
        best_pr, best_code = _pick_bits(tie_key, x20, np.int64(8), best_pr, best_code)
        best_pr, best_code = _pick_bits(tie_key, x21, np.int64(9), best_pr, best_code)
    first_code = _first(w00, np.int64(0), np.int64(1 << 30))
    first_code = _first(w01, np.int64(1), first_code)
    first_code = _first(w02, np.int64(2), first_code)
    first_code = _first(w10, np.int64(4), first_code)
    first_code = _first(w12, np.int64(6), first_code)
    first_code = _first(w20, np.int64(8), first_code)
    first_code = _first(w21, np.int64(9), first_code)
    i = best_code >> 7
    j = (best_code >> 4) & 7
    hi = i if n_h > 0 else -2
    rj = j if n_r > 0 else -1
    ka = -1 if (hv >> i) & 1 else (best_code >> 2) & 3
    kb = -1 if (rv >> j) & 1 else best_code & 3
    # the score, in floats, of the first best choice (the float search returns that one's)
    i = first_code >> 7
    j = (first_code >> 4) & 7
    qa = (first_code >> 2) & 3
    qb = first_code & 3
    ga = 0.0
    if not (hv >> i) & 1:
        ga = _gain_f(gift_t[s, c, res[GR_HAND, i], qa], pl[PL_OWN_BEST, qa], pl[PL_ALT, qa], margin)
    if (rv >> j) & 1:
        return hi, rj, ka, kb, ga + 0.0
    return hi, rj, ka, kb, ga + _gain_f(gift_t[s, c, res[GR_RACK, j], qb], pl[PL_OWN_BEST, qb],
                                        pl[PL_ALT, qb], margin)


@inlined  # the CIC's choice: 41% of a turn; LLVM inlines it (a plain call before)
def _cic_gifts(rs, s, c, e4, is_random, cards, opp_last, void, ctab, gift_t, margin, grec, may_int):
    """L2 / P6: the CIC's hand card, rack card and their receivers: (hand slot or -2, rack slot or
    -1, receiver of the hand card or -1, of the rack card or -1, score).

    greedy: each gift scores what the receiver gains over his own alternative (pl rows PL_OWN_BEST and
    PL_ALT: his best own card's score, and what he would do without a gift); ties go to the largest hash
    of a per-turn draw. random: uniform over every legal (hand card, rack card, receivers).
    Each card's score per receiver is computed once (gsc) before the pairs are combined; a greedy
    CIC without E4 compares integer keys instead (_greedy_int on the records grec of gift_records,
    when they allow it and may_int; the gift scores gsc and res are then left as they were).
    cards: (the CICs' hands, side s's hand size, the rack, its size, the turn's plan pl, gift
    scores gsc, resolved gifts res)."""
    hand, n_h, rack, n_r, pl, gsc, res = cards
    if may_int and grec[0, 0, 0, GI_OK] == 1 and not is_random and not e4 and n_h <= MAX_INT_HAND:
        return _greedy_int(next_u64(rs), s, c, hand, n_h, rack, n_r, opp_last, void, ctab, gift_t,
                           grec, pl, margin, res)
    _gift_scores(s, c, hand, n_h, rack, n_r, opp_last, void, ctab, gift_t, pl, margin, gsc, res)
    tie_key = next_u64(rs)
    if is_random:
        return _random_gifts(rs, e4, n_h, n_r, void, ctab, pl, gsc, res)
    if not e4:
        found, hi, rj, ka, kb, score = _greedy_ties(tie_key, n_h, n_r, void, ctab, pl, gsc, res)
        if found:
            return hi, rj, ka, kb, score
    return _greedy_gifts(tie_key, e4, n_h, n_r, void, ctab, pl, gsc, res)
