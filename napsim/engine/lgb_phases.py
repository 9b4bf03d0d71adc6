"""The phases of one La Grande Battles turn around the Corps commanders' plays (those are
napsim.engine.lgb_corps), in the order napsim.engine.lgb.play_blocks_lgb runs them: squares (L8),
Tactician cards, First Strike (P7), the E4 test, what each Corps commander would do without a gift
(P6), the CIC's gifts leaving his hand and the rack (L2), the discards (D7) and the end-of-turn
draws (L9).

Every phase is inlined into play_blocks_lgb by LLVM (napsim.engine.jit.inlined) and takes the same
random draws, in the same order, as the single loop it came from. The per-turn plan of the three
Corps commanders is the float array pl[PL_*, Corps commander] (napsim.engine.layout).
"""

import numpy as np

from napsim.engine.cardflow import _draw_card, _resolve, _take_tactician, _trace, scout_keep, scout_kept
from napsim.engine.jit import inlined, inlined_cached
from napsim.engine.layout import (
    C_COUNTER,
    C_FS,
    C_KIND,
    C_MIRROR,
    C_SEC,
    CM_HAND_END,
    CM_HAND_SUM,
    CM_SCOUT_GIFT,
    CM_SQUARE_CARDS,
    CM_TAC_DRAWN,
    CM_TAC_HELD_END,
    CM_TAC_HELD_SUM,
    CM_TAC_PLAYED,
    CM_TURNS,
    EV_CORPS_DRAW,
    EV_CORPS_HANDS,
    EV_CORPS_TACTICIAN,
    EV_DRAW,
    EV_FIRST_STRIKE,
    EV_ORDERS,
    EV_SCOUT,
    EV_SQUARE,
    EV_TURN,
    EV_UNSQUARE,
    GI_OWN_KEY,
    GI_OWN_THR,
    GR_ALT_KEY,
    GR_OWN_KEY,
    GR_OWN_THR,
    K_FIRST,
    KIND_SECTION,
    LST_SCOUT,
    M_COUNTER,
    M_E4,
    M_E4_USED,
    M_EFF,
    M_FIRST_STRIKE,
    M_G_HELD_END,
    M_G_POOL_END,
    M_HAND_KIND,
    M_MARCH_UNITS,
    M_NOM,
    M_PICK_FROM,
    M_RACK_KIND,
    M_SCOUT,
    M_SQ_FORMED,
    M_TAC_HELD,
    M_TAC_PLAYED,
    M_VIOLATIONS,
    M_WASTED,
    P_FIRST_STRIKE_PROB,
    P_TACTICIAN_USE_PROB,
    PL_ALT,
    PL_CMD_DRAWS,
    PL_OWN_BEST,
    PL_OWN_SLOT,
    PL_PHYS,
    PL_PHYS2,
    PL_SOURCE,
    PL_TAC_DRAWS,
    S_G_RULE,
    S_HAND,
    SRC_CIC,
    SRC_OWN,
    TR_HAND,
    TR_RACK,
    WAIT_BINS,
)
from napsim.engine.lgb_corps import _own_best
from napsim.engine.rng import bounded, uniform, uniform_when


@inlined_cached
def _corps_tactician(tac, tac_pile, tac_disc, met, cmet, s, k, trace, tn, ply):
    """One Tactician card for Corps commander k of side s (D4)."""
    if not _take_tactician(tac_pile, tac_disc, met, s):
        return
    tac[s, k] += 1
    cmet[s, k + 1, CM_TAC_DRAWN] += 1
    _trace(trace, tn, EV_CORPS_TACTICIAN, ply, s, k, tac[s, k], 0, 0, 0, 0, 0, 0)


