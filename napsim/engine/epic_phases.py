"""The phases of one EPIC (or standard) turn, in the order napsim.engine.epic._ply runs them.

Every phase is inlined into the game by LLVM (napsim.engine.jit.inlined), so cutting the turn into
phases costs nothing at run time; each reads and writes the per-game state arrays that
napsim.engine.epic.play_blocks owns (see its docstring) and takes the same random draws, in the
same order, as the single loop it came from.
"""

import numpy as np

from napsim.engine.cardflow import (
    _draw_card,
    _resolve,
    _take_tactician,
    _trace,
    scout_keep,
    scout_kept,
)
from napsim.engine.commanders import (
    _commander_tactician,
    _holds_tactician,
)
from napsim.engine.jit import inlined, inlined_cached
from napsim.engine.layout import (
    C_COUNTER,
    C_E4BIT,
    C_FS,
    C_KIND,
    C_MIRROR,
    C_SCOUT,
    C_SEC,
    C_STARS,
    C_TDRAW,
    CM_G_ACQUIRED,
    CM_TAC_HELD_END,
    CM_TAC_HELD_SUM,
    CM_TAC_PLAYED,
    CM_TURNS,
    EV_DRAW,
    EV_FIRST_STRIKE,
    EV_G_GAIN,
    EV_ORDERS,
    EV_SCOUT,
    EV_SQUARE,
    EV_TACTICIAN,
    EV_TURN,
    EV_UNSQUARE,
    G_EPIC,
    G_HELD_ANY,
    G_HELD_L,
    G_OFF,
    G_POOL,
    G_RULE,
    K_FIRST,
    KIND_PLACED,
    KIND_RANDOM,
    KIND_SECTION,
    M_COUNTER,
    M_E4,
    M_E4_USED,
    M_EFF,
    M_FIRST_STRIKE,
    M_G_ACQUIRED,
    M_G_HELD_END,
    M_G_POOL_END,
    M_HAND_KIND,
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
    M_WASTED,
    P_FIRST_STRIKE_PROB,
    P_KIND,
    P_MARCH_PROB,
    P_TACTICIAN_USE_PROB,
    R_CA_FACING,
    R_CIC_KEEPS_ONE,
    R_E4_PLAYABLE,
    RES_CA,
    RES_HAND,
    RES_PROBE,
    RES_RACK,
    RES_RMAP,
    TR_HAND,
    TR_RACK,
    WAIT_BINS,
)
from napsim.engine.rng import bounded, uniform


@inlined
def _draw_tactician(tac, tac_pile, tac_disc, met, side, trace, tn, ply):
    """One Tactician card (D4) for the side's CIC."""
    if _take_tactician(tac_pile, tac_disc, met, side):
        tac[side] += 1
        _trace(trace, tn, EV_TACTICIAN, ply, side, tac[side], 0, 0, 0, 0, 0, 0, 0)


@inlined
def _squares(rs, s, ply, hand0, sq_form, sq_leave, hand, hn, sq, sqn, met, trace, tn):
    """E11: squares leave (own turn start), then the opponent's attacks may force one."""
    k = 0
    while k < sqn[s]:
        if uniform(rs) < sq_leave[s]:
            hand[s, hn[s]] = sq[s, k]
            hn[s] += 1
            _trace(trace, tn, EV_UNSQUARE, ply, s, sq[s, k], 0, 0, 0, 0, 0, 0, 0)
            sqn[s] -= 1
            sq[s, k] = sq[s, sqn[s]]
        else:
            k += 1
    if sq_form[s] > 0.0 and uniform(rs) < sq_form[s]:
        if sqn[s] < hand0[s] - 1 and hn[s] >= 1:
            i = bounded(rs, hn[s])
            sq[s, sqn[s]] = hand[s, i]
            sqn[s] += 1
            _trace(trace, tn, EV_SQUARE, ply, s, hand[s, i], 0, 0, 0, 0, 0, 0, 0)
            hn[s] -= 1
            hand[s, i] = hand[s, hn[s]]
            met[s, M_SQ_FORMED] += 1


