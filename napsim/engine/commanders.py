"""The commander layer of the multi-player formats (docs/rules.md, M, L): the initiative roll, shared
by the EPIC kernel (2-4 a side) and the La Grande Battles kernel. The per-commander metric slots
CM_* live in napsim.engine.layout (re-exported here).

Commander 0 is the Commander in Chief; 1-3 are the sub-commanders (EPIC 2 and 3 a side) or the
Corps commanders (EPIC 4 a side: left, centre, right section; LGB: left, centre, right wing).
"""

from numba import njit

from napsim.engine.layout import *  # noqa: F403  (re-exports CM_*, CM_NAMES, ... for napsim)
from napsim.engine.layout import (
    CM_BLOCKS_LOST,
    CM_DOUBLES,
    CM_FACE,
    CM_INIT,
    CM_INIT_CMD,
    CM_INIT_MARCH,
    CM_INIT_MELEE,
    CM_INIT_ORDERED,
    CM_INIT_TAC,
    CM_TWO_SABRES,
    SYM_FLAG,
    SYM_SABRE,
)
from napsim.engine.rng import battle_die


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
