"""The layout of every packed array the kernels read or write: one name per slot.

The kernels pass plain integer and float arrays; this module is the single place that says what
each column, row or slot of them means. Module-level integers are folded by numba at compile
time, so a named slot costs nothing over a bare number. It imports only numpy and typing: every engine module
reads it (the module map is napsim.engine's docstring).

Groups (prefix: array):
  M_*    metrics met[side, M] (METRIC_NAMES names them for the reports)
  CM_*   per-commander metrics cmet[side, commander, CM] (CM_NAMES)
  C_*    card table ctab[card type, C] (packed by napsim.sim.packing); KIND_* its kinds
  G_*    Guerrilla configuration gcfg[side, G] and state gst[side, G] (EPIC)
  R_*    rule options ropt[R] (napsim.sim.packing.rule_options)
  P_*    policy parameters pol[side, P] (napsim.model.policies.PARAMS, checked by the tests)
  EV_*   trace event codes; TR_* the columns of one event row (TRACE_WIDTH wide); TRACE_EVENTS
         (TRACE_EVENTS_LGB) the names of each event's fields
  REC_*  one pair record rec_t[side, cmd, a, b, REC] (napsim.sim.tables.pair_records)
  S_*    La Grande Battles side configuration scfg[side, S]
  PL_*   La Grande Battles per-turn scratch pl[PL, Corps commander]
  ST_*, LST_*  the small per-game counters st[] of the EPIC and LGB kernels
  RES_*, GSC_*, GT_*  other scratch rows (EPIC choice, LGB gift scores, Guerrilla per turn)

The arguments of the two chunk kernels are named here too (EpicArgs, LgbArgs, CHUNK_OUTPUTS, at
the end): a chunk kernel is called as KERNEL(run_key, first_game, n, *args, check, per_game), where
args is an EpicArgs (napsim.engine.epic.play_chunk) or an LgbArgs (napsim.engine.lgb.play_chunk_lgb),
the kernel's parameters between n and check in signature order; both kernels return the eight
arrays of CHUNK_OUTPUTS, in that order (tests/test_engine_layout.py checks the signatures).
"""


from typing import NamedTuple

import numpy as np

# ---------------------------------------------------------------- sizes
MAX_HAND = 24
RACK = 5
WAIT_BINS = 64         # rack waits wait_hist[kind, turns waited], the last bin holds the rest
TACTICIAN_DECK = 50
TRACE_WIDTH = 40
N_COMMANDERS = 4       # commander 0 the CIC, 1-3 the sub- or Corps commanders

# ---------------------------------------------------------------- metrics met[side, M]
M_NOM, M_EFF = 0, 3            # + section
M_WASTED, M_TURNS = 6, 7
M_HAND_KIND, M_RACK_KIND = 8, 12  # + kind (section, multi, tactic, other)
M_PICK_FROM = 16               # + rack size 0..5
M_REFILLS, M_E4, M_E4_USED, M_SCOUT = 22, 23, 24, 25
M_STARS_MARCH, M_STARS_TAC, M_MARCH_UNITS = 26, 27, 28
M_ELAN, M_RESHUFFLE, M_STARVED = 29, 30, 31
M_TAC_DRAWN, M_TAC_PLAYED, M_FIRST_STRIKE, M_COUNTER = 32, 33, 34, 35
M_SQ_FORMED, M_TAC_HELD, M_TAC_STARVED, M_VIOLATIONS = 36, 37, 38, 39
# Spanish Guerrilla Action (G7), kept on the Spanish side's row
M_G_FRENCH_TURNS, M_G_OFFERED, M_G_SPENT, M_G_SABRE, M_G_NULLIFIED = 40, 41, 42, 43, 44
M_G_DENIED_NOM, M_G_DENIED_EFF, M_G_NOT_SPENT = 45, 46, 47
M_G_NULL_SEC, M_G_DENIED_EFF_SEC = 48, 51  # + section of the French card, French seat (S4)
M_G_ACQUIRED, M_G_HELD_END, M_G_POOL_END = 54, 55, 56
M_INIT_ORDERS = 57  # units ordered by initiative rolls (M6.2, L6; zero with 1-2 players a side)
N_METRICS = 58
METRIC_NAMES = (
    "nominal_L", "nominal_C", "nominal_R", "effective_L", "effective_C", "effective_R",
    "wasted", "turns", "hand_section", "hand_multi", "hand_tactic", "hand_other",
    "rack_section", "rack_multi", "rack_tactic", "rack_other",
    "pick_from_0", "pick_from_1", "pick_from_2", "pick_from_3", "pick_from_4", "pick_from_5",
    "refills", "same_section_turns", "same_section_used", "scout_draws",
    "stars_march", "stars_tactician", "march_units", "elan_reshuffles", "deck_reshuffles",
    "starved_draws", "tactician_drawn", "tactician_played", "first_strikes", "counter_attacks",
    "squares_formed", "tactician_held_end", "tactician_starved", "invariant_violations",
    "g_french_turns", "g_offered", "g_spent", "g_stopped_by_sabre", "g_cards_nullified",
    "g_denied_nominal", "g_denied_effective", "g_available_not_spent",
    "g_nullified_in_french_L", "g_nullified_in_french_C", "g_nullified_in_french_R",
    "g_denied_effective_in_french_L", "g_denied_effective_in_french_C",
    "g_denied_effective_in_french_R",
    "g_acquired", "g_held_end", "g_pool_end", "initiative_orders",
)
assert len(METRIC_NAMES) == N_METRICS

