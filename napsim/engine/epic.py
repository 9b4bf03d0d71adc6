"""EPIC one-a-side and the standard one-card game: whole games in one kernel call.

State per game lives in per-block scratch arrays (no allocation per game). Card locations: the
draw pile (a stack), the discard pile, each hand, the Courier Rack and each Square Track. All
choices read the pair tables of napsim.sim.tables; all randomness comes from the game's own
counter-based stream, so a game is a pure function of (seed, game index).

play_blocks plays blocks of games, each the turn loop of _ply (a trace plays one block of one game
on it too); the phases of a turn are napsim.engine.epic_phases and
napsim.engine.epic_guerrilla (inlined), the shared card flow napsim.engine.cardflow, the choice
napsim.engine.choice and the commander layer napsim.engine.commanders. The names of every array
slot are napsim.engine.layout's.
"""

import numpy as np
from numba import njit

from napsim.engine import jit
from napsim.engine.blocks import add_game, block_count, block_moments, run_blocks
from napsim.engine.cardflow import (
    _count_common_places,
    _draw_card,
    _elan_reshuffle,
    _refill_rack,
    _trace,
    _types_miscounted,
    roll_orders,
    scout_trade,
)
from napsim.engine.choice import _choose, _choose_resolved
from napsim.engine.commanders import _commander_layer
from napsim.engine.decisions import CHOOSE, game_decisions
from napsim.engine.epic_guerrilla import _check_guerrillas, _guerrilla_gain_section, _turn_offer, _turn_spend
from napsim.engine.epic_phases import (
    _command_draw,
    _command_keep,
    _discard_played,
    _elan_tacticians,
    _end_game,
    _first_strike,
    _gain_counter,
    _orders,
    _resolve_cards,
    _spend_tacticians,
    _squares,
    _stars,
    _take_cards,
    _trace_orders,
    _trace_turn,
    _turn_tacticians,
)
from napsim.engine.jit import counted, inlined, inlined_cached, inlined_ir
from napsim.engine.layout import (
    C_COUNTER,
    C_ELAN,
    C_FS,
    C_SCOUT,
    CM_G_START,
    EV_CHOICE,
    G_HELD_ANY,
    G_HELD_L,
    G_OFF,
    G_POLICY,
    G_POOL,
    G_POOL0,
    G_RULE,
    G_START,
    G_START_L,
    K_POLICY,
    M_TURNS,
    M_VIOLATIONS,
    MAX_HAND,
    MO_SUM,
    N_CM,
    N_GST,
    N_METRICS,
    N_RES,
    N_ST,
    NO_TACTICIAN_DECK,
    P_KIND,
    R_SHUFFLE_FIRST,
    R_TAC_DECK,
    RACK,
    RD_LATE,
    RD_POST,
    REC_ORD,
    RES_CA,
    RES_HAND,
    RES_RACK,
    RES_RMAP,
    ST_DISC_N,
    ST_HAND_N,
    ST_LAST_HAND,
    ST_LAST_HAND_P,
    ST_LAST_RACK,
    ST_LAST_RACK_P,
    ST_NOMINAL,
    ST_PILE_N,
    ST_RACK_N,
    ST_SQ_N,
    ST_TAC,
    ST_TAC_DISC,
    ST_TAC_PILE,
    TRACE_WIDTH,
    WAIT_BINS,
    EpicArgs,
    EpicGame,
)
from napsim.engine.rng import start_game
from napsim.engine.unseen import deal_unseen


@njit(cache=True)
def _check(counts, pile, pn, disc, dn, hand, hn, rack, rn, sq, sqn, hand0, scratch):
    """Count invariant violations (D6): every card in exactly one place. (hand + squares = the
    start hand is checked in _ply.)"""
    _count_common_places(pile, pn, disc, dn, rack, rn, scratch)
    for s in range(2):
        for i in range(hn[s]):
            scratch[hand[s, i]] += 1
        for i in range(sqn[s]):
            scratch[sq[s, i]] += 1
    return _types_miscounted(scratch, counts)


