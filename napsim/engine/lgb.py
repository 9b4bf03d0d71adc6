"""La Grande Battles (docs/rules.md L1-L9, G4-G6 in LGB): whole games in one kernel call.

Each side has a CIC with a Command hand and three Corps commanders (left, centre, right wing),
each with two sections and a hand of his own. Each turn the CIC gives a hand card and a rack card
to two different Corps commanders (L2); a Corps commander plays it, or discards it for one of his
own (L5), or plays one of his own when he got none; with an empty hand and no card he rolls for
initiative (L6). Choices read the tables of napsim.sim.tables_lgb; randomness comes from the game's
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
- a First Strike may be played by the CIC or a Corps commander holding one; its player draws a
  replacement first at the end of the turn (first_strike_draw = cic_at_once: only the CIC, at once);
- a Counter-Attack plays as the opponent CIC's last hand card, mirrored, when it was played (one
  his Corps commander discarded unplayed leaves nothing to copy; one the Guerrillas cancelled is
  still copied unless counter_attack_nullified = none);
- a greedy Corps commander's best own card is the first of equal score in his hand, and option ties
  (L4 split, a Center card's section, Force March) take the lower option; the random policy picks
  own cards and options uniformly;
- a Take Command given by the CIC also orders free units of the sections next to the Corps
  commander's two (E7; the reading is napsim.sim.tables_lgb's);
- G4 in LGB: a Scout gains a counter for the Corps commander who played it when his two sections
  together hold at least four Spanish units; the gain and the CIC's two-card draw never both happen
  (napsim.engine.cardflow.scout_trade, shared with EPIC).

play_blocks_lgb holds the turn loop and _ply_lgb one turn (the CIC's choice forced or probed for the
planned kernel, napsim.engine.lookahead_lgb); the phases of a turn are napsim.engine.lgb_phases,
the choices napsim.engine.lgb_gifts (the CIC's) and lgb_corps (a Corps commander's), the shared
card flow napsim.engine.cardflow, every one inlined by LLVM (napsim.engine.jit). The names of every
array slot are napsim.engine.layout's, and so are the bundles the kernels pass instead of long
argument lists (numba passes a tuple flattened into its members: no cost at run time): the tables
`tab` (LgbArgs), a game's state `gm` (LgbGame, lgb_game), the block records (LgbBlockOut) and a
turn's given decisions (Decisions, shared with EPIC); a turn's four streams travel as one tuple.
"""

import numpy as np
from numba import literally, njit

from napsim.engine import jit
from napsim.engine.blocks import add_game, block_count, block_moments, run_blocks
from napsim.engine.cardflow import (
    _count_common_places,
    _draw_card,
    _elan_reshuffle,
    _refill_rack,
    _trace,
    _types_miscounted,
    scout_trade,
)
from napsim.engine.decisions import CHOOSE, game_decisions
from napsim.engine.jit import counted, inlined, inlined_cached, inlined_ir
from napsim.engine.layout import (
    CM_G_START,
    EV_GIVE,
    G_POLICY,
    GR_HAND,
    GR_RACK,
    K_POLICY,
    KIND_RANDOM,
    LST_DISC_N,
    LST_HAND_N,
    LST_LAST_HAND,
    LST_PILE_N,
    LST_POOL,
    LST_RACK_N,
    LST_SQ_N,
    LST_TAC_DISC,
    LST_TAC_PILE,
    M_TURNS,
    M_VIOLATIONS,
    MAX_HAND,
    MO_SUM,
    N_CM,
    N_GR,
    N_GSC,
    N_LST,
    N_METRICS,
    N_PL,
    NO_TACTICIAN_DECK,
    P_CORPS_OWN_MIN,
    P_CORPS_SWAP_MARGIN,
    P_KIND,
    PL_SOURCE,
    R_FS_AT_ONCE,
    R_SHUFFLE_FIRST,
    R_TAC_DECK,
    RACK,
    RD_AFTER,
    RD_LATE,
    RD_POST,
    S_CORPS_HAND,
    S_CORPS_TAC,
    S_G_RULE,
    S_G_START,
    S_HAND,
    SRC_CIC,
    TRACE_WIDTH,
    WAIT_BINS,
    LgbArgs,
    LgbBlockOut,
    LgbGame,
)
from napsim.engine.lgb_corps import (
    _corps_orders,
    _corps_plays,
    _receive,
    _take_command_reach,
)
from napsim.engine.lgb_gifts import _cic_gifts, _pair_gain, gift_records, gift_table
from napsim.engine.lgb_guerrilla import _scout_gain_corps, _turn_offer_lgb, _turn_spend_lgb
from napsim.engine.lgb_phases import (
    _check_guerrillas,
    _cic_draw,
    _cic_keep,
    _corps_draws,
    _corps_tactician,
    _discard_played,
    _end_game,
    _first_strike,
    _first_strike_draw,
    _give_cards,
    _orders_metrics,
    _own_alternatives,
    _same_section,
    _spend_tacticians,
    _squares,
    _trace_turn,
)
from napsim.engine.rng import start_game
from napsim.engine.unseen import deal_unseen


