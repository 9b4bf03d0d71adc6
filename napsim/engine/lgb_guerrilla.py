"""The Spanish Guerrillas in La Grande Battles (G4-G6 in LGB, S4): the one counter a French turn
that the Spanish Corps commander facing a card may spend against it (G5), and which Scout of the
turn gains a counter (G4). EPIC's are napsim.engine.epic_guerrilla; the attempt itself (the roll,
the pool, the counters' return) is napsim.engine.cardflow.guerrilla_attempt, shared by both.

Inlined into napsim.engine.lgb._ply_lgb by LLVM (napsim.engine.jit.inlined).
"""

import numpy as np

from napsim.engine.cardflow import guerrilla_attempt, guerrilla_offer, p4_spends
from napsim.engine.jit import inlined_cached, inlined_ir
from napsim.engine.layout import (
    C_EQ,
    C_KIND,
    C_SCOUT,
    CM_G_NULLIFIED,
    CM_G_SPENT,
    G_KEEP,
    G_OUT_DECLINED,
    G_OUT_NULLIFIED,
    GAIN_BELOW,
    GAIN_NEVER,
    KIND_MULTI,
    M_G_DENIED_EFF,
    M_G_DENIED_EFF_SEC,
    M_G_DENIED_NOM,
    M_G_FRENCH_TURNS,
    P_G_GAIN_BELOW,
    P_G_GAIN_MODE,
    P_G_SPEND_MODE,
    PL_CARD,
    PL_CARD2,
    PL_CMD,
    PL_OPT,
    PL_OPT2,
    PL_SOURCE,
    R_CA_NULLIFIED_NONE,
    S_FRENCH,
    S_G_RULE,
    S_SPAN,
    SPEND_ASSAULT,
    SRC_CIC,
    SRC_OWN,
)


@inlined_cached
def _guerrilla_offer(s, o, ply, void, tab, gm):
    """The spend's decision point in LGB (G5): the one Spanish counter a French turn may spend,
    held by the Corps commander facing the card (S4: kc is the French Corps, wing, whose card it
    is, from the French seat; the Spanish Corps 2 - kc faces him). Returns (offered, P4's decision
    (G_SPEND, G_KEEP; cardflow.p4_spends), the wing of the target or -1, which of its cards, its
    effective orders, 1 if an Assault); an offer is counted (cardflow.guerrilla_offer). tab: the
    tables (layout.LgbArgs); gm: the game (layout.LgbGame)."""
    pol, ctab, eff_t = tab.pol, tab.ctab, tab.eff_t
    pl, gst, met = gm.pl, gm.gst, gm.met
    met[o, M_G_FRENCH_TURNS] += 1
    target = np.int64(-1)
    t_second = np.int64(0)
    t_eff = np.int64(-1)
    t_assault = np.int64(0)
    for kc in range(3):
        if gst[o, 2 - kc] == 0 or (pl[PL_SOURCE, kc] != SRC_CIC and pl[PL_SOURCE, kc] != SRC_OWN):
            continue  # S4: only the Spanish Corps facing his wing may spend against it
        src = int(pl[PL_SOURCE, kc])
        for which in range(2):
            r = int(pl[PL_CARD, kc]) if which == 0 else int(pl[PL_CARD2, kc])
            if r == void or ctab[r, C_KIND] == KIND_MULTI:
                continue  # G5: multi-section cards cannot be stopped
            q = int(pl[PL_OPT, kc]) if which == 0 else int(pl[PL_OPT2, kc])
            cc = int(pl[PL_CMD, kc])
            e_card = eff_t[s, kc, src, cc, r, q, 0] + eff_t[s, kc, src, cc, r, q, 1]
            better = e_card > t_eff
            if pol[o, P_G_SPEND_MODE] == SPEND_ASSAULT and ctab[r, C_EQ] != t_assault:
                better = ctab[r, C_EQ] > t_assault
            if better:
                target = kc
                t_second = which
                t_eff = e_card
                t_assault = ctab[r, C_EQ]
    if target < 0:
        return np.bool_(False), np.int64(G_KEEP), target, t_second, t_eff, t_assault
    guerrilla_offer(o, ply, met, gm.g_turn)
    return np.bool_(True), p4_spends(o, t_eff, t_assault, pol), target, t_second, t_eff, t_assault