@inlined
def _new_game(tab, gm):
    """Everything in the draw pile, the counters zero, the Guerrilla counters dealt (G6) and the
    card map of this game (RES_RMAP, RES_CA). Returns (Guerrilla counters in all, Counter-Attack
    types)."""
    ctab, gcfg, gst, st, cmet = tab.ctab, tab.gcfg, gm.gst, gm.st, gm.cmet
    players_a_side = tab.players_a_side
    void = ctab.shape[0] - 1
    n_cards = tab.deck.shape[0]
    for i in range(n_cards):
        gm.pile[i] = tab.deck[i]  # shuffled lazily, one random card at each draw (_draw_card)
    st[:] = 0
    st[ST_PILE_N] = n_cards
    st[ST_TAC_PILE] = tab.ropt[R_TAC_DECK]
    if tab.ropt[R_TAC_DECK] == 0:
        st[ST_TAC_DISC] = NO_TACTICIAN_DECK  # D4: no Tactician card is dealt or drawn
    st[ST_LAST_HAND] = void
    st[ST_LAST_HAND + 1] = void
    st[ST_LAST_RACK] = void
    st[ST_LAST_RACK + 1] = void
    gst[:, :] = 0
    gst[0, G_POOL] = gcfg[0, G_POOL0]
    g_total = gst[0, G_POOL]
    for k in range(2):
        if gcfg[k, G_RULE] != G_OFF:
            gst[k, G_HELD_ANY] = gcfg[k, G_START]  # G6: one or two a side, all to the CIC
            g_total += gst[k, G_HELD_ANY]
            if players_a_side == 2:
                cmet[k, 0, CM_G_START] += gcfg[k, G_START]
            for x in range(3):  # G6: three or four a side, by section commander
                gst[k, G_HELD_L + x] = gcfg[k, G_START_L + x]
                g_total += gcfg[k, G_START_L + x]
                if players_a_side >= 3:
                    cmet[k, tab.cmd_sec[k, x], CM_G_START] += gcfg[k, G_START_L + x]
    # rmap[t]: the card type t plays as this turn (_resolve). Only the Counter-Attack entries
    # change from turn to turn (they copy the opponent's last card), so each turn rewrites those
    # few and every hand and rack card then resolves with one load.
    rmap = gm.res_scratch[RES_RMAP]
    ca_types = gm.res_scratch[RES_CA]
    n_ca = 0
    for t in range(void + 1):
        rmap[t] = void if ctab[t, C_FS] == 1 else t
        if ctab[t, C_COUNTER] == 1 and ctab[t, C_FS] == 0:
            ca_types[n_ca] = t
            n_ca += 1
    return g_total, n_ca


@inlined
def _deal_tacticians(s, tab, gm):
    """The side's starting Tactician cards (D4): per commander with 2-4 a side (M6.3, M8.2)."""
    tac, tac_pile = gm.tac, gm.tac_pile
    if tab.players_a_side >= 2:
        for cc in range(4):
            take = min(tab.tac_start[s, cc], tac_pile[0])
            gm.tacc[s, cc] = take
            tac[s] += take
            tac_pile[0] -= take
    else:
        take = min(tab.tac0[s], tac_pile[0])
        tac[s] = take
        tac_pile[0] -= take


@inlined
def _deal(tab, gm):
    """E1 setup: hands (first player first), Tactician cards, then the rack."""
    rs, pile, pn, disc, dn, met = gm.rs, gm.pile, gm.pn, gm.disc, gm.dn, gm.met
    hand, hn, rack, rn = gm.hand, gm.hn, gm.rack, gm.rn
    for k in range(2):
        s = (tab.first + k) % 2
        for _ in range(tab.hand0[s]):
            t = _draw_card(rs, pile, pn, disc, dn, met, s, gm.trace, gm.tn, np.int64(-1))
            if t >= 0:  # D6: a starved deal is skipped (counted), never a card -1
                hand[s, hn[s]] = t
                hn[s] += 1
        _deal_tacticians(s, tab, gm)
    if not tab.standard:
        for _ in range(RACK):
            t = _draw_card(rs, pile, pn, disc, dn, met, tab.first, gm.trace, gm.tn, np.int64(-1))
            if t >= 0:
                rack[rn[0]] = t
                gm.rack_t[rn[0]] = 0
                rn[0] += 1