# ---------------------------------------------------------------- moments mom[MO, side, column]
# the per-game columns the moments cover: the metrics, then these totals of metrics (each the sum
# of its metric columns, -1 padded), named for the reports by napsim.sim.metric_table.DERIVED
DERIVED_NAMES = ("nominal_total", "effective_total", "orders_total")
DERIVED_PARTS = ((M_NOM, M_NOM + 1, M_NOM + 2, -1), (M_EFF, M_EFF + 1, M_EFF + 2, -1),
                 (M_EFF, M_EFF + 1, M_EFF + 2, M_INIT_ORDERS))  # orders_total: initiative too
N_COLUMNS = N_METRICS + len(DERIVED_NAMES)
MO_SUM, MO_SQ, MO_XT, N_MO = 0, 1, 2, 3  # sum of x, of x * x, of x * turns over the games

# ---------------------------------------------------------------- commanders cmet[side, cmd, CM]
CM_TURNS, CM_RECEIVED, CM_OWN_PLAYED, CM_REJECTED, CM_NO_CARD = 0, 1, 2, 3, 4
CM_INIT, CM_FACE = 5, 6                      # CM_FACE + 0 infantry, 1 cavalry, 2 artillery, 3 flag, 4 sabre
CM_INIT_ORDERED, CM_INIT_MARCH, CM_INIT_MELEE = 11, 12, 13
CM_DOUBLES, CM_INIT_TAC, CM_BLOCKS_LOST, CM_INIT_CMD = 14, 15, 16, 17
CM_NOM, CM_EFF, CM_EFF_A = 18, 19, 20        # CM_EFF_A + half (LGB: his left and right section)
CM_TAC_DRAWN, CM_TAC_HELD_SUM, CM_TAC_HELD_END, CM_TAC_PLAYED = 22, 23, 24, 25
CM_KEEP, CM_GIVE_BOTH, CM_STAR_CMD, CM_SCOUT_GIFT = 26, 27, 28, 29
CM_G_START, CM_G_SPENT, CM_G_NULLIFIED, CM_G_ACQUIRED = 30, 31, 32, 33
CM_HAND_END, CM_HAND_SUM, CM_SQUARE_CARDS, CM_PASSED, CM_TWO_SABRES = 34, 35, 36, 37, 38
N_CM = 39
CM_NAMES = (
    "commander_turns", "cards_received", "own_cards_played", "cic_cards_rejected", "turns_without_card",
    "initiative_rolls", "face_infantry", "face_cavalry", "face_artillery", "face_flag", "face_sabre",
    "initiative_ordered", "initiative_march", "initiative_melee",
    "initiative_doubles", "initiative_tactician", "blocks_lost", "initiative_command_draws",
    "card_nominal", "card_effective", "card_effective_first_half", "card_effective_second_half",
    "tactician_drawn", "tactician_held_sum", "tactician_held_end", "tactician_played",
    "cic_keep_one", "cic_give_both", "star_command_draws", "scout_gifts",
    "g_start", "g_spent", "g_nullified", "g_acquired",
    "hand_end", "hand_sum", "square_cards", "cards_passed", "initiative_two_sabres",
)
assert len(CM_NAMES) == N_CM
COMMANDER_KEYS = ("cic", "c1", "c2", "c3")
COMMANDER_ROLES = {
    "epic1": ("CIC",),
    "epic2": ("CIC", "sub-commander"),
    "epic3": ("CIC", "sub-commander 1", "sub-commander 2"),
    "epic4": ("CIC", "Corps L", "Corps C", "Corps R"),
    "lgb": ("CIC", "Corps left wing", "Corps centre wing", "Corps right wing"),
}

# battle die faces (D5): 0-1 infantry, 2 cavalry, 3 artillery, 4 flag, 5 sabre. A card that rolls
# its orders (D2) reads the same draw 0-5 as its deck's die: faces below the deck's
# dice_order_faces order a unit (the Ancients die: light, medium, heavy, leader, then flag and
# crossed swords, napsim.engine.cardflow.roll_orders)
FACE_SYMBOL = (0, 0, 1, 2, 3, 4)
DIE_SABRE = 5          # the face a battle die shows for a sabre
SYM_FLAG, SYM_SABRE = 3, 4  # symbols (FACE_SYMBOL): 0-2 a unit type, then flag and sabre

# ---------------------------------------------------------------- card table ctab[type, C]
C_KIND, C_SEC, C_STARS, C_TDRAW, C_SCOUT, C_ELAN, C_FS, C_COUNTER, C_MIRROR, C_EQ = range(10)
C_E4BIT = 10  # 1 << section for a section card, 8 for any other (the E4 test ORs them)
# a card that rolls its orders (D2, the deck's dice mark): the die's ordering faces (0 for a card
# that does not roll), and its first rolled type (the card with 0 ordering dice; k dice: + k), or -1
C_DICE, C_DICE_VAR = 11, 12
N_CCOLS = 13
# card kinds ctab[t, C_KIND] (napsim.sim.tables.KIND_*)
KIND_SECTION, KIND_MULTI, KIND_PLACED, KIND_INERT = 0, 1, 2, 3