@inlined
def _squares(rs, s, ply, scfg, sqp, hand, hn, chand, cn, sq, sq_own, sqn, met, cmet, trace, tn):
    """L8 squares: cards come back to their owner, then the opponent's attacks may force one (a
    Corps commander's card, or one the CIC lends while he keeps at least one)."""
    k = 0
    while k < sqn[s]:
        if uniform(rs) < sqp[s, 1]:
            own = sq_own[s, k]
            if own == 3:
                hand[s, hn[s]] = sq[s, k]
                hn[s] += 1
            else:
                chand[s, own, cn[s, own]] = sq[s, k]
                cn[s, own] += 1
            _trace(trace, tn, EV_UNSQUARE, ply, s, sq[s, k], own, 0, 0, 0, 0, 0, 0)
            sqn[s] -= 1
            sq[s, k] = sq[s, sqn[s]]
            sq_own[s, k] = sq_own[s, sqn[s]]
        else:
            k += 1
    if sqp[s, 0] > 0.0 and uniform(rs) < sqp[s, 0]:
        kc = bounded(rs, np.int64(3))
        if sqn[s] < scfg[s, S_HAND]:
            if cn[s, kc] >= 1:
                i = bounded(rs, cn[s, kc])
                sq[s, sqn[s]] = chand[s, kc, i]
                sq_own[s, sqn[s]] = kc
                cn[s, kc] -= 1
                chand[s, kc, i] = chand[s, kc, cn[s, kc]]
                cmet[s, kc + 1, CM_SQUARE_CARDS] += 1
            elif hn[s] >= 2:  # the CIC lends one of his, keeping at least one (L8)
                i = bounded(rs, hn[s])
                sq[s, sqn[s]] = hand[s, i]
                sq_own[s, sqn[s]] = 3
                hn[s] -= 1
                hand[s, i] = hand[s, hn[s]]
                cmet[s, 0, CM_SQUARE_CARDS] += 1
            else:
                kc = -1
            if kc >= 0:
                _trace(trace, tn, EV_SQUARE, ply, s, sq[s, sqn[s]], sq_own[s, sqn[s]], 0, 0,
                       0, 0, 0, 0)
                sqn[s] += 1
                met[s, M_SQ_FORMED] += 1


@inlined
def _spend_tacticians(rs, s, turn, pol, hn, cn, tac, tac_disc, met, cmet, tac_turn):
    """Tactician cards are spent at a policy rate (only their count matters to card flow); the
    cards held at the start of the turn, before any is spent (as in EPIC), are summed."""
    for c in range(3):
        cmet[s, c + 1, CM_TURNS] += 1
        cmet[s, c + 1, CM_TAC_HELD_SUM] += tac[s, c]
        cmet[s, c + 1, CM_HAND_SUM] += cn[s, c]
        tac_turn[s, turn] += tac[s, c]
        has = tac[s, c] > 0  # a draw only then; without a branch (the use is a coin toss)
        used = np.int64(has & (uniform_when(rs, has) < pol[s, P_TACTICIAN_USE_PROB]))
        tac[s, c] -= used
        tac_disc[0] += used
        met[s, M_TAC_PLAYED] += used
        cmet[s, c + 1, CM_TAC_PLAYED] += used
    cmet[s, 0, CM_HAND_SUM] += hn[s]


@inlined
def _first_strike(rs, o, ply, pol, ctab, gm, at_once):
    """P7: a First Strike held by the opponent's CIC or a Corps commander: (the card or -1, who
    played it: 0 the CIC, 1-3 a Corps commander, -1 none). at_once (first_strike_draw =
    cic_at_once): only a CIC draws a replacement, here; else every player who played one draws
    it at the end of the turn (_first_strike_draw). gm: the game (layout.LgbGame)."""
    hand, hn, chand, cn, met, trace, tn = gm.hand, gm.hn, gm.chand, gm.cn, gm.met, gm.trace, gm.tn
    fs_card = -1
    fs_holder = -1
    if pol[o, P_FIRST_STRIKE_PROB] > 0.0:
        for holder in range(4):
            found = -1  # his first First Strike, found without a branch per card
            n_hold = hn[o] if holder == 0 else cn[o, holder - 1]
            for i in range(n_hold - 1, -1, -1):
                t = hand[o, i] if holder == 0 else chand[o, holder - 1, i]
                found = i if ctab[t, C_FS] == 1 else found
            if found < 0:
                continue
            if uniform(rs) < pol[o, P_FIRST_STRIKE_PROB]:
                if holder == 0:
                    fs_card = hand[o, found]
                    hn[o] -= 1
                    hand[o, found] = hand[o, hn[o]]
                else:
                    fs_card = chand[o, holder - 1, found]
                    cn[o, holder - 1] -= 1
                    chand[o, holder - 1, found] = chand[o, holder - 1, cn[o, holder - 1]]
                met[o, M_FIRST_STRIKE] += 1
                fs_holder = holder
                _trace(trace, tn, EV_FIRST_STRIKE, ply, o, fs_card, holder, 0, 0, 0, 0, 0, 0)
                if holder == 0 and at_once:
                    t = _draw_card(rs, gm.pile, gm.pn, gm.disc, gm.dn, met, o, trace, tn, ply)
                    if t >= 0:
                        hand[o, hn[o]] = t
                        hn[o] += 1
                        _trace(trace, tn, EV_DRAW, ply, o, t, 0, 0, 0, 0, 0, 0, 0)
            break
    return fs_card, fs_holder