@inlined
def _cic_squares(sq_own, sqn, s):
    """Cards of the CIC's own hand on his side's Square Track."""
    n = 0
    for i in range(sqn[s]):
        if sq_own[s, i] == 3:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _check_lgb(counts, pile, pn, disc, dn, hand, hn, chand, cn, rack, rn, sq, sqn, scratch):
    """Invariant violations (D6): every card in exactly one place (draw pile, discards, a CIC or
    Corps hand, the rack, a Square Track)."""
    _count_common_places(pile, pn, disc, dn, rack, rn, scratch)
    for s in range(2):
        for i in range(hn[s]):
            scratch[hand[s, i]] += 1
        for kc in range(3):
            for i in range(cn[s, kc]):
                scratch[chand[s, kc, i]] += 1
        for i in range(sqn[s]):
            scratch[sq[s, i]] += 1
    return _types_miscounted(scratch, counts)


@inlined
def _new_game(void, scfg, deck, pile, st, cn, tac, gst, g_pool0, cmet, ropt):
    """Everything in the draw pile, the counters zero, the Guerrilla counters dealt to the Corps
    commanders (G6) and the rest in the pool. Returns the Guerrilla counters in all."""
    n_cards = deck.shape[0]
    for i in range(n_cards):
        pile[i] = deck[i]  # shuffled lazily, one random card at each draw (_draw_card)
    st[:] = 0
    st[LST_LAST_HAND] = void
    st[LST_LAST_HAND + 1] = void
    cn[:, :] = 0
    tac[:, :] = 0
    gst[:, :] = 0  # Guerrilla counters per Corps commander
    st[LST_POOL] = g_pool0
    st[LST_PILE_N] = n_cards
    st[LST_TAC_PILE] = ropt[R_TAC_DECK]
    if ropt[R_TAC_DECK] == 0:
        st[LST_TAC_DISC] = NO_TACTICIAN_DECK  # D4: no Tactician card is dealt or drawn
    for k in range(2):
        if scfg[k, S_G_RULE] != 0:
            for c in range(3):
                gst[k, c] = scfg[k, S_G_START + c]
                cmet[k, c + 1, CM_G_START] += gst[k, c]
    return st[LST_POOL] + gst[0, 0] + gst[0, 1] + gst[0, 2] + gst[1, 0] + gst[1, 1] + gst[1, 2]


@inlined
def _deal(tab, gm):
    """L1 setup: the CIC's hand, then each Corps commander's, then Tactician cards, then the rack."""
    rs, scfg, first, met, trace, tn = gm.rs, tab.scfg, tab.first, gm.met, gm.trace, gm.tn
    pile, pn, disc, dn, hand, hn, chand, cn = gm.pile, gm.pn, gm.disc, gm.dn, gm.hand, gm.hn, gm.chand, gm.cn
    for k in range(2):
        s = (first + k) % 2
        for _ in range(scfg[s, S_HAND]):
            t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, np.int64(-1))
            if t >= 0:
                hand[s, hn[s]] = t
                hn[s] += 1
        for c in range(3):
            for _ in range(scfg[s, S_CORPS_HAND + c]):
                t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, np.int64(-1))
                if t >= 0:
                    chand[s, c, cn[s, c]] = t
                    cn[s, c] += 1
            take = min(scfg[s, S_CORPS_TAC + c], gm.tac_pile[0])
            gm.tac[s, c] = take
            gm.tac_pile[0] -= take
    for _ in range(RACK):
        t = _draw_card(rs, pile, pn, disc, dn, met, first, trace, tn, np.int64(-1))
        if t >= 0:
            gm.rack[gm.rn[0]] = t
            gm.rack_t[gm.rn[0]] = 0
            gm.rn[0] += 1


