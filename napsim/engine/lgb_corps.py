"""The Corps commanders' part of a La Grande Battles turn, in the order
napsim.engine.lgb.play_blocks_lgb runs it: the gifts received, the L5 plays (play it, swap it for an
own card, play an own card, hold, or roll for initiative), orders, stars and initiative (L6, L7,
the Scout-for-counter gain of G4) and a Take Command's reach (E7). The Guerrillas' attempt (G5)
and the choice of the Scout that gains a counter are napsim.engine.lgb_guerrilla.

Every phase is inlined into play_blocks_lgb by LLVM (napsim.engine.jit.inlined) and takes the same
random draws, in the same order, as the single loop it came from. The per-turn plan of the three
Corps commanders is the float array pl[PL_*, Corps commander] (napsim.engine.layout).

A Corps commander's own choices are here too: his best own card (`_own_best`), how a card plays for
him (`_plays_as`, a Counter-Attack mirrored) and the option a card is played with (`_pick_opt`),
read from the tables of napsim.sim.tables_lgb (best_t[side, corps, source, command, card], val_t
and bopt_t the same with the option). The CIC's gifts are napsim.engine.lgb_gifts.
"""

import numpy as np

from napsim.engine.cardflow import _resolve, _trace, roll_orders
from napsim.engine.commanders import roll_initiative
from napsim.engine.jit import inlined, inlined_cached
from napsim.engine.layout import (
    C_COUNTER,
    C_ELAN,
    C_FS,
    C_STARS,
    C_TDRAW,
    CM_BLOCKS_LOST,
    CM_EFF,
    CM_EFF_A,
    CM_G_ACQUIRED,
    CM_NO_CARD,
    CM_NOM,
    CM_OWN_PLAYED,
    CM_RECEIVED,
    CM_REJECTED,
    CM_STAR_CMD,
    EV_CORPS_PLAY,
    EV_CORPS_REACH,
    EV_G_GAIN,
    EV_INITIATIVE,
    EV_REJECT,
    M_COUNTER,
    M_G_ACQUIRED,
    M_INIT_ORDERS,
    M_STARS_MARCH,
    M_STARS_TAC,
    P_MARCH_PROB,
    PL_CARD,
    PL_CARD2,
    PL_CMD,
    PL_CMD_DRAWS,
    PL_FREE,
    PL_FREE_A,
    PL_FREE_B,
    PL_OPT,
    PL_OPT2,
    PL_OWN_BEST,
    PL_OWN_SLOT,
    PL_PHYS,
    PL_PHYS2,
    PL_SOURCE,
    PL_TAC_DRAWS,
    SRC_CIC,
    SRC_HOLD,
    SRC_INITIATIVE,
    SRC_NONE,
    SRC_OWN,
)
from napsim.engine.rng import bounded, uniform


@inlined_cached
def _receive(c, ka, kb, ta, tb, ra, rb, void, pl):
    """The gifts in each Corps commander's plan: PL_SOURCE SRC_CIC with the card (PL_CARD,
    PL_PHYS), a second one (E4: PL_CARD2, PL_PHYS2) to the same commander; SRC_NONE otherwise."""
    for kc in range(3):
        pl[PL_SOURCE, kc] = SRC_NONE
        pl[PL_CARD, kc] = void
        pl[PL_PHYS, kc] = void
        pl[PL_CARD2, kc] = void
        pl[PL_PHYS2, kc] = void
        pl[PL_OPT2, kc] = 0
        pl[PL_OPT, kc] = 0
        pl[PL_CMD, kc] = c
    if ka >= 0:
        pl[PL_SOURCE, ka] = SRC_CIC
        pl[PL_CARD, ka] = ra
        pl[PL_PHYS, ka] = ta
    if kb >= 0:
        if kb == ka:
            pl[PL_CARD2, kb] = rb
            pl[PL_PHYS2, kb] = tb
        else:
            pl[PL_SOURCE, kb] = SRC_CIC
            pl[PL_CARD, kb] = rb
            pl[PL_PHYS, kb] = tb


