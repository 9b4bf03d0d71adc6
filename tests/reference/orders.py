"""The order arithmetic of one EPIC turn, written from the rules (RULES.md S2, E3, E5, E6, E7; the
deck file's cap, unit_filter, fallback and take_command columns; docs/rules.md's fixed readings)
without reading napsim.sim.tables, so that an error in the kernel's pair tables cannot hide in the
reference engines too. Slow and plain: counts per section in Python lists.

A section's units are [infantry, cavalry, artillery, leaders]. The readings used:
- a section card orders its number (or, equal to command, the hand size) of any units in its
  section; a multi-section card its fixed numbers in each section (E5: orders add up);
- a tactic card placed in a section orders up to its cap of the unit types it names there; with
  none of those types and the fallback mark it orders one unit of any type (S2). Leadership
  ("every leader and its unit") orders each leader and one unit with him;
- a section never has more effective orders than units (S2); the player gives the typed orders
  the units that fit them, so the section's effective orders are min(units, any-type orders +
  typed orders that found a unit);
- Take Command (and in the standard game, where a tactic card is not placed, every tactic card)
  is played after the other card: it orders units still unordered (E7: a unit takes one order),
  in its own section first, then the sections it reaches from left to right (E7 fixed reading);
  it reaches the sections next to its own, and in the standard game a tactic card without Take
  Command reaches every section; so does, in EPIC, a card the house rule tactic_reach =
  every_section lets order in every section (the card table's `reach` column).
"""

from __future__ import annotations

from napsim.model.cards import CAP_ALL, CAP_CMD, CAP_NONE
from napsim.sim.tables import (
    FILT_ANY,
    FILT_ART,
    FILT_CAV,
    FILT_CAV_LEADER,
    FILT_INF,
    FILT_INF_ART,
    FILT_LEADER,
    FILT_LED,
    KIND_MULTI,
    KIND_PLACED,
    KIND_SECTION,
)

INF, CAV, ART, LEADERS = range(4)
TYPES = {FILT_INF: (INF,), FILT_CAV: (CAV,), FILT_ART: (ART,), FILT_INF_ART: (INF, ART),
         FILT_ANY: (INF, CAV, ART, LEADERS), FILT_CAV_LEADER: (CAV, LEADERS),
         FILT_LED: (INF, CAV, ART, LEADERS)}


def eligible(units, filt: int, x: int) -> int:
    """Units of section x (units[type][section]) that a tactic card with unit filter `filt` may
    order; Leadership: every leader and one unit with him."""
    if filt == FILT_LEADER:
        leaders = int(units[LEADERS][x])
        others = int(units[INF][x] + units[CAV][x] + units[ART][x])
        return leaders + min(leaders, others)
    if filt == FILT_LED and int(units[LEADERS][x]) == 0:
        return 0  # the units under a leader's command: none without a leader
    return sum(int(units[k][x]) for k in TYPES[filt])


def tactic_orders(cap: int, command: int, found: int) -> int:
    """Nominal orders of a tactic card: its number, the hand size ('cmd'), every unit it may order
    ('all', `found` of them) or none ('-')."""
    if cap == CAP_CMD:
        return command
    if cap == CAP_ALL:
        return found
    if cap == CAP_NONE:
        return 0
    return cap


def pair_orders(cards, units, played: list[tuple[int, int]], command: int, standard: bool
                ) -> tuple[list[int], list[int], list[int]]:
    """(nominal, effective, unordered units) per section L, C, R when the cards `played` = [(card,
    placement section), ...] give their orders together; `cards` is a napsim CardTable (columns
    only), `units` [type][section], `command` the hand size at the start of the turn (E6)."""
    total = [sum(int(units[k][x]) for k in range(4)) for x in range(3)]
    nominal = [0, 0, 0]
    any_type = [0, 0, 0]   # orders any unit may take: section and multi-section cards
    typed = [0, 0, 0]      # orders of a tactic card placed in the section that found a unit
    reaching = []          # Take Command, and every tactic card of the standard game: played last
    for t, p in played:
        kind = cards.kind[t]
        if kind == KIND_SECTION:
            x = int(cards.sec[t])
            n = command if cards.eq_cmd[t] == 1 else int(cards.orders[t, x])
            nominal[x] += n
            if cards.filt[t] == FILT_LED and int(units[LEADERS][x]) == 0:
                n = min(n, int(cards.fallback[t]))  # a leader's card without a leader there
            any_type[x] += n
        elif kind == KIND_MULTI:
            for x in range(3):
                nominal[x] += int(cards.orders[t, x])
                any_type[x] += int(cards.orders[t, x])
        elif kind == KIND_PLACED:
            if cards.take_command[t] == 1 or standard or cards.reach[t] == 1:
                reaching.append((t, p))
                continue
            found = eligible(units, cards.filt[t], p)
            n = tactic_orders(int(cards.cap[t]), command, found)
            if found == 0 and cards.fallback[t] == 2:
                n = 1  # D2: a rolled card with none of its units there: the one unit of choice
            nominal[p] += n
            if found == 0 and cards.fallback[t] >= 1 and n > 0:
                typed[p] += 1  # S2: one unit of the player's choice
            else:
                typed[p] += min(n, found)
    effective = [min(total[x], any_type[x] + typed[x]) for x in range(3)]
    unordered = [total[x] - effective[x] for x in range(3)]
    for t, p in reaching:
        if (standard or cards.reach[t] == 1) and cards.take_command[t] == 0:
            reach = [0, 1, 2]
        else:
            reach = [x for x in range(3) if abs(x - p) <= 1]
        found = {x: eligible(units, cards.filt[t], x) for x in reach}
        n = tactic_orders(int(cards.cap[t]), command, sum(found.values()))
        fallback = sum(found.values()) == 0
        if fallback and cards.fallback[t] == 2:
            n = 1  # D2: a rolled card with none of its units in reach: the one unit of choice
        nominal[p] += n
        if fallback:
            n = 1 if cards.fallback[t] >= 1 and n > 0 else 0
        for x in [p] + [x for x in reach if x != p]:
            free = unordered[x] if fallback else min(unordered[x], found[x])
            took = min(n, free)
            effective[x] += took
            unordered[x] -= took
            n -= took
    return nominal, effective, unordered


