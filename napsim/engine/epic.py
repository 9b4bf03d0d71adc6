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
    scout_trade,
)
from napsim.engine.choice import _choose, _choose_resolved
from napsim.engine.commanders import _commander_layer
from napsim.engine.epic_guerrilla import _check_guerrillas, _guerrilla_gain_section, _guerrillas
from napsim.engine.epic_phases import (
    _command_draw,
    _discard_played,
    _elan_tacticians,
    _end_game,
    _first_strike,
    _gain_counter,
    _orders,
    _played_record,
    _resolve_cards,
    _spend_tacticians,
    _squares,
    _stars,
    _take_cards,
    _trace_orders,
    _trace_turn,
    _turn_tacticians,
)
from napsim.engine.jit import counted, inlined, inlined_ir
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
    R_CA_NULLIFIED_NONE,
    R_SHUFFLE_FIRST,
    R_TAC_DECK,
    RACK,
    RD_LATE,
    RD_NONE,
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
)
from napsim.engine.rng import start_game
from napsim.engine.unseen import redeal_at, redeal_epic


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
def _new_game(fmt, void, ctab, deck, gcfg, gst, pile, res_scratch, st, cmd_sec, cmet, ropt):
    """Everything in the draw pile, the counters zero, the Guerrilla counters dealt (G6) and the
    card map of this game (RES_RMAP, RES_CA). Returns (Guerrilla counters in all, Counter-Attack
    types)."""
    n_cards = deck.shape[0]
    for i in range(n_cards):
        pile[i] = deck[i]  # shuffled lazily, one random card at each draw (_draw_card)
    st[:] = 0
    st[ST_PILE_N] = n_cards
    st[ST_TAC_PILE] = ropt[R_TAC_DECK]
    if ropt[R_TAC_DECK] == 0:
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
            if fmt == 2:
                cmet[k, 0, CM_G_START] += gcfg[k, G_START]
            for x in range(3):  # G6: three or four a side, by section commander
                gst[k, G_HELD_L + x] = gcfg[k, G_START_L + x]
                g_total += gcfg[k, G_START_L + x]
                if fmt >= 3:
                    cmet[k, cmd_sec[k, x], CM_G_START] += gcfg[k, G_START_L + x]
    # rmap[t]: the card type t plays as this turn (_resolve). Only the Counter-Attack entries
    # change from turn to turn (they copy the opponent's last card), so each turn rewrites those
    # few and every hand and rack card then resolves with one load.
    rmap = res_scratch[RES_RMAP]
    ca_types = res_scratch[RES_CA]
    n_ca = 0
    for t in range(void + 1):
        rmap[t] = void if ctab[t, C_FS] == 1 else t
        if ctab[t, C_COUNTER] == 1 and ctab[t, C_FS] == 0:
            ca_types[n_ca] = t
            n_ca += 1
    return g_total, n_ca


@inlined
def _deal(rs, standard, first, multi, hand0, tac0, tac_start, pile, pn, disc, dn, hand, hn, rack,
          rack_t, rn, tac, tacc, tac_pile, met, trace, tn):
    """E1 setup: hands (first player first), Tactician cards, then the rack."""
    for k in range(2):
        s = (first + k) % 2
        for _ in range(hand0[s]):
            t = _draw_card(rs, pile, pn, disc, dn, met, s, trace, tn, np.int64(-1))
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
            t = _draw_card(rs, pile, pn, disc, dn, met, first, trace, tn, np.int64(-1))
            if t >= 0:
                rack[rn[0]] = t
                rack_t[rn[0]] = 0
                rn[0] += 1


@inlined_ir
def _st_views(st):
    """The small per-game counters of st as views (napsim.engine.layout ST_*): draw pile, discards,
    rack, hands, squares, Tactician cards, Tactician pile and discards, each side's last hand card,
    this turn's nominal orders, each side's last rack card, where the last hand and rack cards
    went."""
    return (st[ST_PILE_N:ST_PILE_N + 1], st[ST_DISC_N:ST_DISC_N + 1], st[ST_RACK_N:ST_RACK_N + 1],
            st[ST_HAND_N:ST_HAND_N + 2], st[ST_SQ_N:ST_SQ_N + 2], st[ST_TAC:ST_TAC + 2],
            st[ST_TAC_PILE:ST_TAC_PILE + 1], st[ST_TAC_DISC:ST_TAC_DISC + 1],
            st[ST_LAST_HAND:ST_LAST_HAND + 2], st[ST_NOMINAL:ST_NOMINAL + 3],
            st[ST_LAST_RACK:ST_LAST_RACK + 2], st[ST_LAST_HAND_P:ST_LAST_HAND_P + 2],
            st[ST_LAST_RACK_P:ST_LAST_RACK_P + 2])


