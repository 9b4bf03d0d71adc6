"""The P1 choice of the EPIC and standard kernels: which hand card, rack card and placement a
commander plays (docs/rules.md P1), read from the pair tables of napsim.sim.tables."""

import numpy as np

from napsim.engine.cardflow import _resolve
from napsim.engine.jit import inlined
from napsim.engine.layout import (
    C_COUNTER,
    KIND_RANDOM,
    P_DENY_WEIGHT,
    P_KEEP_WEIGHT,
    P_KIND,
    PIN_LAYER,
    PIN_LIST,
    REC_K,
    REC_LIST,
    RES_HAND,
    RES_RACK,
    RES_TIES,
)
from napsim.engine.rng import bounded, mix64, next_u64


@inlined
def _pin_of(s, i, j, n_h, n_r, pin_y, ctab, hand, rack):
    """D3, counter_attack_section = facing: the pin (napsim.engine.layout PIN_*) of the pair hand
    slot i, rack slot j when this turn's Counter-Attack copy is a tactic card that must go to
    section pin_y: 3 w + pin_y for the Counter-Attack card a (w 0) or b (w 1), -1 no pin, -2 both
    cards are Counter-Attacks (two placed cards in one section: illegal)."""
    if pin_y < 0:
        return -1
    ca_a = n_h > 0 and ctab[hand[s, i], C_COUNTER] == 1
    ca_b = n_r > 0 and ctab[rack[j], C_COUNTER] == 1
    if ca_a and ca_b:
        return -2
    if ca_a:
        return pin_y
    if ca_b:
        return 3 + pin_y
    return -1


@inlined
def _choose(rs, s, c, n_h, n_r, e4, opp_last, pin_y, tracing, tab, gm):
    """P1 choice among legal (hand card, rack card, placement): (hand slot or -2 for none,
    rack slot or -1, placement, score); hand slot -1 when nothing is legal.

    greedy: the best table score, minus keep/deny terms; ties broken uniformly at random: among
    tied (hand slot, rack slot) pairs the one with the largest hash of a per-turn random draw
    wins, then one of that pair's tied placements is drawn uniformly. Equal weights stay
    symmetric, and a tie costs one hash instead of a bounded draw with a branch.
    random: uniform over all legal triples.
    """
    ctab, hand, rack, res_scratch = tab.ctab, gm.hand, gm.rack, gm.res_scratch
    void = ctab.shape[0] - 1
    for i in range(max(n_h, 1)):
        res_scratch[RES_HAND, i] = _resolve(ctab, hand[s, i] if n_h > 0 else void, opp_last, void)
    for j in range(max(n_r, 1)):
        res_scratch[RES_RACK, j] = _resolve(ctab, rack[j] if n_r > 0 else void, opp_last, void)
    return _choose_resolved(rs, s, c, n_h, n_r, e4, opp_last, pin_y, tracing, tab, gm)


@inlined
def _choose_resolved(rs, s, c, n_h, n_r, e4, opp_last, pin_y, tracing, tab, gm):
    """_choose with res_scratch[RES_HAND, :max(n_h, 1)] and res_scratch[RES_RACK, :max(n_r, 1)]
    already holding the resolved hand and rack cards (VOID in slot 0 of an empty one). The ranked
    path reads the score only when `tracing` (it shows in the trace alone) and returns -1e18
    otherwise. pin_y >= 0: a Counter-Attack's copied tactic card goes to section pin_y (_pin_of;
    the float path then reads the pinned scores)."""
    pol = tab.pol
    if pol[s, P_KIND] == KIND_RANDOM:
        return _choose_random(rs, s, c, n_h, n_r, e4, tab.best_val, tab.n_place, tab.place_list,
                              tab.e4_only, gm.res_scratch, pin_y, tab.ctab, gm.hand, gm.rack)
    tie_key = next_u64(rs)  # ties: the largest hash of (turn draw, hand slot, rack slot) wins
    void = tab.ctab.shape[0] - 1
    if (pol[s, P_KEEP_WEIGHT] == 0.0 and pol[s, P_DENY_WEIGHT] == 0.0
            and tab.play_key[s, 1 if e4 else 0, c, void, void] >= 0):
        return _choose_ranked(rs, s, c, n_h, n_r, e4, pin_y, tracing, tie_key, tab, gm)
    return _choose_scored(rs, s, c, n_h, n_r, e4, pin_y, tie_key, tab, gm)