@inlined
def _first_strike_draw(rs, o, ply, holder, pile, pn, disc, dn, hand, hn, chand, cn, met, trace,
                       tn):
    """P7 (first_strike_draw = end_of_turn): the card text, "at the end of the turn, you draw your
    new Command card first": the player who played the First Strike (the CIC, holder 0, or Corps
    commander holder - 1) draws its replacement before the side whose turn it is draws."""
    t = _draw_card(rs, pile, pn, disc, dn, met, o, trace, tn, ply)
    if t >= 0:
        if holder == 0:
            hand[o, hn[o]] = t
            hn[o] += 1
            _trace(trace, tn, EV_DRAW, ply, o, t, 0, 0, 0, 0, 0, 0, 0)
        else:
            chand[o, holder - 1, cn[o, holder - 1]] = t
            cn[o, holder - 1] += 1
            _trace(trace, tn, EV_CORPS_DRAW, ply, o, holder - 1, t, 0, 0, 0, 0, 0, 0)


@inlined
def _same_section(s, opp_last, void, ctab, hand, hn, rack, rn, met):
    """E4 (L): every CIC hand and rack card a section card of one and the same section."""
    e4 = False
    if hn[s] > 0 and rn[0] > 0:
        t = _resolve(ctab, hand[s, 0], opp_last, void)
        sec0 = ctab[t, C_SEC]
        e4 = ctab[t, C_KIND] == KIND_SECTION
        for i in range(1, hn[s]):
            if not e4:
                break
            t = _resolve(ctab, hand[s, i], opp_last, void)
            e4 = ctab[t, C_KIND] == KIND_SECTION and ctab[t, C_SEC] == sec0
        for j in range(rn[0]):
            if not e4:
                break
            t = _resolve(ctab, rack[j], opp_last, void)
            e4 = ctab[t, C_KIND] == KIND_SECTION and ctab[t, C_SEC] == sec0
        if e4:
            met[s, M_E4] += 1
    return e4


@inlined
def _trace_turn(trace, tn, ply, s, cmd, e4, hand, hn, rack, rn, sqn, cn, tac, pn, dn):
    """The EV_TURN event (with the CIC's hand and the rack) and the Corps commanders' hands."""
    k = tn[0]
    _trace(trace, tn, EV_TURN, ply, s, cmd, rn[0], 1 if e4 else 0, hn[s], sqn[s],
           tac[s, 0] + tac[s, 1] + tac[s, 2], pn[0], dn[0])
    if k < trace.shape[0]:
        for i in range(hn[s]):
            trace[k, TR_HAND + i] = hand[s, i]
        for j in range(rn[0]):
            trace[k, TR_RACK + j] = rack[j]
    _trace(trace, tn, EV_CORPS_HANDS, ply, s, cn[s, 0], cn[s, 1], cn[s, 2], tac[s, 0],
           tac[s, 1], tac[s, 2], 0, 0)


@inlined
def _own_alternatives(s, own_min, opp_last, void, cmax, ctab, chand, cn, best_t, grec, pl, res):
    """What each Corps commander would do without a gift (P6: the CIC scores gifts by the gain):
    pl rows PL_OWN_BEST, PL_OWN_SLOT and PL_ALT, and their integer keys for the CIC's search (res
    rows GR_OWN_THR, GR_OWN_KEY, GR_ALT_KEY; grec: napsim.engine.lgb_gifts.gift_records)."""
    mirror = ctab[opp_last, C_MIRROR]  # read before the test: the void type's row exists
    mirror = mirror if opp_last != void else void
    for kc in range(3):
        b, slot, r = _own_best(s, kc, chand, cn, ctab, mirror, void, best_t, cmax)
        pl[PL_OWN_BEST, kc] = b
        pl[PL_OWN_SLOT, kc] = slot
        plays = (slot >= 0) & (b >= own_min)
        pl[PL_ALT, kc] = b if plays else 0.0
        cq = min(cn[s, kc], cmax)
        thr = np.int64(grec[s, cq, r, GI_OWN_THR + 2 * kc])  # r: void without a card (a row too)
        key = np.int64(grec[s, cq, r, GI_OWN_KEY + 2 * kc])
        res[GR_OWN_THR, kc] = thr if slot >= 0 else 0
        res[GR_OWN_KEY, kc] = key
        res[GR_ALT_KEY, kc] = key if plays else 0