@inlined_cached
def _corps_plays(rs, s, ply, c, is_random, margin, own_min, opp_last, tab, gm):
    """L5: each Corps commander plays the gift, swaps it for his own card, plays his own, holds, or
    (empty hand, no card) will roll for initiative: PL_SOURCE, the card, its option, its command.
    tab: the tables (layout.LgbArgs); gm: the game (layout.LgbGame)."""
    ctab, best_t, val_t, bopt_t = tab.ctab, tab.best_t, tab.val_t, tab.bopt_t
    void = ctab.shape[0] - 1
    cmax = best_t.shape[3] - 1
    chand, cn, disc, dn, pl, met, cmet = gm.chand, gm.cn, gm.disc, gm.dn, gm.pl, gm.met, gm.cmet
    trace, tn = gm.trace, gm.tn
    for kc in range(3):
        own_b = pl[PL_OWN_BEST, kc]
        slot = int(pl[PL_OWN_SLOT, kc])
        got = pl[PL_SOURCE, kc] == SRC_CIC
        if got:
            cmet[s, kc + 1, CM_RECEIVED] += 1 if pl[PL_CARD2, kc] == void else 2
            r = int(pl[PL_CARD, kc])
            swap = False
            if slot >= 0 and pl[PL_CARD2, kc] == void:
                if is_random:
                    swap = uniform(rs) < 0.5
                else:
                    swap = own_b > best_t[s, kc, 0, c, r] + margin
            if swap:
                cmet[s, kc + 1, CM_REJECTED] += 1
                disc[dn[0]] = int(pl[PL_PHYS, kc])
                dn[0] += 1
                _trace(trace, tn, EV_REJECT, ply, s, kc, int(pl[PL_PHYS, kc]), 0, 0, 0, 0, 0, 0)
                got = False
            else:
                pl[PL_OPT, kc] = _pick_opt(rs, is_random, s, kc, np.int64(0), c, r, val_t, bopt_t)
                if pl[PL_CARD2, kc] != void:
                    pl[PL_OPT2, kc] = _pick_opt(rs, is_random, s, kc, np.int64(0), c, int(pl[PL_CARD2, kc]),
                                                val_t, bopt_t)
        if not got:
            cmet[s, kc + 1, CM_NO_CARD] += 1 if pl[PL_SOURCE, kc] == SRC_NONE else 0
            play_own = False
            if slot >= 0:
                if pl[PL_SOURCE, kc] == SRC_CIC:  # swapped: he plays his best own card
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
                pl[PL_SOURCE, kc] = SRC_OWN
                pl[PL_CARD, kc] = r
                pl[PL_PHYS, kc] = t
                pl[PL_CMD, kc] = min(cn[s, kc] + 1, cmax)  # L5: his hand including the card
                pl[PL_OPT, kc] = _pick_opt(rs, is_random, s, kc, np.int64(1), int(pl[PL_CMD, kc]), r, val_t,
                                           bopt_t)
                cmet[s, kc + 1, CM_OWN_PLAYED] += 1
                met[s, M_COUNTER] += ctab[t, C_COUNTER]
            elif cn[s, kc] == 0:
                pl[PL_SOURCE, kc] = SRC_INITIATIVE
            else:
                pl[PL_SOURCE, kc] = SRC_HOLD


