"""Python objects -> packed integer/float tables the kernels read (docs/architecture.md).

Card types become per-type arrays; one extra type, VOID, stands for "no card" (an empty rack or
hand, a First Strike played on its owner's turn, a Counter-Attack with nothing to copy). A card
that rolls its orders (the deck's `dice` mark, D2) adds one type per number of ordering dice,
0..dice_max, before VOID: the kernel rolls and plays the card as the type of its roll, and the
greedy scores of the card itself are the expectation over its roll. Every
(hand card, rack card, placement) outcome depends only on the two types, the command (hand size)
and the side's units, so it is evaluated once per scenario into pair tables indexed
[side, command, type a, type b, placement] (placement = 3 * section of a + section of b).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from napsim.engine import jit, layout
from napsim.engine.jit import counted
from napsim.model.cards import CAP_ALL, CAP_CMD, CAP_NONE, SECTIONS, UNIT_FILTERS, Deck
from napsim.model.policies import PARAMS
from napsim.model.scenarios import Scenario

KIND_SECTION, KIND_MULTI, KIND_PLACED, KIND_INERT = 0, 1, 2, 3
KIND_NAMES = ("section", "multi", "tactic", "other")
FILT_ANY, FILT_INF, FILT_CAV, FILT_ART, FILT_INF_ART, FILT_LEADER, FILT_CAV_LEADER, FILT_LED = range(8)
N_PLACE = 9
NEG = -1.0e9
N_PIN, PIN_LAYER, PIN_LIST = layout.N_PIN, layout.PIN_LAYER, layout.PIN_LIST  # see engine.layout


@dataclass(frozen=True)
class CardTable:
    """Per-type arrays of a deck, plus VOID at index n_types."""

    names: tuple[str, ...]
    kind: np.ndarray       # KIND_*
    sec: np.ndarray        # own section of a section card, else -1
    orders: np.ndarray     # [T, 3] fixed orders
    eq_cmd: np.ndarray
    cap: np.ndarray        # units, or CAP_CMD / CAP_ALL / CAP_NONE
    filt: np.ndarray       # FILT_*
    stars: np.ndarray
    tdraw: np.ndarray
    scout: np.ndarray
    elan: np.ndarray
    first_strike: np.ndarray
    counter: np.ndarray
    take_command: np.ndarray
    fallback: np.ndarray
    mirror: np.ndarray     # type of the left/right mirrored card (itself when symmetric)
    deck: np.ndarray       # one type per physical card
    reach: np.ndarray      # 1: a placed card orders in every section (a house rule), else 0
    dice: np.ndarray       # a card that rolls its orders: the die's ordering faces (of 6), else 0
    dice_var: np.ndarray   # its first rolled type (0 ordering dice; + k for k), else -1
    base: np.ndarray       # the deck's card type each type is (a rolled type's card; VOID itself)

    @property
    def void(self) -> int:
        return len(self.names) - 1


def card_table(deck: Deck, changes: dict[str, dict[str, int]] | None = None,
               dice_max: int = 0) -> CardTable:
    """Pack a deck into per-type arrays (with VOID appended). `changes` {card name: {column:
    value}}: the house rules in force (`napsim.model.house_rules.card_changes`), applied by name.
    `dice_max`: the largest Command a card that rolls its orders is rolled at (one rolled type per
    number of ordering dice 0..dice_max; napsim.sim.packing passes the tables' largest command)."""
    c = deck.cards
    n = len(c) + 1
    kind = np.full(n, KIND_INERT, np.int64)
    kind[:-1] = np.select(
        [c["kind"] == "section", c["kind"] == "multi",
         c["kind"].isin(["tactic", "troop", "leadership"])],
        [KIND_SECTION, KIND_MULTI, KIND_PLACED], KIND_INERT)
    sec = np.full(n, -1, np.int64)
    sec[:-1] = [SECTIONS.index(s) if s in SECTIONS and k == "section" else -1
                for s, k in zip(c["section"], c["kind"], strict=True)]
    # a leadership card bound to one section (Ancients "Inspired") is placed there only
    orders = np.zeros((n, 3), np.int64)
    orders[:-1] = c[["orders_l", "orders_c", "orders_r"]].to_numpy()

    def col(name, fill=0):
        a = np.full(n, fill, np.int64)
        a[:-1] = c[name].to_numpy()
        return a

    filt = np.zeros(n, np.int64)
    filt[:-1] = [UNIT_FILTERS.index(f) for f in c["unit_filter"]]
    cap = col("cap", CAP_NONE)
    mirror = np.arange(n, dtype=np.int64)
    names = list(c["name"]) + ["(none)"]
    for i in range(n - 1):
        if kind[i] == KIND_SECTION and sec[i] != 1:
            for j in range(n - 1):
                if (kind[j] == KIND_SECTION and sec[j] == 2 - sec[i]
                        and orders[j, sec[j]] == orders[i, sec[i]]
                        and c["equal_to_command"].iat[j] == c["equal_to_command"].iat[i]
                        and c["category"].iat[j] == c["category"].iat[i]):
                    mirror[i] = j
                    break
        elif kind[i] == KIND_MULTI and orders[i, 0] != orders[i, 2]:
            mirror[i] = i  # no asymmetric multi-section card is shipped; keep it as is
    marks = {k: col(k) for k in _MARKS}
    reach = np.zeros(n, np.int64)
    for i, name in enumerate(names[:-1]):  # the house rules in force, card by card
        for k, value in (changes or {}).get(name, {}).items():
            (reach if k == "reach" else marks[k])[i] = value
    dice = np.zeros(n, np.int64)
    dice[:-1] = np.where(c["dice"].to_numpy() == 1, deck.dice_order_faces, 0)
    table = CardTable(
        names=tuple(names), kind=kind, sec=sec, orders=orders, eq_cmd=col("equal_to_command"),
        cap=cap, filt=filt, stars=marks["stars"], tdraw=marks["tactician_draw"], scout=marks["scout"],
        elan=marks["elan"], first_strike=marks["first_strike"], counter=col("counter_attack"),
        take_command=col("take_command"), fallback=marks["fallback"], mirror=mirror,
        deck=deck.card_types(), reach=reach, dice=dice, dice_var=np.full(n, -1, np.int64),
        base=np.arange(n, dtype=np.int64),
    )
    rolled = np.flatnonzero(c["dice"].to_numpy() == 1)
    return _with_rolled_types(table, rolled, dice_max) if rolled.size else table


def _with_rolled_types(t: CardTable, rolled: np.ndarray, dice_max: int) -> CardTable:
    """The table with the rolled types of each card that rolls its orders (D2, the `dice` mark)
    inserted before VOID: the card with k ordering dice orders up to k units (cap k) where it
    orders up to Command; with its fallback mark it orders the one unit of choice wherever none
    of its units stands, whatever the roll (fallback 2: the card is then not rolled)."""
    per = dice_max + 1
    n_old = len(t.names)
    src = np.concatenate([np.arange(n_old - 1), np.repeat(rolled, per), [n_old - 1]])
    hits = np.concatenate([np.zeros(n_old - 1, np.int64), np.tile(np.arange(per), rolled.size),
                           [0]])
    new = np.arange(n_old - 1, n_old - 1 + rolled.size * per)
    arrays = {f.name: getattr(t, f.name)[src].copy() for f in dataclasses.fields(t)
              if f.name not in ("names", "deck")}
    arrays["cap"][new] = hits[new]
    arrays["eq_cmd"][new] = 0
    arrays["fallback"][new] = np.where(arrays["fallback"][new] == 1, 2, 0)
    arrays["dice"][new] = 0
    arrays["mirror"] = np.arange(len(src), dtype=np.int64)  # placed cards: their own mirror
    arrays["mirror"][: n_old - 1] = t.mirror[: n_old - 1]
    arrays["dice_var"][:] = -1
    arrays["dice_var"][rolled] = n_old - 1 + per * np.arange(rolled.size)
    arrays["base"] = np.where(src == n_old - 1, len(src) - 1, src)
    names = [*t.names[:-1], *(f"{t.names[i]} ({k} ordering {'die' if k == 1 else 'dice'})"
                              for i in rolled for k in range(per)), t.names[-1]]
    return CardTable(names=tuple(names), deck=t.deck, **arrays)


_MARKS = ("stars", "tactician_draw", "scout", "elan", "first_strike", "fallback")  # a house rule may set


def units_array(scenario: Scenario, six: bool = False) -> np.ndarray:
    """[side, 4, sections]: infantry, cavalry, artillery, leaders per section: the three EPIC
    sections, or with `six` the LGB sections L1 L2 C1 C2 R1 R2."""
    u = np.zeros((2, 4, 6 if six else 3), np.int64)
    for s, side in enumerate(scenario.sides):
        for x, sec in enumerate(side.lgb_sections if six else side.sections):
            u[s, :, x] = (sec.infantry, sec.cavalry, sec.artillery, sec.leaders)
    return u


@counted
def _eligible(units, filt, x):
    """Units in section x that a tactic with unit filter `filt` may order."""
    inf, cav, art, lead = units[0, x], units[1, x], units[2, x], units[3, x]
    if filt == FILT_INF:
        return inf
    if filt == FILT_CAV:
        return cav
    if filt == FILT_ART:
        return art
    if filt == FILT_INF_ART:
        return inf + art
    if filt == FILT_LEADER:
        return min(2 * lead, lead + inf + cav + art)
    if filt == FILT_CAV_LEADER:
        return cav + lead
    if filt == FILT_LED and lead == 0:
        return 0  # no leader in the section: nothing is under his command
    return inf + cav + art + lead


@counted
def _placed_section(kind, sec, t, p):
    """Section a card is placed in (E3): its own for section cards, p for tactics, else -1."""
    if kind[t] == KIND_SECTION:
        return sec[t]
    if kind[t] == KIND_PLACED:
        return p
    return -1


@counted
def eval_pair(ta, pa, tb, pb, cmd, units, kind, sec, orders, eq_cmd, cap, filt, take_command,
              fallback, reach, standard, nominal, eff, rem):
    """Nominal and effective orders per section of playing card a at pa and card b at pb (S2, E5,
    E6, E7). Fills nominal[3], eff[3], rem[3] (units left unordered). A card with reach 1 (a house
    rule) orders in every section, as a tactic card does in the standard game."""
    total = np.zeros(3, np.int64)
    any_orders = np.zeros(3, np.int64)
    tac_eff = np.zeros(3, np.int64)
    for x in range(3):
        total[x] = units[0, x] + units[1, x] + units[2, x] + units[3, x]
        nominal[x] = 0
    spread_t = -1
    spread_p = 0
    spread_t2 = -1
    spread_p2 = 0
    for k in range(2):
        t = ta if k == 0 else tb
        p = pa if k == 0 else pb
        kd = kind[t]
        if kd == KIND_SECTION:
            o = cmd if eq_cmd[t] == 1 else orders[t, sec[t]]
            nominal[sec[t]] += o
            if filt[t] == FILT_LED and units[3, sec[t]] == 0:
                o = min(o, fallback[t])  # no leader there: one unit of choice (fallback) or none
            any_orders[sec[t]] += o
        elif kd == KIND_MULTI:
            for x in range(3):
                any_orders[x] += orders[t, x]
                nominal[x] += orders[t, x]
        elif kd == KIND_PLACED:
            if take_command[t] == 1 or standard or reach[t] == 1:
                if spread_t < 0:
                    spread_t, spread_p = t, p
                else:
                    spread_t2, spread_p2 = t, p
                continue
            elig = _eligible(units, filt[t], p)
            c = cap[t]
            n = cmd if c == CAP_CMD else (elig if c == CAP_ALL else (0 if c == CAP_NONE else c))
            if elig == 0 and fallback[t] == 2:
                n = 1  # D2: a rolled card finding none of its units orders the unit of choice
            nominal[p] += n
            e = min(n, elig)
            if elig == 0 and fallback[t] >= 1 and n > 0:
                e = 1
            tac_eff[p] += e
    for x in range(3):
        eff[x] = min(any_orders[x] + tac_eff[x], total[x])
        rem[x] = total[x] - eff[x]
    for k in range(2):
        t = spread_t if k == 0 else spread_t2
        p = spread_p if k == 0 else spread_p2
        if t < 0:
            continue
        c = cap[t]
        reach_all = (standard or reach[t] == 1) and take_command[t] == 0
        elig_all = 0
        for x in range(3):
            if reach_all or abs(x - p) <= 1:
                elig_all += _eligible(units, filt[t], x)
        n = cmd if c == CAP_CMD else (elig_all if c == CAP_ALL else (0 if c == CAP_NONE else c))
        if elig_all == 0 and fallback[t] == 2:
            n = 1  # D2: a rolled card finding none of its units orders the unit of choice
        nominal[p] += n
        left = n
        if elig_all == 0:  # S2: none of its types in reach: one unit only with the fallback mark
            left = 1 if fallback[t] >= 1 and n > 0 else 0
        # take units from the placement section first, then its neighbours left to right
        for step in range(4):
            if step == 0:
                x = p
            else:
                x = step - 1
                if x == p:
                    continue
            if not (reach_all or abs(x - p) <= 1):
                continue
            room = min(rem[x], _eligible(units, filt[t], x)) if elig_all > 0 else rem[x]
            took = min(left, room)
            eff[x] += took
            rem[x] -= took
            left -= took


@counted
def _legal_placements(kind, sec, ta, tb, standard, out):
    """Legal placements of (a, b) into out; returns (count, e4_only)."""
    n = 0
    ra = 3 if kind[ta] == KIND_PLACED else 1
    rb = 3 if kind[tb] == KIND_PLACED else 1
    e4_only = False
    for pa in range(ra):
        for pb in range(rb):
            sa = _placed_section(kind, sec, ta, pa)
            sb = _placed_section(kind, sec, tb, pb)
            if sa >= 0 and sa == sb and not standard:
                if kind[ta] == KIND_SECTION and kind[tb] == KIND_SECTION:
                    e4_only = True  # E4: only when hand and rack are all this section
                else:
                    continue
            out[n] = pa * 3 + pb
            n += 1
    return n, e4_only


@counted
def _kept_cards(kind, sec, ta, pa, tb, pb, forbid, void):
    """The two cards as they give orders: under cic_keeps = one (M6.1, `forbid` >= 0 the CIC's
    section) a card placed in the CIC's section beside a multi-section card goes to a
    sub-commander who cannot order there, so it plays as nothing (the kernel does the same). Two
    multi-section cards are no legal pair there at all (_build): both would be the CIC's, and a
    multi-section card is never passed on (M4)."""
    if forbid >= 0:
        if kind[ta] == KIND_MULTI and _placed_section(kind, sec, tb, pb) == forbid:
            return ta, void
        if kind[tb] == KIND_MULTI and _placed_section(kind, sec, ta, pa) == forbid:
            return void, tb
    return ta, tb


@counted
def _pair_score(ea, pa, eb, pb, eff, rem, policy, kind, sec, stars, tdraw, scout):
    """P1: the greedy score of cards a at pa and b at pb given their effective orders and the
    units they leave unordered: weighted orders, Tactician and Scout bonuses, expected stars."""
    march_bonus, tac_bonus, scout_bonus, march_prob = policy[4], policy[5], policy[6], policy[9]
    v = policy[1] * eff[0] + policy[2] * eff[1] + policy[3] * eff[2]
    v += tac_bonus * (tdraw[ea] + tdraw[eb])
    if scout[ea] == 1 or scout[eb] == 1:
        v += scout_bonus
    r0, r1, r2 = rem[0], rem[1], rem[2]
    for ks in range(2):
        t = ea if ks == 0 else eb
        if stars[t] == 0:
            continue
        s = _placed_section(kind, sec, t, pa if ks == 0 else pb)
        avail = 0
        if s >= 0:
            avail = min(3, r0 if s == 0 else (r1 if s == 1 else r2))
        if avail > 0:
            v += march_prob * march_bonus * avail + (1 - march_prob) * tac_bonus
            if s == 0:
                r0 -= avail
            elif s == 1:
                r1 -= avail
            else:
                r2 -= avail
        else:
            v += tac_bonus
    return v


def check_rolled_types(cards: CardTable, cmax: int) -> None:
    """The tables read a rolled card's types up to `cmax` ordering dice: the card table must have
    them (card_table's dice_max), or the builders would read past them."""
    first = cards.dice_var[cards.dice_var >= 0]
    if first.size:
        per = (len(cards.names) - 1 - int(first.min())) // first.size
        if per < cmax + 1:
            raise ValueError(f"the card table has rolled types up to {per - 1} dice; tables up to "
                             f"command {cmax} need card_table(..., dice_max={cmax})")


def dice_probabilities(faces: int, cmax: int) -> np.ndarray:
    """[command, k]: the chance that k of `command` battle dice show one of `faces` ordering faces
    of six (binomial; D2, a card that rolls its orders)."""
    q = faces / 6.0
    out = np.zeros((cmax + 1, cmax + 1), np.float64)
    for c in range(cmax + 1):
        for k in range(c + 1):
            out[c, k] = math.comb(c, k) * q ** k * (1.0 - q) ** (c - k)
    return out


@njit(cache=True)
def _build(units, cmax, policy, kind, sec, orders, eq_cmd, cap, filt, take_command, fallback, reach,
           stars, tdraw, scout, standard, forbid, best_val, best_k, best_list, nom_t, eff_t, rem_t, n_place,
           place_list, e4_only, pin_val, dice_var, dice_p):
    n_types = kind.shape[0]
    nominal = np.zeros(3, np.int64)
    eff = np.zeros(3, np.int64)
    rem = np.zeros(3, np.int64)
    nom_d = np.zeros(3, np.int64)
    eff_d = np.zeros(3, np.int64)
    rem_d = np.zeros(3, np.int64)
    buf = np.zeros(N_PLACE, np.int64)
    for ta in range(n_types):
        for tb in range(n_types):
            n, e4 = _legal_placements(kind, sec, ta, tb, standard, buf)
            if forbid >= 0 and kind[ta] == KIND_MULTI and kind[tb] == KIND_MULTI:
                n = 0  # cic_keeps = one (M6.1): both multi-section cards would be the CIC's
            n_place[ta, tb] = n
            e4_only[ta, tb] = e4
            for i in range(n):
                place_list[ta, tb, i] = buf[i]
            for c in range(cmax + 1):
                best = NEG
                k = 0
                for q in range(N_PIN):
                    pin_val[c, ta, tb, q] = NEG
                    best_list[c, ta, tb, PIN_LIST + 4 * q] = 0
                for i in range(n):
                    p = buf[i]
                    pa, pb = p // 3, p % 3
                    ea, eb = _kept_cards(kind, sec, ta, pa, tb, pb, forbid, n_types - 1)
                    eval_pair(ea, pa, eb, pb, c, units, kind, sec, orders, eq_cmd, cap, filt,
                              take_command, fallback, reach, standard, nominal, eff, rem)
                    for x in range(3):
                        nom_t[c, ta, tb, p, x] = nominal[x]
                        eff_t[c, ta, tb, p, x] = eff[x]
                        rem_t[c, ta, tb, p, x] = rem[x]
                    if dice_var[ea] >= 0 or dice_var[eb] >= 0:  # D2: the expectation over the roll
                        v = 0.0
                        for ka in range(c + 1 if dice_var[ea] >= 0 else 1):
                            for kb in range(c + 1 if dice_var[eb] >= 0 else 1):
                                va = dice_var[ea] + ka if dice_var[ea] >= 0 else ea
                                vb = dice_var[eb] + kb if dice_var[eb] >= 0 else eb
                                eval_pair(va, pa, vb, pb, c, units, kind, sec, orders, eq_cmd, cap,
                                          filt, take_command, fallback, reach, standard, nom_d,
                                          eff_d, rem_d)
                                prob = ((dice_p[c, ka] if dice_var[ea] >= 0 else 1.0)
                                        * (dice_p[c, kb] if dice_var[eb] >= 0 else 1.0))
                                v += prob * _pair_score(va, pa, vb, pb, eff_d, rem_d, policy, kind,
                                                        sec, stars, tdraw, scout)
                    else:
                        v = _pair_score(ea, pa, eb, pb, eff, rem, policy, kind, sec, stars, tdraw,
                                        scout)
                    if v > best + 1e-9:
                        best = v
                        k = 0
                    if v >= best - 1e-9:
                        best_list[c, ta, tb, k] = p
                        k += 1
                    for w in range(2):  # the pinned bests (a placed card in one given section)
                        if kind[ta if w == 0 else tb] != KIND_PLACED:
                            continue
                        q = 3 * w + (pa if w == 0 else pb)
                        at = PIN_LIST + 4 * q
                        if v > pin_val[c, ta, tb, q] + 1e-9:
                            pin_val[c, ta, tb, q] = v
                            best_list[c, ta, tb, at] = 0
                        if v >= pin_val[c, ta, tb, q] - 1e-9:
                            best_list[c, ta, tb, at + 1 + best_list[c, ta, tb, at]] = p
                            best_list[c, ta, tb, at] += 1
                best_val[c, ta, tb] = best
                best_k[c, ta, tb] = k


@dataclass(frozen=True)
class PairTables:
    """Per-side pair tables for one scenario and policy pair (see module docstring)."""

    best_val: np.ndarray   # [side, cmd, a, b] greedy score of the best legal placement
    best_k: np.ndarray     # [side, cmd, a, b] number of placements tied for the best score
    best_list: np.ndarray  # [side, cmd, a, b, k] those placements (then the pinned ones, PIN_LIST)
    nominal: np.ndarray    # [side, cmd, a, b, placement, section]
    eff: np.ndarray
    rem: np.ndarray
    n_place: np.ndarray    # [side, a, b] number of legal placements
    place_list: np.ndarray  # [side, a, b, k] k-th legal placement
    e4_only: np.ndarray    # [side, a, b] legal only in the E4 situation
    play_val: np.ndarray   # [side, e4 situation 0/1 or PIN_LAYER + pin, cmd, a, b]: best, or NEG
    play_key: np.ndarray | None = None  # [side, layer, cmd, a, b] rank of play_val (see play_keys)
    record: np.ndarray | None = None  # [side, cmd, a, b, :] one compact row per pair (pair_records)


def pair_tables(cards: CardTable, units: np.ndarray, cmax: int, policies: np.ndarray,
                standard: bool, forbid: tuple[int, int] = (-1, -1), dry: bool = False) -> PairTables:
    """Evaluate every (a, b, placement) for both sides and commands 0..cmax. forbid[side] >= 0:
    the section of that side's CIC under cic_keeps = one (see _kept_cards). `dry`: the tables at
    their shapes and types, left empty (the jitted builder not called), to compile a kernel on
    while the builder compiles elsewhere (napsim.sim.precompile); no game is played on them."""
    t = len(cards.names)
    shape = (2, cmax + 1, t, t)
    best_val = np.zeros(shape, np.float64)
    best_k = np.zeros(shape, np.int64)
    best_list = np.zeros((*shape, PIN_LIST + 4 * N_PIN), np.int64)
    pin_val = np.zeros((*shape, N_PIN), np.float64)
    nom = np.zeros((*shape, N_PLACE, 3), np.int16)
    eff = np.zeros_like(nom)
    rem = np.zeros_like(nom)
    n_place = np.zeros((2, t, t), np.int64)
    place_list = np.zeros((2, t, t, N_PLACE), np.int64)
    e4_only = np.zeros((2, t, t), np.bool_)
    check_rolled_types(cards, cmax)
    dice_p = dice_probabilities(int(cards.dice.max(initial=0)), cmax)
    for s in range(0 if dry else 2):
        _build(units[s], cmax, policies[s], cards.kind, cards.sec, cards.orders, cards.eq_cmd,
               cards.cap, cards.filt, cards.take_command, cards.fallback, cards.reach, cards.stars,
               cards.tdraw, cards.scout, standard, np.int64(forbid[s]), best_val[s], best_k[s],
               best_list[s], nom[s], eff[s], rem[s], n_place[s], place_list[s], e4_only[s],
               pin_val[s], cards.dice_var, dice_p)
    legal = (n_place > 0)[:, None]  # [side, 1, a, b] against best_val [side, cmd, a, b]
    play_val = np.full((2, PIN_LAYER + N_PIN, cmax + 1, t, t), NEG)
    play_val[:, 1] = np.where(legal, best_val, NEG)
    play_val[:, 0] = np.where(legal & ~e4_only[:, None], best_val, NEG)
    play_val[:, PIN_LAYER:] = np.moveaxis(pin_val, -1, 1)
    return PairTables(best_val, best_k, best_list, nom, eff, rem, n_place, place_list, e4_only,
                      play_val, play_keys(play_val),
                      pair_records(nom, eff, rem, best_k, best_list[..., :N_PLACE]))


REC_K, REC_LIST, REC_ORD, REC_WIDTH = 0, 1, 10, 64  # napsim.engine.epic reads the same layout


def pair_records(nom: np.ndarray, eff: np.ndarray, rem: np.ndarray, best_k: np.ndarray,
                 best_list: np.ndarray) -> np.ndarray:
    """What the kernel reads about one played pair, in one 64-byte row [side, cmd, a, b, :]
    starting on a cache-line boundary: the number of tied best placements at REC_K, those
    placements from REC_LIST, and the orders of placement p at REC_ORD + 6 p + 3 w + section
    (w: 0 nominal, 1 effective). Units left unordered are the section's units minus the
    effective orders (eval_pair keeps rem = total - eff), the totals being rem[side, 0, VOID,
    VOID, 0]. int8 when every value fits, else int16 (two lines a row)."""
    orders = np.stack([nom, eff], -2).reshape(*nom.shape[:4], 54)
    total = rem[:, :1, -1:, -1:, :1, :]  # no card played: nothing ordered, every unit left
    unused = (nom == 0) & (eff == 0) & (rem == 0)  # placements that are not legal
    assert np.all((rem + eff == total) | unused)
    small = max(int(orders.max(initial=0)), N_PLACE) <= 127 and int(orders.min(initial=0)) >= -128
    dtype = np.dtype(np.int8 if small else np.int16)
    n = int(np.prod(nom.shape[:4])) * REC_WIDTH
    buf = np.zeros(n + 64, dtype)  # aligned to 64 bytes below
    skip = (-buf.ctypes.data % 64) // dtype.itemsize
    rec = buf[skip:skip + n].reshape(*nom.shape[:4], REC_WIDTH)
    rec[..., REC_K] = best_k
    rec[..., REC_LIST:REC_LIST + N_PLACE] = best_list
    rec[..., REC_ORD:REC_ORD + 54] = orders
    return rec


TIE = 1e-9  # the greedy choice treats scores within TIE as equal


def play_keys(play_val: np.ndarray) -> np.ndarray:
    """Integer ranks of the greedy scores, so that the kernel compares ints instead of floats.

    Per (side, command) the legal scores fall into groups of values within TIE of each other;
    key = group rank (0 the lowest), -1 where illegal. Ranks decide exactly as the float
    comparisons `v > best + TIE` / `v >= best - TIE` do when every group spans well under TIE and
    the gaps between groups are well over it; a side where that fails gets key -3 everywhere
    (the kernel then compares the floats). (VOID, VOID) is always legal, so its key >= 0 marks a
    side as ranked.
    """
    keys = np.full(play_val.shape, -1, np.int32)
    small = True
    for s in range(play_val.shape[0]):
        for c in range(play_val.shape[2]):
            v = play_val[s, :, c]
            legal = v > NEG / 10
            u = np.unique(v[legal])
            if u.size == 0:
                continue
            new_group = np.diff(u) > TIE
            rank = np.concatenate([[0], np.cumsum(new_group)])
            starts = np.concatenate([[0], np.flatnonzero(new_group) + 1])
            ends = np.concatenate([starts[1:], [u.size]]) - 1
            spans_ok = bool(np.all(u[ends] - u[starts] < 0.25 * TIE))
            gaps_ok = bool(np.all(np.diff(u)[new_group] > 4 * TIE))
            if not (spans_ok and gaps_ok):
                keys[s] = -3
                break
            keys[s, :, c][legal] = rank[np.searchsorted(u, v[legal])]
            small = small and int(rank[-1]) < 32767
    return keys.astype(np.int16) if small else keys  # int16: half the cache lines


assert PARAMS["w_l"] == 1 and PARAMS["march_prob"] == 9  # _build reads these slots


jit.check_cache_folder(globals())  # its cached kernels live in this version's cache folder
