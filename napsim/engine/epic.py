"""EPIC one-a-side and the standard one-card game: whole games in one kernel call.

State per game lives in per-block scratch arrays (no allocation per game). Card locations: the
draw pile (a stack), the discard pile, each hand, the Courier Rack and each Square Track. All
choices read the pair tables of napsim.tables; all randomness comes from the game's own
counter-based stream, so a game is a pure function of (seed, game index).
"""

import numpy as np
from numba import njit, prange

from napsim.engine.commanders import roll_initiative
from napsim.engine.layout import *  # noqa: F403  (re-exports M_*, EV_*, G_*, R_*, C_*, ... for napsim)
from napsim.engine.layout import (
    C_COUNTER,
    C_E4BIT,
    C_ELAN,
    C_EQ,
    C_FS,
    C_KIND,
    C_MIRROR,
    C_SCOUT,
    C_SEC,
    C_STARS,
    C_TDRAW,
    CM_EFF,
    CM_G_ACQUIRED,
    CM_G_NULLIFIED,
    CM_G_SPENT,
    CM_G_START,
    CM_GIVE_BOTH,
    CM_KEEP,
    CM_NO_CARD,
    CM_NOM,
    CM_PASSED,
    CM_RECEIVED,
    CM_TAC_DRAWN,
    CM_TAC_HELD_END,
    CM_TAC_HELD_SUM,
    CM_TAC_PLAYED,
    CM_TURNS,
    EV_CHOICE,
    EV_COMMANDER_TACTICIAN,
    EV_DRAW,
    EV_ELAN,
    EV_FIRST_STRIKE,
    EV_G_ATTEMPT,
    EV_G_GAIN,
    EV_INITIATIVE,
    EV_ORDERS,
    EV_PASS,
    EV_REFILL,
    EV_RESHUFFLE,
    EV_SCOUT,
    EV_SQUARE,
    EV_STARVED,
    EV_TACTICIAN,
    EV_TURN,
    EV_UNSQUARE,
    G_BASE,
    G_EPIC,
    G_FRENCH,
    G_HELD_ANY,
    G_HELD_L,
    G_OFF,
    G_OUT_DECLINED,
    G_OUT_NULLIFIED,
    G_OUT_SABRE,
    G_POOL,
    G_POOL0,
    G_RULE,
    G_SPAN,
    G_START,
    G_START_L,
    GAIN_BELOW,
    GAIN_NEVER,
    KIND_RANDOM,
    M_COUNTER,
    M_E4,
    M_E4_USED,
    M_EFF,
    M_ELAN,
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
    M_REFILLS,
    M_RESHUFFLE,
    M_SCOUT,
    M_SQ_FORMED,
    M_STARS_MARCH,
    M_STARS_TAC,
    M_STARVED,
    M_TAC_DRAWN,
    M_TAC_HELD,
    M_TAC_PLAYED,
    M_TAC_STARVED,
    M_TURNS,
    M_VIOLATIONS,
    M_WASTED,
    MAX_HAND,
    N_CM,
    N_METRICS,
    NO_TACTICIAN_DECK,
    P_DENY_WEIGHT,
    P_FIRST_STRIKE_PROB,
    P_G_GAIN_BELOW,
    P_G_GAIN_MODE,
    P_G_SPEND_MODE,
    P_G_THRESHOLD,
    P_KEEP_WEIGHT,
    P_KIND,
    P_MARCH_PROB,
    P_TACTICIAN_USE_PROB,
    R_CA_EITHER,
    R_E4_PLAYABLE,
    R_INIT_NEEDS_NO_ORDERS,
    R_SHUFFLE_FIRST,
    R_TAC_DECK,
    RACK,
    REC_K,
    REC_LIST,
    REC_ORD,
    SPEND_ALWAYS,
    SPEND_ASSAULT,
    SPEND_THRESHOLD,
    TRACE_WIDTH,
    WAIT_BINS,
)
from napsim.engine.rng import battle_die, bounded, mix64, next_u64, start_game, uniform


@njit(cache=True, inline="always")
def _trace(trace, tn, code, ply, side, a, b, c, d, e, f, g, h):
    """Append one event (only when a trace buffer was given)."""
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
def _draw_tactician(tac, tac_pile, tac_disc, met, side, trace, tn, ply):
    """One Tactician card (D4) for the side's CIC."""
    if _take_tactician(tac_pile, tac_disc, met, side):
        tac[side] += 1
        _trace(trace, tn, EV_TACTICIAN, ply, side, tac[side], 0, 0, 0, 0, 0, 0, 0)


@njit(cache=True, inline="always")
def _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply):
    """E9.4 / L9 Elan: the draw pile and the discards shuffled together (rack cards stay). The
    pile is shuffled lazily (_draw_card), so the discards only join it."""
    for i in range(dn[0]):
        pile[pn[0]] = disc[i]
        pn[0] += 1
    dn[0] = 0
    met[s, M_ELAN] += 1
    _trace(trace, tn, EV_ELAN, ply, s, pn[0], 0, 0, 0, 0, 0, 0, 0)


@njit(cache=True, inline="always")
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


@njit(cache=True)
def _check(counts, pile, pn, disc, dn, hand, hn, rack, rn, sq, sqn, hand0, scratch):
    """Count invariant violations: every card in exactly one place; hand + squares = start hand."""
    scratch[:] = 0
    for i in range(pn[0]):
        scratch[pile[i]] += 1
    for i in range(dn[0]):
        scratch[disc[i]] += 1
    for s in range(2):
        for i in range(hn[s]):
            scratch[hand[s, i]] += 1
        for i in range(sqn[s]):
            scratch[sq[s, i]] += 1
    for i in range(rn[0]):
        scratch[rack[i]] += 1
    bad = 0
    for t in range(counts.shape[0]):
        if scratch[t] != counts[t]:
            bad += 1
    return bad


@njit(cache=True, inline="always")
def _pair_sum(tab, s, c, a, b, q):
    return tab[s, c, a, b, q, 0] + tab[s, c, a, b, q, 1] + tab[s, c, a, b, q, 2]