def _share(n: int, room_a: int, room_b: int) -> tuple[int, int]:
    """n orders over a Corps commander's two sections one at a time, his left first and then
    turn about, each to a section with a unit still free (L3: as evenly as the units allow)."""
    a = b = 0
    turn = 0
    while n > 0 and (a < room_a or b < room_b):
        if (turn == 0 and a < room_a) or b >= room_b:
            a += 1
        else:
            b += 1
        n -= 1
        turn = 1 - turn
    return a, b


def corps_card_orders(cards, units6, t: int, from_cic: bool, option: int, command: int,
                      corps: int, force_march) -> tuple[int, int, int] | None:
    """La Grande Battles: (nominal, effective in his left section, effective in his right) when
    Corps commander `corps` (0 left wing, 1 centre, 2 right) plays card type t given by the CIC
    (`from_cic`) or from his own hand, with `option` (L4: where a multi-section card's centre
    orders go, which of his sections an own Center card or a Force March orders: 0 left, 1 right);
    None when that is not a legal way to play it. `units6` is [type][section of six]. Written from
    docs/rules.md L3-L5 without reading napsim.sim.tables_lgb."""
    left, right = 2 * corps, 2 * corps + 1
    units_l = sum(int(units6[k][left]) for k in range(4))
    units_r = sum(int(units6[k][right]) for k in range(4))
    kind = cards.kind[t]
    if kind == KIND_SECTION:
        wing = int(cards.sec[t])  # 0 Left, 1 Center, 2 Right card
        n = command if cards.eq_cmd[t] == 1 else int(cards.orders[t, wing])
        led = cards.filt[t] == FILT_LED  # a leader's card: one unit at most without a leader
        if from_cic:  # L3: the CIC gives a section card to that wing's commander; it orders both
            if wing != corps or option != 0:
                return None
            reach = n
            if led and int(units6[LEADERS][left]) + int(units6[LEADERS][right]) == 0:
                reach = min(n, int(cards.fallback[t]))
            a, b = _share(reach, units_l, units_r)
            return n, a, b
        if wing != 1 and option != 0:  # from his own hand: Left and Right cards have one place
            return None
        to_right = wing == 2 or (wing == 1 and option == 1)
        reach = n
        if led and int(units6[LEADERS][right if to_right else left]) == 0:
            reach = min(n, int(cards.fallback[t]))
        return (n, 0, min(reach, units_r)) if to_right else (n, min(reach, units_l), 0)
    if kind == KIND_MULTI:
        centre = int(cards.orders[t, 1])
        if option == 1 and centre == 0:
            return None
        n_l = int(cards.orders[t, 0]) + (centre if option == 0 else 0)
        n_r = int(cards.orders[t, 2]) + (centre if option == 1 else 0)
        return n_l + n_r, min(n_l, units_l), min(n_r, units_r)
    if kind == KIND_PLACED:
        cap = int(cards.cap[t])
        mark = cards.fallback[t] >= 1
        rolled = cards.fallback[t] == 2  # D2: a rolled card without its units is not rolled
        if force_march[t] == 1:  # one of his two sections, chosen by the option
            x, units_x = (left, units_l) if option == 0 else (right, units_r)
            found = eligible(units6, int(cards.filt[t]), x)
            n = 1 if found == 0 and rolled else tactic_orders(cap, command, found)
            eff = 1 if found == 0 and mark and n > 0 and units_x > 0 else min(n, found)
            return (n, eff, 0) if option == 0 else (n, 0, eff)
        if option != 0:
            return None
        found_l = eligible(units6, int(cards.filt[t]), left)
        found_r = eligible(units6, int(cards.filt[t]), right)
        n = tactic_orders(cap, command, found_l + found_r)
        if found_l + found_r == 0 and rolled:
            n = 1  # D2: the one unit of his choice, whatever the dice
        if found_l + found_r == 0:  # S2: one unit of his choice only with the fallback mark
            if not (mark and n > 0 and units_l + units_r > 0):
                return n, 0, 0
            return (n, 1, 0) if units_l > 0 else (n, 0, 1)
        a, b = _share(min(n, found_l + found_r), found_l, found_r)
        return n, a, b
    return (0, 0, 0) if option == 0 else None  # no card, or a card with no orders of its own
