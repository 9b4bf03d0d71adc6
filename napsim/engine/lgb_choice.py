"""The choices of the La Grande Battles kernel (docs/rules.md L2, L5, P6): the CIC's two gifts and
their receivers, a Corps commander's best own card and the option a card is played with. They read
the tables of napsim.sim.tables_lgb (best_t[side, corps, source, command, card], val_t and bopt_t the
same with the option)."""

import numpy as np
from numba import njit

from napsim.engine.cardflow import _resolve
from napsim.engine.layout import (
    C_KIND,
    GSC_HAND,
    GSC_HAND_GAIN,
    GSC_RACK,
    GSC_RACK_GAIN,
    KIND_SECTION,
    PL_ALT,
    PL_OWN_BEST,
)
from napsim.engine.rng import bounded, mix64, next_u64

NEG_HALF = -5.0e8  # a table score below this marks an illegal card or option


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _pick_opt(rs, is_random, s, k, src, c, r, val, bopt):
    """The option a card is played with: the best (greedy) or a uniform legal one (random)."""
    if not is_random:
        return bopt[s, k, src, c, r]
    if val[s, k, src, c, r, 1] > NEG_HALF and val[s, k, src, c, r, 0] > NEG_HALF:
        return bounded(rs, 2)
    return 0 if val[s, k, src, c, r, 0] > NEG_HALF else 1


@njit(cache=True, inline="always")
def _cic_gifts(rs, s, c, e4, is_random, hand, n_h, rack, n_r, opp_last, void, ctab, best_t, pl,
               margin, gsc, res):
    """L2 / P6: the CIC's hand card, rack card and their receivers: (hand slot or -2, rack slot or
    -1, receiver of the hand card or -1, of the rack card or -1, score).

    greedy: each gift scores what the receiver gains over his own alternative (pl rows PL_OWN_BEST and
    PL_ALT: his best own card's score, and what he would do without a gift); ties go to the largest hash
    of a per-turn draw. random: uniform over every legal (hand card, rack card, receivers).
    Each card's score per receiver is computed once (gsc) before the pairs are combined."""
    na = max(n_h, 1)
    nb = max(n_r, 1)
    for i in range(na):
        ra = _resolve(ctab, hand[s, i], opp_last, void) if n_h > 0 else void
        res[0, i] = ra
        for q in range(3):
            va = best_t[s, q, 0, c, ra]
            gsc[GSC_HAND, i, q] = va
            own = pl[PL_OWN_BEST, q]
            gsc[GSC_HAND_GAIN, i, q] = (va if va + margin >= own else own) - pl[PL_ALT, q]
    for j in range(nb):
        rb = _resolve(ctab, rack[j], opp_last, void) if n_r > 0 else void
        res[1, j] = rb
        for q in range(3):
            vb = best_t[s, q, 0, c, rb]
            gsc[GSC_RACK, j, q] = vb
            own = pl[PL_OWN_BEST, q]
            gsc[GSC_RACK_GAIN, j, q] = (vb if vb + margin >= own else own) - pl[PL_ALT, q]
    hi = -2
    rj = -1
    ka = -1
    kb = -1
    best_score = -1.0e18
    total = 0
    pick = -1
    tie_key = next_u64(rs)
    best_pr = np.uint64(0)
    for rep in range(2 if is_random else 1):
        if rep == 1:
            if total == 0:
                break
            pick = bounded(rs, total)
            total = 0
        for i in range(na):
            ra = res[0, i]
            for j in range(nb):
                rb = res[1, j]
                both_section = e4 and ctab[ra, C_KIND] == KIND_SECTION and ctab[rb, C_KIND] == KIND_SECTION
                for qa in range(3 if ra != void else 1):
                    ga = 0.0
                    if ra != void:
                        if gsc[GSC_HAND, i, qa] < NEG_HALF:
                            continue
                        ga = gsc[GSC_HAND_GAIN, i, qa]
                    for qb in range(3 if rb != void else 1):
                        gb = 0.0
                        if rb != void:
                            vb = gsc[GSC_RACK, j, qb]
                            if vb < NEG_HALF:
                                continue
                            if ra != void and qb == qa:
                                if not both_section:
                                    continue  # L2: two different Corps commanders
                                # E4: the wing's commander plays both (no swap): both scores
                                # minus his alternative
                                gb = gsc[GSC_HAND, i, qa] + vb - pl[PL_ALT, qa] - ga
                            else:
                                gb = gsc[GSC_RACK_GAIN, j, qb]
                        if is_random:
                            if rep == 1 and total == pick:
                                return ((i if n_h > 0 else -2), (j if n_r > 0 else -1),
                                        (qa if ra != void else -1), (qb if rb != void else -1),
                                        ga + gb)
                            total += 1
                            continue
                        v = ga + gb
                        code = np.uint64(((i * 8 + j) * 4 + qa) * 4 + qb)
                        if v > best_score + 1e-9:
                            best_score = v
                            best_pr = mix64(tie_key ^ code)
                            hi, rj = (i if n_h > 0 else -2), (j if n_r > 0 else -1)
                            ka, kb = (qa if ra != void else -1), (qb if rb != void else -1)
                        elif v >= best_score - 1e-9:
                            pr = mix64(tie_key ^ code)
                            if pr > best_pr:
                                best_pr = pr
                                hi, rj = (i if n_h > 0 else -2), (j if n_r > 0 else -1)
                                ka, kb = (qa if ra != void else -1), (qb if rb != void else -1)
    return hi, rj, ka, kb, best_score
