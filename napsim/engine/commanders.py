"""The commander layer of the multi-player formats (docs/rules.md, M, L): the initiative roll, shared
by the EPIC kernel (2-4 a side) and the La Grande Battles kernel, and the EPIC kernel's turn of the
commander layer (who received which card, initiative rolls, Tactician cards per commander, G6).

Commander 0 is the Commander in Chief; 1-3 are the sub-commanders (EPIC 2 and 3 a side) or the
Corps commanders (EPIC 4 a side: left, centre, right section; LGB: left, centre, right wing).
The per-commander metric slots CM_* live in napsim.engine.layout.
"""

import numpy as np
from numba import njit

from napsim.engine.cardflow import _take_tactician, _trace
from napsim.engine.jit import inlined
from napsim.engine.layout import (
    C_KIND,
    C_SEC,
    C_TDRAW,
    CM_BLOCKS_LOST,
    CM_DOUBLES,
    CM_EFF,
    CM_FACE,
    CM_G_NULLIFIED,
    CM_G_SPENT,
    CM_GIVE_BOTH,
    CM_INIT,
    CM_INIT_CMD,
    CM_INIT_MARCH,
    CM_INIT_MELEE,
    CM_INIT_ORDERED,
    CM_INIT_TAC,
    CM_KEEP,
    CM_NO_CARD,
    CM_NOM,
    CM_PASSED,
    CM_RECEIVED,
    CM_TAC_DRAWN,
    CM_TURNS,
    CM_TWO_SABRES,
    EV_COMMANDER_TACTICIAN,
    EV_INITIATIVE,
    EV_PASS,
    G_HELD_ANY,
    G_HELD_L,
    KIND_MULTI,
    KIND_PLACED,
    KIND_SECTION,
    M_INIT_ORDERS,
    R_INIT_NEEDS_NO_ORDERS,
    REC_ORD,
    SYM_FLAG,
    SYM_SABRE,
)
from napsim.engine.rng import battle_die, bounded


@inlined
def roll_initiative(rs, lgb, units, x0, x1, free, cm):
    """Two battle dice for a commander without a card (M6.2 EPIC, L6 LGB) over his sections x0 and
    x1 (x1 = -1 for one section); `units[type, section]` (infantry, cavalry, artillery, leaders),
    `free` = units of his not yet ordered this turn. A unit symbol orders one unit of that type
    (if one is there and free), a flag one unit to March Move, a sabre one unit to melee (EPIC)
    or the loss of one block (LGB). Adds to cm[slot]; returns (tactician draws, command draws,
    die 1, die 2, units ordered)."""
    d1 = battle_die(rs)
    d2 = battle_die(rs)
    cm[CM_INIT] += 1
    sym1 = 0 if d1 <= 1 else d1 - 1
    sym2 = 0 if d2 <= 1 else d2 - 1
    cm[CM_FACE + sym1] += 1
    cm[CM_FACE + sym2] += 1
    double = sym1 == sym2
    tac = 0
    cmd_draw = 0
    if double:
        cm[CM_DOUBLES] += 1
        if sym1 == SYM_SABRE:
            cm[CM_TWO_SABRES] += 1
    if lgb and sym1 == SYM_SABRE and sym2 == SYM_SABRE:  # L6: two sabres: no block lost, a Command card
        cm[CM_INIT_CMD] += 1
        return 0, 1, d1, d2, 0
    if double and not lgb:  # M6.2: a double also draws a Tactician card
        cm[CM_INIT_TAC] += 1
        tac = 1
    ordered = 0
    used_type0 = 0
    used_type1 = 0
    used_type2 = 0
    for k in range(2):
        sym = sym1 if k == 0 else sym2
        if sym <= 2:
            have = units[sym, x0] + (units[sym, x1] if x1 >= 0 else 0)
            used = used_type0 if sym == 0 else (used_type1 if sym == 1 else used_type2)
            if have > used and free > 0:
                free -= 1
                ordered += 1
                cm[CM_INIT_ORDERED] += 1
                if sym == 0:
                    used_type0 += 1
                elif sym == 1:
                    used_type1 += 1
                else:
                    used_type2 += 1
        elif sym == SYM_FLAG:
            if free > 0:
                free -= 1
                ordered += 1
                cm[CM_INIT_MARCH] += 1
        elif lgb:
            have = 0
            for t in range(3):
                have += units[t, x0] + (units[t, x1] if x1 >= 0 else 0)
            if have > 0:
                cm[CM_BLOCKS_LOST] += 1
        elif free > 0:
            free -= 1
            ordered += 1
            cm[CM_INIT_MELEE] += 1
    return tac, cmd_draw, d1, d2, ordered


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def _commander_spent(o, gst, held, cmd_sec, cmet, nullified):
    """G6 metrics: the commander whose holding shrank spent the counter (the CIC's general
    holding, or a section commander's). `held` packs the holdings before the attempt."""
    for x in range(4):
        before = (held >> (10 * x)) & 1023
        if gst[o, x] < before:
            cc = 0 if x == G_HELD_ANY else cmd_sec[o, x - G_HELD_L]
            cmet[o, cc, CM_G_SPENT] += 1
            cmet[o, cc, CM_G_NULLIFIED] += nullified