@inlined_cached
def _give_cards(s, ply, gifts, rack_size, e4, opp_last, void, ctab, gm):
    """L2: the CIC's hand card (slot hi) and rack card (slot rj) leave for their receivers ka and
    kb: (card a, card b, a as it plays, b as it plays), VOID for none. A card that plays as nothing
    (a First Strike on its owner's turn, a Counter-Attack with nothing to copy) is given to nobody
    and goes straight to the discards. gifts: (hi, rj, ka, kb); gm: the game (layout.LgbGame)."""
    hi, rj, ka, kb = gifts
    hand, hn, rack, rack_t, rn = gm.hand, gm.hn, gm.rack, gm.rack_t, gm.rn
    disc, dn, met = gm.disc, gm.dn, gm.met
    ta = void
    tb = void
    if hi >= 0:
        ta = hand[s, hi]
        hn[s] -= 1
        hand[s, hi] = hand[s, hn[s]]
        met[s, M_HAND_KIND + ctab[ta, C_KIND]] += 1
    if rj >= 0:
        tb = rack[rj]
        waited = ply - rack_t[rj] if ply - rack_t[rj] < WAIT_BINS else WAIT_BINS - 1
        gm.wait_hist[ctab[tb, C_KIND], waited] += 1
        rn[0] -= 1
        rack[rj] = rack[rn[0]]
        rack_t[rj] = rack_t[rn[0]]
        met[s, M_PICK_FROM + rack_size] += 1
        met[s, M_RACK_KIND + ctab[tb, C_KIND]] += 1
    ra = _resolve(ctab, ta, opp_last, void)
    rb = _resolve(ctab, tb, opp_last, void)
    met[s, M_COUNTER] += ctab[ta, C_COUNTER] + ctab[tb, C_COUNTER]
    if ta != void:
        gm.last_hand[s] = ra
    if e4 and ka >= 0 and ka == kb:
        met[s, M_E4_USED] += 1
    if ta != void and ka < 0:
        disc[dn[0]] = ta
        dn[0] += 1
    if tb != void and kb < 0:
        disc[dn[0]] = tb
        dn[0] += 1
    return ta, tb, ra, rb


@inlined_cached
def _discard_played(void, fs_card, pl, disc, dn):
    """D7: played cards (rejected ones went already) and a First Strike go to the discards."""
    for kc in range(3):
        if pl[PL_SOURCE, kc] == SRC_CIC or pl[PL_SOURCE, kc] == SRC_OWN:
            for which in range(2):
                t = int(pl[PL_PHYS, kc]) if which == 0 else int(pl[PL_PHYS2, kc])
                if t != void:
                    disc[dn[0]] = t
                    dn[0] += 1
    if fs_card >= 0:
        disc[dn[0]] = fs_card
        dn[0] += 1


@inlined_cached
def _cic_draw(rs, s, ply, scouted, is_random, tab, gm):
    """L9 end of turn up to the Scout keep's decision point: the CIC draws one, after a Scout two,
    from rs. Returns (first card, second card or -1, P2's keep: the better, K_FIRST with one
    card); the two cards and P2's keep also go to st[LST_SCOUT:] (cardflow.scout_keep). tab: the
    tables (layout.LgbArgs); gm: the game (layout.LgbGame)."""
    ctab, best_t = tab.ctab, tab.best_t
    void = ctab.shape[0] - 1
    cmax = best_t.shape[3] - 1
    pile, pn, disc, dn, hn, met, trace, tn = gm.pile, gm.pn, gm.disc, gm.dn, gm.hn, gm.met, gm.trace, gm.tn
    t1 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
    t2 = np.int64(-1)
    p2 = np.int64(K_FIRST)
    if scouted and t1 >= 0:
        t2 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
        met[s, M_SCOUT] += 1
        if t2 >= 0:
            c2 = min(hn[s] + 1, cmax)
            r1 = _resolve(ctab, t1, void, void)  # P2: each card as it would play
            r2 = _resolve(ctab, t2, void, void)
            v1 = max(best_t[s, 0, 0, c2, r1], max(best_t[s, 1, 0, c2, r1], best_t[s, 2, 0, c2, r1]))
            v2 = max(best_t[s, 0, 0, c2, r2], max(best_t[s, 1, 0, c2, r2], best_t[s, 2, 0, c2, r2]))
            p2 = scout_keep(t1, t2, v1, v2, is_random, rs, gm.st[LST_SCOUT:])
    return t1, t2, p2