# ---------------------------------------------------------------- Guerrillas (EPIC)
# configuration gcfg[side, column] and state gst[side, column] (pool in row 0)
G_OFF, G_BASE, G_EPIC = 0, 1, 2
G_RULE, G_START, G_FRENCH, G_SPAN, G_POOL0 = 0, 1, 2, 3, 6  # G_SPAN + section
G_START_L = 8  # + section: counters of each section commander at the start (G6, 3-4 a side)
N_GCFG = 11
G_HELD_ANY, G_HELD_L, G_POOL = 0, 1, 4  # G_HELD_L + section
G_GONE = 5  # gst[0, G_GONE]: spent counters out of play (spent_counters = sabre_returns)
N_GST = 8
# Guerrilla attempts per turn g_turn[row, turn]
GT_OFFERED, GT_SPENT, GT_NULLIFIED = 0, 1, 2
# outcome of an attempt (trace field e of EV_G_ATTEMPT)
G_OUT_DECLINED, G_OUT_SABRE, G_OUT_NULLIFIED = 0, 1, 2

# ---------------------------------------------------------------- rule options ropt[R]
# the reading of each open point (docs/rules.md, "Rule options"), as kernel flags packed by
# napsim.sim.packing.rule_options
R_INIT_NEEDS_NO_ORDERS = 0  # 1: no initiative roll when a multi-section card ordered his section
R_E4_PLAYABLE = 1           # 1: one commander plays the E4 same-section pair; 0: only its better card orders
R_SHUFFLE_FIRST = 2         # 1: the Elan reshuffle comes before the turn's Command draw
R_CA_EITHER = 3             # 1: Counter-Attack copies either card of the opponent's last turn
R_TAC_DECK = 4              # Tactician cards that come with the Command deck (0: none, D4)
R_CIC_KEEPS_ONE = 5         # 1 (epic3): a card in the CIC's section beside a multi card orders nothing
R_TWO_SCOUTS_GAIN = 6       # 1: with two Scouts in a turn a counter may still be gained (G4)
R_CA_FACING = 7             # 1: a copied tactic card is placed in the section facing the original (D3)
R_SPENT_RETURN_ALL = 8      # 1: every spent counter returns to the pool; 0: only one a sabre stopped
R_CA_NULLIFIED_NONE = 9     # 1: a Counter-Attack cannot copy a card the Guerrillas nullified
R_FS_AT_ONCE = 10           # 1 (lgb): only a CIC replaces a First Strike, at once; 0: its player, at turn end
N_ROPT = 11
NO_TACTICIAN_DECK = -1      # tac_disc[0] when the game has no Tactician deck at all

# ---------------------------------------------------------------- policy parameters pol[side, P]
# the slots of napsim.model.policies.PARAMS (tests/test_engine_layout.py keeps them equal)
P_KIND = 0                  # 0 greedy, 1 random, 2 lookahead (P8)
P_W_L, P_W_C, P_W_R = 1, 2, 3
P_MARCH_BONUS, P_TACTICIAN_BONUS, P_SCOUT_BONUS = 4, 5, 6
P_KEEP_WEIGHT, P_DENY_WEIGHT = 7, 8
P_MARCH_PROB = 9            # P3
P_FIRST_STRIKE_PROB = 10    # P7
P_TACTICIAN_USE_PROB = 11
P_G_SPEND_MODE, P_G_THRESHOLD = 12, 13   # P4
P_G_GAIN_MODE, P_G_GAIN_BELOW = 14, 15   # P5
P_CORPS_OWN_MIN, P_CORPS_SWAP_MARGIN = 16, 17  # P6 (LGB)
P_LOOKAHEAD_K, P_LOOKAHEAD_D, P_LOOKAHEAD_DISCOUNT, P_LOOKAHEAD_TOP = 18, 19, 20, 21  # P8
P_LOOKAHEAD_VALUE = 22      # P8: what a rollout counts (VALUE_OWN, VALUE_MARGIN)
P_LOOKAHEAD_KEEP = 23       # P8: the Scout keep (P2) greedy's or planned (KEEP_GREEDY, KEEP_PLAN)
P_LOOKAHEAD_INFO = 24       # P8: what the rollouts know of hidden hands (INFO_OPEN, INFO_FAIR)
P_LOOKAHEAD_CORPS = 25      # P8 (LGB): whether the CIC knows his Corps commanders' hands (CORPS_*)
# P8: how the rollouts are spent (SEARCH_*); halving: the finalists, the screen's own turns ahead
P_LOOKAHEAD_SEARCH, P_LOOKAHEAD_FINALISTS, P_LOOKAHEAD_SCREEN = 26, 27, 28
N_POLICY = 29
# values of the mode slots (napsim.model.policies.KIND_*, SPEND_MODES, GAIN_MODES, VALUES)
KIND_RANDOM = 1.0
KIND_LOOKAHEAD = 2.0        # P8: the planned kernel (napsim.engine.lookahead) plays this side
SPEND_ALWAYS, SPEND_THRESHOLD, SPEND_ASSAULT = 0.0, 1.0, 2.0
GAIN_ALWAYS, GAIN_NEVER, GAIN_BELOW = 0.0, 1.0, 2.0
VALUE_OWN, VALUE_MARGIN = 0.0, 1.0  # P8: own effective orders; own less the opponent's
KEEP_GREEDY, KEEP_PLAN = 0.0, 1.0  # P8: the Scout keep by P2's score, or planned (EPIC)
INFO_OPEN, INFO_FAIR = 0.0, 1.0  # P8: rollouts see every hand; they deal the unseen cards again
CORPS_KNOWN, CORPS_HIDDEN = 0.0, 1.0  # P8 (LGB): the CIC knows his Corps commanders' hands, or not
SEARCH_FULL, SEARCH_HALVING, SEARCH_RACE = 0.0, 1.0, 2.0  # P8: all K rollouts; halving; the race
# redeal of the turn (napsim.engine.unseen): where a rollout deals the unseen cards again, the
# point of the turn's stream switch (0: never); the hidden side above RD_POINT_BITS
RD_NONE, RD_POST, RD_LATE, RD_AFTER = 0, 1, 2, 3
RD_POINTS, RD_POINT_BITS = 3, 2
# forced_g of the turn (napsim.engine.epic._ply): the Guerrilla spend decision (P4, P8)
G_POLICY, G_KEEP, G_SPEND, G_KEEP_DIE = -1, 0, 1, 2  # G_KEEP_DIE: keep, the die drawn all the same
# forced_k of the turn: which of a Scout's two cards the player keeps (P2, P8): P2 decides, or the
# first or the second card drawn
K_POLICY, K_FIRST, K_SECOND = -1, 0, 1