@inlined
def _holds_tactician(players_a_side, cc):
    """Who holds Tactician cards: the CIC alone with 1-2 players a side (M4), every player with 3
    (M6.3), the Corps commanders with 4 (M8.2)."""
    if players_a_side <= 2:
        return cc == 0
    if players_a_side == 3:
        return cc <= 2
    return cc >= 1


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def _commander_tactician(tac, tacc, tac_pile, tac_disc, met, cmet, s, cc, trace, tn, ply):
    """One Tactician card (D4) for commander cc of side s."""
    if not _take_tactician(tac_pile, tac_disc, met, s):
        return
    tac[s] += 1
    tacc[s, cc] += 1
    cmet[s, cc, CM_TAC_DRAWN] += 1
    _trace(trace, tn, EV_COMMANDER_TACTICIAN, ply, s, cc, tacc[s, cc], tac[s], 0, 0, 0, 0, 0)


@inlined
def _placed_sections(played, ctab):
    """The section each card of the turn was placed in (-1: a multi-section card or none) and each
    card's kind, from played = (card a, card b as played, after any nullification, their
    placements, c, pq)."""
    ra0, rb0, _, _, pa, pb, _, _ = played
    ka = ctab[ra0, C_KIND]
    kb = ctab[rb0, C_KIND]
    xa = ctab[ra0, C_SEC] if ka == KIND_SECTION else (pa if ka == KIND_PLACED else -1)
    xb = ctab[rb0, C_SEC] if kb == KIND_SECTION else (pb if kb == KIND_PLACED else -1)
    return ka, kb, xa, xb


@inlined
def _two_commanders(ply, s, played, placed, ner, q0, da, db, tab, gm):
    """M4, two a side: the CIC plays one card and his sub-commander the other (the CIC keeps the
    better by the P1 single-card score); a multi-section card is played face up by the CIC; the
    CIC holds every Tactician card. placed: the cards' kinds and sections (_placed_sections)."""
    ra0, rb0, _, _, _, _, c, _ = played
    ka, kb, xa, xb = placed
    cmet, trace, tn = gm.cmet, gm.trace, gm.tn
    void = tab.ctab.shape[0] - 1
    give = -1
    if xa >= 0 and xb >= 0:
        give = 1 if tab.best_val[s, c, void, ra0] >= tab.best_val[s, c, void, rb0] else 0
    elif xa >= 0 and kb == KIND_MULTI:
        give = 0
    elif xb >= 0 and ka == KIND_MULTI:
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
        _commander_tactician(gm.tac, gm.tacc, gm.tac_pile, gm.tac_disc, gm.met, cmet, s,
                             np.int64(0), trace, tn, ply)


@inlined
def _card_tacticians(rs, ply, s, placed, da, db, tab, gm):
    """E9.3 with 3-4 a side: each card's Tactician draws go to the commander of the section it was
    placed in; a multi-section card's to the CIC with 3 (played face up), with 4 (M8.2: the CIC
    holds none) to the Corps commander with the fewest, ties drawn uniformly (one bounded draw,
    only when there is a tie). placed: the cards' kinds and sections (_placed_sections)."""
    _, _, xa, xb = placed
    tacc = gm.tacc
    for k in range(2):
        d = da if k == 0 else db
        x = xa if k == 0 else xb
        if d == 0:
            continue
        if x >= 0:
            cc = tab.cmd_sec[s, x]
        elif tab.players_a_side == 3:
            cc = 0
        else:
            low = min(tacc[s, 1], tacc[s, 2], tacc[s, 3])
            n_low = np.int64(0)
            for k2 in range(1, 4):
                n_low += tacc[s, k2] == low
            pick = np.int64(bounded(rs, n_low)) if n_low > 1 else np.int64(0)
            cc = 1
            for k2 in range(3, 0, -1):
                if tacc[s, k2] == low:
                    if pick == 0:
                        cc = k2
                    pick -= 1
        for _ in range(d):
            _commander_tactician(gm.tac, tacc, gm.tac_pile, gm.tac_disc, gm.met, gm.cmet, s, cc,
                                 gm.trace, gm.tn, ply)


