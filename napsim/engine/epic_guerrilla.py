"""The Guerrilla phase of an EPIC turn (S4, G1-G7): which French card a Spanish counter targets,
the attempt itself (napsim.engine.cardflow.guerrilla_attempt), the Scout's counter gain, and the
end-of-game checks of the counters. Inlined into the game (napsim.engine.epic._ply) like every phase.
"""


import numpy as np

from napsim.engine.cardflow import guerrilla_attempt, guerrilla_offer, p4_spends
from napsim.engine.commanders import (
    _commander_spent,
)
from napsim.engine.jit import inlined, inlined_cached
from napsim.engine.layout import (
    C_EQ,
    C_KIND,
    C_SCOUT,
    C_SEC,
    G_BASE,
    G_FRENCH,
    G_GONE,
    G_HELD_ANY,
    G_HELD_L,
    G_KEEP,
    G_OFF,
    G_OUT_NULLIFIED,
    G_POOL,
    G_RULE,
    G_SPAN,
    GAIN_BELOW,
    GAIN_NEVER,
    KIND_INERT,
    KIND_MULTI,
    KIND_SECTION,
    M_G_DENIED_EFF,
    M_G_DENIED_EFF_SEC,
    M_G_DENIED_NOM,
    M_G_FRENCH_TURNS,
    M_G_NULLIFIED,
    M_VIOLATIONS,
    P_G_GAIN_BELOW,
    P_G_GAIN_MODE,
    P_G_SPEND_MODE,
    R_CA_NULLIFIED_NONE,
    SPEND_ASSAULT,
)


@inlined
def _pair_sum(tab, s, c, a, b, q):
    return tab[s, c, a, b, q, 0] + tab[s, c, a, b, q, 1] + tab[s, c, a, b, q, 2]


@inlined
def _guerrilla_target(s, o, c, ra, rb, pa, pb, p, void, gcfg, gst, pol, ctab, eff_t):
    """G2, G5, P4: which French card the Spanish side o would stop: (0 card a, 1 card b, 2 both
    (base rule), -1 none; its French section or -1; its effective orders; 1 if an Assault)."""
    full_eff = _pair_sum(eff_t, s, c, ra, rb, p)
    target = -1
    tsec = -1
    t_eff = -1
    t_assault = 0
    if gcfg[o, G_RULE] == G_BASE:
        target = 2
        t_eff = full_eff
        t_assault = 1 if ctab[ra, C_EQ] == 1 or ctab[rb, C_EQ] == 1 else 0
    else:
        for k in range(2):
            t = ra if k == 0 else rb
            kd = ctab[t, C_KIND]
            if t == void or kd == KIND_MULTI or kd == KIND_INERT:  # G5: multi-section cards cannot be stopped
                continue
            sx = ctab[t, C_SEC] if kd == KIND_SECTION else (pa if k == 0 else pb)  # from the French seat
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
    return target, tsec, t_eff, t_assault


@inlined
def held_counters(gst, o):
    """The Guerrilla counters side o holds in an EPIC game (its CIC's and its sections')."""
    return gst[o, G_HELD_ANY] + gst[o, G_HELD_L] + gst[o, G_HELD_L + 1] + gst[o, G_HELD_L + 2]


@inlined
def _no_offer():
    """No counter offered this turn: (offered, P4's decision, target, its section, its effective
    orders, Assault, the counter's column, cards a success nullifies)."""
    m1 = np.int64(-1)
    return np.bool_(False), np.int64(G_KEEP), m1, m1, m1, np.int64(0), m1, np.int64(0)


@inlined
def _guerrilla_offer(s, ply, played, g_turn, tab, gm):
    """The spend's decision point in a French turn of side s (G1, G2, G5, P4): whether the Spanish
    side o offers a counter against the French cards played = (c, card a, card b, their
    sections, placement) and P4's decision, as (offered, P4's decision (G_SPEND, G_KEEP), target
    (0 card a, 1 card b, 2 both (base rule)), its French section, its effective orders, 1 if an
    Assault, the counter's column in gst, cards a success nullifies). An offer is counted
    (cardflow.guerrilla_offer).

    Sections are mirrored (S4): a French card in the French section x can be stopped by a counter
    held in the Spanish section 2 - x; per-section metrics and trace events name the French card's
    section from the French seat."""
    c, ra, rb, pa, pb, p = played
    o = 1 - s
    gcfg, pol, ctab, eff_t = tab.gcfg, tab.pol, tab.ctab, tab.eff_t
    gst, met = gm.gst, gm.met
    void = ctab.shape[0] - 1
    if gcfg[o, G_RULE] == G_OFF or gcfg[s, G_FRENCH] != 1:
        return _no_offer()
    met[o, M_G_FRENCH_TURNS] += 1
    if held_counters(gst, o) == 0 or (ra == void and rb == void):
        return _no_offer()
    target, tsec, t_eff, t_assault = _guerrilla_target(s, o, c, ra, rb, pa, pb, p, void, gcfg, gst,
                                                       pol, ctab, eff_t)
    if target < 0:
        return _no_offer()
    # the counter spent: the Spanish section facing the card (S4), else the CIC's, else any
    col = -1
    if tsec >= 0 and gst[o, G_HELD_L + 2 - tsec] > 0:
        col = G_HELD_L + 2 - tsec
    elif gst[o, G_HELD_ANY] > 0:
        col = G_HELD_ANY
    else:
        for x in range(3):
            if gst[o, G_HELD_L + x] > 0:
                col = G_HELD_L + x
                break
    n_null = (1 if ra != void else 0) + (1 if rb != void else 0) if target == 2 else 1
    guerrilla_offer(o, ply, met, g_turn)
    return (np.bool_(True), p4_spends(o, t_eff, t_assault, pol), np.int64(target), np.int64(tsec),
            np.int64(t_eff), np.int64(t_assault), np.int64(col), np.int64(n_null))