@inlined
def _choose_ranked(rs, s, c, n_h, n_r, e4, pin_y, tracing, tie_key, tab, gm):
    """The greedy choice on integer ranks (napsim.sim.tables.play_keys; no keep or deny term): one
    branch-free pass finds the top rank and lists the pairs holding it in res_scratch[RES_TIES]
    (in pair order); hashes only for a tie; then one of the pair's tied best placements drawn."""
    res_scratch, play_key, best_list = gm.res_scratch, tab.play_key, tab.best_list
    hi = -1
    rj = -1
    p = 0
    best = -1.0e18
    na = max(n_h, 1)
    nb = max(n_r, 1)
    e4i = 1 if e4 else 0
    top = np.int64(-1)
    n_top = 0
    ties = res_scratch[RES_TIES]
    if pin_y < 0:
        for i in range(na):
            krow = play_key[s, e4i, c, res_scratch[RES_HAND, i]]
            for j in range(nb):
                r = np.int64(krow[res_scratch[RES_RACK, j]])
                # arithmetic, not selects, so that the compiler keeps it free of branches
                up = np.int64(r > top)
                pos = n_top & (up - 1)  # 0 on a new top rank, else the end of the list
                ties[np.uint64(pos)] = i * 64 + j
                n_top = pos + up + np.int64(r == top)
                top = max(top, r)
    else:  # a pinned Counter-Attack copy: the pinned layer's ranks for the pairs it is in
        for i in range(na):
            for j in range(nb):
                q = _pin_of(s, i, j, n_h, n_r, pin_y, tab.ctab, gm.hand, gm.rack)
                r = np.int64(-1)
                if q != -2:
                    r = np.int64(play_key[s, e4i if q < 0 else PIN_LAYER + q, c,
                                          res_scratch[RES_HAND, i], res_scratch[RES_RACK, j]])
                up = np.int64(r > top)
                pos = n_top & (up - 1)
                ties[np.uint64(pos)] = i * 64 + j
                n_top = pos + up + np.int64(r == top)
                top = max(top, r)
    if top < 0:
        return hi, rj, p, best
    best_code = np.int64(ties[0])
    if n_top > 1:
        best_pr = mix64(tie_key ^ np.uint64(best_code))
        for k in range(1, n_top):
            code = np.int64(ties[k])
            pr = mix64(tie_key ^ np.uint64(code))
            if pr > best_pr:
                best_pr = pr
                best_code = code
    bi = best_code // 64
    bj = best_code % 64
    hi = bi if n_h > 0 else -2
    rj = bj if n_r > 0 else -1
    if pin_y >= 0:
        q = _pin_of(s, bi, bj, n_h, n_r, pin_y, tab.ctab, gm.hand, gm.rack)
        if q >= 0:  # the placements tied for the pinned best, as on the float path
            ra = res_scratch[RES_HAND, bi]
            rb = res_scratch[RES_RACK, bj]
            if tracing:
                best = tab.play_val[s, PIN_LAYER + q, c, ra, rb]
            at = PIN_LIST + 4 * q
            p = best_list[s, c, ra, rb, at + 1 + bounded(rs, best_list[s, c, ra, rb, at])]
            return hi, rj, p, best
    if tracing:  # the score only shows in a trace: no table load (often a cache miss) else
        best = tab.play_val[s, e4i, c, res_scratch[RES_HAND, bi], res_scratch[RES_RACK, bj]]
    rec = tab.rec_t[s, c, res_scratch[RES_HAND, bi], res_scratch[RES_RACK, bj]]
    k = np.int64(rec[REC_K])
    # one draw even for a single placement: the stream's position then does not wait on
    # this record (often a cache miss), and later draws need not either
    p = np.int64(rec[REC_LIST + bounded(rs, k)])
    return hi, rj, p, best


@inlined
def _deny_term(o, j, n_r, tab, gm):
    """P1's deny term of leaving the rack's other cards to the opponent o: the best of them to
    him (his single-card score at his hand size)."""
    ctab, best_val, rack = tab.ctab, tab.best_val, gm.rack
    void = ctab.shape[0] - 1
    cmax = best_val.shape[1] - 1
    deny = -1.0e18
    for jj in range(n_r):
        if jj != j:
            tt = _resolve(ctab, np.int64(rack[jj]), void, void)
            deny = max(deny, best_val[o, min(gm.hn[o], cmax), void, tt])
    return deny