@inlined_ir
def game_of(state, wait_hist, tturn, trace, tn):
    """The EpicGame (napsim.engine.layout) over a game's state arrays (_game_scratch): its small
    counters as views of st (ST_*), the card map, and the block's records (rack waits, Tactician
    cards per turn, the event log and its length)."""
    (rs, pile, disc, hand, rack, rack_t, sq, scratch, res_scratch, st, gst, met, cmet, tacc,
     _, _) = state
    return EpicGame(rs, pile, disc, hand, rack, rack_t, sq, scratch, res_scratch, st, gst, tacc, met,
                    cmet, st[ST_PILE_N:ST_PILE_N + 1], st[ST_DISC_N:ST_DISC_N + 1],
                    st[ST_RACK_N:ST_RACK_N + 1], st[ST_HAND_N:ST_HAND_N + 2],
                    st[ST_SQ_N:ST_SQ_N + 2], st[ST_TAC:ST_TAC + 2],
                    st[ST_TAC_PILE:ST_TAC_PILE + 1], st[ST_TAC_DISC:ST_TAC_DISC + 1],
                    st[ST_LAST_HAND:ST_LAST_HAND + 2], st[ST_NOMINAL:ST_NOMINAL + 3],
                    st[ST_LAST_RACK:ST_LAST_RACK + 2], st[ST_LAST_HAND_P:ST_LAST_HAND_P + 2],
                    st[ST_LAST_RACK_P:ST_LAST_RACK_P + 2], res_scratch[RES_RMAP], wait_hist, tturn,
                    trace, tn)


@inlined
def _open_game(game, run_key, tab, gm):
    """A new game of global index `game`: its stream, the piles and counters (_new_game), the
    deal (_deal). Returns (Guerrilla counters in all, Counter-Attack types)."""
    start_game(gm.rs, run_key, game)
    g_total, n_ca = _new_game(tab, gm)
    _deal(tab, gm)
    return g_total, n_ca


@inlined
def _turn_choice(ply, s, rs, check, n_ca, tab, gm):
    """The turn up to its card choice: squares (E11), Tactician spends, a First Strike (P7), the
    cards as they play this turn (D3, E4) and the policy's choice (P1). Returns (hand slot, rack
    slot, placement, its score, command column c, hand and rack cards on offer, E4, the
    Counter-Attack pin, the First Strike card or -1)."""
    o = 1 - s
    met, hand, hn, rack, rn = gm.met, gm.hand, gm.hn, gm.rack, gm.rn
    met[s, M_TURNS] += 1
    _squares(rs, s, ply, tab.hand0, tab.sq_form, tab.sq_leave, hand, hn, gm.sq, gm.sqn, met,
             gm.trace, gm.tn)
    _spend_tacticians(rs, s, ply, tab.players_a_side >= 2, tab.pol, gm.tac, gm.tacc, gm.tac_disc,
                      met, gm.cmet, gm.tturn)
    fs_card = _first_strike(rs, o, ply, tab.pol, tab.ctab, hand, hn, met, gm.trace, gm.tn)
    cmd = hn[s]  # E6: the hand at the start of the turn, the played card included
    n_h = hn[s]
    n_r = rn[0] if not tab.standard else 0
    c = min(cmd, tab.best_val.shape[1] - 1)
    ca_src, e4, pin_y = _resolve_cards(s, o, n_h, n_r, c, n_ca, tab, gm)
    if check and hn[s] + gm.sqn[s] != tab.hand0[s]:
        met[s, M_VIOLATIONS] += 1
    tracing = gm.trace.shape[0] > 0  # without a buffer no event is formatted or counted
    if tracing:
        _trace_turn(gm.trace, gm.tn, ply, s, cmd, e4, hand, hn, rack, rn, gm.sqn, gm.tac, gm.pn,
                    gm.dn)
    # the choice: hand slot hi (-2: none), rack slot rj (-1: none), placement p
    hi, rj, p, score = _choose_resolved(rs, s, c, n_h, n_r, e4, ca_src, pin_y, tracing, tab, gm)
    if hi == -1 and n_h > 0 and n_r > 0:
        # no legal pair (e.g. a Counter-Attack copying the only section on offer): the
        # hand card alone is played and the rack is left as it is
        hi, rj, p, score = _choose(rs, s, c, n_h, np.int64(0), e4, ca_src, pin_y, tracing, tab, gm)
    return hi, rj, p, score, c, n_h, n_r, e4, pin_y, fs_card