@inlined
def _open_game(rs, game, run_key, standard, first, hand0, tac0, fmt, ctab, deck, gcfg, gst, pile,
               disc, hand, rack, rack_t, res_scratch, st, views, cmd_sec, tac_start, tacc, cmet, met,
               trace, tn, ropt):
    """A new game of global index `game`: its stream, the piles and counters (_new_game), the
    deal (_deal). Returns (Guerrilla counters in all, Counter-Attack types)."""
    start_game(rs, run_key, game)
    void = ctab.shape[0] - 1
    g_total, n_ca = _new_game(fmt, void, ctab, deck, gcfg, gst, pile, res_scratch, st, cmd_sec,
                              cmet, ropt)
    pn, dn, rn, hn, _, tac, tac_pile = views[:7]
    _deal(rs, standard, first, fmt >= 2, hand0, tac0, tac_start, pile, pn, disc, dn, hand, hn,
          rack, rack_t, rn, tac, tacc, tac_pile, met, trace, tn)
    return g_total, n_ca


CHOOSE = -1  # forced_hi of _ply: the policy chooses
PROBE = -3   # forced_hi of _ply: stop at the choice point and return the policy's choice


@inlined
def _ply(ply, rs, rs_post, rs_late, forced_hi, forced_rj, forced_p, forced_g, forced_k, redeal, standard,
         first, hand0, sq_form, sq_leave, pol, ctab, counts, best_val, ca_src_t, best_k, best_list,
         nom_t, eff_t, rem_t, n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg, fmt,
         cmd_sec, units, ropt, check, n_ca, g_total, pile, disc, hand, rack, rack_t, sq, scratch,
         res_scratch, gst, tacc, met, cmet, wait_hist, g_turn, tturn, trace, tn, pn, dn, rn, hn,
         sqn, tac, tac_pile, tac_disc, last_hand, nominal, last_rack, last_hand_p, last_rack_p, rmap):
    """One turn (ply) of a game (play_blocks). Draws up to the choice come from rs, the choice's
    too; then from rs_post up to the Command draw (a Scout's two cards included), and the rest of
    the turn from rs_late (play_blocks passes one stream as all three).
    forced_hi CHOOSE: the policy chooses; PROBE: return at the choice point, the turn half played;
    else (forced_hi, forced_rj, forced_p) is played instead of the policy's choice, whose draws
    are still made. forced_g: the Spanish side's Guerrilla spend decision this French turn
    (layout G_*: G_POLICY, P4 decides; napsim.engine.cardflow.guerrilla_attempt). forced_k: which
    of a Scout's two cards is kept (layout K_*: K_POLICY, P2 decides; _command_draw). redeal: where
    a fair planner's rollout deals the cards it has not seen again (napsim.engine.unseen; RD_NONE
    in a real game): at the switch to rs_post or to rs_late.
    Returns the policy's choice (hand slot, rack slot, placement), then the command, hand and
    rack cards, E4 and the Counter-Attack pin of the turn. pn ... last_rack_p: the views of
    _st_views(st), one by one; rmap: the card map res_scratch[RES_RMAP]."""
    void = ctab.shape[0] - 1
    tracing = trace.shape[0] > 0  # without a buffer no event is formatted or counted
    multi = fmt >= 2
    s = (first + ply) % 2
    o = 1 - s
    met[s, M_TURNS] += 1
    _squares(rs, s, ply, hand0, sq_form, sq_leave, hand, hn, sq, sqn, met, trace, tn)
    _spend_tacticians(rs, s, ply, multi, pol, tac, tacc, tac_disc, met, cmet, tturn)
    fs_card = _first_strike(rs, o, ply, pol, ctab, hand, hn, met, trace, tn)
    cmd = hn[s]  # E6: the hand at the start of the turn, the played card included
    rack_size = rn[0]
    n_h = hn[s]
    n_r = rn[0] if not standard else 0
    c = min(cmd, best_val.shape[1] - 1)
    ca_src, e4, pin_y = _resolve_cards(s, o, standard, n_h, n_r, c, n_ca, void, ctab, ca_src_t,
                                       hand, rack, last_hand, last_rack, last_hand_p,
                                       last_rack_p, res_scratch, met, ropt)
    if check and hn[s] + sqn[s] != hand0[s]:
        met[s, M_VIOLATIONS] += 1
    if tracing:
        _trace_turn(trace, tn, ply, s, cmd, e4, hand, hn, rack, rn, sqn, tac, pn, dn)
    # the choice: hand slot hi (-2: none), rack slot rj (-1: none), placement p
    hi, rj, p, score = _choose_resolved(rs, s, o, c, hand, hn, n_h, rack, n_r, e4,
                                        ca_src, void, pol, ctab, best_val, best_k,
                                        best_list, n_place, place_list, e4_only, res_scratch,
                                        play_val, play_key, rec_t, tracing, pin_y)
    if hi == -1 and n_h > 0 and n_r > 0:
        # no legal pair (e.g. a Counter-Attack copying the only section on offer): the
        # hand card alone is played and the rack is left as it is
        hi, rj, p, score = _choose(rs, s, o, c, hand, hn, n_h, rack, np.int64(0), e4, ca_src,
                                   void, pol, ctab, best_val, best_k, best_list, n_place,
                                   place_list, e4_only, res_scratch, play_val, play_key, rec_t,
                                   tracing, pin_y)
    if forced_hi == PROBE:  # the choice point only (napsim.engine.lookahead)
        return hi, rj, p, c, n_h, n_r, e4, pin_y
    if forced_hi != CHOOSE:  # the caller's choice replaces the policy's (its draws are still made)
        hi, rj, p = forced_hi, forced_rj, forced_p
        if tracing:
            score = play_val[s, 1 if e4 else 0, c, res_scratch[RES_HAND, max(hi, 0)],
                             res_scratch[RES_RACK, max(rj, 0)]]
    ta, tb, ra, rb, p = _take_cards(s, ply, hi, rj, p, rack_size, e4, c, void, ctab, best_val,
                                    rmap, cmd_sec, hand, hn, rack, rack_t, rn, last_hand,
                                    last_rack, last_hand_p, last_rack_p, met, wait_hist, ropt)
    pa = p // 3
    pb = p % 3
    if tracing:
        _trace(trace, tn, EV_CHOICE, ply, s, ta, tb, pa, pb, ra, rb, int(round(score * 1000)),
               np.int64(pol[s, P_KIND]))  # 0 greedy, 1 random, 2 lookahead
    if redeal_at(redeal, RD_POST):  # P8 fair: a rollout from the choice, on what the planner knows
        redeal_epic(rs_post, redeal, pile, pn, hand, hn, scratch)
    ra0 = ra  # the cards as played, before any Guerrilla nullification (who received what)
    rb0 = rb
    # g_turn None: no side plays the Guerrilla rules, and numba compiles none of their code
    # (it prunes a branch on an argument that is None before typing; play_chunk's specialise)
    if g_turn is None:
        pq, turn_over = p, False
    else:
        pq, ra, rb, turn_over = _guerrillas(rs_post, s, o, c, ra, rb, pa, pb, p, void, ply, multi,
                                            gcfg, gst, pol, ctab, nom_t, eff_t, cmd_sec, met, cmet,
                                            g_turn, trace, tn, ropt, forced_g)
    # D8 / G5: a card the Guerrillas nullified may still be copied by a Counter-Attack (the
    # designer's ruling); counter_attack_nullified = none: it gave no orders, nothing to copy
    if ropt[R_CA_NULLIFIED_NONE] == 1:
        if ra0 != void and ra == void:
            last_hand[s] = void
        if rb0 != void and rb == void:
            last_rack[s] = void
    ner = _played_record(rs_post, s, ply, c, ra, rb, ctab, rec_t, trace, tn)  # D2: rolled cards
    q0 = REC_ORD + 6 * pq  # nominal, then effective orders per section
    _orders(s, ner, q0, nominal, met)
    # G3/G4: a Spanish Scout may trade its second draw (and, in EPIC, its stars) for a counter
    gain_sec = -1
    if g_turn is not None and gcfg[s, G_RULE] != G_OFF:
        gain_sec = _guerrilla_gain_section(s, ra, rb, gcfg, gst, pol, ctab)
    # E9.2 / G4: the gain and the two-card draw never both happen (two_scouts decides the
    # turn with two Scouts)
    gained, scouted = scout_trade(ctab[ra, C_SCOUT] + ctab[rb, C_SCOUT], gain_sec >= 0, ropt)
    if not gained:
        gain_sec = -1
    r0, r1, r2, tac_draws, marched, star_tac_a, star_tac_b = _stars(
        rs_post, s, ra, rb, pa, pb, gain_sec, void, ner, q0, gcfg, pol, ctab, rem_t, met)
    if tracing:
        _trace_orders(trace, tn, ply, s, nominal, ner, q0, marched, tac_draws)
    _discard_played(rs_post, o, ply, ta, tb, fs_card, void, pile, pn, disc, dn, hand, hn, met, trace,
                    tn)
    # E9.1 / E9.2 draw one, or with a Scout draw two and keep the better (P2); a Scout
    # traded for a Guerrilla counter (G3/G4) draws one
    if gain_sec >= 0:
        _gain_counter(s, ply, gain_sec, fmt, multi, gst, cmd_sec, met, cmet, trace, tn)
    elan = ctab[ra, C_ELAN] == 1 or ctab[rb, C_ELAN] == 1
    if elan and ropt[R_SHUFFLE_FIRST] == 1:  # elan_order = shuffle_first
        _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
    _command_draw(rs_post, s, ply, scouted, void, pol, ctab, best_val, pile, pn, disc, dn, hand, hn,
                  met, trace, tn, res_scratch, forced_k)
    if redeal_at(redeal, RD_LATE):  # P8 fair: a rollout from the Scout keep
        redeal_epic(rs_late, redeal, pile, pn, hand, hn, scratch)
    # the commander layer (M4, M6, M8) and its Tactician draws; units None (one player a side):
    # numba compiles none of it
    if units is not None and multi and not turn_over:
        _commander_layer(rs_late, s, ply, fmt, ra0, rb0, ra, rb, pa, pb, c, void, ctab, nom_t, ner,
                         q0, r0, r1, r2, np.int64(star_tac_a), np.int64(star_tac_b), cmd_sec, units,
                         best_val, cmet, tacc, tac, tac_pile, tac_disc, met, trace, tn, ropt)
    else:  # E9.3
        _turn_tacticians(s, ply, fmt, multi, turn_over, tac_draws, cmd_sec, cmet, tac, tac_pile,
                         tac_disc, met, trace, tn)
    # E9.4 Elan: draw pile and discards shuffled together (after the Command draws unless
    # elan_order = shuffle_first); every player draws a Tactician
    if elan:
        if ropt[R_SHUFFLE_FIRST] == 0:
            _elan_reshuffle(pile, pn, disc, dn, met, s, trace, tn, ply)
        _elan_tacticians(s, ply, fmt, multi, tac, tacc, tac_pile, tac_disc, met, cmet, trace,
                         tn)
    # E9.6 refill the rack when it holds 2 (or fewer, after starved refills)
    if not standard and rn[0] <= 2:
        _refill_rack(rs_late, pile, pn, disc, dn, met, s, trace, tn, ply, rack, rack_t, rn)
    if check:
        met[s, M_VIOLATIONS] += _check(counts, pile, pn, disc, dn, hand, hn, rack, rn, sq,
                                       sqn, hand0, scratch)
        _check_guerrillas(s, g_total, gst, met)
    return hi, rj, p, c, n_h, n_r, e4, pin_y


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