@inlined
def _spend_tacticians(rs, s, ply, multi, pol, tac, tacc, tac_disc, met, cmet, tturn):
    """Tactician cards are spent at a policy rate (they only matter to card flow as counts);
    tturn[s, turn] sums those held at the start of the turn."""
    tturn[s, ply // 2] += tac[s]
    if multi:  # each holder may spend one of his own (a card is used in his section)
        for cc in range(4):
            cmet[s, cc, CM_TAC_HELD_SUM] += tacc[s, cc]  # held at the start of the turn
            if tacc[s, cc] > 0:
                used = np.int64(uniform(rs) < pol[s, P_TACTICIAN_USE_PROB])
                tacc[s, cc] -= used
                tac[s] -= used
                tac_disc[0] += used
                met[s, M_TAC_PLAYED] += used
                cmet[s, cc, CM_TAC_PLAYED] += used
    elif tac[s] > 0:
        used = np.int64(uniform(rs) < pol[s, P_TACTICIAN_USE_PROB])  # a coin: counted, not branched on
        tac[s] -= used
        tac_disc[0] += used
        met[s, M_TAC_PLAYED] += used


@inlined
def _first_strike(rs, o, ply, pol, ctab, hand, hn, met, trace, tn):
    """P7: the opponent o may play a First Strike from hand during this turn: the card, or -1."""
    fs_card = -1
    if pol[o, P_FIRST_STRIKE_PROB] > 0.0:
        for i in range(hn[o]):
            if ctab[hand[o, i], C_FS] == 1:
                if uniform(rs) < pol[o, P_FIRST_STRIKE_PROB]:
                    fs_card = hand[o, i]
                    hn[o] -= 1
                    hand[o, i] = hand[o, hn[o]]
                    met[o, M_FIRST_STRIKE] += 1
                    _trace(trace, tn, EV_FIRST_STRIKE, ply, o, fs_card, 0, 0, 0, 0, 0, 0, 0)
                break
    return fs_card


@inlined
def _resolve_cards(s, o, n_h, n_r, c, n_ca, tab, gm):
    """Every hand and rack card as it plays this turn (a Counter-Attack counts as the card it
    copies, D3), resolved once into res_scratch for the E4 test and the choice. Returns (the card a
    Counter-Attack copies, E4, the section a copied tactic card must go to or -1: under
    counter_attack_section = facing the one facing where the opponent placed it, S4)."""
    ctab, res_scratch, hand, rack, last_rack = tab.ctab, gm.res_scratch, gm.hand, gm.rack, gm.last_rack
    void = ctab.shape[0] - 1
    rmap = res_scratch[RES_RMAP]
    ca_types = res_scratch[RES_CA]
    # the opponent's card a Counter-Attack copies, mirrored (D3): his last hand card, or under
    # counter_attack_copies = either the better of his last two (napsim.sim.packing.ca_sources:
    # one load, where comparing their scores here sat on the turn's chain)
    lh = gm.last_hand[o]
    ca_src = np.int64(tab.ca_src_t[s, c, lh, last_rack[o]])
    ca_at = gm.last_hand_p[o] if ca_src == lh else gm.last_rack_p[o]
    cm = ctab[ca_src, C_MIRROR] if ca_src != void else void
    pin = tab.ropt[R_CA_FACING] == 1 and n_ca > 0 and cm != void and ctab[cm, C_KIND] == KIND_PLACED
    for k in range(n_ca):
        rmap[ca_types[k]] = cm
    res_scratch[RES_HAND, 0] = void
    res_scratch[RES_RACK, 0] = void
    secs = np.int64(0)  # E4 test: the sections of the section cards, bit 3 any other card
    n_counter = np.int64(0)  # Counter-Attacks in hand and rack
    for i in range(n_h):
        r = rmap[hand[s, i]]
        res_scratch[RES_HAND, i] = r
        secs |= ctab[r, C_E4BIT]
        n_counter += ctab[hand[s, i], C_COUNTER]
    for j in range(n_r):
        r = rmap[rack[j]]
        res_scratch[RES_RACK, j] = r
        secs |= ctab[r, C_E4BIT]
        n_counter += ctab[rack[j], C_COUNTER]
    # D3, S4 (counter_attack_section = facing): a copied tactic card goes to the section facing
    # the one the opponent chose
    pin_y = 2 - ca_at if pin and n_counter > 0 else -1
    # E4: every hand and rack card is a section card of one section (a single bit of 0-2)
    e4 = not tab.standard and n_h > 0 and n_r > 0 and secs < 8 and (secs & (secs - 1)) == 0
    if e4:
        gm.met[s, M_E4] += 1
    return ca_src, e4, pin_y


@inlined
def _trace_turn(trace, tn, ply, s, cmd, e4, hand, hn, rack, rn, sqn, tac, pn, dn):
    """The EV_TURN event, with the hand and the rack."""
    k = tn[0]
    _trace(trace, tn, EV_TURN, ply, s, cmd, rn[0], 1 if e4 else 0, hn[s], sqn[s], tac[s], pn[0],
           dn[0])
    if k < trace.shape[0]:
        for i in range(hn[s]):
            trace[k, TR_HAND + i] = hand[s, i]
        for j in range(rn[0]):
            trace[k, TR_RACK + j] = rack[j]


@inlined_cached
def _take_cards(s, ply, hi, rj, p, rack_size, e4, c, tab, gm):
    """Take the chosen hand card (slot hi) and rack card (slot rj) into play: (card a, card b, a as
    it plays, b as it plays, placement p), VOID for none; a card that reaches a commander who
    cannot order with it (same_section_receiver, cic_keeps) plays as VOID."""
    ctab, hand, hn, rack, rack_t, rn, met = tab.ctab, gm.hand, gm.hn, gm.rack, gm.rack_t, gm.rn, gm.met
    void = ctab.shape[0] - 1
    ta = void
    tb = void
    if hi >= 0:
        ta = hand[s, hi]
        hn[s] -= 1
        hand[s, hi] = hand[s, hn[s]]
    if rj >= 0:
        tb = rack[rj]
        waited = ply - rack_t[rj] if ply - rack_t[rj] < WAIT_BINS else WAIT_BINS - 1
        gm.wait_hist[ctab[tb, C_KIND], waited] += 1
        rn[0] -= 1
        rack[rj] = rack[rn[0]]
        rack_t[rj] = rack_t[rn[0]]
        met[s, M_PICK_FROM + rack_size] += 1
    ra = gm.rmap[ta]
    rb = gm.rmap[tb]
    if ctab[ta, C_COUNTER] == 1:
        met[s, M_COUNTER] += 1
    if ctab[tb, C_COUNTER] == 1:
        met[s, M_COUNTER] += 1
    if ta != void:
        met[s, M_HAND_KIND + ctab[ta, C_KIND]] += 1
        gm.last_hand[s] = ra
        gm.last_hand_p[s] = p // 3  # where it went (a tactic card's section, D3 facing)
    if tb != void:
        met[s, M_RACK_KIND + ctab[tb, C_KIND]] += 1
    gm.last_rack[s] = rb  # the rack card of this turn (void if none), for R_CA_EITHER
    gm.last_rack_p[s] = p % 3
    return _cards_ordering(s, ta, tb, ra, rb, p, e4, c, tab, met)


@inlined
def _cards_ordering(s, ta, tb, ra, rb, p, e4, c, tab, met):
    """The two cards as they order: one that reaches a commander who cannot order with it
    (same_section_receiver = two_commanders in the E4 situation, cic_keeps = one) plays as VOID.
    Returns (card a, card b, a as it plays, b as it plays, placement p)."""
    ctab, best_val, ropt = tab.ctab, tab.best_val, tab.ropt
    void = ctab.shape[0] - 1
    if e4 and ra != void and rb != void and ctab[ra, C_SEC] == ctab[rb, C_SEC]:
        if ropt[R_E4_PLAYABLE] == 1:
            met[s, M_E4_USED] += 1
        else:
            # same_section_receiver = two_commanders (3-4 a side): the CIC still takes both
            # cards, but they go to two commanders and only that section's commander can
            # order with his; he gets the better one, the other orders nothing
            if best_val[s, c, void, rb] > best_val[s, c, void, ra] + 1e-9:
                ra = void
            else:
                rb = void
            p = 0
    if ropt[R_CIC_KEEPS_ONE] == 1 and ra != void and rb != void:
        # cic_keeps = one (M6.1, 3 a side): the CIC plays the multi-section card, so a card
        # placed in his own section beside it goes to a sub-commander and orders nothing
        # (the pair tables score it the same way, napsim.sim.tables._kept_cards)
        ka = ctab[ra, C_KIND]
        kb = ctab[rb, C_KIND]
        xa = ctab[ra, C_SEC] if ka == 0 else (p // 3 if ka == 2 else -1)
        xb = ctab[rb, C_SEC] if kb == 0 else (p % 3 if kb == 2 else -1)
        if ka == 1 and xb >= 0 and tab.cmd_sec[s, xb] == 0:
            rb = void
            p = 0
        elif kb == 1 and xa >= 0 and tab.cmd_sec[s, xa] == 0:
            ra = void
            p = 0
    return ta, tb, ra, rb, p


@inlined_cached
def _orders(s, ner, q0, nominal, met):
    """The orders of the cards as played (napsim.sim.tables.pair_records): nominal, effective and
    wasted per section."""
    wasted = 0
    for x in range(3):
        nominal[x] = ner[q0 + x]
        met[s, M_NOM + x] += nominal[x]
        met[s, M_EFF + x] += ner[q0 + 3 + x]
        wasted += nominal[x] - ner[q0 + 3 + x]
    met[s, M_WASTED] += wasted


@inlined_cached
def _stars(rs, s, ra, rb, pa, pb, gain_sec, void, ner, q0, gcfg, pol, ctab, rem_t, met):
    """E8 / P3 stars: March Move up to 3 free units in the card's section, else a Tactician card.
    Returns (units left unordered in L, C, R; Tactician cards earned; units marched; 1 if card a,
    card b drew a Tactician card for its stars)."""
    r0 = rem_t[s, 0, void, void, 0, 0] - np.int64(ner[q0 + 3])  # units left unordered
    r1 = rem_t[s, 0, void, void, 0, 1] - np.int64(ner[q0 + 4])
    r2 = rem_t[s, 0, void, void, 0, 2] - np.int64(ner[q0 + 5])
    tac_draws = ctab[ra, C_TDRAW] + ctab[rb, C_TDRAW]
    marched = 0
    star_tac_a = 0
    star_tac_b = 0
    for k in range(2):
        t = ra if k == 0 else rb
        if ctab[t, C_STARS] == 0:
            continue
        kd = ctab[t, C_KIND]
        sx = ctab[t, C_SEC] if kd == KIND_SECTION else ((pa if k == 0 else pb) if kd == KIND_PLACED else -1)
        if gain_sec >= 0 and gcfg[s, G_RULE] == G_EPIC and ctab[t, C_SCOUT] == 1 and sx == gain_sec:
            continue  # G4: the Scout's stars stay unused so that the counter can be gained
        avail = 0
        if sx >= 0:
            avail = min(3, r0 if sx == 0 else (r1 if sx == 1 else r2))
        coin = uniform(rs)  # drawn for every star card, so the stream does not wait on avail
        if avail > 0 and coin < pol[s, P_MARCH_PROB]:
            marched += avail
            met[s, M_STARS_MARCH] += 1
            if sx == 0:
                r0 -= avail
            elif sx == 1:
                r1 -= avail
            else:
                r2 -= avail
        else:
            tac_draws += 1
            met[s, M_STARS_TAC] += 1
            if k == 0:
                star_tac_a = 1
            else:
                star_tac_b = 1
    met[s, M_MARCH_UNITS] += marched
    return r0, r1, r2, tac_draws, marched, star_tac_a, star_tac_b


@inlined_cached
def _trace_orders(trace, tn, ply, s, nominal, ner, q0, marched, tac_draws):
    _trace(trace, tn, EV_ORDERS, ply, s, nominal[0], nominal[1], nominal[2], ner[q0 + 3],
           ner[q0 + 4], ner[q0 + 5], marched, tac_draws)


@inlined_cached
def _discard_played(rs, o, ply, ta, tb, fs_card, void, pile, pn, disc, dn, hand, hn, met, trace,
                    tn):
    """D7: played cards (and a First Strike) go to the discards at the end of the turn; the First
    Strike's player draws a replacement."""
    if ta != void:
        disc[dn[0]] = ta
        dn[0] += 1
    if tb != void:
        disc[dn[0]] = tb
        dn[0] += 1
    if fs_card >= 0:
        disc[dn[0]] = fs_card
        dn[0] += 1
        t = _draw_card(rs, pile, pn, disc, dn, met, o, trace, tn, ply)
        if t >= 0:
            hand[o, hn[o]] = t
            hn[o] += 1
            if trace.shape[0] > 0:
                _trace(trace, tn, EV_DRAW, ply, o, t, 0, 0, 0, 0, 0, 0, 0)


@inlined_cached
def _gain_counter(s, ply, gain_sec, players_a_side, gst, cmd_sec, met, cmet, trace, tn):
    """G3/G4: the counter a Spanish Scout traded its second draw for."""
    gst[s, G_HELD_ANY if gain_sec == 3 else G_HELD_L + gain_sec] += 1
    gst[0, G_POOL] -= 1
    met[s, M_G_ACQUIRED] += 1
    if players_a_side >= 2:  # G4: the counter belongs to the section's commander (the CIC's with 2)
        cmet[s, cmd_sec[s, gain_sec] if players_a_side >= 3 and gain_sec < 3 else 0,
             CM_G_ACQUIRED] += 1
    _trace(trace, tn, EV_G_GAIN, ply, s, gain_sec, gst[0, G_POOL], 0, 0, 0, 0, 0, 0)


@inlined_cached
def _command_draw(rs, s, ply, scouted, tab, gm):
    """E9.1 / E9.2 up to the Scout keep's decision point: the Command draw, one card, or with a
    Scout two. Returns (first card, second card or -1, P2's keep, cardflow.scout_keep: K_FIRST
    with one card); the two cards and P2's keep also go to res_scratch[RES_PROBE]."""
    pol, ctab, best_val = tab.pol, tab.ctab, tab.best_val
    pile, pn, disc, dn, hn, met, trace, tn = (gm.pile, gm.pn, gm.disc, gm.dn, gm.hn, gm.met, gm.trace,
                                              gm.tn)
    void = ctab.shape[0] - 1
    t1 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
    t2 = np.int64(-1)
    p2 = np.int64(K_FIRST)
    if scouted and t1 >= 0:
        t2 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
        met[s, M_SCOUT] += 1
        if t2 >= 0:
            c2 = min(hn[s] + 1, best_val.shape[1] - 1)
            v1 = best_val[s, c2, void, _resolve(ctab, t1, void, void)]
            v2 = best_val[s, c2, void, _resolve(ctab, t2, void, void)]
            p2 = scout_keep(t1, t2, v1, v2, pol[s, P_KIND] == KIND_RANDOM, rs,
                            gm.res_scratch[RES_PROBE])
    return t1, t2, p2


@inlined_cached
def _command_keep(s, ply, drawn, keep, gm):
    """E9.2 the Scout keep applied (keep K_FIRST or K_SECOND: P2's or the planner's): the card kept
    joins the hand, the other the discards; one card drawn joins the hand."""
    t1, t2, _ = drawn
    disc, dn, hand, hn, trace, tn = gm.disc, gm.dn, gm.hand, gm.hn, gm.trace, gm.tn
    tracing = trace.shape[0] > 0
    if t2 >= 0:
        t1, drop = scout_kept(t1, t2, keep)
        disc[dn[0]] = drop
        dn[0] += 1
        if tracing:
            _trace(trace, tn, EV_SCOUT, ply, s, t1, drop, 0, 0, 0, 0, 0, 0)
    if t1 >= 0:
        hand[s, hn[s]] = t1
        hn[s] += 1
        if tracing:
            _trace(trace, tn, EV_DRAW, ply, s, t1, 0, 0, 0, 0, 0, 0, 0)


@inlined_cached
def _elan_tacticians(s, ply, players_a_side, tac, tacc, tac_pile, tac_disc, met, cmet, trace, tn):
    """E9.4 / M6.4 Elan: every player (every Tactician holder of both sides) draws a Tactician."""
    for k in range(2):
        if players_a_side >= 2:
            for cc in range(4):
                if _holds_tactician(players_a_side, cc):
                    _commander_tactician(tac, tacc, tac_pile, tac_disc, met, cmet, (s + k) % 2, cc,
                                         trace, tn, ply)
        else:
            _draw_tactician(tac, tac_pile, tac_disc, met, (s + k) % 2, trace, tn, ply)


@inlined_cached
def _turn_tacticians(s, ply, players_a_side, turn_over, tac_draws, cmd_sec, cmet, tac, tac_pile,
                     tac_disc, met, trace, tn):
    """E9.3 Tactician draws of a turn the commander layer does not play (one player a side, or a
    turn the Guerrillas ended, G1: it ends with the replacement draw)."""
    if players_a_side >= 3:
        for x in range(3):
            cmet[s, cmd_sec[s, x], CM_TURNS] += 1
    elif players_a_side >= 2:  # M4: a turn the Guerrillas ended (G1) is still both commanders' turn
        cmet[s, 0, CM_TURNS] += 1
        cmet[s, 1, CM_TURNS] += 1
    else:
        if turn_over:
            tac_draws = 0
        for _ in range(tac_draws):
            _draw_tactician(tac, tac_pile, tac_disc, met, s, trace, tn, ply)


@inlined_cached
def _end_game(multi, gcfg, gst, tac, tacc, met, cmet):
    """What each side holds at the end: Tactician cards and Guerrilla counters."""
    for s in range(2):
        met[s, M_TAC_HELD] += tac[s]
        if multi:
            for cc in range(4):
                cmet[s, cc, CM_TAC_HELD_END] += tacc[s, cc]
        if gcfg[s, G_RULE] != G_OFF:
            met[s, M_G_HELD_END] += gst[s, G_HELD_ANY] + gst[s, G_HELD_L] + gst[s, G_HELD_L + 1] \
                + gst[s, G_HELD_L + 2]
            met[s, M_G_POOL_END] += gst[0, G_POOL]