@inlined
def _turn_cards(ply, s, chosen, tab, gm):
    """The chosen cards taken into play (E2, E3): (c, card a, card b, each as played, their
    sections, the placement). No draws: a planner's rollout deals the unseen cards again right
    after (_ply)."""
    hi, rj, p, score, c, e4 = chosen
    ta, tb, ra, rb, p = _take_cards(s, ply, hi, rj, p, gm.rn[0], e4, c, tab, gm)
    pa = p // 3
    pb = p % 3
    if gm.trace.shape[0] > 0:
        _trace(gm.trace, gm.tn, EV_CHOICE, ply, s, ta, tb, pa, pb, ra, rb, int(round(score * 1000)),
               np.int64(tab.pol[s, P_KIND]))  # 0 greedy, 1 random, 2 lookahead
    return c, ta, tb, ra, rb, pa, pb, p


@inlined_cached
def _turn_orders(ply, s, rs, played, fs_card, tab, gm, g_turn):
    """The orders of the cards as played (S2, E5, E6), a Spanish Scout's counter gain decided
    (G3, G4), stars and March Moves (E8, P3), the played cards discarded (D7). Returns (a counter
    is gained in section, the CIC draws two, units left per section, the turn's Tactician draws,
    the stars' Tactician draws of card a and of card b)."""
    c, ta, tb, ra0, rb0, ra, rb, pa, pb, pq, turn_over = played
    ctab, met = tab.ctab, gm.met
    void = ctab.shape[0] - 1
    # D2: a card that rolls its orders rolls its Command in dice first (the hand card's, then the
    # rack card's) and plays as its roll; the others draw nothing
    rolled = (roll_orders(rs, s, ply, np.int64(-1), ra, c, ctab, gm.trace, gm.tn),
              roll_orders(rs, s, ply, np.int64(-1), rb, c, ctab, gm.trace, gm.tn))
    ner = tab.rec_t[s, c, rolled[0], rolled[1]]
    q0 = REC_ORD + 6 * pq  # nominal, then effective orders per section
    _orders(s, ner, q0, gm.nominal, met)
    # G3/G4: a Spanish Scout may trade its second draw (and, in EPIC, its stars) for a counter
    gain_sec = -1
    if g_turn is not None and tab.gcfg[s, G_RULE] != G_OFF:
        gain_sec = _guerrilla_gain_section(s, ra, rb, tab.gcfg, gm.gst, tab.pol, ctab)
    # E9.2 / G4: the gain and the two-card draw never both happen (two_scouts decides the
    # turn with two Scouts)
    gained, scouted = scout_trade(ctab[ra, C_SCOUT] + ctab[rb, C_SCOUT], gain_sec >= 0, tab.ropt)
    if not gained:
        gain_sec = -1
    r0, r1, r2, tac_draws, marched, star_tac_a, star_tac_b = _stars(
        rs, s, ra, rb, pa, pb, gain_sec, void, ner, q0, tab.gcfg, tab.pol, ctab, tab.rem_t, met)
    if gm.trace.shape[0] > 0:
        _trace_orders(gm.trace, gm.tn, ply, s, gm.nominal, ner, q0, marched, tac_draws)
    _discard_played(rs, 1 - s, ply, ta, tb, fs_card, void, gm.pile, gm.pn, gm.disc, gm.dn,
                    gm.hand, gm.hn, met, gm.trace, gm.tn)
    return gain_sec, scouted, r0, r1, r2, tac_draws, star_tac_a, star_tac_b, rolled


