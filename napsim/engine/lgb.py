"""La Grande Battles (docs/rules.md L1-L9, G4-G6 in LGB): whole games in one kernel call.

Each side has a CIC with a Command hand and three Corps commanders (left, centre, right wing),
each with two sections and a hand of his own. Each turn the CIC gives a hand card and a rack card
to two different Corps commanders (L2); a Corps commander plays it, or discards it for one of his
own (L5), or plays one of his own when he got none; with an empty hand and no card he rolls for
initiative (L6). Choices read the tables of napsim.tables_lgb; randomness comes from the game's
own counter-based stream, so a game is a pure function of (seed, game index).

Readings of points the rules leave open (policy where the rules say so):
- the CIC scores a gift as what the receiver would gain over his own alternative (his best own
  card, or nothing), using the P1 scores (P6);
- a Corps commander swaps the CIC's card for his best own card when that scores more than
  `corps_swap_margin` above it, and plays an own card without a gift when it scores at least
  `corps_own_min`;
- the CIC lends a card for a square (L8) whenever he holds two or more;
- after a Scout the CIC keeps the better card and gives the other to the Corps commander with the
  fewest cards (ties drawn uniformly from the game's stream, one bounded draw only when there is a
  tie);
- a First Strike may be played by the CIC or a Corps commander holding one; only the CIC draws a
  replacement (Corps hands refill only through L6, L7 and L9);
- a Counter-Attack plays as the opponent CIC's last hand card, mirrored;
- a greedy Corps commander's best own card is the first of equal score in his hand, and option ties
  (L4 split, a Center card's section, Force March) take the lower option; the random policy picks
  own cards and options uniformly;
- a Take Command given by the CIC also orders free units of the sections next to the Corps
  commander's two (E7; the reading is napsim.tables_lgb's);
- G4 in LGB: a Scout gains a counter for the Corps commander who played it when his two sections
  together hold at least four Spanish units.
"""

import numpy as np
from numba import njit, prange

from napsim.engine.cardflow import _draw_card_plain as _draw_card
from napsim.engine.cardflow import _elan_reshuffle, _refill_rack, _resolve, _take_tactician
from napsim.engine.cardflow import _trace_plain as _trace
from napsim.engine.commanders import roll_initiative
from napsim.engine.layout import *  # noqa: F403  (re-exports S_*, SRC_*, DRAW_*, EV_*, ... for napsim)
from napsim.engine.layout import (
    C_COUNTER,
    C_ELAN,
    C_EQ,
    C_FS,
    C_KIND,
    C_SCOUT,
    C_SEC,
    C_STARS,
    C_TDRAW,
    CM_EFF,
    CM_EFF_A,
    CM_G_ACQUIRED,
    CM_G_NULLIFIED,
    CM_G_SPENT,
    CM_G_START,
    CM_HAND_END,
    CM_HAND_SUM,
    CM_NO_CARD,
    CM_NOM,
    CM_OWN_PLAYED,
    CM_RECEIVED,
    CM_REJECTED,
    CM_SCOUT_GIFT,
    CM_SQUARE_CARDS,
    CM_STAR_CMD,
    CM_TAC_DRAWN,
    CM_TAC_HELD_END,
    CM_TAC_HELD_SUM,
    CM_TAC_PLAYED,
    CM_TURNS,
    EV_CORPS_DRAW,
    EV_CORPS_HANDS,
    EV_CORPS_PLAY,
    EV_CORPS_REACH,
    EV_CORPS_TACTICIAN,
    EV_DRAW,
    EV_FIRST_STRIKE,
    EV_G_ATTEMPT,
    EV_G_GAIN,
    EV_GIVE,
    EV_INITIATIVE,
    EV_ORDERS,
    EV_REJECT,
    EV_SCOUT,
    EV_SQUARE,
    EV_TURN,
    EV_UNSQUARE,
    G_OUT_DECLINED,
    G_OUT_NULLIFIED,
    G_OUT_SABRE,
    GAIN_BELOW,
    GAIN_NEVER,
    KIND_RANDOM,
    M_COUNTER,
    M_E4,
    M_E4_USED,
    M_EFF,
    M_FIRST_STRIKE,
    M_G_ACQUIRED,
    M_G_DENIED_EFF,
    M_G_DENIED_EFF_SEC,
    M_G_DENIED_NOM,
    M_G_FRENCH_TURNS,
    M_G_HELD_END,
    M_G_NOT_SPENT,
    M_G_NULL_SEC,
    M_G_NULLIFIED,
    M_G_OFFERED,
    M_G_POOL_END,
    M_G_SABRE,
    M_G_SPENT,
    M_HAND_KIND,
    M_INIT_ORDERS,
    M_MARCH_UNITS,
    M_NOM,
    M_PICK_FROM,
    M_RACK_KIND,
    M_SCOUT,
    M_SQ_FORMED,
    M_STARS_MARCH,
    M_STARS_TAC,
    M_TAC_HELD,
    M_TAC_PLAYED,
    M_TURNS,
    M_VIOLATIONS,
    M_WASTED,
    MAX_HAND,
    N_CM,
    N_METRICS,
    NO_TACTICIAN_DECK,
    P_CORPS_OWN_MIN,
    P_CORPS_SWAP_MARGIN,
    P_FIRST_STRIKE_PROB,
    P_G_GAIN_BELOW,
    P_G_GAIN_MODE,
    P_G_SPEND_MODE,
    P_G_THRESHOLD,
    P_KIND,
    P_MARCH_PROB,
    P_TACTICIAN_USE_PROB,
    R_SHUFFLE_FIRST,
    R_TAC_DECK,
    RACK,
    S_CORPS_HAND,
    S_CORPS_TAC,
    S_FRENCH,
    S_G_RULE,
    S_G_START,
    S_HAND,
    S_SPAN,
    SPEND_ALWAYS,
    SPEND_ASSAULT,
    SPEND_THRESHOLD,
    SRC_CIC,
    SRC_HOLD,
    SRC_INITIATIVE,
    SRC_NONE,
    SRC_OWN,
    TRACE_WIDTH,
    WAIT_BINS,
)
from napsim.engine.rng import battle_die, bounded, mix64, next_u64, start_game, uniform