# ---------------------------------------------------------------- trace events
# one row trace[k, TR]: code, ply, side, then the event's fields a..h
TR_CODE, TR_PLY, TR_SIDE, TR_A = 0, 1, 2, 3
TR_HAND = 11                   # EV_TURN: the hand from here,
TR_RACK = TR_HAND + MAX_HAND   # and the rack from here
# card flow (EPIC and LGB)
EV_TURN, EV_CHOICE, EV_ORDERS, EV_DRAW, EV_TACTICIAN, EV_ELAN, EV_RESHUFFLE = 1, 2, 3, 4, 5, 6, 7
EV_REFILL, EV_SQUARE, EV_UNSQUARE, EV_FIRST_STRIKE, EV_STARVED, EV_SCOUT = 8, 9, 10, 11, 12, 13
EV_G_ATTEMPT, EV_G_GAIN = 14, 15
# La Grande Battles
EV_CORPS_HANDS, EV_GIVE, EV_CORPS_PLAY, EV_REJECT, EV_CORPS_DRAW = 16, 17, 18, 19, 21
EV_CORPS_TACTICIAN = 22
EV_CORPS_REACH = 25  # a Take Command's orders in the sections next to his (E7, napsim.sim.tables_lgb)
EV_DICE = 26  # a card that rolls its orders (D2): card, dice rolled, ordering dice, commander
# the commander layer (shared)
EV_INITIATIVE, EV_PASS, EV_COMMANDER_TACTICIAN = 20, 23, 24

# what each event's fields a..h mean: TRACE_EVENTS[code] = (name, the names of its fields in
# order, from column TR_A); a slot past the names, or one named "_", is written 0. The EPIC kernels
# (EPIC 1-4 a side and the standard game) write TRACE_EVENTS, La Grande Battles's write
# TRACE_EVENTS_LGB: its own codes, and some shared codes with fields of its own. Cards are card
# types (the last one: none, or a card nullified); sections and wings 0 left, 1 centre, 2 right;
# a score is 1000 times the policy's score.
TRACE_EVENTS = {
    # the turn's header; its hand from TR_HAND (hand_cards of them), its rack from TR_RACK
    EV_TURN: ("turn", ("hand_size", "rack_cards", "e4", "hand_cards", "squares", "tactician_held",
                       "pile_cards", "discards")),
    # the cards played (P1): as drawn, where placed (a tactic card), what each plays as
    EV_CHOICE: ("choice", ("hand_card", "rack_card", "hand_place", "rack_place", "hand_plays_as",
                           "rack_plays_as", "score", "policy_kind")),
    EV_ORDERS: ("orders", ("nominal_l", "nominal_c", "nominal_r", "effective_l", "effective_c",
                           "effective_r", "march_units", "tactician_draws")),
    EV_DRAW: ("draw", ("card",)),
    EV_TACTICIAN: ("tactician", ("tactician_held",)),
    EV_ELAN: ("elan", ("pile_cards",)),
    EV_RESHUFFLE: ("reshuffle", ("pile_cards",)),
    EV_REFILL: ("refill", ("rack_cards", "rack_0", "rack_1", "rack_2", "rack_3", "rack_4")),
    EV_SQUARE: ("square", ("card",)),
    EV_UNSQUARE: ("unsquare", ("card",)),
    EV_FIRST_STRIKE: ("first_strike", ("card",)),
    EV_STARVED: ("starved", ()),
    EV_SCOUT: ("scout", ("kept", "discarded")),
    # target: 0 the hand card, 1 the rack card, 2 the turn's cards; section -1: none; roll -1:
    # not rolled; outcome G_OUT_*
    EV_G_ATTEMPT: ("guerrilla_attempt", ("target", "section", "target_effective", "roll",
                                         "outcome")),
    EV_G_GAIN: ("guerrilla_gain", ("section", "pool")),  # section 3: the CIC's counter
    # commander 0 the CIC, 1-3 a sub- or Corps commander; section: his (M6.2, M8.2)
    EV_INITIATIVE: ("initiative", ("commander", "die_1", "die_2", "ordered", "tactician_draws",
                                   "command_draws", "section")),
    EV_PASS: ("pass", ("card", "section")),  # the CIC's card his sub-commander plays (M4)
    EV_COMMANDER_TACTICIAN: ("commander_tactician", ("commander", "commander_held",
                                                     "tactician_held")),
    # a card that rolls its orders (D2): the card, the dice rolled (its Command), those showing an
    # ordering face; corps -1 in EPIC and the standard game, a Corps commander's wing in LGB
    EV_DICE: ("dice", ("card", "dice", "ordering", "corps")),
}
# corps: a Corps commander by his wing (0 left, 1 centre, 2 right); owner: a Corps commander's
# wing, or 3 the CIC; holder: 0 the CIC, or a Corps commander's wing + 1
TRACE_EVENTS_LGB = {
    **{code: TRACE_EVENTS[code] for code in (EV_TURN, EV_ORDERS, EV_DRAW, EV_ELAN, EV_RESHUFFLE,
                                             EV_REFILL, EV_STARVED, EV_DICE)},
    EV_SQUARE: ("square", ("card", "owner")),
    EV_UNSQUARE: ("unsquare", ("card", "owner")),
    EV_FIRST_STRIKE: ("first_strike", ("card", "holder")),
    EV_SCOUT: ("scout", ("kept", "given", "corps")),
    # second: 0 the first card the French wing played, 1 its second (E4)
    EV_G_ATTEMPT: ("guerrilla_attempt", ("second", "wing", "target_effective", "roll", "outcome")),
    EV_G_GAIN: ("guerrilla_gain", ("corps", "pool")),
    EV_INITIATIVE: ("initiative", ("corps", "die_1", "die_2", "ordered", "tactician_draws",
                                   "command_draws", "_", "blocks_lost")),
    EV_CORPS_HANDS: ("corps_hands", ("command_l", "command_c", "command_r", "tactician_l",
                                     "tactician_c", "tactician_r")),
    # the CIC's gifts (L2): each card, the Corps commander it goes to (-1: nobody), what it plays as
    EV_GIVE: ("give", ("hand_card", "rack_card", "hand_to", "rack_to", "hand_plays_as",
                       "rack_plays_as", "score", "policy_kind")),
    # source SRC_*; option 0 or 1 his left or right section (-1: none); nominal -1: the second
    # card of an E4 pair; effective_a and _b in his two sections
    EV_CORPS_PLAY: ("corps_play", ("corps", "source", "card", "plays_as", "option", "nominal",
                                   "effective_a", "effective_b")),
    EV_REJECT: ("reject", ("corps", "card")),
    EV_CORPS_DRAW: ("corps_draw", ("corps", "card")),
    EV_CORPS_TACTICIAN: ("corps_tactician", ("corps", "tactician_held")),
    # a Take Command's orders left, and those effective next to his wing (E7)
    EV_CORPS_REACH: ("corps_reach", ("corps", "orders_left", "into_left", "into_right")),
}
TRACE_FIELDS = TR_HAND - TR_A  # a..h