@inlined_cached
def _turn_draw(ply, s, rs, played, gain_sec, scouted, tab, gm):
    """E9.1 / E9.2 the Command draw up to the Scout keep's decision point: one card, or with a
    Scout two (P2 keeps one, _command_draw), a Scout traded for a Guerrilla counter (G3/G4)
    drawing one; an Elan shuffles first under elan_order = shuffle_first. Returns (whether the
    turn played an Elan (E9.4), the cards drawn with P2's keep)."""
    ra, rb = played[5], played[6]
    ctab = tab.ctab
    if gain_sec >= 0:
        _gain_counter(s, ply, gain_sec, tab.players_a_side, gm.gst, tab.cmd_sec, gm.met, gm.cmet,
                      gm.trace, gm.tn)
    elan = ctab[ra, C_ELAN] == 1 or ctab[rb, C_ELAN] == 1
    if elan and tab.ropt[R_SHUFFLE_FIRST] == 1:  # elan_order = shuffle_first
        _elan_reshuffle(gm.pile, gm.pn, gm.disc, gm.dn, gm.met, s, gm.trace, gm.tn, ply)
    return elan, _command_draw(rs, s, ply, scouted, tab, gm)


@inlined_cached
def _turn_end(ply, s, rs, played, orders, elan, tab, gm, units):
    """The end of the turn: the commander layer (M4, M6, M8; units None: one player a side, none of
    it compiled) or the Tactician draws (E9.3), an Elan's reshuffle and Tactician cards (E9.4),
    the rack refilled (E9.6)."""
    c, ta, tb, ra0, rb0, ra, rb, pa, pb, pq, turn_over = played
    _, _, r0, r1, r2, tac_draws, star_tac_a, star_tac_b, rolled = orders
    players_a_side = tab.players_a_side
    multi = players_a_side >= 2
    trace, tn, met, cmet = gm.trace, gm.tn, gm.met, gm.cmet
    if units is not None and multi and not turn_over:
        _commander_layer(rs, s, ply, (ra0, rb0, ra, rb, pa, pb, c, pq), rolled, (r0, r1, r2),
                         (np.int64(star_tac_a), np.int64(star_tac_b)), units, tab, gm)
    else:  # E9.3
        _turn_tacticians(s, ply, players_a_side, turn_over, tac_draws, tab.cmd_sec, cmet, gm.tac,
                         gm.tac_pile, gm.tac_disc, met, trace, tn)
    # E9.4 Elan: draw pile and discards shuffled together (after the Command draws unless
    # elan_order = shuffle_first); every player draws a Tactician
    if elan:
        if tab.ropt[R_SHUFFLE_FIRST] == 0:
            _elan_reshuffle(gm.pile, gm.pn, gm.disc, gm.dn, met, s, trace, tn, ply)
        _elan_tacticians(s, ply, players_a_side, gm.tac, gm.tacc, gm.tac_pile, gm.tac_disc, met,
                         cmet, trace, tn)
    # E9.6 refill the rack when it holds 2 (or fewer, after starved refills)
    if not tab.standard and gm.rn[0] <= 2:
        _refill_rack(rs, gm.pile, gm.pn, gm.disc, gm.dn, met, s, trace, tn, ply, gm.rack, gm.rack_t,
                     gm.rn)