NEG_HALF = -5.0e8


@njit(cache=True, inline="always")
def _corps_tactician(tac, tac_pile, tac_disc, met, cmet, s, k, trace, tn, ply):
    """One Tactician card for Corps commander k of side s (D4)."""
    if not _take_tactician(tac_pile, tac_disc, met, s):
        return
    tac[s, k] += 1
    cmet[s, k + 1, CM_TAC_DRAWN] += 1
    _trace(trace, tn, EV_CORPS_TACTICIAN, ply, s, k, tac[s, k], 0, 0, 0, 0, 0, 0)


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


@njit(cache=True, _nrt=False)
def play_game_lgb(rs, game, run_key, turns, first, scfg, sqp, pol, ctab, deck, counts, nom_t,
                  eff_t, rem_t, val_t, best_t, bopt_t, units, g_pool0, ropt, check, met, cmet,
                  wait_hist,
                  g_turn, tac_turn, trace, tn, pile, disc, hand, chand, rack, rack_t, sq, sq_own,
                  scratch, pl, gsc, res, st, cn, tac, gst):
    """Play one La Grande Battles game; add its metrics to met[side], cmet[side, commander],
    wait_hist[kind, wait], g_turn[offered/spent/nullified, turn] and tac_turn[side, turn]."""
    start_game(rs, run_key, game)
    void = ctab.shape[0] - 1
    cmax = best_t.shape[3] - 1
    n_cards = deck.shape[0]
    for i in range(n_cards):
        pile[i] = deck[i]  # shuffled lazily, one random card at each draw (_draw_card)
    # small counters live in caller-owned arrays: no allocation (and no reference counting) here
    st[:] = 0
    pn = st[0:1]
    dn = st[1:2]
    rn = st[2:3]
    hn = st[3:5]
    sqn = st[5:7]
    tac_pile = st[7:8]
    tac_disc = st[8:9]
    last_hand = st[9:11]
    last_hand[0] = void
    last_hand[1] = void
    cn[:, :] = 0
    tac[:, :] = 0
    gst[:, :] = 0  # Guerrilla counters per Corps commander
    pool = g_pool0
    pn[0] = n_cards
    tac_pile[0] = ropt[R_TAC_DECK]
    if ropt[R_TAC_DECK] == 0:
        tac_disc[0] = NO_TACTICIAN_DECK  # D4: no Tactician card is dealt or drawn
    for k in range(2):
        if scfg[k, S_G_RULE] != 0:
            for c in range(3):
                gst[k, c] = scfg[k, S_G_START + c]
                cmet[k, c + 1, CM_G_START] += gst[k, c]
    g_total = pool + gst[0, 0] + gst[0, 1] + gst[0, 2] + gst[1, 0] + gst[1, 1] + gst[1, 2]
    # L1 setup: the CIC's hand, then each Corps commander's, then Tactician cards, then the rack
    for k in range(2):
        s = (first + k) % 2
        for _ in range(scfg[s, S_HAND]):
            t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, -1)
            if t >= 0:
                hand[s, hn[s]] = t
                hn[s] += 1
        for c in range(3):
            for _ in range(scfg[s, S_CORPS_HAND + c]):
                t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, -1)
                if t >= 0:
                    chand[s, c, cn[s, c]] = t
                    cn[s, c] += 1
            take = min(scfg[s, S_CORPS_TAC + c], tac_pile[0])
            tac[s, c] = take
            tac_pile[0] -= take
    for _ in range(RACK):
        t = _draw_card(rs, pile, pn, disc, dn, met, first, trace, tn, -1)
        if t >= 0:
            rack[rn[0]] = t
            rack_t[rn[0]] = 0
            rn[0] += 1
    for ply in range(2 * turns):
        s = (first + ply) % 2
        o = 1 - s
        turn = ply // 2
        is_random = pol[s, P_KIND] == KIND_RANDOM
        met[s, M_TURNS] += 1
        # L8 squares: cards come back to their owner, then the opponent's attacks may force one
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
            kc = bounded(rs, 3)
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
        # Tactician cards are spent at a policy rate (only their count matters to card flow)
        for c in range(3):  # held at the start of the turn, before any is spent (as in EPIC)
            cmet[s, c + 1, CM_TURNS] += 1
            cmet[s, c + 1, CM_TAC_HELD_SUM] += tac[s, c]
            cmet[s, c + 1, CM_HAND_SUM] += cn[s, c]
            tac_turn[s, turn] += tac[s, c]
            if tac[s, c] > 0 and uniform(rs) < pol[s, P_TACTICIAN_USE_PROB]:
                tac[s, c] -= 1
                tac_disc[0] += 1
                met[s, M_TAC_PLAYED] += 1
                cmet[s, c + 1, CM_TAC_PLAYED] += 1
        cmet[s, 0, CM_HAND_SUM] += hn[s]
        # P7: a First Strike held by the opponent's CIC or a Corps commander
        fs_card = -1
        if pol[o, P_FIRST_STRIKE_PROB] > 0.0:
            for holder in range(4):
                found = -1
                n_hold = hn[o] if holder == 0 else cn[o, holder - 1]
                for i in range(n_hold):
                    t = hand[o, i] if holder == 0 else chand[o, holder - 1, i]
                    if ctab[t, C_FS] == 1:
                        found = i
                        break
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
                    _trace(trace, tn, EV_FIRST_STRIKE, ply, o, fs_card, holder, 0, 0, 0, 0, 0, 0)
                    if holder == 0:
                        t = _draw_card(rs, pile, pn, disc, dn, met, o, trace, tn, ply)
                        if t >= 0:
                            hand[o, hn[o]] = t
                            hn[o] += 1
                            _trace(trace, tn, EV_DRAW, ply, o, t, 0, 0, 0, 0, 0, 0, 0)
                break
        cmd = hn[s]  # E6 for the CIC's cards: his hand at the start of the turn
        c = min(cmd, cmax)
        rack_size = rn[0]
        opp_last = last_hand[o]
        # E4 (L): every CIC hand and rack card a section card of one and the same section
        e4 = False
        if hn[s] > 0 and rn[0] > 0:
            t = _resolve(ctab, hand[s, 0], opp_last, void)
            sec0 = ctab[t, C_SEC]
            e4 = ctab[t, C_KIND] == 0
            for i in range(hn[s]):
                t = _resolve(ctab, hand[s, i], opp_last, void)
                e4 = e4 and ctab[t, C_KIND] == 0 and ctab[t, C_SEC] == sec0
            for j in range(rn[0]):
                t = _resolve(ctab, rack[j], opp_last, void)
                e4 = e4 and ctab[t, C_KIND] == 0 and ctab[t, C_SEC] == sec0
            if e4:
                met[s, M_E4] += 1
        if check and hn[s] + _cic_squares(sq_own, sqn, s) != scfg[s, S_HAND]:
            met[s, M_VIOLATIONS] += 1
        if trace.shape[0] > 0:
            k = tn[0]
            _trace(trace, tn, EV_TURN, ply, s, cmd, rn[0], 1 if e4 else 0, hn[s], sqn[s],
                   tac[s, 0] + tac[s, 1] + tac[s, 2], pn[0], dn[0])
            if k < trace.shape[0]:
                for i in range(hn[s]):
                    trace[k, 11 + i] = hand[s, i]
                for j in range(rn[0]):
                    trace[k, 11 + MAX_HAND + j] = rack[j]
            _trace(trace, tn, EV_CORPS_HANDS, ply, s, cn[s, 0], cn[s, 1], cn[s, 2], tac[s, 0],
                   tac[s, 1], tac[s, 2], 0, 0)
        # what each Corps commander would do without a gift (P6: the CIC scores gifts by the gain)
        # pl rows: 0 own best score, 1 own slot, 2 alternative score
        margin = pol[s, P_CORPS_SWAP_MARGIN]
        own_min = pol[s, P_CORPS_OWN_MIN]
        for kc in range(3):
            b, slot = _own_best(s, kc, chand, cn, ctab, opp_last, void, best_t, cmax)
            pl[0, kc] = b
            pl[1, kc] = slot
            pl[2, kc] = b if (slot >= 0 and b >= own_min) else 0.0
        # the CIC's choice: hand slot hi, rack slot rj, receivers ka, kb
        hi, rj, ka, kb, best_score = _cic_gifts(rs, s, c, e4, is_random, hand, hn[s], rack, rn[0],
                                                opp_last, void, ctab, best_t, pl, margin, gsc, res)
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
            wait_hist[ctab[tb, C_KIND], waited] += 1
            rn[0] -= 1
            rack[rj] = rack[rn[0]]
            rack_t[rj] = rack_t[rn[0]]
            met[s, M_PICK_FROM + rack_size] += 1
            met[s, M_RACK_KIND + ctab[tb, C_KIND]] += 1
        ra = _resolve(ctab, ta, opp_last, void)
        rb = _resolve(ctab, tb, opp_last, void)
        met[s, M_COUNTER] += ctab[ta, C_COUNTER] + ctab[tb, C_COUNTER]
        if ta != void:
            last_hand[s] = ra
        if e4 and ka >= 0 and ka == kb:
            met[s, M_E4_USED] += 1
        # a card that plays as nothing (a First Strike on its owner's turn, a Counter-Attack with
        # nothing to copy) is given to nobody and goes straight to the discards
        if ta != void and ka < 0:
            disc[dn[0]] = ta
            dn[0] += 1
        if tb != void and kb < 0:
            disc[dn[0]] = tb
            dn[0] += 1
        _trace(trace, tn, EV_GIVE, ply, s, ta, tb, ka, kb, ra, rb, int(round(best_score * 1000)),
               1 if is_random else 0)
        # L5: each Corps commander plays the gift, swaps it for his own card, plays his own, or
        # rolls for initiative. pl rows: 3 source, 4 card (resolved), 5 physical card, 6 option,
        # 7 command, 8 second gift (E4, resolved), 9 its physical card, 10 its option
        for kc in range(3):
            pl[3, kc] = SRC_NONE
            pl[4, kc] = void
            pl[5, kc] = void
            pl[8, kc] = void
            pl[9, kc] = void
            pl[10, kc] = 0
            pl[6, kc] = 0
            pl[7, kc] = c
        if ka >= 0:
            pl[3, ka] = SRC_CIC
            pl[4, ka] = ra
            pl[5, ka] = ta
        if kb >= 0:
            if kb == ka:
                pl[8, kb] = rb
                pl[9, kb] = tb
            else:
                pl[3, kb] = SRC_CIC
                pl[4, kb] = rb
                pl[5, kb] = tb
        for kc in range(3):
            own_b = pl[0, kc]
            slot = int(pl[1, kc])
            got = pl[3, kc] == SRC_CIC
            if got:
                cmet[s, kc + 1, CM_RECEIVED] += 1 if pl[8, kc] == void else 2
                r = int(pl[4, kc])
                swap = False
                if slot >= 0 and pl[8, kc] == void:
                    if is_random:
                        swap = uniform(rs) < 0.5
                    else:
                        swap = own_b > best_t[s, kc, 0, c, r] + margin
                if swap:
                    cmet[s, kc + 1, CM_REJECTED] += 1
                    disc[dn[0]] = int(pl[5, kc])
                    dn[0] += 1
                    _trace(trace, tn, EV_REJECT, ply, s, kc, int(pl[5, kc]), 0, 0, 0, 0, 0, 0)
                    got = False
                else:
                    pl[6, kc] = _pick_opt(rs, is_random, s, kc, 0, c, r, val_t, bopt_t)
                    if pl[8, kc] != void:
                        pl[10, kc] = _pick_opt(rs, is_random, s, kc, 0, c, int(pl[8, kc]), val_t,
                                               bopt_t)
            if not got:
                cmet[s, kc + 1, CM_NO_CARD] += 1 if pl[3, kc] == SRC_NONE else 0
                play_own = False
                if slot >= 0:
                    if pl[3, kc] == SRC_CIC:  # swapped: he plays his best own card
                        play_own = True
                    elif is_random:
                        play_own = uniform(rs) < 0.5
                    else:
                        play_own = own_b >= own_min
                if play_own:
                    if is_random:
                        slot = bounded(rs, cn[s, kc])
                    t = chand[s, kc, slot]
                    cn[s, kc] -= 1
                    chand[s, kc, slot] = chand[s, kc, cn[s, kc]]
                    r = _resolve(ctab, t, opp_last, void)
                    pl[3, kc] = SRC_OWN
                    pl[4, kc] = r
                    pl[5, kc] = t
                    pl[7, kc] = min(cn[s, kc] + 1, cmax)  # L5: his hand including the card
                    pl[6, kc] = _pick_opt(rs, is_random, s, kc, 1, int(pl[7, kc]), r, val_t, bopt_t)
                    cmet[s, kc + 1, CM_OWN_PLAYED] += 1
                    met[s, M_COUNTER] += ctab[t, C_COUNTER]
                elif cn[s, kc] == 0:
                    pl[3, kc] = SRC_INITIATIVE
                else:
                    pl[3, kc] = SRC_HOLD
        # G5 in LGB: one Spanish counter a French turn, held by the Corps commander facing the card
        if scfg[o, S_G_RULE] != 0 and scfg[s, S_FRENCH] == 1:
            met[o, M_G_FRENCH_TURNS] += 1
            target = -1
            t_second = 0
            t_eff = -1
            t_assault = 0
            for kc in range(3):  # kc: the French Corps (wing) whose card it is, French seat
                if gst[o, 2 - kc] == 0 or (pl[3, kc] != SRC_CIC and pl[3, kc] != SRC_OWN):
                    continue  # S4: only the Spanish Corps facing his wing may spend against it
                src = int(pl[3, kc])
                for which in range(2):
                    r = int(pl[4, kc]) if which == 0 else int(pl[8, kc])
                    if r == void or ctab[r, C_KIND] == 1:
                        continue  # G5: multi-section cards cannot be stopped
                    q = int(pl[6, kc]) if which == 0 else int(pl[10, kc])
                    cc = int(pl[7, kc])
                    e_card = eff_t[s, kc, src, cc, r, q, 0] + eff_t[s, kc, src, cc, r, q, 1]
                    better = e_card > t_eff
                    if pol[o, P_G_SPEND_MODE] == SPEND_ASSAULT and ctab[r, C_EQ] != t_assault:
                        better = ctab[r, C_EQ] > t_assault
                    if better:
                        target = kc
                        t_second = which
                        t_eff = e_card
                        t_assault = ctab[r, C_EQ]
            if target >= 0:
                met[o, M_G_OFFERED] += 1
                g_turn[0, turn] += 1
                mode = pol[o, P_G_SPEND_MODE]
                spend = mode == SPEND_ALWAYS or (
                    mode == SPEND_THRESHOLD and t_eff >= pol[o, P_G_THRESHOLD]) or (
                    mode == SPEND_ASSAULT and t_assault == 1)
                if not spend:
                    met[o, M_G_NOT_SPENT] += 1
                    _trace(trace, tn, EV_G_ATTEMPT, ply, o, t_second, target, t_eff, -1,
                           G_OUT_DECLINED, 0, 0, 0)
                else:
                    gst[o, 2 - target] -= 1  # the facing Spanish Corps spends it (S4)
                    pool += 1  # a spent counter returns to the unacquired pool
                    met[o, M_G_SPENT] += 1
                    cmet[o, 3 - target, CM_G_SPENT] += 1
                    g_turn[1, turn] += 1
                    roll = battle_die(rs)
                    if roll == 5:
                        met[o, M_G_SABRE] += 1
                        _trace(trace, tn, EV_G_ATTEMPT, ply, o, t_second, target, t_eff, roll,
                               G_OUT_SABRE, 0, 0, 0)
                    else:
                        src = int(pl[3, target])
                        cc = int(pl[7, target])
                        r = int(pl[4, target]) if t_second == 0 else int(pl[8, target])
                        q = int(pl[6, target]) if t_second == 0 else int(pl[10, target])
                        met[o, M_G_NULLIFIED] += 1
                        met[o, M_G_NULL_SEC + target] += 1
                        cmet[o, 3 - target, CM_G_NULLIFIED] += 1
                        g_turn[2, turn] += 1
                        met[o, M_G_DENIED_NOM] += nom_t[s, target, src, cc, r, q]
                        met[o, M_G_DENIED_EFF] += t_eff
                        met[o, M_G_DENIED_EFF_SEC + target] += t_eff
                        if t_second == 0:
                            pl[4, target] = void
                        else:
                            pl[8, target] = void
                        _trace(trace, tn, EV_G_ATTEMPT, ply, o, t_second, target, t_eff, roll,
                               G_OUT_NULLIFIED, 0, 0, 0)
        # orders, stars (L7), initiative (L6), Scout-for-counter (G4) per Corps commander
        # pl rows: 11 Command cards to draw, 12 Tactician cards to draw, 13 and 14 units of his
        # left and right section no card of his orders, 15 units of his he leaves unordered
        scouted = False
        gained = False
        wasted = 0
        marched = 0
        nom_w0 = 0
        nom_w1 = 0
        nom_w2 = 0
        eff_w0 = 0
        eff_w1 = 0
        eff_w2 = 0
        elan = False
        for kc in range(3):
            pl[11, kc] = 0
            pl[12, kc] = 0
            src = int(pl[3, kc])
            xa = 2 * kc
            xb = 2 * kc + 1
            tot_a = units[s, 0, xa] + units[s, 1, xa] + units[s, 2, xa] + units[s, 3, xa]
            tot_b = units[s, 0, xb] + units[s, 1, xb] + units[s, 2, xb] + units[s, 3, xb]
            pl[13, kc] = tot_a
            pl[14, kc] = tot_b
            pl[15, kc] = tot_a + tot_b
            if src == SRC_INITIATIVE:
                tdr, cdr, d1, d2, ordered = roll_initiative(rs, True, units[s], xa, xb,
                                                            tot_a + tot_b, cmet[s, kc + 1])
                met[s, M_INIT_ORDERS] += ordered
                pl[15, kc] -= ordered
                pl[11, kc] += cdr
                pl[12, kc] += tdr
                _trace(trace, tn, EV_INITIATIVE, ply, s, kc, d1, d2, ordered, tdr, cdr, 0, 0)
                continue
            if src != SRC_CIC and src != SRC_OWN:
                if src == SRC_HOLD:
                    _trace(trace, tn, EV_CORPS_PLAY, ply, s, kc, SRC_HOLD, void, void, 0, 0, 0, 0)
                continue
            cc = int(pl[7, kc])
            ea = 0
            eb = 0
            nom = 0
            for which in range(2):
                r = int(pl[4, kc]) if which == 0 else int(pl[8, kc])
                q = int(pl[6, kc]) if which == 0 else int(pl[10, kc])
                if r == void:
                    continue
                nom += nom_t[s, kc, src, cc, r, q]
                ea += eff_t[s, kc, src, cc, r, q, 0]
                eb += eff_t[s, kc, src, cc, r, q, 1]
            ea = min(ea, tot_a)
            eb = min(eb, tot_b)
            cmet[s, kc + 1, CM_NOM] += nom
            cmet[s, kc + 1, CM_EFF] += ea + eb
            cmet[s, kc + 1, CM_EFF_A] += ea
            cmet[s, kc + 1, CM_EFF_A + 1] += eb
            wasted += nom - ea - eb
            if kc == 0:
                nom_w0 += nom
                eff_w0 += ea + eb
            elif kc == 1:
                nom_w1 += nom
                eff_w1 += ea + eb
            else:
                nom_w2 += nom
                eff_w2 += ea + eb
            free = tot_a + tot_b - ea - eb
            pl[13, kc] = tot_a - ea
            pl[14, kc] = tot_b - eb
            _trace(trace, tn, EV_CORPS_PLAY, ply, s, kc, src, int(pl[5, kc]), int(pl[4, kc]),
                   int(pl[6, kc]), nom, ea, eb)
            if pl[9, kc] != void:
                _trace(trace, tn, EV_CORPS_PLAY, ply, s, kc, src, int(pl[9, kc]), int(pl[8, kc]),
                       int(pl[10, kc]), -1, -1, -1)
            for which in range(2):
                r = int(pl[4, kc]) if which == 0 else int(pl[8, kc])
                if r == void:
                    continue
                pl[12, kc] += ctab[r, C_TDRAW]
                if ctab[r, C_ELAN] == 1:
                    elan = True
                gain_here = False
                if ctab[r, C_SCOUT] == 1:
                    # G4: a Spanish Scout may trade the CIC's second draw and its stars for a counter
                    sp = scfg[s, S_SPAN + kc]
                    held = gst[s, 0] + gst[s, 1] + gst[s, 2]
                    gm = pol[s, P_G_GAIN_MODE]
                    if (scfg[s, S_G_RULE] != 0 and not gained and pool > 0 and sp >= 4
                            and not (gm == GAIN_NEVER
                                     or (gm == GAIN_BELOW and held >= pol[s, P_G_GAIN_BELOW]))):
                        gain_here = True
                        gained = True
                        gst[s, kc] += 1
                        pool -= 1
                        met[s, M_G_ACQUIRED] += 1
                        cmet[s, kc + 1, CM_G_ACQUIRED] += 1
                        _trace(trace, tn, EV_G_GAIN, ply, s, kc, pool, 0, 0, 0, 0, 0, 0)
                    else:
                        scouted = True
                if ctab[r, C_STARS] == 0 or gain_here:
                    continue
                avail = min(3, free)
                if avail > 0 and uniform(rs) < pol[s, P_MARCH_PROB]:
                    marched += avail
                    free -= avail
                    met[s, M_STARS_MARCH] += 1
                else:  # L7: no March Move: a Command card and a Tactician card at end of turn
                    met[s, M_STARS_TAC] += 1
                    cmet[s, kc + 1, CM_STAR_CMD] += 1
                    pl[11, kc] += 1
                    pl[12, kc] += 1
            pl[15, kc] = free
        # E7 in LGB: a Take Command from the CIC orders, beyond his two sections, units of the
        # sections next to them that their own Corps commander left unordered (as evenly between
        # the two as they allow); counted where the units stand (napsim.tables_lgb)
        for kc in range(3):
            if pl[3, kc] != SRC_CIC:
                continue
            n = 0
            for which in range(2):
                r = int(pl[4, kc]) if which == 0 else int(pl[8, kc])
                q = int(pl[6, kc]) if which == 0 else int(pl[10, kc])
                if r != void:
                    n += eff_t[s, kc, SRC_CIC, int(pl[7, kc]), r, q, 2]
            if n == 0:
                continue
            room_l = int(min(pl[14, kc - 1], pl[15, kc - 1])) if kc > 0 else 0
            room_r = int(min(pl[13, kc + 1], pl[15, kc + 1])) if kc < 2 else 0
            into_l = max(min(room_l, max(n - room_r, (n + 1) // 2)), 0)
            into_r = max(min(room_r, n - into_l), 0)
            if kc > 0:
                pl[14, kc - 1] -= into_l
                pl[15, kc - 1] -= into_l
                cmet[s, kc, CM_EFF_A + 1] += into_l
            if kc < 2:
                pl[13, kc + 1] -= into_r
                pl[15, kc + 1] -= into_r
                cmet[s, kc + 2, CM_EFF_A] += into_r
            cmet[s, kc + 1, CM_EFF] += into_l + into_r
            wasted -= into_l + into_r
            if kc == 0:
                eff_w1 += into_r
            elif kc == 1:
                eff_w0 += into_l
                eff_w2 += into_r
            else:
                eff_w1 += into_l
            _trace(trace, tn, EV_CORPS_REACH, ply, s, kc, n, into_l, into_r, 0, 0, 0, 0)
        met[s, M_NOM + 0] += nom_w0
        met[s, M_NOM + 1] += nom_w1
        met[s, M_NOM + 2] += nom_w2
        met[s, M_EFF + 0] += eff_w0
        met[s, M_EFF + 1] += eff_w1
        met[s, M_EFF + 2] += eff_w2
        met[s, M_WASTED] += wasted
        met[s, M_MARCH_UNITS] += marched
        _trace(trace, tn, EV_ORDERS, ply, s, nom_w0, nom_w1, nom_w2, eff_w0, eff_w1, eff_w2,
               marched, int(pl[12, 0] + pl[12, 1] + pl[12, 2]))
        # D7: played and rejected cards, and a First Strike, go to the discards
        for kc in range(3):
            if pl[3, kc] == SRC_CIC or pl[3, kc] == SRC_OWN:
                for which in range(2):
                    t = int(pl[5, kc]) if which == 0 else int(pl[9, kc])
                    if t != void:
                        disc[dn[0]] = t
                        dn[0] += 1
        if fs_card >= 0:
            disc[dn[0]] = fs_card
            dn[0] += 1
        if elan and ropt[R_SHUFFLE_FIRST] == 1:  # elan_order = shuffle_first
            _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
        # L9 end of turn: the CIC draws one; after a Scout two, keeps one, gives one away
        t1 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
        if scouted and t1 >= 0:
            t2 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
            met[s, M_SCOUT] += 1
            if t2 >= 0:
                c2 = min(hn[s] + 1, cmax)
                r1 = _resolve(ctab, t1, void, void)  # P2: each card as it would play
                r2 = _resolve(ctab, t2, void, void)
                v1 = max(best_t[s, 0, 0, c2, r1], max(best_t[s, 1, 0, c2, r1], best_t[s, 2, 0, c2, r1]))
                v2 = max(best_t[s, 0, 0, c2, r2], max(best_t[s, 1, 0, c2, r2], best_t[s, 2, 0, c2, r2]))
                keep, give = t1, t2
                if v2 > v1 + 1e-9 or (abs(v2 - v1) <= 1e-9 and t2 < t1):
                    keep, give = t2, t1
                if is_random and uniform(rs) < 0.5:
                    keep, give = give, keep
                t1 = keep
                # to the Corps commander with the fewest cards; ties drawn uniformly (P6)
                low = min(cn[s, 0], min(cn[s, 1], cn[s, 2]))
                n_low = 0
                for kc in range(3):
                    if cn[s, kc] == low:
                        n_low += 1
                pick = bounded(rs, n_low) if n_low > 1 else 0
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
                _trace(trace, tn, EV_SCOUT, ply, s, keep, give, to, 0, 0, 0, 0, 0)
        if t1 >= 0:
            hand[s, hn[s]] = t1
            hn[s] += 1
            _trace(trace, tn, EV_DRAW, ply, s, t1, 0, 0, 0, 0, 0, 0, 0)
        # Corps commanders' Command draws (L6 two sabres, L7 unused stars), then Tactician draws
        for kc in range(3):
            for _ in range(int(pl[11, kc])):
                t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
                if t >= 0:
                    chand[s, kc, cn[s, kc]] = t
                    cn[s, kc] += 1
                    _trace(trace, tn, EV_CORPS_DRAW, ply, s, kc, t, 0, 0, 0, 0, 0, 0)
            for _ in range(int(pl[12, kc])):
                _corps_tactician(tac, tac_pile, tac_disc, met, cmet, s, kc, trace, tn, ply)
        # L9 Elan: draw pile and discards shuffled together (the rack stays); every Corps
        # commander of both sides draws a Tactician card
        if elan:
            if ropt[R_SHUFFLE_FIRST] == 0:
                _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
            for k2 in range(2):
                for kc in range(3):
                    _corps_tactician(tac, tac_pile, tac_disc, met, cmet, (s + k2) % 2, kc, trace,
                                     tn, ply)
        # E9.6 refill the rack when it holds 2 (or fewer, after starved refills)
        if rn[0] <= 2:
            _refill_rack(rs, pile, pn, disc, dn, met, s, trace, tn, ply, rack, rack_t, rn)
        if check:
            met[s, M_VIOLATIONS] += _check_lgb(counts, pile, pn, disc, dn, hand, hn, chand, cn,
                                               rack, rn, sq, sqn, scratch)
            g_now = pool
            for k2 in range(2):
                for kc in range(3):
                    g_now += gst[k2, kc]
                    if gst[k2, kc] < 0:
                        met[s, M_VIOLATIONS] += 1
            if g_now != g_total or pool < 0:
                met[s, M_VIOLATIONS] += 1
    for s in range(2):
        for kc in range(3):
            met[s, M_TAC_HELD] += tac[s, kc]
            cmet[s, kc + 1, CM_TAC_HELD_END] += tac[s, kc]
            cmet[s, kc + 1, CM_HAND_END] += cn[s, kc]
        cmet[s, 0, CM_HAND_END] += hn[s]
        if scfg[s, S_G_RULE] != 0:
            met[s, M_G_HELD_END] += gst[s, 0] + gst[s, 1] + gst[s, 2]
            met[s, M_G_POOL_END] += pool


@njit(cache=True, inline="always")
def _cic_gifts(rs, s, c, e4, is_random, hand, n_h, rack, n_r, opp_last, void, ctab, best_t, pl,
               margin, gsc, res):
    """L2 / P6: the CIC's hand card, rack card and their receivers: (hand slot or -2, rack slot or
    -1, receiver of the hand card or -1, of the rack card or -1, score).

    greedy: each gift scores what the receiver gains over his own alternative (pl rows 0 and 2:
    his best own card's score, and what he would do without a gift); ties go to the largest hash
    of a per-turn draw. random: uniform over every legal (hand card, rack card, receivers).
    Each card's score per receiver is computed once (gsc) before the pairs are combined."""
    na = max(n_h, 1)
    nb = max(n_r, 1)
    for i in range(na):
        ra = _resolve(ctab, hand[s, i], opp_last, void) if n_h > 0 else void
        res[0, i] = ra
        for q in range(3):
            va = best_t[s, q, 0, c, ra]
            gsc[0, i, q] = va
            gsc[1, i, q] = (va if va + margin >= pl[0, q] else pl[0, q]) - pl[2, q]
    for j in range(nb):
        rb = _resolve(ctab, rack[j], opp_last, void) if n_r > 0 else void
        res[1, j] = rb
        for q in range(3):
            vb = best_t[s, q, 0, c, rb]
            gsc[2, j, q] = vb
            gsc[3, j, q] = (vb if vb + margin >= pl[0, q] else pl[0, q]) - pl[2, q]
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
                both_section = e4 and ctab[ra, C_KIND] == 0 and ctab[rb, C_KIND] == 0
                for qa in range(3 if ra != void else 1):
                    ga = 0.0
                    if ra != void:
                        if gsc[0, i, qa] < NEG_HALF:
                            continue
                        ga = gsc[1, i, qa]
                    for qb in range(3 if rb != void else 1):
                        gb = 0.0
                        if rb != void:
                            vb = gsc[2, j, qb]
                            if vb < NEG_HALF:
                                continue
                            if ra != void and qb == qa:
                                if not both_section:
                                    continue  # L2: two different Corps commanders
                                # E4: the wing's commander plays both (no swap): both scores
                                # minus his alternative
                                gb = gsc[0, i, qa] + vb - pl[2, qa] - ga
                            else:
                                gb = gsc[3, j, qb]
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


@njit(cache=True, inline="always")
def _cic_squares(sq_own, sqn, s):
    """Cards of the CIC's own hand on his side's Square Track."""
    n = 0
    for i in range(sqn[s]):
        if sq_own[s, i] == 3:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _check_lgb(counts, pile, pn, disc, dn, hand, hn, chand, cn, rack, rn, sq, sqn, scratch):
    """Invariant violations: every card in exactly one place (draw pile, discards, a CIC or Corps
    hand, the rack, a Square Track)."""
    scratch[:] = 0
    for i in range(pn[0]):
        scratch[pile[i]] += 1
    for i in range(dn[0]):
        scratch[disc[i]] += 1
    for s in range(2):
        for i in range(hn[s]):
            scratch[hand[s, i]] += 1
        for kc in range(3):
            for i in range(cn[s, kc]):
                scratch[chand[s, kc, i]] += 1
        for i in range(sqn[s]):
            scratch[sq[s, i]] += 1
    for i in range(rn[0]):
        scratch[rack[i]] += 1
    bad = 0
    for t in range(counts.shape[0]):
        if scratch[t] != counts[t]:
            bad += 1
    return bad


def _scratch(n_cards, n_types):
    """Per-block work arrays of play_game_lgb (no allocation per game)."""
    cap = MAX_HAND + n_cards
    return (np.empty(n_cards, np.int64), np.empty(n_cards, np.int64), np.empty((2, cap), np.int64),
            np.empty((2, 3, cap), np.int64), np.zeros(RACK, np.int64), np.zeros(RACK, np.int64),
            np.empty((2, cap), np.int64), np.empty((2, cap), np.int64), np.zeros(n_types, np.int64),
            np.zeros((16, 3), np.float64), np.zeros((4, cap, 3), np.float64),
            np.zeros((2, cap), np.int64), np.zeros(16, np.int64), np.zeros((2, 3), np.int64),
            np.zeros((2, 3), np.int64), np.zeros((2, 3), np.int64))


@njit(cache=True, parallel=True)
def play_chunk_lgb(run_key, first_game, n, turns, first, scfg, sqp, pol, ctab, deck, counts, nom_t,
                   eff_t, rem_t, val_t, best_t, bopt_t, units, g_pool0, ropt, check, per_game):
    """Play games [first_game, first_game + n). Returns (metrics [2, M], per-game metrics
    [n or 0, 2, M], per-commander metrics [2, 4, CM], per-game commander metrics [n or 0, 2, 4, CM],
    rack waits [4, bins], guerrilla per turn [3, turns], Tactician held per turn [2, turns])."""
    nb = max(1, min(n, 64))
    met_b = np.zeros((nb, 2, N_METRICS), np.int64)
    cmet_b = np.zeros((nb, 2, 4, N_CM), np.int64)
    wait_b = np.zeros((nb, 4, WAIT_BINS), np.int64)
    gturn_b = np.zeros((nb, 3, turns), np.int64)
    tturn_b = np.zeros((nb, 2, turns), np.int64)
    rows = np.zeros((n if per_game else 0, 2, N_METRICS), np.int64)
    crows = np.zeros((n if per_game else 0, 2, 4, N_CM), np.int64)
    n_cards = deck.shape[0]
    cap = MAX_HAND + n_cards
    for b in prange(nb):
        rs = np.empty(2, np.uint64)
        pile = np.empty(n_cards, np.int64)
        disc = np.empty(n_cards, np.int64)
        hand = np.empty((2, cap), np.int64)
        chand = np.empty((2, 3, cap), np.int64)
        rack = np.zeros(RACK, np.int64)
        rack_t = np.zeros(RACK, np.int64)
        sq = np.empty((2, cap), np.int64)
        sq_own = np.empty((2, cap), np.int64)
        scratch = np.zeros(counts.shape[0], np.int64)
        pl = np.zeros((16, 3), np.float64)
        gsc = np.zeros((4, cap, 3), np.float64)
        res = np.zeros((2, cap), np.int64)
        st = np.zeros(16, np.int64)
        cn = np.zeros((2, 3), np.int64)
        tac = np.zeros((2, 3), np.int64)
        gst = np.zeros((2, 3), np.int64)
        met = np.zeros((2, N_METRICS), np.int64)
        cmet = np.zeros((2, 4, N_CM), np.int64)
        trace = np.zeros((0, TRACE_WIDTH), np.int64)
        tn = np.zeros(1, np.int64)
        lo = (n * b) // nb
        hi = (n * (b + 1)) // nb
        for g in range(lo, hi):
            met[:, :] = 0
            cmet[:, :, :] = 0
            play_game_lgb(rs, first_game + g, run_key, turns, first, scfg, sqp, pol, ctab, deck,
                          counts, nom_t, eff_t, rem_t, val_t, best_t, bopt_t, units, g_pool0, ropt, check,
                          met, cmet, wait_b[b], gturn_b[b], tturn_b[b], trace, tn, pile, disc, hand,
                          chand, rack, rack_t, sq, sq_own, scratch, pl, gsc, res, st, cn, tac, gst)
            met_b[b] += met
            cmet_b[b] += cmet
            if per_game:
                rows[g] = met
                crows[g] = cmet
    return (met_b.sum(axis=0), rows, cmet_b.sum(axis=0), crows, wait_b.sum(axis=0),
            gturn_b.sum(axis=0), tturn_b.sum(axis=0))


def trace_game_lgb(run_key, game, turns, first, scfg, sqp, pol, ctab, deck, counts, nom_t, eff_t,
                   rem_t, val_t, best_t, bopt_t, units, g_pool0, ropt, max_events=40000):
    """Replay one game with an event log: (metrics [2, M], events [k, TRACE_WIDTH])."""
    n_cards = deck.shape[0]
    met = np.zeros((2, N_METRICS), np.int64)
    cmet = np.zeros((2, 4, N_CM), np.int64)
    trace = np.full((max_events, TRACE_WIDTH), -1, np.int64)
    tn = np.zeros(1, np.int64)
    pile, disc, hand, chand, rack, rack_t, sq, sq_own, scratch, pl, gsc, res, st, cn, tac, gst = \
        _scratch(n_cards, counts.shape[0])
    play_game_lgb(np.empty(2, np.uint64), game, run_key, turns, first, scfg, sqp, pol, ctab, deck,
                  counts, nom_t, eff_t, rem_t, val_t, best_t, bopt_t, units, g_pool0, ropt, True, met,
                  cmet, np.zeros((4, WAIT_BINS), np.int64), np.zeros((3, turns), np.int64),
                  np.zeros((2, turns), np.int64), trace, tn, pile, disc, hand, chand, rack, rack_t,
                  sq, sq_own, scratch, pl, gsc, res, st, cn, tac, gst)
    return met, trace[: min(tn[0], max_events)]