# ---------------------------------------------------------------- pair records rec_t[s, c, a, b, REC]
# one cache line (napsim.sim.tables.pair_records): the number of tied best placements, those
# placements, then the orders of placement p at REC_ORD + 6 p + 3 w + section (w: 0 nominal,
# 1 effective; units left = section units - effective)
REC_K, REC_LIST, REC_ORD, REC_WIDTH = 0, 1, 10, 64
# pinned placements (D3, counter_attack_section = facing): a Counter-Attack copying a tactic card
# places it in one given section. Pin q = 3 w + y: card a (w 0) or card b (w 1) in section y;
# play_val[side, PIN_LAYER + q] is the best score under pin q, best_list[..., PIN_LIST + 4 q] the
# number of placements tied for it, followed by those placements (napsim.sim.tables._build)
N_PIN, PIN_LAYER, PIN_LIST = 6, 2, 9

# ---------------------------------------------------------------- EPIC scratch
# small counters st[ST] of one game (slices of one caller-owned array: no allocation)
ST_PILE_N, ST_DISC_N, ST_RACK_N = 0, 1, 2
ST_HAND_N, ST_SQ_N, ST_TAC = 3, 5, 7     # + side
ST_TAC_PILE, ST_TAC_DISC = 9, 10
ST_LAST_HAND = 11                        # + side: the card of his last hand card (Counter-Attack)
ST_NOMINAL = 13                          # + section: this turn's nominal orders
ST_LAST_RACK = 16                        # + side: the rack card of his last turn (R_CA_EITHER)
ST_LAST_HAND_P = 18                      # + side: where his last hand card was placed (R_CA_FACING)
ST_LAST_RACK_P = 20                      # + side: where his last rack card was placed
N_ST = 22
# res_scratch[RES, slot]: resolved hand and rack cards, tied pairs, the turn's card map (the card
# each type plays as), the Counter-Attack types, and what the lookahead's probes of a turn read
# (napsim.engine.lookahead): row RES_PROBE, slots PR_*
RES_HAND, RES_RACK, RES_TIES, RES_RMAP, RES_CA, RES_PROBE = 0, 1, 2, 3, 4, 5
N_RES = 6
# the last Scout draw's two cards and which one P2 keeps (K_FIRST or K_SECOND)
PR_SCOUT_A, PR_SCOUT_B, PR_SCOUT_KEEP = 0, 1, 2