@inlined
def _guerrilla_attack(rs, s, ply, played, offer, spend, g_turn, tab, gm):
    """The Spanish side o's attempt on the offer of _guerrilla_offer with the decision `spend`
    (layout G_*: P4's, or the planner's; napsim.engine.cardflow.guerrilla_attempt).
    Returns (placement, card a, card b, turn over) after any nullification: a nullified card
    becomes VOID (no orders, no marks, no Tactician draw); under the base rule both cards are
    stopped and the French turn ends with the replacement draw. played as _guerrilla_offer's.
    """
    c, ra, rb, pa, pb, p = played
    _, _, target, tsec, t_eff, t_assault, col, n_null = offer
    o = 1 - s
    ctab, nom_t, eff_t = tab.ctab, tab.nom_t, tab.eff_t
    gst, met = gm.gst, gm.met
    void = ctab.shape[0] - 1
    out = guerrilla_attempt(rs, o, ply, (target, tsec, t_eff, t_assault, n_null, tsec), spend,
                            gst[o], col, gst[0, G_POOL:G_POOL + 2], met, g_turn, gm.trace, gm.tn,
                            tab.ropt)
    if out != G_OUT_NULLIFIED:
        return p, ra, rb, False
    over = False
    if target == 2:
        na, nb, q = void, void, 0
        over = True
    elif target == 0:
        na, nb, q = void, rb, pb
    else:
        na, nb, q = ra, void, pa * 3
    for x in range(3):
        met[o, M_G_DENIED_NOM] += nom_t[s, c, ra, rb, p, x] - nom_t[s, c, na, nb, q, x]
        de = eff_t[s, c, ra, rb, p, x] - eff_t[s, c, na, nb, q, x]
        met[o, M_G_DENIED_EFF] += de
        met[o, M_G_DENIED_EFF_SEC + x] += de
    return q, na, nb, over


@inlined
def _guerrillas(rs, s, ply, played, offer, spend, g_turn, tab, gm):
    """G1/G5 Spanish Guerrilla Action against the French cards, before any orders, on the offer of
    _guerrilla_offer and the decision `spend`: (placement, card a, card b, turn over) as
    _guerrilla_attack; with 2-4 a side the commander who spent the counter is credited (G6)."""
    _, ra, rb, _, _, p = played
    if not offer[0]:
        return p, ra, rb, False
    o = 1 - s
    gst, met = gm.gst, gm.met
    # which commander spends (G6): the holding that shrinks
    held = gst[o, 0] + (gst[o, 1] << 10) + (gst[o, 2] << 20) + (gst[o, 3] << 30)
    null0 = met[o, M_G_NULLIFIED]
    pq, ra, rb, turn_over = _guerrilla_attack(rs, s, ply, played, offer, spend, g_turn, tab, gm)
    held_now = gst[o, 0] + (gst[o, 1] << 10) + (gst[o, 2] << 20) + (gst[o, 3] << 30)
    if tab.players_a_side >= 2 and held != held_now:
        _commander_spent(o, gst, held, tab.cmd_sec, gm.cmet, met[o, M_G_NULLIFIED] - null0)
    return pq, ra, rb, turn_over


@inlined
def _turn_offer(ply, s, taken, tab, gm, g_turn):
    """The Spanish spend's decision point (G1-G5, P4): the Guerrilla offer against the cards
    taken (epic_guerrilla._guerrilla_offer; g_turn None: no side plays the Guerrillas, and numba
    compiles none of its code)."""
    c, _, _, ra, rb, pa, pb, p = taken
    if g_turn is None:
        return _no_offer()
    return _guerrilla_offer(s, ply, (c, ra, rb, pa, pb, p), g_turn, tab, gm)


@inlined
def _turn_spend(ply, s, rs, taken, offer, spend, tab, gm, g_turn):
    """The Spanish Guerrilla Action against the cards taken (G1-G5) on the offer and the decision
    `spend` (G_*). Returns (c, card a, card b, each as played, each after any nullification, their
    sections, the placement the orders are read at, whether the Guerrillas ended the turn)."""
    c, ta, tb, ra, rb, pa, pb, p = taken
    ra0 = ra  # the cards as played, before any Guerrilla nullification (who received what)
    rb0 = rb
    # numba prunes a branch on an argument that is None before typing (play_chunk's specialise)
    if g_turn is None:
        pq, turn_over = p, False
    else:
        pq, ra, rb, turn_over = _guerrillas(rs, s, ply, (c, ra, rb, pa, pb, p), offer, spend, g_turn,
                                            tab, gm)
    # D8 / G5: a card the Guerrillas nullified may still be copied by a Counter-Attack (the
    # designer's ruling); counter_attack_nullified = none: it gave no orders, nothing to copy
    if tab.ropt[R_CA_NULLIFIED_NONE] == 1:
        void = tab.ctab.shape[0] - 1
        if ra0 != void and ra == void:
            gm.last_hand[s] = void
        if rb0 != void and rb == void:
            gm.last_rack[s] = void
    return c, ta, tb, ra0, rb0, ra, rb, pa, pb, pq, turn_over


@inlined
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



@inlined_cached
def _check_guerrillas(s, g_total, gst, met):
    """Counters are conserved and never negative, the pool and those out of play included."""
    g_now = gst[0, G_POOL] + gst[0, G_GONE]
    for k in range(2):
        for col in range(4):
            g_now += gst[k, col]
            if gst[k, col] < 0:
                met[s, M_VIOLATIONS] += 1
    if g_now != g_total or gst[0, G_POOL] < 0:
        met[s, M_VIOLATIONS] += 1