@njit(cache=True, inline="always")
def _guerrilla_attack(rs, s, o, c, ra, rb, pa, pb, p, void, ply, gcfg, gst, pol, ctab, nom_t,
                      eff_t, met, g_turn, trace, tn):
    """The Spanish side o facing French turn of side s (G1, G2, G5, P4).

    Sections are mirrored (S4): a French card in the French section x can be stopped by a counter
    held in the Spanish section 2 - x; per-section metrics and trace events name the French card's
    section from the French seat.
    Returns (placement, card a, card b, turn over) after any nullification: a nullified card
    becomes VOID (no orders, no marks, no Tactician draw); under the base rule both cards are
    stopped and the French turn ends with the replacement draw.
    """
    turn = ply // 2
    met[o, M_G_FRENCH_TURNS] += 1
    held = gst[o, G_HELD_ANY] + gst[o, G_HELD_L] + gst[o, G_HELD_L + 1] + gst[o, G_HELD_L + 2]
    if held == 0 or (ra == void and rb == void):
        return p, ra, rb, False
    rule = gcfg[o, G_RULE]
    full_eff = _pair_sum(eff_t, s, c, ra, rb, p)
    target = -1
    tsec = -1
    t_eff = -1
    t_assault = 0
    if rule == G_BASE:
        target = 2
        t_eff = full_eff
        t_assault = 1 if ctab[ra, C_EQ] == 1 or ctab[rb, C_EQ] == 1 else 0
    else:
        for k in range(2):
            t = ra if k == 0 else rb
            kd = ctab[t, C_KIND]
            if t == void or kd == 1 or kd == 3:  # G5: multi-section cards cannot be stopped
                continue
            sx = ctab[t, C_SEC] if kd == 0 else (pa if k == 0 else pb)  # from the French seat
            if gst[o, G_HELD_L + 2 - sx] + gst[o, G_HELD_ANY] == 0:
                continue  # G5, S4: a counter only targets a card in the section it faces
            if k == 0:
                e_card = full_eff - _pair_sum(eff_t, s, c, void, rb, pb)
            else:
                e_card = full_eff - _pair_sum(eff_t, s, c, ra, void, pa * 3)
            better = e_card > t_eff
            if pol[o, P_G_SPEND_MODE] == SPEND_ASSAULT and ctab[t, C_EQ] != t_assault:
                better = ctab[t, C_EQ] > t_assault  # P4 assault mode: an Assault in reach is the target
            if better:
                target = k
                tsec = sx
                t_eff = e_card
                t_assault = ctab[t, C_EQ]
    if target < 0:
        return p, ra, rb, False
    met[o, M_G_OFFERED] += 1
    g_turn[0, turn] += 1
    mode = pol[o, P_G_SPEND_MODE]
    spend = mode == SPEND_ALWAYS or (mode == SPEND_THRESHOLD and t_eff >= pol[o, P_G_THRESHOLD]) or (
        mode == SPEND_ASSAULT and t_assault == 1)
    if not spend:
        met[o, M_G_NOT_SPENT] += 1
        _trace(trace, tn, EV_G_ATTEMPT, ply, o, target, tsec, t_eff, -1, G_OUT_DECLINED, 0, 0, 0)
        return p, ra, rb, False
    if tsec >= 0 and gst[o, G_HELD_L + 2 - tsec] > 0:  # the Spanish section facing it (S4)
        gst[o, G_HELD_L + 2 - tsec] -= 1
    elif gst[o, G_HELD_ANY] > 0:
        gst[o, G_HELD_ANY] -= 1
    else:
        for x in range(3):
            if gst[o, G_HELD_L + x] > 0:
                gst[o, G_HELD_L + x] -= 1
                break
    gst[0, G_POOL] += 1  # a spent counter returns to the unacquired pool
    met[o, M_G_SPENT] += 1
    g_turn[1, turn] += 1
    roll = battle_die(rs)
    if roll == 5:  # a sabre stops the guerrillas (G1)
        met[o, M_G_SABRE] += 1
        _trace(trace, tn, EV_G_ATTEMPT, ply, o, target, tsec, t_eff, roll, G_OUT_SABRE, 0, 0, 0)
        return p, ra, rb, False
    over = False
    if target == 2:
        na, nb, q = void, void, 0
        over = True
        met[o, M_G_NULLIFIED] += (1 if ra != void else 0) + (1 if rb != void else 0)
    elif target == 0:
        na, nb, q = void, rb, pb
        met[o, M_G_NULLIFIED] += 1
        met[o, M_G_NULL_SEC + tsec] += 1
    else:
        na, nb, q = ra, void, pa * 3
        met[o, M_G_NULLIFIED] += 1
        met[o, M_G_NULL_SEC + tsec] += 1
    g_turn[2, turn] += 1
    for x in range(3):
        met[o, M_G_DENIED_NOM] += nom_t[s, c, ra, rb, p, x] - nom_t[s, c, na, nb, q, x]
        de = eff_t[s, c, ra, rb, p, x] - eff_t[s, c, na, nb, q, x]
        met[o, M_G_DENIED_EFF] += de
        met[o, M_G_DENIED_EFF_SEC + x] += de
    _trace(trace, tn, EV_G_ATTEMPT, ply, o, target, tsec, t_eff, roll, G_OUT_NULLIFIED, 0, 0, 0)
    return q, na, nb, over


@njit(cache=True, inline="always")
def _guerrilla_gain_section(s, ra, rb, gcfg, gst, pol, ctab):
    """Where a Spanish Scout played this turn gains a counter (G3, G4, P5): 0-2 a section,
    3 the commander's general holding (base rule), -1 none."""
    if gst[0, G_POOL] <= 0:
        return -1
    held = gst[s, G_HELD_ANY] + gst[s, G_HELD_L] + gst[s, G_HELD_L + 1] + gst[s, G_HELD_L + 2]
    mode = pol[s, P_G_GAIN_MODE]
    if mode == GAIN_NEVER or (mode == GAIN_BELOW and held >= pol[s, P_G_GAIN_BELOW]):
        return -1
    for k in range(2):
        t = ra if k == 0 else rb
        if ctab[t, C_SCOUT] != 1:
            continue
        if gcfg[s, G_RULE] == G_BASE:
            return 3
        sx = ctab[t, C_SEC]
        if sx >= 0 and gcfg[s, G_SPAN + sx] >= 4:  # G4: at least four Spanish units there
            return sx
    return -1