@inlined
def _choose_scored(rs, s, c, n_h, n_r, e4, pin_y, tie_key, tab, gm):
    """The greedy choice on the float scores less the keep and deny terms (P1): ties by the
    largest hash, then one of the best pair's tied placements drawn."""
    pol, ctab, best_val, best_list, res_scratch = tab.pol, tab.ctab, tab.best_val, tab.best_list, \
        gm.res_scratch
    void = ctab.shape[0] - 1
    hi, rj, p = -1, -1, 0
    best = -1.0e18
    best_pr = np.uint64(0)
    best_code = 0
    pr_known = False
    keep_w = pol[s, P_KEEP_WEIGHT]
    deny_w = pol[s, P_DENY_WEIGHT]
    e4i = 1 if e4 else 0
    for i in range(max(n_h, 1)):
        ra = res_scratch[RES_HAND, i]
        keep = keep_w * best_val[s, c, void, ra]
        for j in range(max(n_r, 1)):
            rb = res_scratch[RES_RACK, j]
            q = _pin_of(s, i, j, n_h, n_r, pin_y, ctab, gm.hand, gm.rack)
            if q == -2:
                continue
            v = tab.play_val[s, e4i if q < 0 else PIN_LAYER + q, c, ra, rb]
            if v < -1.0e8:  # illegal here (no placement, or a same-section pair outside E4)
                continue
            v -= keep
            if deny_w != 0.0 and n_r > 1:
                v -= deny_w * _deny_term(1 - s, j, n_r, tab, gm)
            if v > best + 1e-9:
                best = v
                best_code = i * 64 + j
                pr_known = False  # the hash of the best is only needed once a tie shows up
                hi = i if n_h > 0 else -2
                rj = j if n_r > 0 else -1
            elif v >= best - 1e-9:
                if not pr_known:
                    best_pr = mix64(tie_key ^ np.uint64(best_code))
                    pr_known = True
                pr = mix64(tie_key ^ np.uint64(i * 64 + j))
                if pr > best_pr:
                    best_pr = pr
                    hi = i if n_h > 0 else -2
                    rj = j if n_r > 0 else -1
    if hi != -1:
        ra = res_scratch[RES_HAND, max(hi, 0)]
        rb = res_scratch[RES_RACK, max(rj, 0)]
        q = _pin_of(s, max(hi, 0), max(rj, 0), n_h, n_r, pin_y, ctab, gm.hand, gm.rack)
        if q >= 0:  # the placements tied for the pinned best
            at = PIN_LIST + 4 * q
            p = best_list[s, c, ra, rb, at + 1 + bounded(rs, best_list[s, c, ra, rb, at])]
        else:
            k = tab.best_k[s, c, ra, rb]
            p = best_list[s, c, ra, rb, bounded(rs, k)]  # one draw, as on the ranked path
    return hi, rj, p, best


@inlined
def _pinned_places(s, ra, rb, q, n_place, place_list):
    """How many legal placements of (ra, rb) respect pin q (all of them for q < 0)."""
    if q < 0:
        return n_place[s, ra, rb]
    n = 0
    for k in range(n_place[s, ra, rb]):
        p = place_list[s, ra, rb, k]
        n += (p // 3 if q < 3 else p % 3) == q % 3
    return n


@inlined
def _choose_random(rs, s, c, n_h, n_r, e4, best_val, n_place, place_list, e4_only, res_scratch,
                   pin_y, ctab, hand, rack):
    """The random policy's choice: uniform over all legal (hand card, rack card, placement),
    a Counter-Attack's copy in its pinned section (pin_y >= 0, _pin_of). The first pass counts each
    pair's legal placements into res_scratch[RES_TIES] (pair order), so that the second walks the
    counts instead of the tables."""
    na = max(n_h, 1)
    nb = max(n_r, 1)
    counts = res_scratch[RES_TIES]
    total = np.int64(0)
    e4_off = np.int64(0 if e4 else 1)  # an E4-only pair is legal in the E4 situation alone
    for i in range(na):
        ra = res_scratch[RES_HAND, i]
        for j in range(nb):
            rb = res_scratch[RES_RACK, j]
            if pin_y < 0:  # no pin (the common case): arithmetic, no branch on the tables
                n = np.int64(n_place[s, ra, rb]) * (1 - np.int64(e4_only[s, ra, rb]) * e4_off)
            else:
                q = _pin_of(s, i, j, n_h, n_r, pin_y, ctab, hand, rack)
                n = np.int64(0)
                if not (e4_only[s, ra, rb] and not e4) and q != -2:
                    n = _pinned_places(s, ra, rb, q, n_place, place_list)
            counts[i * nb + j] = n
            total += n
    if total == 0:
        return -1, -1, 0, 0.0
    pick = bounded(rs, total)
    for i in range(na):
        for j in range(nb):
            n = np.int64(counts[i * nb + j])
            if pick < n:
                ra = res_scratch[RES_HAND, i]
                rb = res_scratch[RES_RACK, j]
                q = _pin_of(s, i, j, n_h, n_r, pin_y, ctab, hand, rack)
                for k in range(n_place[s, ra, rb]):
                    p = place_list[s, ra, rb, k]
                    if q < 0 or (p // 3 if q < 3 else p % 3) == q % 3:
                        if pick == 0:
                            return (i if n_h > 0 else -2, j if n_r > 0 else -1, p,
                                    best_val[s, c, rb, ra])
                        pick -= 1
            pick -= n
    return -1, -1, 0, 0.0
