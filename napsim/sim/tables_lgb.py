"""La Grande Battles tables: what one card does for one Corps commander (docs/rules.md L3-L5, L7).

In LGB the two cards the CIC hands out go to two different Corps commanders, so a card's value
depends only on (side, Corps commander, source, command, card type, option) and is evaluated once
per scenario. Source 0: given by the CIC (a section card orders across both of the receiver's
sections, E6 counts the CIC's hand); source 1: from the Corps commander's own hand (a Left card
orders his left section only, a Right card his right, a Center card one of the two; E6 counts his
own hand). Option: where the centre orders of a multi-section card go (L4: 0 his left, 1 his
right), which section a Center card from his own hand orders, or where Force March orders
infantry.

Take Command (E7, D3 take_command) orders across his two sections first. Reading of the LGB text
(the most literal one; the others are left for a rule option):
- only a Take Command given by the CIC reaches further: the LGB text allows the reach when the
  CIC gives the card, and from his own hand a tactic card orders in his two sections only (L5);
- it reaches the sections next to his two (E7): C1 for the left wing, L2 and R1 for the centre,
  C2 for the right wing, never a section two away nor a neighbour's far section;
- there it orders only units that their own Corps commander did not order this turn (with his
  cards, March Moves or initiative: a unit is ordered once), as evenly between L2 and R1 as those
  units allow. These effective orders count where the units stand (the neighbour's wing and
  section) and in the card_effective of the commander who played the card.
Not chosen: the reach from his own hand as well, a single further section only, a neighbouring
Corps' two sections, or any section. eff[..., 2] holds the orders left for those sections (at
most their units of the card's types); which of them find a unit is settled in the kernel. The
greedy scores (val, best) count his own two sections only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from napsim.engine import jit
from napsim.engine.jit import counted
from napsim.model.cards import CAP_ALL, CAP_CMD, CAP_NONE
from napsim.model.scenarios import Scenario
from napsim.sim.tables import (
    FILT_LED,
    KIND_MULTI,
    KIND_PLACED,
    KIND_SECTION,
    NEG,
    CardTable,
    _eligible,
    check_rolled_types,
    dice_probabilities,
    units_array,
)

SRC_CIC, SRC_OWN = 0, 1
N_OPT = 2


def units6_array(scenario: Scenario) -> np.ndarray:
    """[side, 4, 6]: infantry, cavalry, artillery, leaders in L1 L2 C1 C2 R1 R2."""
    return units_array(scenario, six=True)


@counted
def _split(n, cap_a, cap_b):
    """n orders over two sections as evenly as their units allow (effective per half)."""
    a = min(cap_a, max(n - cap_b, (n + 1) // 2))
    a = max(a, 0)
    b = min(cap_b, n - a)
    return a, max(b, 0)


@counted
def eval_corps_card(t, src, opt, cmd, units, k, kind, sec, orders, eq_cmd, cap, filt, fallback,
                    force_march, out):
    """Orders of card t for Corps commander k (sections 2k, 2k+1): out = [nominal, effective in
    his left section, effective in his right section]. Returns False when (src, opt) is not a
    legal way to play it (a CIC section card for another wing, a second option that does not
    exist)."""
    xa = 2 * k
    xb = 2 * k + 1
    tot_a = units[0, xa] + units[1, xa] + units[2, xa] + units[3, xa]
    tot_b = units[0, xb] + units[1, xb] + units[2, xb] + units[3, xb]
    out[0] = 0
    out[1] = 0
    out[2] = 0
    kd = kind[t]
    if kd == KIND_SECTION:
        n = cmd if eq_cmd[t] == 1 else orders[t, sec[t]]
        out[0] = n
        led = filt[t] == FILT_LED  # a leader's card: no leader where it orders, one unit at most
        if src == SRC_CIC:
            if sec[t] != k or opt != 0:
                return False
            if led and units[3, xa] + units[3, xb] == 0:
                n = min(n, fallback[t])
            out[1], out[2] = _split(n, tot_a, tot_b)
            return True
        side = 0 if sec[t] == 0 else (1 if sec[t] == 2 else opt)
        if sec[t] != 1 and opt != 0:
            return False
        if led and units[3, xa if side == 0 else xb] == 0:
            n = min(n, fallback[t])
        if side == 0:
            out[1] = min(n, tot_a)
        else:
            out[2] = min(n, tot_b)
        return True
    if kd == KIND_MULTI:
        if opt == 1 and orders[t, 1] == 0:
            return False
        na = orders[t, 0] + (orders[t, 1] if opt == 0 else 0)
        nb = orders[t, 2] + (orders[t, 1] if opt == 1 else 0)
        out[0] = na + nb
        out[1] = min(na, tot_a)
        out[2] = min(nb, tot_b)
        return True
    if kd == KIND_PLACED:
        c = cap[t]
        if force_march[t] == 1:  # infantry in one of his two sections
            x = xa if opt == 0 else xb
            elig = _eligible(units, filt[t], x)
            n = cmd if c == CAP_CMD else (elig if c == CAP_ALL else (0 if c == CAP_NONE else c))
            if elig == 0 and fallback[t] == 2:
                n = 1  # D2: a rolled card finding none of its units orders the unit of choice
            out[0] = n
            e = min(n, elig)
            if elig == 0 and fallback[t] >= 1 and n > 0 and (tot_a if opt == 0 else tot_b) > 0:
                e = 1
            out[1 + opt] = e
            return True
        if opt != 0:
            return False
        ea = _eligible(units, filt[t], xa)
        eb = _eligible(units, filt[t], xb)
        n = cmd if c == CAP_CMD else (ea + eb if c == CAP_ALL else (0 if c == CAP_NONE else c))
        if ea + eb == 0 and fallback[t] == 2:
            n = 1  # D2: a rolled card finding none of its units orders the unit of choice
        out[0] = n
        if ea + eb == 0:
            if fallback[t] >= 1 and n > 0 and tot_a + tot_b > 0:
                out[1 if tot_a > 0 else 2] = 1
            return True
        out[1], out[2] = _split(min(n, ea + eb), ea, eb)
        return True
    return opt == 0  # VOID or a card with no orders of its own


@counted
def _corps_score(t, out, total, w, policy, stars, tdraw, scout):
    """P6: the greedy score of card t for a Corps commander with effective orders out[1] + out[2]
    of his `total` units: weighted orders, Tactician and Scout bonuses, expected stars (L7)."""
    march_bonus, tac_bonus, scout_bonus, march_prob = policy[4], policy[5], policy[6], policy[9]
    v = w * (out[1] + out[2]) + tac_bonus * tdraw[t] + scout_bonus * scout[t]
    if stars[t] > 0:
        avail = min(3, total - out[1] - out[2])
        if avail > 0:  # L7: March Move, or else a Command and a Tactician card
            v += march_prob * march_bonus * avail + (1 - march_prob) * 2 * tac_bonus
        else:
            v += 2 * tac_bonus
    return v


@njit(cache=True)
def _build_lgb(units, cmax, policy, kind, sec, orders, eq_cmd, cap, filt, fallback, force_march,
               stars, tdraw, scout, nom, eff, rem, val, best, bopt, take_command, dice_var, dice_p):
    n_types = kind.shape[0]
    out = np.zeros(3, np.int64)
    out_d = np.zeros(3, np.int64)
    for k in range(3):
        w = policy[1 + k]
        tot_a = units[0, 2 * k] + units[1, 2 * k] + units[2, 2 * k] + units[3, 2 * k]
        tot_b = units[0, 2 * k + 1] + units[1, 2 * k + 1] + units[2, 2 * k + 1] + units[3, 2 * k + 1]
        for src in range(2):
            for c in range(cmax + 1):
                for t in range(n_types):
                    b = NEG
                    bo = 0
                    for opt in range(N_OPT):
                        ok = eval_corps_card(t, src, opt, c, units, k, kind, sec, orders, eq_cmd,
                                             cap, filt, fallback, force_march, out)
                        nom[k, src, c, t, opt] = out[0]
                        eff[k, src, c, t, opt, 0] = out[1]
                        eff[k, src, c, t, opt, 1] = out[2]
                        rem[k, src, c, t, opt, 0] = tot_a - out[1]
                        rem[k, src, c, t, opt, 1] = tot_b - out[2]
                        if ok and src == SRC_CIC and take_command[t] == 1:  # E7 (module docstring)
                            near = _eligible(units, filt[t], 2 * k - 1) if k > 0 else 0
                            near += _eligible(units, filt[t], 2 * k + 2) if k < 2 else 0
                            eff[k, src, c, t, opt, 2] = max(0, min(out[0] - out[1] - out[2], near))
                        if not ok:
                            val[k, src, c, t, opt] = NEG
                            continue
                        v = _corps_score(t, out, tot_a + tot_b, w, policy, stars, tdraw, scout)
                        if dice_var[t] >= 0:  # D2: a rolled card scores the expectation of its roll
                            v = 0.0
                            for kd in range(c + 1):
                                eval_corps_card(dice_var[t] + kd, src, opt, c, units, k, kind, sec,
                                                orders, eq_cmd, cap, filt, fallback, force_march,
                                                out_d)
                                v += dice_p[c, kd] * _corps_score(dice_var[t] + kd, out_d,
                                                                  tot_a + tot_b, w, policy, stars,
                                                                  tdraw, scout)
                        val[k, src, c, t, opt] = v
                        if v > b + 1e-9:
                            b = v
                            bo = opt
                    best[k, src, c, t] = b
                    bopt[k, src, c, t] = bo


@dataclass(frozen=True)
class LgbTables:
    """Per side: [side, corps, source, command, type, option(, half)] (see module docstring)."""

    nom: np.ndarray    # nominal orders
    eff: np.ndarray    # effective orders in his left and right section; [..., 2] Take Command's reach
    rem: np.ndarray    # units left unordered in his left and right section
    val: np.ndarray    # greedy score, NEG when illegal
    best: np.ndarray   # [side, corps, source, command, type] best score over options
    bopt: np.ndarray   # its option (the lowest on ties)
    units: np.ndarray  # [side, 4, 6]


def lgb_tables(cards: CardTable, force_march: np.ndarray, units: np.ndarray, cmax: int,
               policies: np.ndarray, dry: bool = False) -> LgbTables:
    """Evaluate every (Corps commander, source, command, card, option) for both sides; `dry` as
    in napsim.sim.tables.pair_tables (shapes and types only)."""
    t = len(cards.names)
    nom = np.zeros((2, 3, 2, cmax + 1, t, N_OPT), np.int64)
    eff = np.zeros((*nom.shape, 3), np.int64)
    rem = np.zeros((*nom.shape, 2), np.int64)
    val = np.zeros(nom.shape, np.float64)
    best = np.zeros(nom.shape[:-1], np.float64)
    bopt = np.zeros(nom.shape[:-1], np.int64)
    check_rolled_types(cards, cmax)
    dice_p = dice_probabilities(int(cards.dice.max(initial=0)), cmax)
    for s in range(0 if dry else 2):
        _build_lgb(units[s], cmax, policies[s], cards.kind, cards.sec, cards.orders, cards.eq_cmd,
                   cards.cap, cards.filt, cards.fallback, force_march, cards.stars, cards.tdraw,
                   cards.scout, nom[s], eff[s], rem[s], val[s], best[s], bopt[s], cards.take_command,
                   cards.dice_var, dice_p)
    return LgbTables(nom, eff, rem, val, best, bopt, units)


jit.check_cache_folder(globals())  # its cached kernels live in this version's cache folder