@inlined_cached
def _corps_orders(rs, s, kc, ply, void, gain_kc, gain_which, tab, gm):
    """Orders, stars (L7), initiative (L6) and Scout-for-counter (G4: card gain_which of Corps
    commander gain_kc, -1 none) of Corps commander kc: pl rows PL_CMD_DRAWS, PL_TAC_DRAWS and the
    units he leaves unordered (PL_FREE_A, PL_FREE_B, PL_FREE). Returns (nominal orders, effective
    orders, units marched, an Elan was played). tab: the tables (layout.LgbArgs); gm: the game
    (layout.LgbGame)."""
    nom_t, eff_t, units = tab.nom_t, tab.eff_t, tab.units
    pl, met, cmet, trace, tn = gm.pl, gm.met, gm.cmet, gm.trace, gm.tn
    pl[PL_CMD_DRAWS, kc] = 0
    pl[PL_TAC_DRAWS, kc] = 0
    src = int(pl[PL_SOURCE, kc])
    xa = 2 * kc
    xb = 2 * kc + 1
    tot_a = units[s, 0, xa] + units[s, 1, xa] + units[s, 2, xa] + units[s, 3, xa]
    tot_b = units[s, 0, xb] + units[s, 1, xb] + units[s, 2, xb] + units[s, 3, xb]
    pl[PL_FREE_A, kc] = tot_a
    pl[PL_FREE_B, kc] = tot_b
    pl[PL_FREE, kc] = tot_a + tot_b
    if src == SRC_INITIATIVE:
        blocks = cmet[s, kc + 1, CM_BLOCKS_LOST]
        tdr, cdr, d1, d2, ordered = roll_initiative(rs, True, units[s], xa, xb, tot_a + tot_b,
                                                    cmet[s, kc + 1])
        blocks = cmet[s, kc + 1, CM_BLOCKS_LOST] - blocks  # L6: a single sabre costs a block
        met[s, M_INIT_ORDERS] += ordered
        pl[PL_FREE, kc] -= ordered
        pl[PL_CMD_DRAWS, kc] += cdr
        pl[PL_TAC_DRAWS, kc] += tdr
        _trace(trace, tn, EV_INITIATIVE, ply, s, kc, d1, d2, ordered, tdr, cdr, 0, blocks)
        return 0, 0, 0, False
    if src != SRC_CIC and src != SRC_OWN:
        if src == SRC_HOLD:
            _trace(trace, tn, EV_CORPS_PLAY, ply, s, kc, SRC_HOLD, void, void, 0, 0, 0, 0)
        return 0, 0, 0, False
    cc = int(pl[PL_CMD, kc])
    ea = 0
    eb = 0
    nom = 0
    for which in range(2):
        r = int(pl[PL_CARD, kc]) if which == 0 else int(pl[PL_CARD2, kc])
        q = int(pl[PL_OPT, kc]) if which == 0 else int(pl[PL_OPT2, kc])
        if r == void:
            continue
        r = roll_orders(rs, s, ply, kc, r, cc, tab.ctab, trace, tn)  # D2: a card that rolls its orders
        nom += nom_t[s, kc, src, cc, r, q]
        ea += eff_t[s, kc, src, cc, r, q, 0]
        eb += eff_t[s, kc, src, cc, r, q, 1]
    ea = min(ea, tot_a)
    eb = min(eb, tot_b)
    cmet[s, kc + 1, CM_NOM] += nom
    cmet[s, kc + 1, CM_EFF] += ea + eb
    cmet[s, kc + 1, CM_EFF_A] += ea
    cmet[s, kc + 1, CM_EFF_A + 1] += eb
    free = tot_a + tot_b - ea - eb
    pl[PL_FREE_A, kc] = tot_a - ea
    pl[PL_FREE_B, kc] = tot_b - eb
    _trace(trace, tn, EV_CORPS_PLAY, ply, s, kc, src, int(pl[PL_PHYS, kc]), int(pl[PL_CARD, kc]),
           int(pl[PL_OPT, kc]), nom, ea, eb)
    if pl[PL_PHYS2, kc] != void:
        _trace(trace, tn, EV_CORPS_PLAY, ply, s, kc, src, int(pl[PL_PHYS2, kc]),
               int(pl[PL_CARD2, kc]), int(pl[PL_OPT2, kc]), -1, -1, -1)
    marched, elan, free = _corps_stars(rs, s, kc, ply, void, gain_kc, gain_which, free, tab, gm)
    pl[PL_FREE, kc] = free
    return nom, ea + eb, marched, elan


@inlined
def _corps_stars(rs, s, kc, ply, void, gain_kc, gain_which, free, tab, gm):
    """The cards Corps commander kc played: their Tactician draws, an Elan, the Scout-for-counter
    gain (G4) and stars (L7: a March Move of up to three of his `free` unordered units, or a Command
    and a Tactician card at the end of the turn). Returns (units marched, an Elan was played,
    units still free)."""
    ctab, pol = tab.ctab, tab.pol
    pl, gst, pool, met, cmet = gm.pl, gm.gst, gm.pool, gm.met, gm.cmet
    marched = 0
    elan = False
    for which in range(2):
        r = int(pl[PL_CARD, kc]) if which == 0 else int(pl[PL_CARD2, kc])
        if r == void:
            continue
        pl[PL_TAC_DRAWS, kc] += ctab[r, C_TDRAW]
        if ctab[r, C_ELAN] == 1:
            elan = True
        gain_here = kc == gain_kc and which == gain_which
        if gain_here:
            # G4: a Spanish Scout trades the CIC's second draw and its stars for a counter
            gst[s, kc] += 1
            pool[0] -= 1
            met[s, M_G_ACQUIRED] += 1
            cmet[s, kc + 1, CM_G_ACQUIRED] += 1
            _trace(gm.trace, gm.tn, EV_G_GAIN, ply, s, kc, pool[0], 0, 0, 0, 0, 0, 0)
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
            pl[PL_CMD_DRAWS, kc] += 1
            pl[PL_TAC_DRAWS, kc] += 1
    return marched, elan, free