# ---------------------------------------------------------------- La Grande Battles
# side configuration scfg[side, column]
S_HAND, S_CORPS_HAND, S_CORPS_TAC, S_G_RULE, S_FRENCH, S_SPAN, S_G_START = 0, 1, 4, 7, 8, 9, 12
N_SCFG = 15
# small counters st[LST] of one game
LST_PILE_N, LST_DISC_N, LST_RACK_N = 0, 1, 2
LST_HAND_N, LST_SQ_N = 3, 5              # + side
LST_TAC_PILE, LST_TAC_DISC = 7, 8
LST_LAST_HAND = 9                        # + side
LST_POOL = 11                            # the unacquired Guerrilla counters
LST_GONE = 12                            # spent counters out of play (spent_counters)
# the last Scout draw of the game from here, its slots PR_SCOUT_* (cardflow.scout_keep; the
# lookahead's probe reads them, napsim.engine.lookahead_lgb)
LST_SCOUT = 13
N_LST = 16
# per-turn plan pl[PL, Corps commander] (float64)
PL_OWN_BEST = 0      # the score of his best own card (-1e18: none)
PL_OWN_SLOT = 1      # its hand slot (-1: none)
PL_ALT = 2           # what he would do without a gift (P6: gifts score the gain over it)
PL_SOURCE = 3        # SRC_*: where the card he plays comes from
PL_CARD = 4          # the card as it plays (resolved; VOID once nullified)
PL_PHYS = 5          # the physical card
PL_OPT = 6           # the option it is played with
PL_CMD = 7           # the command (hand size) its tables are read at
PL_CARD2 = 8         # E4: a second gift, resolved (VOID: none)
PL_PHYS2 = 9         # its physical card
PL_OPT2 = 10         # its option
PL_CMD_DRAWS = 11    # Command cards he draws at the end of the turn
PL_TAC_DRAWS = 12    # Tactician cards he draws
PL_FREE_A = 13       # units of his left section that no card of his orders
PL_FREE_B = 14       # of his right section
PL_FREE = 15         # units of his he leaves unordered
N_PL = 16
# gsc[GSC, slot, Corps commander]: each CIC card's score per receiver, and its gain (P6); rows
# GSC_HAND_PAIR and GSC_RACK_PAIR hold the gain to a legal receiver, -inf to another, 0.0 for a card
# that plays as nothing (what the greedy search adds up); row GSC_BOUND holds, per hand card (column
# GB_HAND) and per rack card (GB_RACK), its best gain to any receiver
GSC_HAND, GSC_HAND_GAIN, GSC_RACK, GSC_RACK_GAIN, GSC_BOUND = 0, 1, 2, 3, 4
GSC_HAND_PAIR, GSC_RACK_PAIR = 5, 6
N_GSC = 7
GB_HAND, GB_RACK = 0, 1
# gres[GR, slot]: each CIC hand card (GR_HAND) and rack card (GR_RACK) as it plays, and the
# receivers it may go to (GR_HAND_OK, GR_RACK_OK: bit q for Corps commander q)
GR_HAND, GR_RACK, GR_HAND_OK, GR_RACK_OK = 0, 1, 2, 3
# the integer gift search (napsim.engine.lgb_gifts._greedy_int): per Corps commander q (column q),
# the swap threshold of his best own card, its score key and his alternative's key
GR_OWN_THR, GR_OWN_KEY, GR_ALT_KEY = 4, 5, 6
N_GR = 7
# the integer records grec[side, command, card type, GI] (napsim.engine.lgb_gifts.gift_records),
# + 2 q for Corps commander q: the card given by the CIC (its swap rank and score key), the card
# from his own hand (its swap threshold and score key); GI_OK (record [0, 0, 0] only): 1 when the
# integer search may play
GI_RANK, GI_KEY, GI_OWN_THR, GI_OWN_KEY = 0, 1, 6, 7
GI_OK = 12
N_GI = 16
# where a Corps commander's card comes from (PL_SOURCE; trace EV_CORPS_PLAY)
SRC_NONE, SRC_CIC, SRC_OWN, SRC_INITIATIVE, SRC_HOLD = -1, 0, 1, 2, 3
# why a Corps commander draws (tracefmt)
DRAW_SCOUT_GIFT, DRAW_STARS, DRAW_TWO_SABRES, DRAW_REPLACEMENT = 0, 1, 2, 3


# ------------------------------------------------------------ the chunk kernels' arguments and outputs
# what play_chunk and play_chunk_lgb return, in this order
CHUNK_OUTPUTS = (
    "totals",            # [side, metric]: metrics summed over the chunk
    "rows",              # [games or 0, side, metric]: per game when per_game
    "rack_wait",         # [kind, wait]: turns a rack card waited before it was played
    "guerrilla_turns",   # [offered/spent/nullified, turn]
    "commander_totals",  # [side, commander, CM]
    "commander_rows",    # [games or 0, side, commander, CM] (EPIC: none with one player a side)
    "tactician_turns",   # [side, turn]: Tactician cards held at the start of the side's turns
    "moments",           # [MO_*, side, column]: sums, squares, products with the turns per game
)


class EpicArgs(NamedTuple):
    """play_chunk's arguments between n and check (EPIC 1-4 a side and the standard game)."""

    standard: bool             # the standard one-card game (no Courier Rack)
    turns: np.int64            # turns a side (V1)
    first: np.int64            # the side that plays first
    hand0: np.ndarray          # [side] starting hand
    tac0: np.ndarray           # [side] starting Tactician cards (one player a side)
    sq_form: np.ndarray        # [side] chance a turn of forming a square (E11)
    sq_leave: np.ndarray       # [side] chance a turn of a square leaving
    pol: np.ndarray            # [side, P_*] policy parameters (napsim.model.policies)
    ctab: np.ndarray           # [card type, C_*] card table
    deck: np.ndarray           # [card] the card type of every card
    counts: np.ndarray         # [card type] cards of each type (the D6 check)
    best_val: np.ndarray       # [side, cmd, b, a]: PairTables.best_val transposed (sim.packing.solo_major)
    ca_src_t: np.ndarray       # [side, cmd, last hand card, last rack card]: what a Counter-Attack
    #                            copies (sim.packing.ca_sources)
    # best_val and the fields below: napsim.sim.tables.PairTables, the pair tables
    best_k: np.ndarray
    best_list: np.ndarray
    nom_t: np.ndarray
    eff_t: np.ndarray
    rem_t: np.ndarray
    n_place: np.ndarray
    place_list: np.ndarray
    e4_only: np.ndarray
    play_val: np.ndarray
    play_key: np.ndarray
    rec_t: np.ndarray          # [side, cmd, a, b, REC_*] pair records
    gcfg: np.ndarray           # [side, G_*] Guerrilla configuration
    players_a_side: np.int64   # players a side (1 for EPIC one a side and the standard game)
    cmd_sec: np.ndarray        # [side, section] the section's commander
    tac_start: np.ndarray      # [side, commander] starting Tactician cards
    units: np.ndarray          # [side, type, section]
    ropt: np.ndarray           # [R_*] rule options