@njit(cache=True, nogil=True, _nrt=False)
def play_blocks(b_lo, b_hi, nb, run_key, first_game, n, standard, turns, first, hand0, tac0, sq_form,
                sq_leave, pol, ctab, deck, counts, best_val, ca_src_t, best_k, best_list, nom_t, eff_t,
                rem_t, n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec,
                tac_start, units, ropt, check, per_game, mom_b, rows, wait_b, gturn_b, cmet_b, crows,
                tturn_b, trace, tn, state):
    """Play blocks [b_lo, b_hi) of a chunk's nb blocks of games (play_chunk), adding each block's
    sums into its own row of mom_b (the moments of its per-game columns, blocks.add_game), wait_b,
    gturn_b, cmet_b and tturn_b; without the GIL. With a trace buffer (trace_game: one block of
    one game) the game's events go to trace[:tn[0]]. The one compiled copy of the game: a trace
    plays it too, so that the whole game is optimised and compiled once, not once more for an
    entry of its own. state: the game's state arrays (_game_scratch, allocated by the
    caller: without numba's reference counting, which the helpers' array views would otherwise
    pay for at every call, the kernel allocates nothing), reused by every game.

    A game: the turn loop of _ply over the state of _game_scratch. fmt: players a side (1 for
    EPIC one a side and the standard game). With 2-4 (docs/rules.md, M) the card flow is E's and
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
    (rs, pile, disc, hand, rack, rack_t, sq, scratch, res_scratch, st, gst, met, cmet, tacc,
     _, _) = state
    views = _st_views(st)
    rmap = res_scratch[RES_RMAP]
    for b in range(b_lo, b_hi):
        wait_hist = wait_b[b]
        g_turn = None if gturn_b is None else gturn_b[b]
        tturn = tturn_b[b]
        lo = (n * b) // nb
        hi = (n * (b + 1)) // nb
        for g in range(lo, hi):
            met[:, :] = 0
            if fmt >= 2:
                cmet[:, :, :] = 0
            g_total, n_ca = _open_game(rs, first_game + g, run_key, standard, first, hand0, tac0, fmt,
                                       ctab, deck, gcfg, gst, pile, disc, hand, rack, rack_t,
                                       res_scratch, st, views, cmd_sec, tac_start, tacc, cmet, met,
                                       trace, tn, ropt)
            for ply in range(2 * turns):
                _ply(ply, rs, rs, rs, np.int64(CHOOSE), np.int64(-1), np.int64(0),
                     np.int64(G_POLICY), np.int64(K_POLICY), np.int64(RD_NONE), standard, first,
                     hand0, sq_form,
                     sq_leave, pol, ctab, counts, best_val, ca_src_t, best_k, best_list, nom_t,
                     eff_t, rem_t, n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg,
                     fmt, cmd_sec, units, ropt, check, n_ca, g_total, pile, disc, hand, rack,
                     rack_t, sq, scratch, res_scratch, gst, tacc, met, cmet, wait_hist,
                     g_turn, tturn, trace, tn, *views, rmap)
            _end_game(fmt >= 2, gcfg, gst, views[5], tacc, met, cmet)
            add_game(b, g, met, cmet, mom_b, cmet_b, rows, crows, per_game, fmt >= 2)


def play_chunk(run_key, first_game, n, standard, turns, first, hand0, tac0, sq_form, sq_leave,
               pol, ctab, deck, counts, best_val, ca_src_t, best_k, best_list, nom_t, eff_t, rem_t, n_place,
               place_list, e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec, tac_start, units,
               ropt, check, per_game):
    """Play games [first_game, first_game + n) in blocks on threads (napsim.engine.blocks). The
    arguments between n and check are napsim.engine.layout.EpicArgs. Returns the eight chunk
    outputs in the order of napsim.engine.layout.CHUNK_OUTPUTS: (metrics summed over the chunk
    [2, M], per-game metrics [n, 2, M] when per_game else [0, 2, M], rack wait histogram [4, bins],
    guerrilla per-turn histogram [offered/spent/nullified, turn], per-commander metrics [2, 4, CM],
    per-game commander metrics [n or 0, 2, 4, CM], Tactician cards held per turn [2, turns],
    moments of the per-game columns [MO, 2, columns]: sums, squares and products with the turns,
    napsim.engine.blocks.add_game)."""
    return chunk_on(play_blocks, run_key, first_game, n, standard, turns, first, hand0, tac0,
                    sq_form, sq_leave, pol, ctab, deck, counts, best_val, ca_src_t, best_k, best_list, nom_t,
                    eff_t, rem_t, n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg,
                    fmt, cmd_sec, tac_start, units, ropt, check, per_game)


def specialised(fmt, gcfg, units, gturn_b):
    """(units, gturn_b) as play_blocks takes them: both None for EPIC one a side (and the
    standard game) without the Guerrilla rules, which compiles a lean kernel without the
    commander layer and the Guerrilla phase (numba prunes a branch on an argument that is None
    before it types anything): the first run of such a scenario compiles neither. Every other
    scenario plays the full kernel, one compiled copy for all of them."""
    lean = fmt < 2 and not (np.asarray(gcfg)[:, G_RULE] != G_OFF).any()
    return (None, None) if lean else (units, gturn_b)


def chunk_on(kernel, run_key, first_game, n, standard, turns, first, hand0, tac0, sq_form,
             sq_leave, pol, ctab, deck, counts, best_val, ca_src_t, best_k, best_list, nom_t, eff_t, rem_t,
             n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec,
             tac_start, units, ropt, check, per_game, state=None):
    """play_chunk on the block kernel `kernel` (play_blocks, or one with its signature: the planned
    kernel of napsim.engine.lookahead). `state`: what gives each thread's call its state, its last
    argument (default: game_state)."""
    nb = block_count(n)
    mom_b = block_moments(nb)
    wait_b = np.zeros((nb, 4, WAIT_BINS), np.int64)
    gturn_b = np.zeros((nb, 3, turns), np.int64)
    units_k, gturn_k = specialised(fmt, gcfg, units, gturn_b)  # None: a lean kernel
    tturn_b = np.zeros((nb, 2, turns), np.int64)
    cmet_b = np.zeros((nb, 2, 4, N_CM), np.int64)
    rows = np.zeros((n if per_game else 0, 2, N_METRICS), np.int64)
    crows = np.zeros((n if per_game and fmt >= 2 else 0, 2, 4, N_CM), np.int64)
    run_blocks(kernel, nb, (
        run_key, first_game, n, standard, turns, first, hand0, tac0, sq_form, sq_leave, pol, ctab,
        deck, counts, best_val, ca_src_t, best_k, best_list, nom_t, eff_t, rem_t, n_place, place_list,
        e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec, tac_start, units_k, ropt, check,
        per_game, mom_b, rows, wait_b, gturn_k, cmet_b, crows, tturn_b,
        np.zeros((0, TRACE_WIDTH), np.int64), np.zeros(1, np.int64)),  # no trace buffer
        state or (lambda: game_state(deck, counts)))
    mom = mom_b.sum(axis=0)
    return (mom[MO_SUM, :, :N_METRICS], rows, wait_b.sum(axis=0), gturn_b.sum(axis=0),
            cmet_b.sum(axis=0), crows, tturn_b.sum(axis=0), mom)


def trace_game(run_key, game, *args, max_events=20000):
    """Replay one game with an event log: (metrics [2, M], events [k, TRACE_WIDTH]); one block of
    one game on play_blocks, with the D6 checks on."""
    a = EpicArgs(*args)
    return trace_on(play_blocks, game_state(a.deck, a.counts), run_key, game, *args,
                    max_events=max_events)


def trace_on(blocks, state, run_key, game, standard, turns, first, hand0, tac0, sq_form, sq_leave,
             pol, ctab, deck, counts, best_val, ca_src_t, best_k, best_list, nom_t, eff_t, rem_t,
             n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec, tac_start,
             units, ropt, max_events=20000):
    """trace_game on the block kernel `blocks` (play_blocks, or one with its signature: the planned
    kernel of napsim.engine.lookahead) with its state `state`: one block of one game."""
    trace = np.full((max_events, TRACE_WIDTH), -1, np.int64)
    tn = np.zeros(1, np.int64)
    mom_b = block_moments(1)
    units, gturn_b = specialised(fmt, gcfg, units, np.zeros((1, 3, turns), np.int64))
    blocks(0, 1, 1, run_key, np.int64(game), np.int64(1), standard, turns, first, hand0, tac0,
           sq_form, sq_leave, pol, ctab, deck, counts, best_val, ca_src_t, best_k, best_list,
           nom_t, eff_t, rem_t, n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg,
           fmt, cmd_sec, tac_start, units, ropt, True, False, mom_b,
           np.zeros((0, 2, N_METRICS), np.int64), np.zeros((1, 4, WAIT_BINS), np.int64),
           gturn_b, np.zeros((1, 2, 4, N_CM), np.int64),
           np.zeros((0, 2, 4, N_CM), np.int64), np.zeros((1, 2, turns), np.int64), trace, tn,
           state)
    return mom_b[0, MO_SUM, :, :N_METRICS].copy(), trace[: min(tn[0], max_events)]


jit.check_cache_folder(globals())  # its cached kernels live in this version's cache folder