@inlined_ir
def _lst_views(st):
    """The small per-game counters of st as views (napsim.engine.layout LST_*): draw pile,
    discards, rack, hands, squares, Tactician pile and discards, each side's last hand card, the
    Guerrilla pool (the unacquired counters, then those out of play)."""
    return (st[LST_PILE_N:LST_PILE_N + 1], st[LST_DISC_N:LST_DISC_N + 1],
            st[LST_RACK_N:LST_RACK_N + 1], st[LST_HAND_N:LST_HAND_N + 2],
            st[LST_SQ_N:LST_SQ_N + 2], st[LST_TAC_PILE:LST_TAC_PILE + 1],
            st[LST_TAC_DISC:LST_TAC_DISC + 1], st[LST_LAST_HAND:LST_LAST_HAND + 2],
            st[LST_POOL:LST_POOL + 2])


@inlined_ir
def lgb_game(state, records):
    """The game bundle (napsim.engine.layout.LgbGame) on the arrays of lgb_state (or
    lookahead_lgb.work_scratch_lgb's) and a block's records (rack waits, Guerrilla per turn,
    Tactician cards per turn, trace buffer, its length): the arrays themselves and the views of st,
    no copy."""
    (rs, met, cmet, pile, disc, hand, chand, rack, rack_t, sq, sq_own, scratch, pl, gsc, res, st, cn,
     tac, gst) = state
    pn, dn, rn, hn, sqn, tac_pile, tac_disc, last_hand, pool = _lst_views(st)
    wait_hist, g_turn, tac_turn, trace, tn = records
    return LgbGame(rs, met, cmet, pile, disc, hand, chand, rack, rack_t, sq, sq_own, scratch, pl, gsc,
                   res, st, cn, tac, gst, pn, dn, rn, hn, sqn, tac_pile, tac_disc, last_hand, pool,
                   wait_hist, g_turn, tac_turn, trace, tn)


@inlined
def _open_game_lgb(game, run_key, tab, gm):
    """A new game of global index `game`: its stream, the piles and counters (_new_game), the deal
    (_deal). Returns the Guerrilla counters in all."""
    start_game(gm.rs, run_key, game)
    void = tab.ctab.shape[0] - 1
    g_total = _new_game(void, tab.scfg, tab.deck, gm.pile, gm.st, gm.cn, gm.tac, gm.gst, tab.g_pool0,
                        gm.cmet, tab.ropt)
    _deal(tab, gm)
    return g_total


@inlined
def _gift_gain(hi, rj, ka, kb, void, pl, gsc, res):
    """The greedy gain (P6) of the gifts (hand slot hi to ka, rack slot rj to kb; -2, -1 and -1:
    none) on the gift scores of the turn (gsc, res): what greedy scores a choice made elsewhere."""
    i = max(hi, 0)
    j = max(rj, 0)
    return _pair_gain(i, j, max(ka, 0), max(kb, 0), res[GR_HAND, i] == void,
                      res[GR_RACK, j] == void, pl, gsc)