@inlined_cached
def _take_command_reach(s, ply, void, eff_t, pl, cmet, trace, tn):
    """E7 in LGB: a Take Command from the CIC orders, beyond his two sections, units of the
    sections next to them that their own Corps commander left unordered (as evenly between the two
    as they allow); counted where the units stand (napsim.sim.tables_lgb). Returns the effective
    orders it adds to the left, centre and right wing, and in all."""
    eff_w0 = 0
    eff_w1 = 0
    eff_w2 = 0
    added = 0
    for kc in range(3):
        if pl[PL_SOURCE, kc] != SRC_CIC:
            continue
        n = 0
        for which in range(2):
            r = int(pl[PL_CARD, kc]) if which == 0 else int(pl[PL_CARD2, kc])
            q = int(pl[PL_OPT, kc]) if which == 0 else int(pl[PL_OPT2, kc])
            if r != void:
                n += eff_t[s, kc, SRC_CIC, int(pl[PL_CMD, kc]), r, q, 2]
        if n == 0:
            continue
        room_l = int(min(pl[PL_FREE_B, kc - 1], pl[PL_FREE, kc - 1])) if kc > 0 else 0
        room_r = int(min(pl[PL_FREE_A, kc + 1], pl[PL_FREE, kc + 1])) if kc < 2 else 0
        into_l = max(min(room_l, max(n - room_r, (n + 1) // 2)), 0)
        into_r = max(min(room_r, n - into_l), 0)
        if kc > 0:
            pl[PL_FREE_B, kc - 1] -= into_l
            pl[PL_FREE, kc - 1] -= into_l
            cmet[s, kc, CM_EFF_A + 1] += into_l
        if kc < 2:
            pl[PL_FREE_A, kc + 1] -= into_r
            pl[PL_FREE, kc + 1] -= into_r
            cmet[s, kc + 2, CM_EFF_A] += into_r
        cmet[s, kc + 1, CM_EFF] += into_l + into_r
        added += into_l + into_r
        if kc == 0:
            eff_w1 += into_r
        elif kc == 1:
            eff_w0 += into_l
            eff_w2 += into_r
        else:
            eff_w1 += into_l
        _trace(trace, tn, EV_CORPS_REACH, ply, s, kc, n, into_l, into_r, 0, 0, 0, 0)
    return eff_w0, eff_w1, eff_w2, added


# ------------------------------------------------------------ a Corps commander's own choices
NEG_HALF = -5.0e8  # a table score below this marks an illegal card or option


@inlined
def _own_best(s, k, chand, cn, ctab, mirror, void, best, cmax):
    """(score, hand slot, card as it plays) of the best card in Corps commander k's own hand (the
    first of equal scores); (-1e18, -1, void) if empty. mirror: what a Counter-Attack plays as.
    Without branches in the loop (which card is best is random from turn to turn)."""
    b = -1.0e18
    slot = -1
    rb = void
    c = min(cn[s, k], cmax)
    for i in range(cn[s, k]):
        r = _plays_as(chand[s, k, i], mirror, void, ctab)
        v = best[s, k, 1, c, r]
        up = v > b + 1e-9
        b = v if up else b
        slot = i if up else slot
        rb = r if up else rb
    return b, slot, rb


@inlined
def _plays_as(t, mirror, void, ctab):
    """cardflow._resolve without branches: mirror is what a Counter-Attack plays as this turn
    (ctab[opp_last, C_MIRROR], void when the opponent has played no hand card)."""
    r = mirror if ctab[t, C_COUNTER] == 1 else t
    return void if ctab[t, C_FS] == 1 else r


@inlined
def _pick_opt(rs, is_random, s, k, src, c, r, val, bopt):
    """The option a card is played with: the best (greedy) or a uniform legal one (random)."""
    if not is_random:
        return bopt[s, k, src, c, r]
    if val[s, k, src, c, r, 1] > NEG_HALF and val[s, k, src, c, r, 0] > NEG_HALF:
        return bounded(rs, np.int64(2))
    return 0 if val[s, k, src, c, r, 0] > NEG_HALF else 1
