"""The commander layer of the multi-player formats (docs/rules.md, M, L): per-commander metric slots and
the initiative roll, shared by the EPIC kernel (2-4 a side) and the La Grande Battles kernel.

Commander 0 is the Commander in Chief; 1-3 are the sub-commanders (EPIC 2 and 3 a side) or the
Corps commanders (EPIC 4 a side: left, centre, right section; LGB: left, centre, right wing).
"""

from numba import njit

from napsim.engine.rng import battle_die

N_COMMANDERS = 4
# per-commander metric slots cmet[side, commander, slot]
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

# trace events of the commander layer (engine.lgb uses 16-22, these are shared)
EV_INITIATIVE, EV_PASS, EV_COMMANDER_TACTICIAN = 20, 23, 24

# battle die faces (D5): 0-1 infantry, 2 cavalry, 3 artillery, 4 flag, 5 sabre
FACE_SYMBOL = (0, 0, 1, 2, 3, 4)


@njit(cache=True, inline="always")
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
        if sym1 == 4:
            cm[CM_TWO_SABRES] += 1
    if lgb and sym1 == 4 and sym2 == 4:  # L6: two sabres: no block lost, draw a Command card
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
        elif sym == 3:
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