class EpicGame(NamedTuple):
    """One EPIC game's mutable state as its turns see it, one argument of the turn's functions
    (numba passes a tuple flattened into its members: as cheap as the arrays one by one). Built
    once per block of games (napsim.engine.epic.game_of) over the arrays of epic.game_state, the
    small counters as views of st (layout ST_*), and the block's records."""

    rs: np.ndarray             # the game's random stream (napsim.engine.rng)
    pile: np.ndarray           # the draw pile (unordered, drawn at random)
    disc: np.ndarray           # the discards
    hand: np.ndarray           # [side, slot] the hands
    rack: np.ndarray           # the Courier Rack
    rack_t: np.ndarray         # the ply each rack card arrived
    sq: np.ndarray             # [side, slot] the Square Track
    scratch: np.ndarray        # [card type] the D6 check's counts
    res_scratch: np.ndarray    # [RES_*, slot] resolved cards, ties, card map, probes
    st: np.ndarray             # the small counters (the views below are its slices)
    gst: np.ndarray            # [side, G_*] Guerrilla state
    tacc: np.ndarray           # [side, commander] Tactician cards held
    met: np.ndarray            # [side, M_*] the game's metrics
    cmet: np.ndarray           # [side, commander, CM_*] per-commander metrics
    pn: np.ndarray             # cards in the draw pile
    dn: np.ndarray             # discards
    rn: np.ndarray             # rack cards
    hn: np.ndarray             # [side] hand cards
    sqn: np.ndarray            # [side] cards on the Square Track
    tac: np.ndarray            # [side] Tactician cards held
    tac_pile: np.ndarray       # Tactician cards left to draw
    tac_disc: np.ndarray       # Tactician discards (NO_TACTICIAN_DECK: none in the game)
    last_hand: np.ndarray      # [side] his last hand card as it played (Counter-Attack)
    nominal: np.ndarray        # [section] this turn's nominal orders
    last_rack: np.ndarray      # [side] his last rack card as it played
    last_hand_p: np.ndarray    # [side] where his last hand card was placed
    last_rack_p: np.ndarray    # [side] where his last rack card was placed
    rmap: np.ndarray           # [card type] the card each type plays as this turn
    wait_hist: np.ndarray      # [kind, wait] the block's rack waits
    tturn: np.ndarray          # [side, turn] the block's Tactician cards held per turn
    trace: np.ndarray          # [event, TRACE_WIDTH] the event log (no rows: none kept)
    tn: np.ndarray             # events logged


class Decisions(NamedTuple):
    """What a caller decides in a turn instead of the policies (the planning player, P8), one
    argument of the turn of every format: the card choice (hand slot, or CHOOSE: the policy's), its
    rack slot and where the cards go (EPIC: the placement code of both cards in `place`; La Grande
    Battles: the receivers of the hand and the rack card), the Spanish spend (G_*), the Scout keep
    (K_*) and where a rollout deals the unseen cards again (RD_*, napsim.engine.unseen)."""

    hand: np.int64             # the hand slot (CHOOSE: the policy's choice)
    rack: np.int64             # the rack slot (-1: none)
    place: np.int64            # EPIC: the placement code; LGB: the hand card's receiver
    place_b: np.int64          # LGB: the rack card's receiver (EPIC: unused, -1)
    spend: np.int64            # the Spanish spend (G_*; G_POLICY: P4's)
    keep: np.int64             # the Scout keep (K_*; K_POLICY: P2's)
    redeal: np.int64           # where a rollout deals unseen cards again (napsim.engine.unseen)


class TurnOps(NamedTuple):
    """A format's turn as the planner drives it (napsim.engine.planner): jitted functions of the
    format's planned kernel (napsim.engine.lookahead, napsim.engine.lookahead_lgb)."""

    copy: object               # (gm, wgm): the game's state into the rollout game
    choice_point: object       # (ply, tab, ctx, wgm) -> (choice, point): the turn up to its card choice
    turn: object               # (ply, streams, dec, tab, ctx, gm, check): one turn with Decisions dec
    streams: object            # (switch, rs, rs2) -> the turn's streams: rs before the switch, rs2 after
    switch: object             # (step) -> (stream switch, unseen deal point RD_*) of a decision's rollouts
    own_hidden: object         # (p, pol) -> whether p's rollouts deal his own Corps hands again too
    candidates: object         # (p, choice, point, dkey, tab, wgm, cand, cscore) -> n: the card choice's
    scout_record: object       # (wgm) -> the last Scout draw's two cards and P2's keep (PR_SCOUT_*)
    spend_planned: object      # (s, o, tab, gm) -> whether the Spanish side o plans its spend