@inlined
def _ply(ply, streams, dec, tab, gm, units, g_turn, check, n_ca, g_total):
    """One turn (ply) of a game (play_blocks) on the game's state gm (layout.EpicGame) and tables
    tab (layout.EpicArgs), its steps and decision points in order: the turn up to the card choice
    (_turn_choice), the cards taken (_turn_cards), the Guerrilla offer (_turn_offer: the Spanish
    spend), the attempt (_turn_spend), the orders (_turn_orders), the Command draw (_turn_draw:
    the Scout keep), the card kept (_command_keep) and the end of the turn (_turn_end). At each
    decision point the turn plays the policy's decision unless dec (layout.Decisions) gives one:
    dec.hand CHOOSE, the card choice is the policy's, else (hand, rack, place) is played instead
    (the policy's draws are still made); dec.spend G_POLICY, P4's, else G_SPEND, G_KEEP or
    G_KEEP_DIE; dec.keep K_POLICY, P2's, else K_FIRST or K_SECOND. A caller that wants a
    decision point itself plays the steps up to it (napsim.engine.lookahead: the card choice).
    streams (rs, rs_post, rs_late): draws up to the choice come from rs, the choice's too; then
    from rs_post up to the Command draw (a Scout's two cards included), and the rest of the turn
    from rs_late (play_blocks passes the game's stream as all three). dec.redeal: where a fair
    planner's rollout deals the cards it has not seen again (napsim.engine.unseen; RD_NONE in a
    real game): at the switch to rs_post (after the cards are taken) or to rs_late (after the
    card kept)."""
    rs, rs_post, rs_late = streams
    s = (tab.first + ply) % 2
    hi, rj, p, score, c, n_h, n_r, e4, pin_y, fs_card = _turn_choice(ply, s, rs, check, n_ca, tab,
                                                                     gm)
    if dec.hand != CHOOSE:  # the caller's choice replaces the policy's (its draws are still made)
        hi, rj, p = dec.hand, dec.rack, dec.place
        if gm.trace.shape[0] > 0:
            res = gm.res_scratch
            score = tab.play_val[s, 1 if e4 else 0, c, res[RES_HAND, max(hi, 0)],
                                 res[RES_RACK, max(rj, 0)]]
    taken = _turn_cards(ply, s, (hi, rj, p, score, c, e4), tab, gm)
    deal_unseen(rs_post, dec.redeal, np.int64(RD_POST), gm)  # P8 fair: a rollout from the choice
    offer = _turn_offer(ply, s, taken, tab, gm, g_turn)
    spend = offer[1] if dec.spend == G_POLICY else dec.spend
    played = _turn_spend(ply, s, rs_post, taken, offer, spend, tab, gm, g_turn)
    orders = _turn_orders(ply, s, rs_post, played, fs_card, tab, gm, g_turn)
    elan, drawn = _turn_draw(ply, s, rs_post, played, orders[0], orders[1], tab, gm)
    _command_keep(s, ply, drawn, drawn[2] if dec.keep == K_POLICY else dec.keep, gm)
    deal_unseen(rs_late, dec.redeal, np.int64(RD_LATE), gm)  # P8 fair: a rollout from the Scout keep
    _turn_end(ply, s, rs_late, played, orders, elan, tab, gm, units)
    if check:
        gm.met[s, M_VIOLATIONS] += _check(tab.counts, gm.pile, gm.pn, gm.disc, gm.dn, gm.hand, gm.hn,
                                          gm.rack, gm.rn, gm.sq, gm.sqn, tab.hand0, gm.scratch)
        _check_guerrillas(s, g_total, gm.gst, gm.met)


@counted
def _game_scratch(n_cards, n_types):
    """The state of one game, allocated once per block and reused by its games: (stream, draw
    pile, discards, hands, rack, rack waits, squares, D6 scratch, choice scratch, counters,
    Guerrilla state, metrics, commander metrics, Tactician cards per commander, no trace buffer,
    its length)."""
    # card types as unsigned 16-bit: compact, and indexing with them needs no sign fix-up
    return (np.empty(2, np.uint64), np.empty(n_cards, np.uint16), np.empty(n_cards, np.uint16),
            np.empty((2, MAX_HAND + n_cards), np.uint16), np.zeros(RACK, np.uint16),
            np.zeros(RACK, np.int64), np.empty((2, MAX_HAND), np.uint16),
            np.zeros(n_types, np.int64), np.zeros((N_RES, (MAX_HAND + n_cards) * RACK), np.uint16),
            np.zeros(N_ST, np.int64), np.zeros((2, N_GST), np.int64),
            np.zeros((2, N_METRICS), np.int64), np.zeros((2, 4, N_CM), np.int64),
            np.zeros((2, 4), np.int64), np.zeros((0, TRACE_WIDTH), np.int64), np.zeros(1, np.int64))


def game_state(deck: np.ndarray, counts: np.ndarray) -> tuple:
    """A game's state arrays for play_blocks, allocated here in numpy (_game_scratch as Python)."""
    return getattr(_game_scratch, "py_func", _game_scratch)(deck.shape[0], counts.shape[0])