@inlined_cached
def _guerrillas(rs, s, o, ply, void, offer, spend, tab, gm):
    """G5 in LGB: the attempt on the offer of _guerrilla_offer with the decision `spend` (layout
    G_*: P4's or the planner's; napsim.engine.cardflow.guerrilla_attempt). Returns the card
    nullified, 2 * Corps commander + which of his cards, or -1."""
    offered, _, target, t_second, t_eff, t_assault = offer
    if not offered:
        return np.int64(-1)
    nom_t, ropt = tab.nom_t, tab.ropt
    pl, gst, pool, met, cmet = gm.pl, gm.gst, gm.pool, gm.met, gm.cmet
    out = guerrilla_attempt(rs, o, ply, (t_second, target, t_eff, t_assault, 1, target), spend,
                            gst[o], 2 - target, pool, met, gm.g_turn, gm.trace, gm.tn, ropt)
    if out == G_OUT_DECLINED:
        return np.int64(-1)
    cmet[o, 3 - target, CM_G_SPENT] += 1  # the facing Spanish Corps spent it (S4)
    if out == G_OUT_NULLIFIED:
        src = int(pl[PL_SOURCE, target])
        cc = int(pl[PL_CMD, target])
        r = int(pl[PL_CARD, target]) if t_second == 0 else int(pl[PL_CARD2, target])
        q = int(pl[PL_OPT, target]) if t_second == 0 else int(pl[PL_OPT2, target])
        cmet[o, 3 - target, CM_G_NULLIFIED] += 1
        met[o, M_G_DENIED_NOM] += nom_t[s, target, src, cc, r, q]
        met[o, M_G_DENIED_EFF] += t_eff
        met[o, M_G_DENIED_EFF_SEC + target] += t_eff
        if t_second == 0:
            pl[PL_CARD, target] = void
        else:
            pl[PL_CARD2, target] = void
        return 2 * target + t_second
    return np.int64(-1)


@inlined_ir
def _turn_offer_lgb(ply, tab, gm):
    """The Spanish spend's decision point on a French turn (G5): the offer of
    lgb_guerrilla._guerrilla_offer, or none where no Spanish side faces a French one."""
    s = (tab.first + ply) % 2
    o = 1 - s
    if tab.scfg[o, S_G_RULE] != 0 and tab.scfg[s, S_FRENCH] == 1:
        return _guerrilla_offer(s, o, ply, tab.ctab.shape[0] - 1, tab, gm)
    m1 = np.int64(-1)
    return np.bool_(False), np.int64(G_KEEP), m1, np.int64(0), m1, np.int64(0)


@inlined_ir
def _turn_spend_lgb(ply, rs, offer, spend, tab, gm, ka):
    """The Spanish Guerrilla attempt on the offer with the decision `spend` (G5), from rs."""
    s = (tab.first + ply) % 2
    o = 1 - s
    void = tab.ctab.shape[0] - 1
    null = _guerrillas(rs, s, o, ply, void, offer, spend, tab, gm)
    # D8 / G5: the CIC's hand card the Guerrillas nullified may still be copied (the
    # designer's ruling); counter_attack_nullified = none: nothing to copy
    if (tab.ropt[R_CA_NULLIFIED_NONE] == 1 and null >= 0 and null == 2 * ka
            and gm.pl[PL_SOURCE, ka] == SRC_CIC):
        gm.last_hand[s] = void


@inlined_cached
def _scout_gain_corps(s, void, scfg, pol, ctab, pl, gst, pool):
    """G4 in LGB: (the Corps commander whose Scout gains this turn's counter or -1, which of his
    cards it is, Scouts played this turn). The first Scout, left wing first, whose Corps commander's
    two sections hold at least four Spanish units, while the pool has one and the policy wants it
    (P5); whether it is gained is napsim.engine.cardflow.scout_trade's call."""
    n_scouts = 0
    gain_kc = -1
    gain_which = 0
    held = gst[s, 0] + gst[s, 1] + gst[s, 2]
    gm = pol[s, P_G_GAIN_MODE]
    wants = scfg[s, S_G_RULE] != 0 and pool[0] > 0 and not (
        gm == GAIN_NEVER or (gm == GAIN_BELOW and held >= pol[s, P_G_GAIN_BELOW]))
    for kc in range(3):
        if pl[PL_SOURCE, kc] != SRC_CIC and pl[PL_SOURCE, kc] != SRC_OWN:
            continue
        for which in range(2):
            r = int(pl[PL_CARD, kc]) if which == 0 else int(pl[PL_CARD2, kc])
            if r == void or ctab[r, C_SCOUT] != 1:
                continue
            n_scouts += 1
            if wants and gain_kc < 0 and scfg[s, S_SPAN + kc] >= 4:
                gain_kc = kc
                gain_which = which
    return gain_kc, gain_which, n_scouts