@njit(cache=True, _nrt=False)
def play_game(rs, game, run_key, standard, turns, first, hand0, tac0, sq_form, sq_leave, pol,
              ctab, deck, counts, best_val, best_k, best_list, nom_t, eff_t, rem_t, n_place, place_list,
              e4_only, play_val, play_key, rec_t, gcfg, gst, g_turn, check, met, wait_hist, trace,
              tn,
              pile, disc, hand, rack, rack_t, sq, scratch, res_scratch, st, fmt, cmd_sec, tac_start,
              units, cmet, tacc, tturn, ropt):
    """Play one complete game; add its metrics to met[side, :] and wait_hist[kind, wait].

    fmt: players a side (1 for EPIC one a side and the standard game). With 2-4 (docs/rules.md, M) the
    card flow is E's and the commander layer adds: the card passed to the sub-commander (M4);
    initiative rolls for a section commander without a card or multi-section orders (M6.2,
    M8.2); Tactician cards per commander (tacc[side, commander], M6.3, M6.4, M8.2); per-commander
    metrics cmet[side, commander, CM]. Readings of open points: with 2 a side the CIC holds every
    Tactician card, so an Elan gives each side one (his); a card the Guerrillas nullify still
    reached its commander (no initiative roll); in the E4 situation with 3-4 a side the section's
    commander plays both cards; an initiative unit symbol orders a unit of that type when the
    section has one and some unit there is still unordered (the pair tables keep unordered units
    per section, not per type); the epic2 sub-commander's orders are those of the section his card
    is in. cmd_sec[side, section] is the section's commander,
    tac_start[side, commander] the starting Tactician cards, units[side, type, section].
    tturn[side, turn] sums the Tactician cards a side holds at the start of its turns. ropt holds
    the readings of the open points (R_* columns)."""
    start_game(rs, run_key, game)
    void = ctab.shape[0] - 1
    tracing = trace.shape[0] > 0  # without a buffer no event is formatted or counted
    n_cards = deck.shape[0]
    for i in range(n_cards):
        pile[i] = deck[i]  # shuffled lazily, one random card at each draw (_draw_card)
    # small counters live in one caller-owned array: no allocation in the game loop
    st[:] = 0
    pn = st[0:1]
    dn = st[1:2]
    rn = st[2:3]
    hn = st[3:5]
    sqn = st[5:7]
    tac = st[7:9]
    tac_pile = st[9:10]
    tac_disc = st[10:11]
    last_hand = st[11:13]
    nominal = st[13:16]
    last_rack = st[16:18]
    pn[0] = n_cards
    tac_pile[0] = ropt[R_TAC_DECK]
    if ropt[R_TAC_DECK] == 0:
        tac_disc[0] = NO_TACTICIAN_DECK  # D4: no Tactician card is dealt or drawn
    last_hand[0] = void
    last_hand[1] = void
    last_rack[0] = void
    last_rack[1] = void
    gst[:, :] = 0
    gst[0, G_POOL] = gcfg[0, G_POOL0]
    g_total = gst[0, G_POOL]
    for k in range(2):
        if gcfg[k, G_RULE] != G_OFF:
            gst[k, G_HELD_ANY] = gcfg[k, G_START]  # G6: one or two a side, all to the CIC
            g_total += gst[k, G_HELD_ANY]
            if fmt == 2:
                cmet[k, 0, CM_G_START] += gcfg[k, G_START]
            for x in range(3):  # G6: three or four a side, by section commander
                gst[k, G_HELD_L + x] = gcfg[k, G_START_L + x]
                g_total += gcfg[k, G_START_L + x]
                if fmt >= 3:
                    cmet[k, cmd_sec[k, x], CM_G_START] += gcfg[k, G_START_L + x]
    multi = fmt >= 2
    # rmap[t]: the card type t plays as this turn (_resolve). Only the Counter-Attack entries
    # change from turn to turn (they copy the opponent's last card), so each turn rewrites those
    # few and every hand and rack card then resolves with one load.
    rmap = res_scratch[3]
    ca_types = res_scratch[4]
    n_ca = 0
    for t in range(void + 1):
        rmap[t] = void if ctab[t, C_FS] == 1 else t
        if ctab[t, C_COUNTER] == 1 and ctab[t, C_FS] == 0:
            ca_types[n_ca] = t
            n_ca += 1
    # E1 setup: hands (first player first), Tactician cards, then the rack
    for k in range(2):
        s = (first + k) % 2
        for _ in range(hand0[s]):
            t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, -1)
            if t >= 0:  # D6: a starved deal is skipped (counted), never a card -1
                hand[s, hn[s]] = t
                hn[s] += 1
        if multi:  # M6.3 / M8.2: Tactician cards per commander
            for cc in range(4):
                take = min(tac_start[s, cc], tac_pile[0])
                tacc[s, cc] = take
                tac[s] += take
                tac_pile[0] -= take
        else:
            take = min(tac0[s], tac_pile[0])
            tac[s] = take
            tac_pile[0] -= take
    if not standard:
        for _ in range(RACK):
            t = _draw_card(rs, pile, pn, disc, dn, met, first, trace, tn, -1)
            if t >= 0:
                rack[rn[0]] = t
                rack_t[rn[0]] = 0
                rn[0] += 1
    for ply in range(2 * turns):
        s = (first + ply) % 2
        o = 1 - s
        met[s, M_TURNS] += 1
        # E11: squares leave (own turn start), then the opponent's attacks may force one
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
        # Tactician cards are spent at a policy rate (they only matter to card flow as counts)
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
        # P7: the opponent may play a First Strike from hand during this turn
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
        cmd = hn[s]  # E6: the hand at the start of the turn, the played card included
        rack_size = rn[0]
        n_h = hn[s]
        n_r = rn[0] if not standard else 0
        # every card as it would play this turn (a Counter-Attack counts as the card it copies),
        # resolved once for the E4 test and the choice
        c = min(cmd, best_val.shape[1] - 1)
        ca_src = last_hand[o]  # the opponent's card a Counter-Attack copies, mirrored (D3)
        if ropt[R_CA_EITHER] == 1 and last_rack[o] != void and (
                ca_src == void or best_val[s, c, ctab[last_rack[o], C_MIRROR], void]
                > best_val[s, c, ctab[ca_src, C_MIRROR], void] + 1e-9):
            ca_src = last_rack[o]  # either card of his last turn: the better one to copy
        cm = ctab[ca_src, C_MIRROR] if ca_src != void else void
        for k in range(n_ca):
            rmap[ca_types[k]] = cm
        res_scratch[0, 0] = void
        res_scratch[1, 0] = void
        secs = np.int64(0)  # E4 test: the sections of the section cards, bit 3 any other card
        for i in range(n_h):
            r = rmap[hand[s, i]]
            res_scratch[0, i] = r
            secs |= ctab[r, C_E4BIT]
        for j in range(n_r):
            r = rmap[rack[j]]
            res_scratch[1, j] = r
            secs |= ctab[r, C_E4BIT]
        # E4: every hand and rack card is a section card of one section (a single bit of 0-2)
        e4 = not standard and n_h > 0 and n_r > 0 and secs < 8 and (secs & (secs - 1)) == 0
        if e4:
            met[s, M_E4] += 1
        e4_play = e4 and ropt[R_E4_PLAYABLE] == 1  # 3-4 a side: see same_section_receiver
        if check:
            tmp_hand_ok = hn[s] + sqn[s] == hand0[s]
            if not tmp_hand_ok:
                met[s, M_VIOLATIONS] += 1
        if trace.shape[0] > 0:
            k = tn[0]
            _trace(trace, tn, EV_TURN, ply, s, cmd, rn[0], 1 if e4 else 0, hn[s], sqn[s], tac[s],
                   pn[0], dn[0])
            if k < trace.shape[0]:
                for i in range(hn[s]):
                    trace[k, 11 + i] = hand[s, i]
                for j in range(rn[0]):
                    trace[k, 11 + MAX_HAND + j] = rack[j]
        # the choice: hand slot hi (-2: none), rack slot rj (-1: none), placement p
        hi, rj, p, score = _choose_resolved(rs, s, o, c, hand, hn, n_h, rack, n_r, e4_play,
                                            ca_src, void, pol, ctab, best_val, best_k,
                                            best_list, n_place, place_list, e4_only, res_scratch,
                                            play_val, play_key, rec_t, tracing)
        if hi == -1 and n_h > 0 and n_r > 0:
            # no legal pair (e.g. a Counter-Attack copying the only section on offer): the
            # hand card alone is played and the rack is left as it is
            hi, rj, p, score = _choose(rs, s, o, c, hand, hn, n_h, rack, 0, e4_play, ca_src,
                                       void, pol, ctab, best_val, best_k, best_list, n_place,
                                       place_list, e4_only, res_scratch, play_val, play_key, rec_t,
                                       tracing)
        ta = void
        tb = void
        if hi >= 0:
            ta = hand[s, hi]
            hn[s] -= 1
            hand[s, hi] = hand[s, hn[s]]
        if rj >= 0:
            tb = rack[rj]
            waited = ply - rack_t[rj] if ply - rack_t[rj] < WAIT_BINS else WAIT_BINS - 1
            wait_hist[ctab[tb, C_KIND], waited] += 1
            rn[0] -= 1
            rack[rj] = rack[rn[0]]
            rack_t[rj] = rack_t[rn[0]]
            met[s, M_PICK_FROM + rack_size] += 1
        ra = rmap[ta]
        rb = rmap[tb]
        if ctab[ta, C_COUNTER] == 1:
            met[s, M_COUNTER] += 1
        if ctab[tb, C_COUNTER] == 1:
            met[s, M_COUNTER] += 1
        if ta != void:
            met[s, M_HAND_KIND + ctab[ta, C_KIND]] += 1
            last_hand[s] = ra
        if tb != void:
            met[s, M_RACK_KIND + ctab[tb, C_KIND]] += 1
        last_rack[s] = rb  # the rack card of this turn (void if none), for R_CA_EITHER
        if e4 and ra != void and rb != void and ctab[ra, C_SEC] == ctab[rb, C_SEC]:
            met[s, M_E4_USED] += 1
        pa = p // 3
        pb = p % 3
        if tracing:
            _trace(trace, tn, EV_CHOICE, ply, s, ta, tb, pa, pb, ra, rb, int(round(score * 1000)),
                   1 if pol[s, P_KIND] == KIND_RANDOM else 0)
        # G1/G5 Spanish Guerrilla Action against the French cards, before any orders
        pq = p
        turn_over = False
        ra0 = ra  # the cards as played, before any Guerrilla nullification (who received what)
        rb0 = rb
        if gcfg[o, G_RULE] != G_OFF and gcfg[s, G_FRENCH] == 1:
            # which commander spends (G6): the holding that shrinks
            held = gst[o, 0] + (gst[o, 1] << 10) + (gst[o, 2] << 20) + (gst[o, 3] << 30)
            null0 = met[o, M_G_NULLIFIED]
            pq, ra, rb, turn_over = _guerrilla_attack(
                rs, s, o, c, ra, rb, pa, pb, p, void, ply, gcfg, gst, pol, ctab, nom_t, eff_t, met,
                g_turn, trace, tn)
            if multi and held != gst[o, 0] + (gst[o, 1] << 10) + (gst[o, 2] << 20) + (gst[o, 3] << 30):
                _commander_spent(o, gst, held, cmd_sec, cmet, met[o, M_G_NULLIFIED] - null0)
        wasted = 0
        ner = rec_t[s, c, ra, rb]
        q0 = REC_ORD + 6 * pq  # nominal, then effective orders per section
        for x in range(3):
            nominal[x] = ner[q0 + x]
            met[s, M_NOM + x] += nominal[x]
            met[s, M_EFF + x] += ner[q0 + 3 + x]
            wasted += nominal[x] - ner[q0 + 3 + x]
        met[s, M_WASTED] += wasted
        # G3/G4: a Spanish Scout may trade its second draw (and, in EPIC, its stars) for a counter
        gain_sec = -1
        if gcfg[s, G_RULE] != G_OFF:
            gain_sec = _guerrilla_gain_section(s, ra, rb, gcfg, gst, pol, ctab)
        # E8 / P3 stars: March Move up to 3 free units in the card's section, else a Tactician
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
            sx = ctab[t, C_SEC] if kd == 0 else ((pa if k == 0 else pb) if kd == 2 else -1)
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
        if tracing:
            _trace(trace, tn, EV_ORDERS, ply, s, nominal[0], nominal[1], nominal[2], ner[q0 + 3],
                   ner[q0 + 4], ner[q0 + 5], marched, tac_draws)
        # D7: played cards (and a First Strike) go to the discards at the end of the turn
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
                if tracing:
                    _trace(trace, tn, EV_DRAW, ply, o, t, 0, 0, 0, 0, 0, 0, 0)
        # E9.1 / E9.2 draw one, or with a Scout draw two and keep the better (P2); a Scout
        # traded for a Guerrilla counter (G3/G4) draws one
        scouted = (ctab[ra, C_SCOUT] == 1 or ctab[rb, C_SCOUT] == 1) and gain_sec < 0
        if gain_sec >= 0:
            gst[s, G_HELD_ANY if gain_sec == 3 else G_HELD_L + gain_sec] += 1
            gst[0, G_POOL] -= 1
            met[s, M_G_ACQUIRED] += 1
            if multi:  # G4: the counter belongs to the section's commander (the CIC's with 2)
                cmet[s, cmd_sec[s, gain_sec] if fmt >= 3 and gain_sec < 3 else 0, CM_G_ACQUIRED] += 1
            _trace(trace, tn, EV_G_GAIN, ply, s, gain_sec, gst[0, G_POOL], 0, 0, 0, 0, 0, 0)
        elan = ctab[ra, C_ELAN] == 1 or ctab[rb, C_ELAN] == 1
        if elan and ropt[R_SHUFFLE_FIRST] == 1:  # elan_order = shuffle_first
            _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
        t1 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
        if scouted and t1 >= 0:
            t2 = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, ply)
            met[s, M_SCOUT] += 1
            if t2 >= 0:
                c2 = min(hn[s] + 1, best_val.shape[1] - 1)
                v1 = best_val[s, c2, _resolve(ctab, t1, void, void), void]
                v2 = best_val[s, c2, _resolve(ctab, t2, void, void), void]
                keep, drop = t1, t2
                if v2 > v1 + 1e-9 or (abs(v2 - v1) <= 1e-9 and t2 < t1):
                    keep, drop = t2, t1
                # the random policy keeps either at random
                if pol[s, P_KIND] == KIND_RANDOM and uniform(rs) < 0.5:
                    keep, drop = drop, keep
                t1 = keep
                disc[dn[0]] = drop
                dn[0] += 1
                if tracing:
                    _trace(trace, tn, EV_SCOUT, ply, s, keep, drop, 0, 0, 0, 0, 0, 0)
        if t1 >= 0:
            hand[s, hn[s]] = t1
            hn[s] += 1
            if tracing:
                _trace(trace, tn, EV_DRAW, ply, s, t1, 0, 0, 0, 0, 0, 0, 0)
        if turn_over:  # G1: a nullified turn ends with the replacement draw
            tac_draws = 0
        if multi and not turn_over:
            _commander_layer(rs, s, ply, fmt, ra0, rb0, ra, rb, pa, pb, c, void, ctab, nom_t, ner,
                             q0, r0, r1, r2, star_tac_a, star_tac_b, cmd_sec, units, best_val,
                             cmet, tacc, tac, tac_pile, tac_disc, met, trace, tn, ropt)
        elif fmt >= 3:
            for x in range(3):
                cmet[s, cmd_sec[s, x], CM_TURNS] += 1
        elif multi:  # M4: a turn the Guerrillas ended (G1) is still both commanders' turn
            cmet[s, 0, CM_TURNS] += 1
            cmet[s, 1, CM_TURNS] += 1
        else:
            # E9.3 Tactician draws
            for _ in range(tac_draws):
                _draw_tactician(tac, tac_pile, tac_disc, met, s, trace, tn, ply)
        # E9.4 Elan: draw pile and discards shuffled together (after the Command draws unless
        # elan_order = shuffle_first); every player draws a Tactician
        if elan:
            if ropt[R_SHUFFLE_FIRST] == 0:
                _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
            for k in range(2):
                if multi:  # M6.4: every Tactician holder of both sides draws one
                    for cc in range(4):
                        if _holds_tactician(fmt, cc):
                            _commander_tactician(tac, tacc, tac_pile, tac_disc, met, cmet,
                                                 (s + k) % 2, cc, trace, tn, ply)
                else:
                    _draw_tactician(tac, tac_pile, tac_disc, met, (s + k) % 2, trace, tn, ply)
        # E9.6 refill the rack when it holds 2 (or fewer, after starved refills)
        if not standard and rn[0] <= 2:
            _refill_rack(rs, pile, pn, disc, dn, met, s, trace, tn, ply, rack, rack_t, rn)
        if check:
            met[s, M_VIOLATIONS] += _check(counts, pile, pn, disc, dn, hand, hn, rack, rn, sq,
                                           sqn, hand0, scratch)
            g_now = gst[0, G_POOL]
            for k in range(2):
                for col in range(4):
                    g_now += gst[k, col]
                    if gst[k, col] < 0:
                        met[s, M_VIOLATIONS] += 1
            if g_now != g_total or gst[0, G_POOL] < 0:  # counters conserved, pool never negative
                met[s, M_VIOLATIONS] += 1
    for s in range(2):
        met[s, M_TAC_HELD] += tac[s]
        if multi:
            for cc in range(4):
                cmet[s, cc, CM_TAC_HELD_END] += tacc[s, cc]
        if gcfg[s, G_RULE] != G_OFF:
            met[s, M_G_HELD_END] += gst[s, G_HELD_ANY] + gst[s, G_HELD_L] + gst[s, G_HELD_L + 1] \
                + gst[s, G_HELD_L + 2]
            met[s, M_G_POOL_END] += gst[0, G_POOL]