@inlined_ir
def _turn_choice_lgb(ply, rs, tab, check, gm, gift_t, grec, may_int):
    """A turn up to the CIC's choice: squares (L8), Tactician cards, First Strike (P7), the E4
    test, what each Corps commander would do without a gift, and the CIC's gifts (L2, P6). Returns
    (hand slot, rack slot, receivers, score of the choice, command, E4, the opponent's last hand
    card, the First Strike's card and holder, the rack's size)."""
    scfg, pol, ctab, best_t = tab.scfg, tab.pol, tab.ctab, tab.best_t
    met, cmet, trace, tn = gm.met, gm.cmet, gm.trace, gm.tn
    hand, hn, rack, rn = gm.hand, gm.hn, gm.rack, gm.rn
    void = ctab.shape[0] - 1
    cmax = best_t.shape[3] - 1
    s = (tab.first + ply) % 2
    o = 1 - s
    is_random = pol[s, P_KIND] == KIND_RANDOM
    met[s, M_TURNS] += 1
    _squares(rs, s, ply, scfg, tab.sqp, hand, hn, gm.chand, gm.cn, gm.sq, gm.sq_own, gm.sqn, met,
             cmet, trace, tn)
    _spend_tacticians(rs, s, ply // 2, pol, hn, gm.cn, gm.tac, gm.tac_disc, met, cmet, gm.tac_turn)
    fs_card, fs_holder = _first_strike(rs, o, ply, pol, ctab, gm, tab.ropt[R_FS_AT_ONCE] == 1)
    cmd = hn[s]  # E6 for the CIC's cards: his hand at the start of the turn
    c = min(cmd, cmax)
    rack_size = rn[0]
    opp_last = gm.last_hand[o]
    e4 = _same_section(s, opp_last, void, ctab, hand, hn, rack, rn, met)
    if check and hn[s] + _cic_squares(gm.sq_own, gm.sqn, s) != scfg[s, S_HAND]:
        met[s, M_VIOLATIONS] += 1
    if trace.shape[0] > 0:
        _trace_turn(trace, tn, ply, s, cmd, e4, hand, hn, rack, rn, gm.sqn, gm.cn, gm.tac, gm.pn,
                    gm.dn)
    margin = pol[s, P_CORPS_SWAP_MARGIN]
    _own_alternatives(s, pol[s, P_CORPS_OWN_MIN], opp_last, void, cmax, ctab, gm.chand, gm.cn,
                      best_t, grec, gm.pl, gm.res)
    # the CIC's choice: hand slot hi, rack slot rj, receivers ka, kb (L2, P6)
    cards = (hand, hn[s], rack, rn[0], gm.pl, gm.gsc, gm.res)
    hi, rj, ka, kb, best_score = _cic_gifts(rs, s, c, e4, is_random, cards, opp_last, void, ctab,
                                            gift_t, margin, grec, may_int)
    return hi, rj, ka, kb, best_score, c, e4, opp_last, fs_card, fs_holder, rack_size


@inlined_ir
def _turn_gifts_lgb(ply, tab, gm, gifts, c, e4, opp_last, rack_size, score):
    """The CIC's gifts (hand slot, rack slot, receivers) leave him (L2) and reach his Corps
    commanders; no draws (a planner's rollout deals the unseen cards again right after)."""
    hi, rj, ka, kb = gifts
    pol, pl, trace, tn = tab.pol, gm.pl, gm.trace, gm.tn
    void = tab.ctab.shape[0] - 1
    s = (tab.first + ply) % 2
    ta, tb, ra, rb = _give_cards(s, ply, gifts, rack_size, e4, opp_last, void, tab.ctab, gm)
    if trace.shape[0] > 0:
        _trace(trace, tn, EV_GIVE, ply, s, ta, tb, ka, kb, ra, rb, int(round(score * 1000)),
               np.int64(pol[s, P_KIND]))  # 0 greedy, 1 random, 2 lookahead
    _receive(c, ka, kb, ta, tb, ra, rb, void, pl)


@inlined_ir
def _turn_corps_lgb(ply, rs, tab, gm, c, ka, opp_last):
    """The Corps commanders play (L5), from rs."""
    pol, pl = tab.pol, gm.pl
    void = tab.ctab.shape[0] - 1
    s = (tab.first + ply) % 2
    _corps_plays(rs, s, ply, c, pol[s, P_KIND] == KIND_RANDOM, pol[s, P_CORPS_SWAP_MARGIN],
                 pol[s, P_CORPS_OWN_MIN], opp_last, tab, gm)
    # D8: the CIC's hand card its Corps commander discarded unplayed (L5) gave no orders
    if ka >= 0 and pl[PL_SOURCE, ka] != SRC_CIC:
        gm.last_hand[s] = void


@inlined_cached
def _turn_orders_lgb(ply, rs, tab, gm, fs_card, fs_holder):
    """Orders, stars (L7), initiative (L6) and Scout-for-counter (G4) per Corps commander, a Take
    Command's reach (E7), the discards (D7) and the First Strike's draw (P7), from rs. Returns
    (the CIC draws a Scout's two cards, an Elan was played)."""
    scfg, pol, ctab, ropt = tab.scfg, tab.pol, tab.ctab, tab.ropt
    pl, met, trace, tn, pile, pn, disc, dn = gm.pl, gm.met, gm.trace, gm.tn, gm.pile, gm.pn, gm.disc, gm.dn
    s = (tab.first + ply) % 2
    o = 1 - s
    void = ctab.shape[0] - 1
    gain_kc, gain_which, n_scouts = _scout_gain_corps(s, void, scfg, pol, ctab, pl, gm.gst, gm.pool)
    # E9.2 / L9 / G4: the gain and the CIC's two-card draw never both happen
    gained, scouted = scout_trade(n_scouts, gain_kc >= 0, ropt)
    if not gained:
        gain_kc = -1
    # typed (not literal) starting values: a literal would compile the helpers they reach once
    # more, for the literal
    elan = np.bool_(False)
    wasted = np.int64(0)
    marched = np.int64(0)
    nom_w0 = np.int64(0)
    nom_w1 = np.int64(0)
    nom_w2 = np.int64(0)
    eff_w0 = np.int64(0)
    eff_w1 = np.int64(0)
    eff_w2 = np.int64(0)
    for kc in range(3):
        nom, eff, marched_k, elan_k = _corps_orders(rs, s, kc, ply, void, gain_kc, gain_which, tab,
                                                    gm)
        wasted += nom - eff
        marched += marched_k
        elan = elan or elan_k
        if kc == 0:
            nom_w0 += nom
            eff_w0 += eff
        elif kc == 1:
            nom_w1 += nom
            eff_w1 += eff
        else:
            nom_w2 += nom
            eff_w2 += eff
    reach0, reach1, reach2, reach = _take_command_reach(s, ply, void, tab.eff_t, pl, gm.cmet, trace,
                                                        tn)
    _orders_metrics(s, ply, nom_w0, nom_w1, nom_w2, eff_w0 + reach0, eff_w1 + reach1,
                    eff_w2 + reach2, wasted - reach, marched, pl, met, trace, tn)
    _discard_played(void, fs_card, pl, disc, dn)
    if elan and ropt[R_SHUFFLE_FIRST] == 1:  # elan_order = shuffle_first
        _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
    if fs_holder >= 0 and ropt[R_FS_AT_ONCE] == 0:  # P7: the First Strike's player draws first
        _first_strike_draw(rs, o, ply, fs_holder, pile, pn, disc, dn, gm.hand, gm.hn, gm.chand,
                           gm.cn, met, trace, tn)
    return scouted, elan


@inlined_cached
def _turn_end_lgb(ply, rs, tab, check, g_total, gm, elan):
    """The end of the turn (L9) after the CIC's Command draw: the Corps commanders' draws, Elan,
    the rack's refill (E9.6) and the D6 checks, from rs."""
    ropt, met, trace, tn, tac, tac_pile = tab.ropt, gm.met, gm.trace, gm.tn, gm.tac, gm.tac_pile
    pile, pn, disc, dn = gm.pile, gm.pn, gm.disc, gm.dn
    s = (tab.first + ply) % 2
    _corps_draws(rs, s, ply, gm)
    # L9 Elan: draw pile and discards shuffled together (the rack stays); every Corps
    # commander of both sides draws a Tactician card
    if elan:
        if ropt[R_SHUFFLE_FIRST] == 0:
            _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
        for k2 in range(2):
            for kc in range(3):
                _corps_tactician(tac, tac_pile, gm.tac_disc, met, gm.cmet, (s + k2) % 2, kc, trace,
                                 tn, ply)
    # E9.6 refill the rack when it holds 2 (or fewer, after starved refills)
    if gm.rn[0] <= 2:
        _refill_rack(rs, pile, pn, disc, dn, met, s, trace, tn, ply, gm.rack, gm.rack_t, gm.rn)
    if check:
        met[s, M_VIOLATIONS] += _check_lgb(tab.counts, pile, pn, disc, dn, gm.hand, gm.hn, gm.chand,
                                           gm.cn, gm.rack, gm.rn, gm.sq, gm.sqn, gm.scratch)
        _check_guerrillas(s, g_total, gm.gst, gm.pool, met)


@inlined
def _ply_lgb(ply, rss, dec, tab, check, g_total, gm, gift_t, grec, may_int):
    """One turn (ply) of a game of play_blocks_lgb on the game gm (napsim.engine.layout.LgbGame)
    and the tables tab (LgbArgs), its steps and decision points in order: up to the CIC's choice
    (_turn_choice_lgb), his gifts (_turn_gifts_lgb), the Corps commanders' plays
    (_turn_corps_lgb), the Guerrilla offer (_turn_offer_lgb: the Spanish spend), the attempt
    (_turn_spend_lgb), the orders (_turn_orders_lgb), the CIC's Command draw (the Scout keep,
    lgb_phases._cic_draw), the card kept (_cic_keep) and the end of the turn (_turn_end_lgb). The
    steps up to the spend are inlined at numba's IR level (jit.inlined_ir), so that numba types and
    lowers them with the turn: as helpers of their own (jit.inlined) they made the greedy kernel's
    first compile about 15% longer. The orders, the keep and the end are cached helpers
    (jit.inlined_cached) that a first run's second process compiles while this one compiles the
    turn's start. At each decision point the turn plays the policy's decision
    unless dec (layout.Decisions) gives one: dec.hand CHOOSE, the CIC's choice is the policy's,
    else (hand, rack, place, place_b) is given instead (hand slot, rack slot, receivers; the
    policy's draws are still made); dec.spend G_POLICY, P4's; dec.keep K_POLICY, P2's. A caller
    that wants a decision point itself plays the steps up to it (napsim.engine.lookahead_lgb: the
    CIC's choice).

    rss, the turn's streams (rs, rs_post, rs_late, rs_after): draws up to the CIC's choice come
    from rs, the choice's too; then the Corps commanders' plays draw from rs_post, from the Spanish
    Guerrilla attempt on the turn draws from rs_late, and after the CIC's Command draw (a Scout's
    two cards included) from rs_after (play_blocks_lgb passes one stream as all four; a rollout of
    the lookahead switches to its own stream at the decision it plans). dec.redeal: where a fair
    planner's rollout deals the cards it has not seen again (napsim.engine.unseen; RD_NONE in a
    real game): at the switch to rs_post, rs_late or rs_after. gift_t and grec: the gift tables of
    napsim.engine.lgb_gifts (gift_table, gift_records); may_int, a literal: the policy's choice
    may be searched on grec's integer keys, which leaves the float gift scores of gsc and res unset
    (numba compiles the turn once per value, each without the other's code: as a runtime flag the
    two searches made the game's turn 25% slower)."""
    literally(may_int)  # one compiled turn per value: the other search is left out
    rs, rs_post, rs_late, rs_after = rss
    s = (tab.first + ply) % 2
    hi, rj, ka, kb, score, c, e4, opp_last, fs_card, fs_holder, rack_size = _turn_choice_lgb(
        ply, rs, tab, check, gm, gift_t, grec, may_int)
    if dec.hand != CHOOSE:  # the caller's choice replaces the CIC's (its draws are still made)
        hi, rj, ka, kb = dec.hand, dec.rack, dec.place, dec.place_b
        if gm.trace.shape[0] > 0:
            score = _gift_gain(hi, rj, ka, kb, tab.ctab.shape[0] - 1, gm.pl, gm.gsc, gm.res)
    _turn_gifts_lgb(ply, tab, gm, (hi, rj, ka, kb), c, e4, opp_last, rack_size, score)
    deal_unseen(rs_post, dec.redeal, np.int64(RD_POST), gm)  # P8 fair: a rollout from the CIC's choice
    _turn_corps_lgb(ply, rs_post, tab, gm, c, ka, opp_last)
    deal_unseen(rs_late, dec.redeal, np.int64(RD_LATE), gm)  # P8 fair: a rollout from the Spanish spend
    offer = _turn_offer_lgb(ply, tab, gm)
    _turn_spend_lgb(ply, rs_late, offer, offer[1] if dec.spend == G_POLICY else dec.spend, tab, gm,
                    ka)
    scouted, elan = _turn_orders_lgb(ply, rs_late, tab, gm, fs_card, fs_holder)
    drawn = _cic_draw(rs_late, s, ply, scouted, tab.pol[s, P_KIND] == KIND_RANDOM, tab, gm)
    _cic_keep(rs_after, s, ply, drawn, drawn[2] if dec.keep == K_POLICY else dec.keep, gm)
    deal_unseen(rs_after, dec.redeal, np.int64(RD_AFTER), gm)  # P8 fair: a rollout from the Scout keep
    _turn_end_lgb(ply, rs_after, tab, check, g_total, gm, elan)


@counted
def _scratch(n_cards, n_types):
    """Per-thread work arrays of play_blocks_lgb (no allocation per game): (draw pile, discards, CIC
    hands, Corps hands, rack, rack waits, squares, their owners, D6 scratch, the Corps plan, gift
    scores, resolved gifts, counters, Corps hand sizes, Tactician cards, Guerrilla counters).
    Python (lgb_state) calls its .py_func, with nothing to compile."""
    cap = MAX_HAND + n_cards
    return (np.empty(n_cards, np.int64), np.empty(n_cards, np.int64), np.empty((2, cap), np.int64),
            np.empty((2, 3, cap), np.int64), np.zeros(RACK, np.int64), np.zeros(RACK, np.int64),
            np.empty((2, cap), np.int64), np.empty((2, cap), np.int64), np.zeros(n_types, np.int64),
            np.zeros((N_PL, 3), np.float64), np.zeros((N_GSC, cap, 3), np.float64),
            np.zeros((N_GR, cap), np.int64), np.zeros(N_LST, np.int64), np.zeros((2, 3), np.int64),
            np.zeros((2, 3), np.int64), np.zeros((2, 3), np.int64))


def lgb_state(deck: np.ndarray, counts: np.ndarray) -> tuple:
    """The state of one thread's call of play_blocks_lgb: its stream, metrics, commander metrics
    and the work arrays of _scratch, allocated here because the kernel counts no references."""
    return (np.empty(2, np.uint64), np.zeros((2, N_METRICS), np.int64),
            np.zeros((2, 4, N_CM), np.int64),
            *getattr(_scratch, "py_func", _scratch)(deck.shape[0], counts.shape[0]))


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks_lgb(b_lo, b_hi, nb, run_key, first_game, n, tab, check, per_game, gift_t, grec, out,
                    trace, tn, state):
    """Play blocks [b_lo, b_hi) of a chunk's nb blocks of La Grande Battles games (play_chunk_lgb)
    on the tables tab (napsim.engine.layout.LgbArgs), adding each block's sums into its own row of
    each of out's records (layout.LgbBlockOut: the moments of its per-game columns,
    blocks.add_game, the rack waits, Guerrilla and Tactician cards per turn, commander metrics);
    without the GIL. The game loop is here, not in a function of its own, so that numba optimises
    and compiles the game once (a trace plays one block of one game on it, with a trace buffer);
    without reference counting, on the state lgb_state allocates. gift_t and grec are
    napsim.engine.lgb_gifts.gift_table(tab.best_t) and gift_records(tab.best_t, tab.pol)."""
    # small counters live in caller-owned arrays: no allocation (and no reference counting) here
    met, cmet = state[1], state[2]
    choose = game_decisions()
    for b in range(b_lo, b_hi):
        gm = lgb_game(state, (out.wait_b[b], out.gturn_b[b], out.tturn_b[b], trace, tn))
        rss = (gm.rs, gm.rs, gm.rs, gm.rs)
        for g in range((n * b) // nb, (n * (b + 1)) // nb):
            met[:, :] = 0
            cmet[:, :, :] = 0
            g_total = _open_game_lgb(first_game + g, run_key, tab, gm)
            for ply in range(2 * tab.turns):
                _ply_lgb(ply, rss, choose, tab, check, g_total, gm, gift_t, grec, True)
            _end_game(tab.scfg, gm.hn, gm.cn, gm.tac, gm.gst, gm.pool, met, cmet)
            add_game(b, g, met, cmet, out.mom_b, out.cmet_b, out.rows, out.crows, per_game, True)


def play_chunk_lgb(run_key, first_game, n, *args):
    """Play games [first_game, first_game + n) in blocks on threads (napsim.engine.blocks). args:
    the fields of napsim.engine.layout.LgbArgs, then check (the D6 checks) and per_game (keep the
    per-game rows). Returns the eight chunk outputs in the order of
    napsim.engine.layout.CHUNK_OUTPUTS, the EPIC kernel's: (metrics [2, M], per-game metrics [n or
    0, 2, M], rack waits [4, bins], guerrilla per turn [3, turns], per-commander metrics [2, 4,
    CM], per-game commander metrics [n or 0, 2, 4, CM], Tactician cards held per turn [2, turns],
    moments of the per-game columns [MO, 2, columns])."""
    return chunk_on_lgb(play_blocks_lgb, run_key, first_game, n, *args)


def _block_out(nb: int, n: int, turns: int, per_game: bool) -> LgbBlockOut:
    """The zeroed records of nb blocks of n games (layout.LgbBlockOut)."""
    return LgbBlockOut(block_moments(nb), np.zeros((n if per_game else 0, 2, N_METRICS), np.int64),
                       np.zeros((nb, 4, WAIT_BINS), np.int64), np.zeros((nb, 3, turns), np.int64),
                       np.zeros((nb, 2, 4, N_CM), np.int64),
                       np.zeros((n if per_game else 0, 2, 4, N_CM), np.int64),
                       np.zeros((nb, 2, turns), np.int64))


def chunk_on_lgb(kernel, run_key, first_game, n, *args, state=None):
    """play_chunk_lgb on the block kernel `kernel` (play_blocks_lgb, or one with its signature: the
    planned kernel of napsim.engine.lookahead_lgb); args as play_chunk_lgb's. `state`: what gives
    each thread's call its state, its last argument (default: lgb_state)."""
    tab = LgbArgs(*args[:-2])
    check, per_game = args[-2:]
    nb = block_count(n)
    out = _block_out(nb, n, tab.turns, per_game)
    mom_b, rows, wait_b, gturn_b, cmet_b, crows, tturn_b = out
    run_blocks(kernel, nb, (
        run_key, first_game, n, tab, check, per_game, gift_table(tab.best_t),
        gift_records(tab.best_t, tab.pol), out,
        np.zeros((0, TRACE_WIDTH), np.int64), np.zeros(1, np.int64)),  # no trace buffer
        state or (lambda: lgb_state(tab.deck, tab.counts)))
    mom = mom_b.sum(axis=0)
    return (mom[MO_SUM, :, :N_METRICS], rows, wait_b.sum(axis=0), gturn_b.sum(axis=0),
            cmet_b.sum(axis=0), crows, tturn_b.sum(axis=0), mom)


def trace_game_lgb(run_key, game, *args, max_events=40000):
    """Replay one game with an event log: (metrics [2, M], events [k, TRACE_WIDTH]); one block of
    one game on play_blocks_lgb, with the D6 checks on. args: the fields of LgbArgs."""
    a = LgbArgs(*args)
    return trace_on_lgb(play_blocks_lgb, lgb_state(a.deck, a.counts), run_key, game, *args,
                        max_events=max_events)


def trace_on_lgb(blocks, state, run_key, game, *args, max_events=40000):
    """trace_game_lgb on the block kernel `blocks` (play_blocks_lgb, or one with its signature: the
    planned kernel of napsim.engine.lookahead_lgb) with its state `state`: one block of one game."""
    tab = LgbArgs(*args)
    trace = np.full((max_events, TRACE_WIDTH), -1, np.int64)
    tn = np.zeros(1, np.int64)
    out = _block_out(1, 1, tab.turns, False)
    blocks(0, 1, 1, run_key, np.int64(game), np.int64(1), tab, True, False, gift_table(tab.best_t),
           gift_records(tab.best_t, tab.pol), out, trace, tn, state)
    return out.mom_b[0, MO_SUM, :, :N_METRICS].copy(), trace[: min(tn[0], max_events)]


jit.check_cache_folder(globals())  # its cached kernels live in this version's cache folder