@inlined
def start_of_game(g, run_key, tab, gm):
    """Zero a game's metrics and open it (_open_game): (Guerrilla counters in all,
    Counter-Attack types)."""
    gm.met[:, :] = 0
    if tab.players_a_side >= 2:
        gm.cmet[:, :, :] = 0
    return _open_game(g, run_key, tab, gm)


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks(b_lo, b_hi, nb, run_key, first_game, n, tab, units, gturn_b, check, per_game, out,
                state):
    """Play blocks [b_lo, b_hi) of a chunk's nb blocks of games (play_chunk) on the tables tab
    (layout.EpicArgs; units and gturn_b as `specialised` passes them), adding each block's sums into
    its own row of the outputs `out` (mom_b, rows, wait_b, cmet_b, crows, tturn_b, trace, tn; the
    moments of its per-game columns, blocks.add_game); without the GIL. With a trace buffer
    (trace_game: one block of one game) the game's events go to trace[:tn[0]]. The one compiled
    copy of the game: a trace plays it too, so that the whole game is optimised and compiled once,
    not once more for an entry of its own. state: the game's state arrays (_game_scratch,
    allocated by the caller: without numba's reference counting, which the helpers' array views
    would otherwise pay for at every call, the kernel allocates nothing), reused by every game.

    A game: the turn loop of _ply over the game's state (layout.EpicGame). players_a_side: 1 for
    EPIC one a side and the standard game. With 2-4 (docs/rules.md, M) the card flow is E's and
    the commander layer adds: the card passed to the sub-commander (M4); initiative rolls for a
    section commander without a card (and, by option `initiative`, without multi-section orders
    in his section; M6.2, M8.2); Tactician cards per commander (tacc[side, commander], M6.3, M6.4,
    M8.2); per-commander metrics cmet[side, commander, CM]. Readings of open points: with 2 a side
    the CIC holds every Tactician card, so an Elan gives each side one (his); a card the
    Guerrillas nullify still reached its commander (no initiative roll) and may be copied by a
    Counter-Attack (the designer's ruling; not under counter_attack_nullified = none); in the E4
    situation with 3-4 a side the section's commander plays both cards unless
    same_section_receiver = two_commanders (then only the better one orders); an
    initiative unit symbol orders a unit of that type when the section has one and some unit
    there is still unordered (the pair tables count the unordered units of a section, not of each
    type); the epic2 sub-commander's orders are those of the section his card is in.
    cmd_sec[side, section] is the section's commander, tac_start[side, commander] the starting
    Tactician cards, units[side, type, section]. tturn[side, turn] sums the Tactician cards a
    side holds at the start of its turns. ropt holds the readings of the open points (R_*
    columns)."""
    mom_b, rows, wait_b, cmet_b, crows, tturn_b, trace, tn = out
    dec = game_decisions()
    multi = tab.players_a_side >= 2
    for b in range(b_lo, b_hi):
        gm = game_of(state, wait_b[b], tturn_b[b], trace, tn)
        g_turn = None if gturn_b is None else gturn_b[b]
        for g in range((n * b) // nb, (n * (b + 1)) // nb):
            g_total, n_ca = start_of_game(first_game + g, run_key, tab, gm)
            for ply in range(2 * tab.turns):
                _ply(ply, (gm.rs, gm.rs, gm.rs), dec, tab, gm, units, g_turn, check, n_ca, g_total)
            _end_game(multi, tab.gcfg, gm.gst, gm.tac, gm.tacc, gm.met, gm.cmet)
            add_game(b, g, gm.met, gm.cmet, mom_b, cmet_b, rows, crows, per_game, multi)


def play_chunk(run_key, first_game, n, *args):
    """Play games [first_game, first_game + n) in blocks on threads (napsim.engine.blocks). args:
    the fields of napsim.engine.layout.EpicArgs, then check and per_game. Returns the eight chunk
    outputs in the order of napsim.engine.layout.CHUNK_OUTPUTS: (metrics summed over the chunk
    [2, M], per-game metrics [n, 2, M] when per_game else [0, 2, M], rack wait histogram [4, bins],
    guerrilla per-turn histogram [offered/spent/nullified, turn], per-commander metrics [2, 4, CM],
    per-game commander metrics [n or 0, 2, 4, CM], Tactician cards held per turn [2, turns],
    moments of the per-game columns [MO, 2, columns]: sums, squares and products with the turns,
    napsim.engine.blocks.add_game)."""
    return chunk_on(play_blocks, run_key, first_game, n, *args)


def specialised(players_a_side, gcfg, units, gturn_b):
    """(units, gturn_b) as play_blocks takes them: both None for EPIC one a side (and the
    standard game) without the Guerrilla rules, which compiles a lean kernel without the
    commander layer and the Guerrilla phase (numba prunes a branch on an argument that is None
    before it types anything): the first run of such a scenario compiles neither. Every other
    scenario plays the full kernel, one compiled copy for all of them."""
    lean = players_a_side < 2 and not (np.asarray(gcfg)[:, G_RULE] != G_OFF).any()
    return (None, None) if lean else (units, gturn_b)


def chunk_on(kernel, run_key, first_game, n, *args, state=None):
    """play_chunk on the block kernel `kernel` (play_blocks, or one with its signature: the planned
    kernel of napsim.engine.lookahead); args as play_chunk's. `state`: what gives each thread's
    call its state, its last argument (default: game_state)."""
    tab = EpicArgs(*args[:-2])
    check, per_game = args[-2:]
    nb = block_count(n)
    multi = tab.players_a_side >= 2
    mom_b = block_moments(nb)
    wait_b = np.zeros((nb, 4, WAIT_BINS), np.int64)
    gturn_b = np.zeros((nb, 3, tab.turns), np.int64)
    units_k, gturn_k = specialised(tab.players_a_side, tab.gcfg, tab.units, gturn_b)  # None: lean
    tturn_b = np.zeros((nb, 2, tab.turns), np.int64)
    cmet_b = np.zeros((nb, 2, 4, N_CM), np.int64)
    rows = np.zeros((n if per_game else 0, 2, N_METRICS), np.int64)
    crows = np.zeros((n if per_game and multi else 0, 2, 4, N_CM), np.int64)
    out = (mom_b, rows, wait_b, cmet_b, crows, tturn_b, np.zeros((0, TRACE_WIDTH), np.int64),
           np.zeros(1, np.int64))  # no trace buffer
    run_blocks(kernel, nb, (run_key, first_game, n, tab, units_k, gturn_k, check, per_game, out),
               state or (lambda: game_state(tab.deck, tab.counts)))
    mom = mom_b.sum(axis=0)
    return (mom[MO_SUM, :, :N_METRICS], rows, wait_b.sum(axis=0), gturn_b.sum(axis=0),
            cmet_b.sum(axis=0), crows, tturn_b.sum(axis=0), mom)


def trace_game(run_key, game, *args, max_events=20000):
    """Replay one game with an event log: (metrics [2, M], events [k, TRACE_WIDTH]); one block of
    one game on play_blocks, with the D6 checks on."""
    a = EpicArgs(*args)
    return trace_on(play_blocks, game_state(a.deck, a.counts), run_key, game, *args,
                    max_events=max_events)


def trace_on(blocks, state, run_key, game, *args, max_events=20000):
    """trace_game on the block kernel `blocks` (play_blocks, or one with its signature: the planned
    kernel of napsim.engine.lookahead) with its state `state`: one block of one game; args the
    fields of layout.EpicArgs."""
    tab = EpicArgs(*args)
    trace = np.full((max_events, TRACE_WIDTH), -1, np.int64)
    tn = np.zeros(1, np.int64)
    mom_b = block_moments(1)
    units, gturn_b = specialised(tab.players_a_side, tab.gcfg, tab.units,
                                 np.zeros((1, 3, tab.turns), np.int64))
    out = (mom_b, np.zeros((0, 2, N_METRICS), np.int64), np.zeros((1, 4, WAIT_BINS), np.int64),
           np.zeros((1, 2, 4, N_CM), np.int64), np.zeros((0, 2, 4, N_CM), np.int64),
           np.zeros((1, 2, tab.turns), np.int64), trace, tn)
    blocks(0, 1, 1, run_key, np.int64(game), np.int64(1), tab, units, gturn_b, True, False, out,
           state)
    return mom_b[0, MO_SUM, :, :N_METRICS].copy(), trace[: min(tn[0], max_events)]


jit.check_cache_folder(globals())  # its cached kernels live in this version's cache folder