class Plan(NamedTuple):
    """The planner's scratch (napsim.engine.planner): the rollouts' tables, game, stream, candidates."""

    tab_roll: object           # the rollouts' tables: tab with greedy policies on both sides
    work: object               # the rollouts' game (EpicGame or LgbGame)
    rs2: np.ndarray            # [2] the rollout stream
    cand: np.ndarray           # [candidate, N_CAND] hand slot, rack slot, place, place_b, code, decision
    cscore: np.ndarray         # [candidate] their greedy order
    cval: np.ndarray           # [candidate] their values
    cvals: np.ndarray          # [candidate, rollout] each rollout's value (the race search)
    fair: object               # True: a side plans fair (the turn deals unseen cards); None: none does


class LgbArgs(NamedTuple):
    """play_chunk_lgb's arguments between n and check (La Grande Battles)."""

    turns: np.int64            # turns a side (V1)
    first: np.int64            # the side that plays first
    scfg: np.ndarray           # [side, S_*] side configuration
    sqp: np.ndarray            # [side, (form, leave)] square chances (L8)
    pol: np.ndarray            # [side, P_*] policy parameters (napsim.model.policies)
    ctab: np.ndarray           # [card type, C_*] card table
    deck: np.ndarray           # [card] the card type of every card
    counts: np.ndarray         # [card type] cards of each type (the D6 check)
    nom_t: np.ndarray          # napsim.sim.tables_lgb.LgbTables
    eff_t: np.ndarray
    rem_t: np.ndarray
    val_t: np.ndarray
    best_t: np.ndarray
    bopt_t: np.ndarray
    units: np.ndarray          # [side, type, section] on six sections
    g_pool0: np.int64          # the unacquired Guerrilla counters at the start
    ropt: np.ndarray           # [R_*] rule options


# ---------------------------------------------------------------- La Grande Battles bundles
# The LGB kernels pass a few bundles instead of long argument lists (numba passes a tuple argument
# flattened into its members: a bundle costs nothing at run time): the read-only tables `tab`
# (LgbArgs above), a game's mutable state `gm` (LgbGame), the records of a chunk's blocks
# (LgbBlockOut); the caller's decisions of a turn (Decisions) and the planner's scratch (Plan) are
# shared with EPIC.

class LgbGame(NamedTuple):
    """One La Grande Battles game's mutable state (napsim.engine.lgb.lgb_game builds it from
    lgb_state's arrays): its stream, metrics, cards and counters, the views of st, and the records
    of the block it plays in."""

    rs: np.ndarray             # [2] the game's stream (napsim.engine.rng)
    met: np.ndarray            # [side, M_*] metrics
    cmet: np.ndarray           # [side, commander, CM_*] per-commander metrics
    pile: np.ndarray           # [card] draw pile
    disc: np.ndarray           # [card] discards
    hand: np.ndarray           # [side, slot] the CICs' hands
    chand: np.ndarray          # [side, Corps commander, slot] the Corps commanders' hands
    rack: np.ndarray           # [slot] the Courier Rack
    rack_t: np.ndarray         # [slot] the ply each rack card arrived
    sq: np.ndarray             # [side, slot] cards on the Square Track
    sq_own: np.ndarray         # [side, slot] their owners (3: the CIC)
    scratch: np.ndarray        # [card type] the D6 check's counts
    pl: np.ndarray             # [PL_*, Corps commander] the turn's plan
    gsc: np.ndarray            # [GSC_*, slot, receiver] the CIC's gift scores
    res: np.ndarray            # [GR_*, slot] resolved gifts and integer keys
    st: np.ndarray             # [LST_*] the small per-game counters (the views below)
    cn: np.ndarray             # [side, Corps commander] Corps hand sizes
    tac: np.ndarray            # [side, Corps commander] Tactician cards held
    gst: np.ndarray            # [side, Corps commander] Guerrilla counters held
    pn: np.ndarray             # st views (napsim.engine.lgb._lst_views): draw pile size
    dn: np.ndarray             # discards
    rn: np.ndarray             # rack
    hn: np.ndarray             # [side] CIC hands
    sqn: np.ndarray            # [side] Square Tracks
    tac_pile: np.ndarray       # Tactician pile
    tac_disc: np.ndarray       # Tactician discards
    last_hand: np.ndarray      # [side] each side's last hand card (D8)
    pool: np.ndarray           # [unacquired, out of play] Guerrilla counters
    wait_hist: np.ndarray      # [kind, turns waited] the block's rack waits
    g_turn: np.ndarray         # [GT_*, turn] the block's Guerrilla per turn
    tac_turn: np.ndarray       # [side, turn] the block's Tactician cards held per turn
    trace: np.ndarray          # [event, TRACE_WIDTH] the trace buffer (0 rows: none)
    tn: np.ndarray             # [1] events written


class LgbBlockOut(NamedTuple):
    """The records a chunk's blocks add into, one row per block (napsim.engine.lgb.chunk_on_lgb)."""

    mom_b: np.ndarray          # [block, MO_*, side, column] moments of the per-game columns
    rows: np.ndarray           # [game or 0, side, M_*] per-game metrics
    wait_b: np.ndarray         # [block, kind, turns waited] rack waits
    gturn_b: np.ndarray        # [block, GT_*, turn] Guerrilla per turn
    cmet_b: np.ndarray         # [block, side, commander, CM_*] per-commander metrics
    crows: np.ndarray          # [game or 0, side, commander, CM_*] per-game commander metrics
    tturn_b: np.ndarray        # [block, side, turn] Tactician cards held per turn