@inlined_cached
def _cic_keep(rs_after, s, ply, drawn, keep, gm):
    """L9 the Scout keep applied (keep K_FIRST or K_SECOND: P2's or the planner's): the CIC keeps
    one and gives the other to the Corps commander with the fewest cards (ties drawn uniformly
    from rs_after, P6); one card drawn joins his hand."""
    t1, t2, _ = drawn
    hand, hn, chand, cn, cmet, trace, tn = gm.hand, gm.hn, gm.chand, gm.cn, gm.cmet, gm.trace, gm.tn
    if t2 >= 0:
        t1, give = scout_kept(t1, t2, keep)
        low = min(cn[s, 0], min(cn[s, 1], cn[s, 2]))
        n_low = np.int64(0)
        for kc in range(3):
            if cn[s, kc] == low:
                n_low += 1
        pick = bounded(rs_after, n_low) if n_low > 1 else 0
        to = 0
        for kc in range(3):
            if cn[s, kc] == low:
                if pick == 0:
                    to = kc
                    break
                pick -= 1
        chand[s, to, cn[s, to]] = give
        cn[s, to] += 1
        cmet[s, to + 1, CM_SCOUT_GIFT] += 1
        _trace(trace, tn, EV_SCOUT, ply, s, t1, give, to, 0, 0, 0, 0, 0)
    if t1 >= 0:
        hand[s, hn[s]] = t1
        hn[s] += 1
        _trace(trace, tn, EV_DRAW, ply, s, t1, 0, 0, 0, 0, 0, 0, 0)


@inlined_cached
def _corps_draws(rs, s, ply, gm):
    """The Corps commanders' Command draws (L6 two sabres, L7 unused stars), then their Tactician
    draws. gm: the game (layout.LgbGame)."""
    pl, pile, pn, disc, dn, chand, cn, met = gm.pl, gm.pile, gm.pn, gm.disc, gm.dn, gm.chand, gm.cn, gm.met
    tac, tac_pile, tac_disc, cmet, trace, tn = gm.tac, gm.tac_pile, gm.tac_disc, gm.cmet, gm.trace, gm.tn
    for kc in range(3):
        for _ in range(int(pl[PL_CMD_DRAWS, kc])):
            t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
            if t >= 0:
                chand[s, kc, cn[s, kc]] = t
                cn[s, kc] += 1
                _trace(trace, tn, EV_CORPS_DRAW, ply, s, kc, t, 0, 0, 0, 0, 0, 0)
        for _ in range(int(pl[PL_TAC_DRAWS, kc])):
            _corps_tactician(tac, tac_pile, tac_disc, met, cmet, s, kc, trace, tn, ply)


@inlined
def _end_game(scfg, hn, cn, tac, gst, pool, met, cmet):
    """What each side holds at the end: Tactician cards, hands and Guerrilla counters."""
    for s in range(2):
        for kc in range(3):
            met[s, M_TAC_HELD] += tac[s, kc]
            cmet[s, kc + 1, CM_TAC_HELD_END] += tac[s, kc]
            cmet[s, kc + 1, CM_HAND_END] += cn[s, kc]
        cmet[s, 0, CM_HAND_END] += hn[s]
        if scfg[s, S_G_RULE] != 0:
            met[s, M_G_HELD_END] += gst[s, 0] + gst[s, 1] + gst[s, 2]
            met[s, M_G_POOL_END] += pool[0]


@inlined_cached
def _check_guerrillas(s, g_total, gst, pool, met):
    """Counters are conserved and never negative, the pool and those out of play included."""
    g_now = pool[0] + pool[1]
    for k2 in range(2):
        for kc in range(3):
            g_now += gst[k2, kc]
            if gst[k2, kc] < 0:
                met[s, M_VIOLATIONS] += 1
    if g_now != g_total or pool[0] < 0:
        met[s, M_VIOLATIONS] += 1


@inlined_cached
def _orders_metrics(s, ply, nom_w0, nom_w1, nom_w2, eff_w0, eff_w1, eff_w2, wasted, marched, pl,
                    met, trace, tn):
    """The turn's orders per wing (the French seat's left, centre, right) and the EV_ORDERS event."""
    met[s, M_NOM + 0] += nom_w0
    met[s, M_NOM + 1] += nom_w1
    met[s, M_NOM + 2] += nom_w2
    met[s, M_EFF + 0] += eff_w0
    met[s, M_EFF + 1] += eff_w1
    met[s, M_EFF + 2] += eff_w2
    met[s, M_WASTED] += wasted
    met[s, M_MARCH_UNITS] += marched
    _trace(trace, tn, EV_ORDERS, ply, s, nom_w0, nom_w1, nom_w2, eff_w0, eff_w1, eff_w2,
           marched, int(pl[PL_TAC_DRAWS, 0] + pl[PL_TAC_DRAWS, 1] + pl[PL_TAC_DRAWS, 2]))