@njit(cache=True, _nrt=False, no_cpython_wrapper=True)
def _commander_layer(rs, s, ply, played, rolled, free, star_tac, units, tab, gm):
    """One turn of the commander layer (docs/rules.md M4, M6, M8): who received which card, initiative
    rolls for section commanders left without a card (and, by default, without multi-section orders
    in their section; with 3 a side a CIC who laid a multi-section card has a card), and the turn's
    Tactician draws (E9.3) for the commander who earned them.

    played = (card a, card b as played, the same after any Guerrilla nullification (a nullified
    card still reached its commander but earns no Tactician card), their placements, the command
    column c, the placement the orders are read at); rolled: the card types the two play as after
    any roll of their orders (D2, the pair record's); free: the units left unordered per section
    after the cards and March Moves; star_tac: the Tactician cards each card's stars earned."""
    ra0, rb0, ra, rb, _, _, c, pq = played
    ctab, nom_t, cmd_sec, cmet = tab.ctab, tab.nom_t, tab.cmd_sec, gm.cmet
    players_a_side = tab.players_a_side
    void = ctab.shape[0] - 1
    ner = tab.rec_t[s, c, rolled[0], rolled[1]]
    q0 = REC_ORD + 6 * pq
    placed = _placed_sections(played, ctab)  # once: its tests on the cards' kinds are branches
    ka, kb, xa, xb = placed
    da = ctab[ra, C_TDRAW] + star_tac[0]  # Tactician cards each card earned (E8, E9.3)
    db = ctab[rb, C_TDRAW] + star_tac[1]
    if players_a_side == 2:
        _two_commanders(ply, s, played, placed, ner, q0, da, db, tab, gm)
        return
    # M6.1 / M8.1: a section or tactic card goes to the commander of the section it is placed in
    for x in range(3):
        cx = cmd_sec[s, x]
        got = (1 if xa == x else 0) + (1 if xb == x else 0)
        multi_orders = 0
        if ka == KIND_MULTI:
            multi_orders += nom_t[s, c, ra0, void, 0, x]
        if kb == KIND_MULTI:
            multi_orders += nom_t[s, c, rb0, void, 0, x]
        cmet[s, cx, CM_TURNS] += 1
        cmet[s, cx, CM_NOM] += ner[q0 + x]
        cmet[s, cx, CM_EFF] += ner[q0 + 3 + x]
        if got > 0:
            cmet[s, cx, CM_RECEIVED] += got
            continue
        if players_a_side == 3 and cx == 0 and (ka == KIND_MULTI or kb == KIND_MULTI):
            continue  # M6.2: the CIC who laid a multi-section card has played a card: no roll
        cmet[s, cx, CM_NO_CARD] += 1
        if multi_orders > 0 and tab.ropt[R_INIT_NEEDS_NO_ORDERS] == 1:
            continue  # initiative = no_card_no_orders
        # M6.2 / M8.2: no card (and, by the option, no multi-section orders): two battle dice
        tdr, cdr, d1, d2, ordered = roll_initiative(rs, False, units[s], x, -1, free[x], cmet[s, cx])
        gm.met[s, M_INIT_ORDERS] += ordered
        _trace(gm.trace, gm.tn, EV_INITIATIVE, ply, s, cx, d1, d2, ordered, tdr, cdr, x, 0)
        for _ in range(tdr):
            _commander_tactician(gm.tac, gm.tacc, gm.tac_pile, gm.tac_disc, gm.met, cmet, s, cx,
                                 gm.trace, gm.tn, ply)
    if players_a_side == 3:
        xc = 0
        for x in range(3):
            if cmd_sec[s, x] == 0:
                xc = x
        if xa == xc or xb == xc:
            cmet[s, 0, CM_KEEP] += 1
        elif xa >= 0 and xb >= 0:
            cmet[s, 0, CM_GIVE_BOTH] += 1
    _card_tacticians(rs, ply, s, placed, da, db, tab, gm)