@njit(cache=True, _nrt=False)
def _commander_spent(o, gst, held, cmd_sec, cmet, nullified):
    """G6 metrics: the commander whose holding shrank spent the counter (the CIC's general
    holding, or a section commander's). `held` packs the holdings before the attempt."""
    for x in range(4):
        before = (held >> (10 * x)) & 1023
        if gst[o, x] < before:
            cc = 0 if x == G_HELD_ANY else cmd_sec[o, x - G_HELD_L]
            cmet[o, cc, CM_G_SPENT] += 1
            cmet[o, cc, CM_G_NULLIFIED] += nullified


@njit(cache=True, inline="always")
def _holds_tactician(fmt, cc):
    """Who holds Tactician cards: the CIC alone with 1-2 players a side (M4), every player with 3
    (M6.3), the Corps commanders with 4 (M8.2)."""
    if fmt <= 2:
        return cc == 0
    if fmt == 3:
        return cc <= 2
    return cc >= 1


@njit(cache=True, _nrt=False)
def _commander_tactician(tac, tacc, tac_pile, tac_disc, met, cmet, s, cc, trace, tn, ply):
    """One Tactician card (D4) for commander cc of side s."""
    if not _take_tactician(tac_pile, tac_disc, met, s):
        return
    tac[s] += 1
    tacc[s, cc] += 1
    cmet[s, cc, CM_TAC_DRAWN] += 1
    _trace(trace, tn, EV_COMMANDER_TACTICIAN, ply, s, cc, tacc[s, cc], tac[s], 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _commander_layer(rs, s, ply, fmt, ra0, rb0, ra, rb, pa, pb, c, void, ctab, nom_t, ner, q0, r0,
                     r1, r2, star_tac_a, star_tac_b, cmd_sec, units, best_val, cmet, tacc, tac,
                     tac_pile, tac_disc, met, trace, tn, ropt):
    """One turn of the commander layer (docs/rules.md M4, M6, M8): who received which card, initiative
    rolls for section commanders left without a card or multi-section orders, and the turn's
    Tactician draws (E9.3) for the commander who earned them.

    ra0/rb0 are the cards as played, ra/rb after any Guerrilla nullification (a nullified card
    still reached its commander but earns no Tactician card); r0-r2 the units left unordered per
    section after the cards and March Moves."""
    ka = ctab[ra0, C_KIND]
    kb = ctab[rb0, C_KIND]
    xa = ctab[ra0, C_SEC] if ka == 0 else (pa if ka == 2 else -1)  # section it was placed in
    xb = ctab[rb0, C_SEC] if kb == 0 else (pb if kb == 2 else -1)
    da = ctab[ra, C_TDRAW] + star_tac_a  # Tactician cards each card earned (E8, E9.3)
    db = ctab[rb, C_TDRAW] + star_tac_b
    if fmt == 2:
        # M4: the CIC plays one card and his sub-commander the other (the CIC keeps the better
        # by the P1 single-card score); a multi-section card is played face up by the CIC
        give = -1
        if xa >= 0 and xb >= 0:
            give = 1 if best_val[s, c, ra0, void] >= best_val[s, c, rb0, void] else 0
        elif xa >= 0 and kb == 1:
            give = 0
        elif xb >= 0 and ka == 1:
            give = 1
        nom = ner[q0] + ner[q0 + 1] + ner[q0 + 2]
        eff = ner[q0 + 3] + ner[q0 + 4] + ner[q0 + 5]
        cmet[s, 0, CM_TURNS] += 1
        cmet[s, 1, CM_TURNS] += 1
        if give >= 0:
            xg = xa if give == 0 else xb
            cmet[s, 0, CM_PASSED] += 1
            cmet[s, 1, CM_RECEIVED] += 1
            cmet[s, 1, CM_NOM] += ner[q0 + xg]
            cmet[s, 1, CM_EFF] += ner[q0 + 3 + xg]
            nom -= ner[q0 + xg]
            eff -= ner[q0 + 3 + xg]
            _trace(trace, tn, EV_PASS, ply, s, ra0 if give == 0 else rb0, xg, 0, 0, 0, 0, 0, 0)
        else:
            cmet[s, 1, CM_NO_CARD] += 1
        cmet[s, 0, CM_NOM] += nom
        cmet[s, 0, CM_EFF] += eff
        for _ in range(da + db):  # M4: the CIC holds every Tactician card
            _commander_tactician(tac, tacc, tac_pile, tac_disc, met, cmet, s, 0, trace, tn, ply)
        return
    # M6.1 / M8.1: a section or tactic card goes to the commander of the section it is placed in
    for x in range(3):
        cx = cmd_sec[s, x]
        got = (1 if xa == x else 0) + (1 if xb == x else 0)
        multi_orders = 0
        if ka == 1:
            multi_orders += nom_t[s, c, ra0, void, 0, x]
        if kb == 1:
            multi_orders += nom_t[s, c, rb0, void, 0, x]
        cmet[s, cx, CM_TURNS] += 1
        cmet[s, cx, CM_NOM] += ner[q0 + x]
        cmet[s, cx, CM_EFF] += ner[q0 + 3 + x]
        if got > 0:
            cmet[s, cx, CM_RECEIVED] += got
            continue
        cmet[s, cx, CM_NO_CARD] += 1
        if multi_orders > 0 and ropt[R_INIT_NEEDS_NO_ORDERS] == 1:
            continue  # initiative = no_card_no_orders
        # M6.2 / M8.2: no card (and, by the option, no multi-section orders): two battle dice
        free = r0 if x == 0 else (r1 if x == 1 else r2)
        tdr, cdr, d1, d2, ordered = roll_initiative(rs, False, units[s], x, -1, free, cmet[s, cx])
        met[s, M_INIT_ORDERS] += ordered
        _trace(trace, tn, EV_INITIATIVE, ply, s, cx, d1, d2, ordered, tdr, cdr, x, 0)
        for _ in range(tdr):
            _commander_tactician(tac, tacc, tac_pile, tac_disc, met, cmet, s, cx, trace, tn, ply)
    if fmt == 3:
        xc = 0
        for x in range(3):
            if cmd_sec[s, x] == 0:
                xc = x
        if xa == xc or xb == xc:
            cmet[s, 0, CM_KEEP] += 1
        elif xa >= 0 and xb >= 0:
            cmet[s, 0, CM_GIVE_BOTH] += 1
    for k in range(2):
        d = da if k == 0 else db
        x = xa if k == 0 else xb
        if d == 0:
            continue
        if x >= 0:
            cc = cmd_sec[s, x]
        elif fmt == 3:
            cc = 0  # a multi-section card is the CIC's (played face up)
        else:  # M8.2: the CIC holds none; the Corps commander with the fewest takes it
            cc = 1
            for k2 in range(2, 4):
                if tacc[s, k2] < tacc[s, cc]:
                    cc = k2
        for _ in range(d):
            _commander_tactician(tac, tacc, tac_pile, tac_disc, met, cmet, s, cc, trace, tn, ply)


@njit(cache=True, inline="always")
def _choose(rs, s, o, c, hand, hn, n_h, rack, n_r, e4, opp_last, void, pol, ctab, best_val,
            best_k, best_list, n_place, place_list, e4_only, res_scratch, play_val, play_key,
            rec_t, tracing):
    """P1 choice among legal (hand card, rack card, placement): (hand slot or -2 for none,
    rack slot or -1, placement, score); hand slot -1 when nothing is legal.

    greedy: the best table score, minus keep/deny terms; ties broken uniformly at random: among
    tied (hand slot, rack slot) pairs the one with the largest hash of a per-turn random draw
    wins, then one of that pair's tied placements is drawn uniformly. Equal weights stay
    symmetric, and a tie costs one hash instead of a bounded draw with a branch.
    random: uniform over all legal triples.
    """
    for i in range(max(n_h, 1)):
        res_scratch[0, i] = _resolve(ctab, hand[s, i] if n_h > 0 else void, opp_last, void)
    for j in range(max(n_r, 1)):
        res_scratch[1, j] = _resolve(ctab, rack[j] if n_r > 0 else void, opp_last, void)
    return _choose_resolved(rs, s, o, c, hand, hn, n_h, rack, n_r, e4, opp_last, void, pol, ctab,
                            best_val, best_k, best_list, n_place, place_list, e4_only, res_scratch,
                            play_val, play_key, rec_t, tracing)


@njit(cache=True, inline="always")
def _choose_resolved(rs, s, o, c, hand, hn, n_h, rack, n_r, e4, opp_last, void, pol, ctab,
                     best_val, best_k, best_list, n_place, place_list, e4_only, res_scratch,
                     play_val, play_key, rec_t, tracing):
    """_choose with res_scratch[0, :max(n_h, 1)] and res_scratch[1, :max(n_r, 1)] already holding
    the resolved hand and rack cards (VOID in slot 0 of an empty one). The ranked path reads the
    score only when `tracing` (it shows in the trace alone) and returns -1e18 otherwise."""
    hi = -1
    rj = -1
    p = 0
    if pol[s, P_KIND] == KIND_RANDOM:
        return _choose_random(rs, s, c, n_h, n_r, e4, best_val, n_place, place_list, e4_only,
                              res_scratch)
    best = -1.0e18
    cmax = best_val.shape[1] - 1
    na = max(n_h, 1)
    nb = max(n_r, 1)
    tie_key = next_u64(rs)  # ties: the largest hash of (turn draw, hand slot, rack slot) wins
    best_pr = np.uint64(0)
    best_code = 0
    pr_known = False
    keep_w = pol[s, P_KEEP_WEIGHT]
    e4i = 1 if e4 else 0
    deny_w = pol[s, P_DENY_WEIGHT]
    if keep_w == 0.0 and deny_w == 0.0 and play_key[s, e4i, c, void, void] >= 0:
        # integer ranks (napsim.tables.play_keys): one branch-free pass finds the top rank and
        # lists the pairs holding it in res_scratch[2] (in pair order); hashes only for a tie
        top = np.int64(-1)
        n_top = 0
        ties = res_scratch[2]
        for i in range(na):
            krow = play_key[s, e4i, c, res_scratch[0, i]]
            for j in range(nb):
                r = np.int64(krow[res_scratch[1, j]])
                # arithmetic, not selects, so that the compiler keeps it free of branches
                up = np.int64(r > top)
                pos = n_top & (up - 1)  # 0 on a new top rank, else the end of the list
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
        if tracing:  # the score only shows in a trace: no table load (often a cache miss) else
            best = play_val[s, e4i, c, res_scratch[0, bi], res_scratch[1, bj]]
        hi = bi if n_h > 0 else -2
        rj = bj if n_r > 0 else -1
        rec = rec_t[s, c, res_scratch[0, bi], res_scratch[1, bj]]
        k = np.int64(rec[REC_K])
        # one draw even for a single placement: the stream's position then does not wait on
        # this record (often a cache miss), and later draws need not either
        p = np.int64(rec[REC_LIST + bounded(rs, k)])
        return hi, rj, p, best
    for i in range(na):
        ra = res_scratch[0, i]
        keep = keep_w * best_val[s, c, ra, void]
        for j in range(nb):
            rb = res_scratch[1, j]
            v = play_val[s, e4i, c, ra, rb]
            if v < -1.0e8:  # illegal here (no placement, or a same-section pair outside E4)
                continue
            v -= keep
            if deny_w != 0.0 and n_r > 1:
                deny = -1.0e18
                for jj in range(n_r):
                    if jj != j:
                        tt = _resolve(ctab, rack[jj], void, void)
                        deny = max(deny, best_val[o, min(hn[o], cmax), tt, void])
                v -= deny_w * deny
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
        ra = res_scratch[0, max(hi, 0)]
        rb = res_scratch[1, max(rj, 0)]
        k = best_k[s, c, ra, rb]
        p = best_list[s, c, ra, rb, bounded(rs, k)]  # one draw, as on the ranked path
    return hi, rj, p, best


@njit(cache=True, inline="always")
def _choose_random(rs, s, c, n_h, n_r, e4, best_val, n_place, place_list, e4_only, res_scratch):
    """The random policy's choice: uniform over all legal (hand card, rack card, placement)."""
    total = 0
    for i in range(max(n_h, 1)):
        ra = res_scratch[0, i]
        for j in range(max(n_r, 1)):
            rb = res_scratch[1, j]
            if not (e4_only[s, ra, rb] and not e4):
                total += n_place[s, ra, rb]
    if total == 0:
        return -1, -1, 0, 0.0
    pick = bounded(rs, total)
    for i in range(max(n_h, 1)):
        ra = res_scratch[0, i]
        for j in range(max(n_r, 1)):
            rb = res_scratch[1, j]
            if e4_only[s, ra, rb] and not e4:
                continue
            if pick < n_place[s, ra, rb]:
                return (i if n_h > 0 else -2, j if n_r > 0 else -1, place_list[s, ra, rb, pick],
                        best_val[s, c, ra, rb])
            pick -= n_place[s, ra, rb]
    return -1, -1, 0, 0.0


@njit(cache=True, inline="always")
def _resolve(ctab, t, opp_last, void):
    """The card a type plays as this turn: First Strike gives nothing on its owner's turn,
    Counter-Attack plays as the opponent's last hand card mirrored left/right."""
    if ctab[t, C_FS] == 1:
        return void
    if ctab[t, C_COUNTER] == 1:
        return ctab[opp_last, C_MIRROR] if opp_last != void else void
    return t


@njit(cache=True, parallel=True)
def play_chunk(run_key, first_game, n, standard, turns, first, hand0, tac0, sq_form, sq_leave,
               pol, ctab, deck, counts, best_val, best_k, best_list, nom_t, eff_t, rem_t, n_place,
               place_list, e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec, tac_start, units,
               ropt, check, per_game):
    """Play games [first_game, first_game + n). Returns (metrics summed over the chunk [2, M],
    per-game metrics [n, 2, M] when per_game else [0, 2, M], rack wait histogram [4, bins],
    guerrilla per-turn histogram [offered/spent/nullified, turn], per-commander metrics
    [2, 4, CM], per-game commander metrics [n or 0, 2, 4, CM], Tactician cards held per turn
    [2, turns])."""
    nb = max(1, min(n, 64))
    met_b = np.zeros((nb, 2, N_METRICS), np.int64)
    wait_b = np.zeros((nb, 4, WAIT_BINS), np.int64)
    gturn_b = np.zeros((nb, 3, turns), np.int64)
    tturn_b = np.zeros((nb, 2, turns), np.int64)
    cmet_b = np.zeros((nb, 2, 4, N_CM), np.int64)
    rows = np.zeros((n if per_game else 0, 2, N_METRICS), np.int64)
    crows = np.zeros((n if per_game and fmt >= 2 else 0, 2, 4, N_CM), np.int64)
    n_cards = deck.shape[0]
    for b in prange(nb):
        rs = np.empty(2, np.uint64)
        # card types as unsigned 16-bit: compact, and indexing with them needs no sign fix-up
        pile = np.empty(n_cards, np.uint16)
        disc = np.empty(n_cards, np.uint16)
        hand = np.empty((2, MAX_HAND + n_cards), np.uint16)
        rack = np.zeros(RACK, np.uint16)
        rack_t = np.zeros(RACK, np.int64)
        sq = np.empty((2, MAX_HAND), np.uint16)
        scratch = np.zeros(counts.shape[0], np.int64)
        res_scratch = np.zeros((5, (MAX_HAND + n_cards) * RACK), np.uint16)
        st = np.zeros(18, np.int64)
        gst = np.zeros((2, 8), np.int64)
        met = np.zeros((2, N_METRICS), np.int64)
        cmet = np.zeros((2, 4, N_CM), np.int64)
        tacc = np.zeros((2, 4), np.int64)
        trace = np.zeros((0, TRACE_WIDTH), np.int64)
        tn = np.zeros(1, np.int64)
        lo = (n * b) // nb
        hi = (n * (b + 1)) // nb
        for g in range(lo, hi):
            met[:, :] = 0
            if fmt >= 2:
                cmet[:, :, :] = 0
            play_game(rs, first_game + g, run_key, standard, turns, first, hand0, tac0, sq_form,
                      sq_leave, pol, ctab, deck, counts, best_val, best_k, best_list, nom_t, eff_t, rem_t,
                      n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg, gst,
                      gturn_b[b], check, met,
                      wait_b[b], trace, tn,
                      pile, disc, hand, rack, rack_t, sq, scratch, res_scratch, st, fmt, cmd_sec,
                      tac_start, units, cmet, tacc, tturn_b[b], ropt)
            met_b[b] += met
            if fmt >= 2:
                cmet_b[b] += cmet
            if per_game:
                rows[g] = met
                if fmt >= 2:
                    crows[g] = cmet
    return (met_b.sum(axis=0), rows, wait_b.sum(axis=0), gturn_b.sum(axis=0), cmet_b.sum(axis=0),
            crows, tturn_b.sum(axis=0))


def trace_game(run_key, game, standard, turns, first, hand0, tac0, sq_form, sq_leave, pol, ctab,
               deck, counts, best_val, best_k, best_list, nom_t, eff_t, rem_t, n_place, place_list,
               e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec, tac_start, units, ropt,
               max_events=20000):
    """Replay one game with an event log: (metrics [2, M], events [k, TRACE_WIDTH])."""
    n_cards = deck.shape[0]
    rs = np.empty(2, np.uint64)
    met = np.zeros((2, N_METRICS), np.int64)
    wait = np.zeros((4, WAIT_BINS), np.int64)
    trace = np.full((max_events, TRACE_WIDTH), -1, np.int64)
    tn = np.zeros(1, np.int64)
    play_game(rs, game, run_key, standard, turns, first, hand0, tac0, sq_form, sq_leave, pol,
              ctab, deck, counts, best_val, best_k, best_list, nom_t, eff_t, rem_t, n_place, place_list,
              e4_only, play_val, play_key, rec_t, gcfg, np.zeros((2, 8), np.int64),
              np.zeros((3, turns), np.int64),
              True, met, wait, trace, tn, np.empty(n_cards, np.uint16),
              np.empty(n_cards, np.uint16), np.empty((2, MAX_HAND + n_cards), np.uint16),
              np.zeros(RACK, np.uint16), np.zeros(RACK, np.int64),
              np.empty((2, MAX_HAND), np.uint16), np.zeros(counts.shape[0], np.int64),
              np.zeros((5, (MAX_HAND + n_cards) * RACK), np.uint16), np.zeros(18, np.int64), fmt,
              cmd_sec, tac_start, units, np.zeros((2, 4, N_CM), np.int64), np.zeros((2, 4), np.int64),
              np.zeros((2, turns), np.int64), ropt)
    return met, trace[: min(tn[0], max_events)]
