"""A slow, obvious, pure-Python re-implementation of the card flow of napsim.engine.epic.play_blocks.

EPIC one a side (format 'epic1'), the standard one-card game, and EPIC with 2, 3 and 4 players a
side (formats 'epic2'-'epic4', docs/rules.md, M: E's card flow plus the commander layer below). It reads
the scenario, the policy vectors and the card table of a `Simulation`, but never its precomputed
pair tables: every greedy score is computed here from `tests/reference/orders.py` (the order
arithmetic of one pair of cards and placements, written from the rules apart from the kernel's
`napsim.sim.tables.eval_pair`). Randomness comes from Python's
`random.Random(seed)`, so results agree with the kernel only statistically. Card locations are
plain Python lists.

The commander layer (2-4 a side), as the kernel reads docs/rules.md, M:
- who commands what: epic2 the CIC gives every order (his sub-commander has no section); epic3 the
  CIC holds `cic_section` and sub-commanders 1, 2 the other two sections, left to right; epic4
  Corps commanders 1-3 hold L, C, R and the CIC none.
- M4 (epic2): of two cards each placed in a section the CIC keeps the one with the higher P1
  single-card score (the hand card on a tie) and passes the other; a placed card played with a
  multi-section card is passed; otherwise nothing is passed. The sub-commander's orders are those
  of the section his card went to.
- M6.1 / M8.1: a section or tactic card goes to the commander of the section it is placed in; a
  commander's orders are those of his section. Option `same_section_receiver`: under
  "two_commanders" (3-4 a side) the E4 pair is still taken, but its two cards go to two
  commanders, so only the one with the higher single-card score (the hand card on a tie) orders
  and the other counts as no card received; under "one_commander" (the default) that section's
  commander plays both. Option `cic_keeps` (epic3): under "one" no card is placed in the CIC's
  section beside a multi-section card (the CIC plays that one); under "both" it may be.
- M6.2 / M8.2: a section commander with no card rolls (option `initiative`: under
  "no_card_no_orders", the default, only when no multi-section card ordered units in his section
  either; with 3 a side a CIC who laid a multi-section card has a card and never rolls)
  two battle dice on his units left unordered (after the cards and March Moves): a unit symbol
  orders one unit of that type if the section has one (not yet ordered by this roll), a flag one
  unit to March Move, a sabre one unit to melee; a double (two equal symbols) draws him a
  Tactician card.
- M6.3 / M8.2 Tactician cards per commander: the CIC holds them all in epic2; every player in
  epic3, the Corps commanders in epic4, each starting with one plus an even share of the
  scenario's cards (the remainder one each from the first holder on). A card's Tactician draws
  (E8, E9.3) go to the commander who played it; a multi-section card's to the CIC in epic3 and to
  the Corps commander holding the fewest in epic4 (ties drawn uniformly). Each holder spends his
  own at the policy rate. M6.4 Elan: every holder of both sides draws one.
- G6: with 3-4 a side the Guerrilla counters are dealt in full rounds to the section commanders
  (option `guerrilla_share`: under "lost" to all three, and the counters of those with fewer than
  four Spanish units stay in the unacquired pool; under "shared" to those with four or more only);
  the extras too few for a round go one each, in turn, to commanders with four or more (most
  Spanish units first, the leftmost on ties); with no eligible commander all go to the pool.
  With 1-2 a side the CIC holds them all.
- a turn the Guerrillas end (G1) is a turn for every commander but nobody's card: no receiver,
  no initiative roll, no Tactician draw.

Spanish Guerrilla Action (docs/rules.md G1-G7, P4, P5) is played as the kernel plays it: counters held
per section (index 0-2) or by the CIC for any section (index 3); at most one counter per French
turn, against the French card with the larger own effective orders among those its counters may
reach (a tie goes to the hand card; a policy that saves counters for Assaults targets an Assault
card first); sections are mirrored (S4): a French card in the French section x is reached by the
counters of the Spanish section 2 - x (and the CIC's), and they are spent from that section first,
then the CIC's, then any section; a spent counter a sabre stopped returns to the unacquired pool,
one that nullified a card is out of play (option `spent_counters`: "all_return" returns both).
Per-section metrics name the French card's section from the French seat.

Other readings from the scenario's [rules] table: `counter_attack_copies` (D3: the opponent's last
hand card, or under "either" his last rack card instead when there is no hand card or its mirror
scores strictly more as a single card), `elan_order` (E9.4: the Elan reshuffle after the turn's
Command draws, or under "shuffle_first" before them). A deck without a Tactician deck (D4) deals
and draws no Tactician card, and such draws are not starved.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache

import numpy as np

from napsim.engine.layout import CM_NAMES, METRIC_NAMES, N_CM, N_METRICS, RACK
from napsim.model.policies import PARAMS
from napsim.sim.tables import KIND_INERT, KIND_MULTI, KIND_PLACED, KIND_SECTION, units_array

from .orders import pair_orders

M = {name: i for i, name in enumerate(METRIC_NAMES)}
CM = {name: i for i, name in enumerate(CM_NAMES)}
PLAYERS = {"epic2": 2, "epic3": 3, "epic4": 4}  # players a side; every other format plays one
DIE_FACES = ("infantry", "infantry", "cavalry", "artillery", "flag", "sabre")  # rule D5
KIND_SLOT = ("section", "multi", "tactic", "other")
TOL = 1e-9
GENERAL = 3  # index of the CIC's counters (usable in any section) in a side's holding
SABRE = 5    # rule D5: the sixth face of the battle die


def facing(x: int) -> int:
    """Rule S4: the sections are named from each player's own seat, so the French section x
    (0 left, 1 centre, 2 right) faces the Spanish section 2 - x."""
    return 2 - x


def deal_guerrilla(counters: int, spanish: list[int], share: str) -> list[int]:
    """Rule G6 with three commanders (3-4 a side, or LGB's three Corps): the counters are dealt in
    full rounds, one to every commander (share = "lost": a commander with fewer than four Spanish
    units may hold none, so his counter of each round stays in the unacquired pool) or to every
    commander with four or more ("shared"); the counters too few for a full round are the extras,
    and the CIC deals them one at a time, in turn, to commanders who may hold them only, most
    Spanish units first (the leftmost on ties)."""
    eligible = sorted((x for x in range(3) if spanish[x] >= 4), key=lambda x: (-spanish[x], x))
    out = [0, 0, 0]
    if not eligible:
        return out
    seats = eligible if share == "shared" else [0, 1, 2]
    rounds, extras = divmod(counters, len(seats))
    for x in eligible:
        out[x] = rounds
    for i in range(extras):
        out[eligible[i % len(eligible)]] += 1
    return out


class _Game:
    """One game's state and the rules that move cards between its lists."""

    def __init__(self, sim, rng: random.Random):
        self.sim = sim
        self.rng = rng
        sc = sim.scenario
        cards = sim.cards
        self.cards = cards
        self.void = cards.void
        self.standard = sc.format == "standard"
        self.hand0 = [s.hand for s in sc.sides]
        self.cmax = max(self.hand0) + 1
        self.units = units_array(sc)
        self.pol = sim.policies
        self.met = np.zeros((2, N_METRICS), np.int64)
        self.cmet = np.zeros((2, 4, N_CM), np.int64)
        self.players = PLAYERS.get(sc.format, 1)
        self.owner = [self.section_owners(side) for side in sc.sides]
        self.g_rule = [s.guerrilla_rule for s in sc.sides]
        self.spanish = [[sec.spanish for sec in s.sections] for s in sc.sides]
        # the scenario's readings of the open rule points (its [rules] table)
        self.rule = sc.rule
        # rule D4: a Command deck may come without a Tactician deck (e.g. the base game's)
        self.tac_deck = int(sim.deck.tactician_deck)
        # rule E9.4: the Elan reshuffle before the Command draw, by option or by the card text
        # (a deck whose `# elan_reshuffle:` is before_draw, the Ancients I Am Spartacus)
        self.shuffle_first = (sim.scenario.rule("elan_order") == "shuffle_first"
                              or sim.deck.elan_before_draw)
        # rules E4, M6.1, M8.1: with 3-4 a side the two cards of the same-section exception would
        # go to one commander; two_commanders forbids it, so the pair cannot be played
        self.e4_playable = (self.players <= 2
                            or sc.rule("same_section_receiver") == "one_commander")
        # rule M6.1 (3 a side): under cic_keeps = one the CIC plays at most one card, and a
        # multi-section card is his, so a card placed in his section beside one goes to a
        # sub-commander who cannot order there: it gives nothing
        self.cic_only_section = [
            side.cic_section if self.players == 3 and sc.rule("cic_keeps") == "one" else None
            for side in sc.sides]
        self._legal: dict = {}
        self._score_cache = lru_cache(maxsize=None)(self._pair_best)
        self._eval_cache = lru_cache(maxsize=None)(self._eval)

    # ----- card helpers -------------------------------------------------------------------------
    def resolve(self, t: int, opp_last: int) -> int:
        """First Strike plays as nothing on its owner's turn; Counter-Attack copies the
        opponent's card `opp_last` mirrored left/right (nothing to copy: nothing)."""
        c = self.cards
        if c.first_strike[t] == 1:
            return self.void
        if c.counter[t] == 1:
            return int(c.mirror[opp_last]) if opp_last != self.void else self.void
        return t

    def placed_section(self, t: int, p: int) -> int:
        """Rule E3: a section card in its own section, a tactic where placed, else none."""
        k = self.cards.kind[t]
        if k == KIND_SECTION:
            return int(self.cards.sec[t])
        if k == KIND_PLACED:
            return p
        return -1

    def legal(self, s: int, ta: int, tb: int) -> tuple[tuple[int, ...], bool]:
        """Rule E3 / E4: legal placements p = 3 * pa + pb of (a, b) for side s, and whether the
        pair is legal only in the E4 same-section situation (remembered per pair, as the scores
        are: the choice asks for every pair of the turn)."""
        key = (s, ta, tb)
        if key not in self._legal:
            kind = self.cards.kind
            if (self.cic_only_section[s] is not None and kind[ta] == KIND_MULTI
                    and kind[tb] == KIND_MULTI):
                # rule M6.1, cic_keeps = one: two multi-section cards would both be the CIC's
                # (a multi-section card is never passed on, M4): no legal pair
                self._legal[key] = ((), False)
            else:
                self._legal[key] = self._placements(ta, tb)
        return self._legal[key]

    def _placements(self, ta: int, tb: int) -> tuple[tuple[int, ...], bool]:
        kind = self.cards.kind
        out = []
        e4_only = False
        for pa in range(3 if kind[ta] == KIND_PLACED else 1):
            for pb in range(3 if kind[tb] == KIND_PLACED else 1):
                sa = self.placed_section(ta, pa)
                sb = self.placed_section(tb, pb)
                if sa >= 0 and sa == sb and not self.standard:
                    if kind[ta] == KIND_SECTION and kind[tb] == KIND_SECTION:
                        e4_only = True  # rule E4
                    else:
                        continue  # rule E3: two placed cards in two different sections
                out.append(3 * pa + pb)
        return tuple(out), e4_only

    def _eval(self, s: int, c: int, ta: int, tb: int, p: int):
        """Rules S2, E5, E6, E7: (nominal, effective, remaining) per section."""
        nom, eff, rem = pair_orders(self.cards, self.units[s], [(ta, p // 3), (tb, p % 3)], c,
                                    self.standard)
        return tuple(nom), tuple(eff), tuple(rem)

    def kept(self, s: int, ta: int, tb: int, p: int) -> tuple[int, int]:
        """Rule M6.1, cic_keeps = one: the cards as they give orders (a card placed in the CIC's
        section beside a multi-section card plays as nothing)."""
        cic_sec = self.cic_only_section[s]
        if cic_sec is not None:
            kind = self.cards.kind
            if kind[ta] == KIND_MULTI and self.placed_section(tb, p % 3) == cic_sec:
                return ta, self.void
            if kind[tb] == KIND_MULTI and self.placed_section(ta, p // 3) == cic_sec:
                return self.void, tb
        return ta, tb

    def rolled(self, t: int, command: int) -> int:
        """Rule D2: a card that rolls its orders rolls `command` battle dice; each die showing one
        of the deck's ordering faces orders one unit: the card plays as its type with that many
        ordering dice (the card table's rolled types). Any other card rolls nothing."""
        cd = self.cards
        if cd.dice_var[t] < 0:
            return t
        hits = sum(self.rng.randrange(6) < int(cd.dice[t]) for _ in range(command))
        return int(cd.dice_var[t]) + hits

    def roll_chances(self, t: int, command: int) -> list[tuple[float, int]]:
        """Rule D2 / P1: (chance, type played as) of every roll of card t (binomial)."""
        cd = self.cards
        if cd.dice_var[t] < 0:
            return [(1.0, t)]
        q = int(cd.dice[t]) / 6.0
        return [(math.comb(command, k) * q ** k * (1 - q) ** (command - k), int(cd.dice_var[t]) + k)
                for k in range(command + 1)]

    def score(self, s: int, c: int, ta: int, tb: int, p: int) -> float:
        """Rule P1: weighted effective orders plus Tactician, Scout and expected star terms; a card
        that rolls its orders (D2) scores the expectation over its roll."""
        ta, tb = self.kept(s, ta, tb, p)
        if self.cards.dice_var[ta] < 0 and self.cards.dice_var[tb] < 0:
            return self._score(s, c, ta, tb, p)
        return sum(qa * qb * self._score(s, c, va, vb, p) for qa, va in self.roll_chances(ta, c)
                   for qb, vb in self.roll_chances(tb, c))

    def _score(self, s: int, c: int, ta: int, tb: int, p: int) -> float:
        pv = self.pol[s]
        cd = self.cards
        _, eff, rem = self._eval_cache(s, c, ta, tb, p)
        v = pv[PARAMS["w_l"]] * eff[0] + pv[PARAMS["w_c"]] * eff[1] + pv[PARAMS["w_r"]] * eff[2]
        tac_bonus = pv[PARAMS["tactician_bonus"]]
        march_bonus = pv[PARAMS["march_bonus"]]
        march_prob = pv[PARAMS["march_prob"]]
        v += tac_bonus * (cd.tdraw[ta] + cd.tdraw[tb])
        if cd.scout[ta] == 1 or cd.scout[tb] == 1:
            v += pv[PARAMS["scout_bonus"]]
        r = list(rem)
        for t, pl in ((ta, p // 3), (tb, p % 3)):
            if cd.stars[t] == 0:
                continue
            x = self.placed_section(t, pl)
            avail = min(3, r[x]) if x >= 0 else 0
            if avail > 0:
                v += march_prob * march_bonus * avail + (1 - march_prob) * tac_bonus
                r[x] -= avail
            else:
                v += tac_bonus
        return float(v)

    def _pair_best(self, s: int, c: int, ta: int, tb: int, places: list[int] | None = None):
        """Best score of a pair over its legal placements (or over `places`) and the placements
        that reach it."""
        if places is None:
            places, _ = self.legal(s, ta, tb)
        best = -1.0e9
        tied: list[int] = []
        for p in places:
            v = self.score(s, c, ta, tb, p)
            if v > best + TOL:
                best, tied = v, [p]
            elif v >= best - TOL:
                tied.append(p)
        return best, tuple(tied)

    def single_value(self, s: int, c: int, t: int) -> float:
        return self._score_cache(s, c, t, self.void)[0]

    # ----- piles ----------------------------------------------------------------------------------
    def draw(self, side: int) -> int:
        """Rule D6: the top card; an empty pile is rebuilt from the shuffled discards."""
        if not self.pile:
            if not self.disc:
                self.met[side, M["starved_draws"]] += 1
                return -1
            self.pile = self.disc
            self.disc = []
            self.rng.shuffle(self.pile)
            self.met[side, M["deck_reshuffles"]] += 1
        return self.pile.pop()

    def draw_tactician(self, side: int, commander: int | None = None) -> None:
        """Rule D4: one Tactician card, its pile rebuilt from its discards when empty; with 2-4
        players a side it goes to `commander` (rules M6.3, M8.2). A game without a Tactician deck
        draws nothing, and that is no starved draw."""
        if self.tac_deck == 0:
            return
        if self.tac_pile == 0:
            self.tac_pile, self.tac_disc = self.tac_disc, 0
        if self.tac_pile == 0:
            self.met[side, M["tactician_starved"]] += 1
            return
        self.tac_pile -= 1
        self.tac[side] += 1
        self.met[side, M["tactician_drawn"]] += 1
        if commander is not None:
            self.tac_by[side][commander] += 1
            self.cmet[side, commander, CM["tactician_drawn"]] += 1

    def elan_reshuffle(self, side: int) -> None:
        """Rule E9.4 (L9): the draw pile and the discards shuffled together."""
        self.pile.extend(self.disc)
        self.disc = []
        self.rng.shuffle(self.pile)
        self.met[side, M["elan_reshuffles"]] += 1

    # ----- the commander layer, 2-4 players a side (rules M4, M6, M8, G6) -------------------------
    def section_owners(self, side) -> list[int]:
        """The commander of each section L, C, R (0 the CIC)."""
        if self.players == 3:  # rule M6.1: the CIC holds one section, his two subs the others
            subs = iter([1, 2])
            return [0 if x == side.cic_section else next(subs) for x in range(3)]
        if self.players == 4:  # rule M8.1: one Corps commander a section
            return [1, 2, 3]
        return [0, 0, 0]

    def tactician_holders(self) -> list[int]:
        """Rules M4, M6.3, M8.2: who holds Tactician cards."""
        return {2: [0], 3: [0, 1, 2], 4: [1, 2, 3]}[self.players]

    def tactician_start(self, side) -> list[int]:
        """Rules M6.3 / M8.2: one each plus an even share, the remainder from the first holder on;
        with two a side the CIC holds the scenario's cards."""
        out = [0, 0, 0, 0]
        if self.players == 2:
            out[0] = side.tactician
            return out
        holders = self.tactician_holders()
        for c in holders:
            out[c] = 1
        for i in range(side.tactician):
            out[holders[i % len(holders)]] += 1
        return out

    def guerrilla_start(self, side) -> list[int]:
        """Rule G6 (3-4 a side): counters per section commander (see deal_guerrilla)."""
        if side.guerrilla_rule == "off":
            return [0, 0, 0]
        return deal_guerrilla(side.guerrilla, [sec.spanish for sec in side.sections],
                              self.rule("guerrilla_share"))

    def initiative(self, s: int, cc: int, x: int, free: int) -> None:
        """Rules M6.2 / M8.2: commander cc of side s rolls two battle dice for section x, where
        `free` units are still unordered this turn."""
        cm = self.cmet[s, cc]
        faces = [DIE_FACES[self.rng.randrange(6)] for _ in range(2)]
        cm[CM["initiative_rolls"]] += 1
        for f in faces:
            cm[CM["face_" + f]] += 1
        double = faces[0] == faces[1]
        if double:
            cm[CM["initiative_doubles"]] += 1
            cm[CM["initiative_tactician"]] += 1
            if faces[0] == "sabre":
                cm[CM["initiative_two_sabres"]] += 1
        sec = self.sim.scenario.sides[s].sections[x]
        left = {"infantry": sec.infantry, "cavalry": sec.cavalry, "artillery": sec.artillery}
        for f in faces:
            if free == 0:
                break
            if f in left:  # a unit symbol: one unit of that type, if there is one
                if left[f] > 0:
                    left[f] -= 1
                    free -= 1
                    cm[CM["initiative_ordered"]] += 1
                    self.met[s, M["initiative_orders"]] += 1
            else:  # a flag: one unit March Moves; a sabre: one unit melees
                free -= 1
                cm[CM["initiative_march" if f == "flag" else "initiative_melee"]] += 1
                self.met[s, M["initiative_orders"]] += 1
        if double:
            self.draw_tactician(s, cc)

    def commanders_turn(self, s: int, c: int, played, earned: list[int], nom, eff,
                        free: list[int]) -> None:
        """Who received which card, initiative rolls and the turn's Tactician draws (E8, E9.3).

        played: the two cards as played (before any Guerrilla nullification) with the section
        each was placed in (-1: none); earned: the Tactician draws each card earned; nom, eff:
        the turn's orders per section; free: units left unordered per section."""
        cm, kind = self.cmet[s], self.cards.kind
        if self.players == 2:
            # rule M4: the CIC keeps one placed card and passes the other; never a multi card
            placed = [k for k in range(2) if played[k][1] >= 0]
            multi = [k for k in range(2) if kind[played[k][0]] == KIND_MULTI]
            passed = None
            if len(placed) == 2:
                keep_a = (self.single_value(s, c, played[0][0])
                          >= self.single_value(s, c, played[1][0]))
                passed = 1 if keep_a else 0
            elif len(placed) == 1 and len(multi) == 1:
                passed = placed[0]
            cm[0, CM["commander_turns"]] += 1
            cm[1, CM["commander_turns"]] += 1
            sub_nom = sub_eff = 0
            if passed is None:
                cm[1, CM["turns_without_card"]] += 1
            else:
                x = played[passed][1]
                sub_nom, sub_eff = nom[x], eff[x]
                cm[0, CM["cards_passed"]] += 1
                cm[1, CM["cards_received"]] += 1
                cm[1, CM["card_nominal"]] += sub_nom
                cm[1, CM["card_effective"]] += sub_eff
            cm[0, CM["card_nominal"]] += sum(nom) - sub_nom
            cm[0, CM["card_effective"]] += sum(eff) - sub_eff
            for _ in range(sum(earned)):  # the CIC holds every Tactician card
                self.draw_tactician(s, 0)
            return
        owner = self.owner[s]
        # rules M6.1 / M8.1: each section's commander gets the cards placed in his section
        for x in range(3):
            cx = owner[x]
            cm[cx, CM["commander_turns"]] += 1
            cm[cx, CM["card_nominal"]] += nom[x]
            cm[cx, CM["card_effective"]] += eff[x]
            got = sum(1 for _, sx in played if sx == x)
            if got:
                cm[cx, CM["cards_received"]] += got
                continue
            if self.players == 3 and cx == 0 and any(kind[t] == KIND_MULTI for t, _ in played):
                continue  # rule M6.2: a CIC who laid a multi-section card has played a card
            cm[cx, CM["turns_without_card"]] += 1
            # rules M6.2 / M8.2: no card, so he rolls; under initiative = no_card_no_orders
            # only when no multi-section card ordered units in his section either
            if self.rule("initiative") == "no_card_no_orders":
                multi_orders = sum(self._eval_cache(s, c, t, self.void, 0)[0][x]
                                   for t, _ in played if kind[t] == KIND_MULTI)
                if multi_orders > 0:
                    continue
            self.initiative(s, cx, x, free[x])
        if self.players == 3:  # rule M6.1: the CIC keeps one, or gives one to each sub
            secs = [sx for _, sx in played]
            if owner.index(0) in secs:
                cm[0, CM["cic_keep_one"]] += 1
            elif all(sx >= 0 for sx in secs):
                cm[0, CM["cic_give_both"]] += 1
        for (_, x), n in zip(played, earned, strict=True):
            if n == 0:
                continue
            if x >= 0:
                cc = owner[x]
            elif self.players == 3:
                cc = 0  # a multi-section card is the CIC's
            else:  # rule M8.2: the Corps commander holding the fewest, ties drawn uniformly
                low = min(self.tac_by[s][k] for k in (1, 2, 3))
                cc = self.rng.choice([k for k in (1, 2, 3) if self.tac_by[s][k] == low])
            for _ in range(n):
                self.draw_tactician(s, cc)

    # ----- Spanish Guerrilla Action (rules G1-G7, P4, P5) ------------------------------------------
    def guerrilla_attack(self, s: int, o: int, c: int, ra: int, rb: int, p: int):
        """The Spanish side o against French side s's two cards, before any orders (rules G1, G2,
        G5, P4). Returns (card a, card b, placement, turn over): a nullified card plays as VOID."""
        met, cd, void = self.met, self.cards, self.void
        held = self.g_held[o]
        met[o, M["g_french_turns"]] += 1
        if sum(held) == 0 or (ra == void and rb == void):
            return ra, rb, p, False
        pa, pb = p // 3, p % 3
        full = self._eval_cache(s, c, ra, rb, p)
        pv = self.pol[o]
        if self.g_rule[o] == "base":  # rule G1: the counter is spent against the turn's cards
            target, tsec, t_eff = "both", -1, sum(full[1])
            t_assault = cd.eq_cmd[ra] == 1 or cd.eq_cmd[rb] == 1
        else:  # rule G5: one card, in a section a held counter may reach; never a multi-section card
            target, tsec, t_eff, t_assault = None, -1, -1, False
            for k, (t, pl) in enumerate(((ra, pa), (rb, pb))):
                if t == void or cd.kind[t] in (KIND_MULTI, KIND_INERT):
                    continue
                x = self.placed_section(t, pl)  # the French section, from the French seat
                if held[facing(x)] + held[GENERAL] == 0:
                    continue  # rules S4, G5: only the Spanish section across from it may reach it
                rest = self._eval_cache(s, c, void, rb, pb) if k == 0 else \
                    self._eval_cache(s, c, ra, void, 3 * pa)
                own = sum(full[1]) - sum(rest[1])
                assault = bool(cd.eq_cmd[t] == 1)
                if pv[PARAMS["g_spend_mode"]] == 2 and assault != t_assault:
                    better = assault  # rule P4, save for Assaults: an Assault in reach is the target
                else:
                    better = own > t_eff  # the larger own effective orders; a tie keeps the hand card
                if better:
                    target, tsec, t_eff, t_assault = k, x, own, assault
            if target is None:
                return ra, rb, p, False
        met[o, M["g_offered"]] += 1
        mode = pv[PARAMS["g_spend_mode"]]
        if not (mode == 0 or (mode == 1 and t_eff >= pv[PARAMS["g_threshold"]])
                or (mode == 2 and t_assault)):  # rule P4
            met[o, M["g_available_not_spent"]] += 1
            return ra, rb, p, False
        if tsec >= 0 and held[facing(tsec)] > 0:
            spender = facing(tsec)  # rule S4: the Spanish section across from the card
        elif held[GENERAL] > 0:
            spender = GENERAL
        else:
            spender = next(x for x in range(3) if held[x] > 0)
        held[spender] -= 1
        met[o, M["g_spent"]] += 1
        # rule G6: the commander who held it (the CIC's general holding, or a section's commander)
        cc = None
        if self.players >= 2:
            cc = 0 if spender == GENERAL else self.owner[o][spender]
            self.cmet[o, cc, CM["g_spent"]] += 1
        sabre = self.rng.randrange(6) == SABRE
        # rule G1 (option spent_counters): a counter a sabre stopped returns to the unacquired
        # pool; one that nullified a card is out of play, unless all_return
        if sabre or self.rule("spent_counters") == "all_return":
            self.g_pool += 1
        if sabre:  # rule G1: a sabre stops the guerrillas
            met[o, M["g_stopped_by_sabre"]] += 1
            return ra, rb, p, False
        if target == "both":
            na, nb, q = void, void, 0
            nullified = int(ra != void) + int(rb != void)
        else:
            na, nb, q = (void, rb, pb) if target == 0 else (ra, void, 3 * pa)
            nullified = 1
            met[o, M["g_nullified_in_french_" + "LCR"[tsec]]] += 1
        met[o, M["g_cards_nullified"]] += nullified
        if cc is not None:
            self.cmet[o, cc, CM["g_nullified"]] += nullified
        after = self._eval_cache(s, c, na, nb, q)
        for x in range(3):
            met[o, M["g_denied_nominal"]] += full[0][x] - after[0][x]
            met[o, M["g_denied_effective"]] += full[1][x] - after[1][x]
            met[o, M["g_denied_effective_in_french_" + "LCR"[x]]] += full[1][x] - after[1][x]
        return na, nb, q, target == "both"

    def guerrilla_gain(self, s: int, ra: int, rb: int) -> int | None:
        """Rules G3, G4, P5: where a Scout played this turn gains a counter (0-2 a section, 3 the
        CIC under the base rule), or None."""
        if self.g_pool <= 0:
            return None
        pv = self.pol[s]
        mode = pv[PARAMS["g_gain_mode"]]
        if mode == 1 or (mode == 2 and sum(self.g_held[s]) >= pv[PARAMS["g_gain_below"]]):
            return None
        for t in (ra, rb):
            if self.cards.scout[t] != 1:
                continue
            if self.g_rule[s] == "base":
                return GENERAL
            x = int(self.cards.sec[t])
            if x >= 0 and self.spanish[s][x] >= 4:  # rule G4: four Spanish units there
                return x
        return None

    # ----- the choice (rule P1) -----------------------------------------------------------------
    def choose(self, s: int, c: int, hand: list[int], rack: list[int], e4: bool, opp_last: int,
               pin: int = -1):
        """(hand index or None, rack index or None, placement), or None when nothing is legal.
        pin >= 0 (rule D3, counter_attack_section = facing): a Counter-Attack's copy (a tactic
        card) is placed in section pin only."""
        pv = self.pol[s]
        o = 1 - s
        hand_opts = list(enumerate(hand)) if hand else [(None, self.void)]
        rack_opts = list(enumerate(rack)) if rack else [(None, self.void)]
        triples = []  # (value, hand index, rack index, placements reaching it)
        random_policy = pv[PARAMS["kind"]] == 1.0
        for i, a in hand_opts:
            ra = self.resolve(a, opp_last)
            for j, b in rack_opts:
                rb = self.resolve(b, opp_last)
                places, e4_only = self.legal(s, ra, rb)
                ca_a = pin >= 0 and self.cards.counter[a] == 1
                ca_b = pin >= 0 and self.cards.counter[b] == 1
                if ca_a and ca_b:
                    continue  # both copies would go to one section
                if ca_a or ca_b:
                    places = [p for p in places if (p // 3 if ca_a else p % 3) == pin]
                if (e4_only and not e4) or not places:
                    continue
                if random_policy:
                    triples.extend((0.0, i, j, (p,)) for p in places)
                    continue
                if ca_a or ca_b:
                    best, tied = self._pair_best(s, c, ra, rb, places)
                else:
                    best, tied = self._score_cache(s, c, ra, rb)
                v = best - pv[PARAMS["keep_weight"]] * self.single_value(s, c, ra)
                if pv[PARAMS["deny_weight"]] != 0.0 and len(rack) > 1:
                    oc = min(len(self.hand[o]), self.cmax)
                    deny = max(self.single_value(o, oc, self.resolve(rack[jj], self.void))
                               for jj in range(len(rack)) if jj != j)
                    v -= pv[PARAMS["deny_weight"]] * deny
                triples.append((v, i, j, tied))
        if not triples:
            return None
        if random_policy:  # uniform over legal (hand, rack, placement) triples
            return self.rng.choice([(i, j, ps[0]) for _, i, j, ps in triples])
        # greedy ties: uniform over the tied (hand slot, rack slot) pairs, then uniform over
        # that pair's tied placements (what the kernel's hash tie-break amounts to)
        top = max(t[0] for t in triples)
        _, i, j, ps = self.rng.choice([t for t in triples if t[0] >= top - TOL])
        return i, j, self.rng.choice(ps)

    # ----- one game -------------------------------------------------------------------------------
    def play(self) -> np.ndarray:
        sim, rng, cd, met = self.sim, self.rng, self.cards, self.met
        sc = sim.scenario
        void = self.void
        self.cmet = np.zeros((2, 4, N_CM), np.int64)  # per commander, 2-4 players a side
        self.pile = [int(t) for t in cd.deck]
        rng.shuffle(self.pile)
        self.disc: list[int] = []
        self.hand: list[list[int]] = [[], []]
        squares: list[list[int]] = [[], []]
        rack: list[int] = []
        self.tac = [0, 0]
        self.tac_by = [[0, 0, 0, 0], [0, 0, 0, 0]]  # per commander, 2-4 players a side
        self.tac_pile = self.tac_deck  # rule D4: the Tactician cards that come with the deck
        self.tac_disc = 0
        last_hand = [void, void]  # the last card each side played from its hand, as it played
        last_rack = [void, void]  # the card each side took from the rack on its last turn
        last_at = [[0, 0], [0, 0]]  # where each side placed its last hand and rack card
        first = sc.first
        multi = self.players >= 2
        self.g_pool = sc.guerrilla_pool
        if self.players >= 3:
            # rule G6: counters by section commander; the ones nobody may hold go to the pool
            self.g_held = []
            for k, side in enumerate(sc.sides):
                start = self.guerrilla_start(side)
                self.g_held.append(start + [0])
                self.g_pool += side.guerrilla - sum(start)
                for x in range(3):
                    self.cmet[k, self.owner[k][x], CM["g_start"]] += start[x]
        else:  # rule G6: one or two a side, so the starting counters all go to the CIC
            self.g_held = [[0, 0, 0, sc.sides[k].guerrilla if self.g_rule[k] != "off" else 0]
                           for k in range(2)]
            if multi:
                for k in range(2):
                    self.cmet[k, 0, CM["g_start"]] += self.g_held[k][GENERAL]
        # rule E1: hands (first player first), Tactician cards, then the rack of 5
        for k in range(2):
            s = (first + k) % 2
            for _ in range(self.hand0[s]):
                self.hand[s].append(self.draw(s))
            if multi:  # rules M6.3 / M8.2: each commander's own
                for cc, n in enumerate(self.tactician_start(sc.sides[s])):
                    take = min(n, self.tac_pile)
                    self.tac_by[s][cc] = take
                    self.tac[s] += take
                    self.tac_pile -= take
                continue
            take = min(sc.sides[s].tactician, self.tac_pile)
            self.tac[s] = take
            self.tac_pile -= take
        if not self.standard:
            for _ in range(RACK):
                rack.append(self.draw(first))
        for ply in range(2 * sc.turns):
            s = (first + ply) % 2
            o = 1 - s
            pv = self.pol[s]
            hand = self.hand[s]
            met[s, M["turns"]] += 1
            # rule E11: squares leave at the start of the side's turn, then one may form
            stay = []
            for t in squares[s]:
                if rng.random() < sc.sides[s].square_leave:
                    hand.append(t)
                else:
                    stay.append(t)
            squares[s] = stay
            form = sc.sides[s].square_form
            if form > 0.0 and rng.random() < form:
                if len(squares[s]) < self.hand0[s] - 1 and hand:
                    squares[s].append(hand.pop(rng.randrange(len(hand))))
                    met[s, M["squares_formed"]] += 1
            # Tactician cards spent at the policy rate; with 2-4 a side each holder his own
            if multi:
                for cc in range(4):  # held counted at the start of the turn, before spending
                    self.cmet[s, cc, CM["tactician_held_sum"]] += self.tac_by[s][cc]
                    if self.tac_by[s][cc] > 0 and rng.random() < pv[PARAMS["tactician_use_prob"]]:
                        self.tac_by[s][cc] -= 1
                        self.tac[s] -= 1
                        self.tac_disc += 1
                        met[s, M["tactician_played"]] += 1
                        self.cmet[s, cc, CM["tactician_played"]] += 1
            elif self.tac[s] > 0 and rng.random() < pv[PARAMS["tactician_use_prob"]]:
                self.tac[s] -= 1
                self.tac_disc += 1
                met[s, M["tactician_played"]] += 1
            # rule P7: the opponent may play one held First Strike during this turn
            fs_card = -1
            fs_prob = self.pol[o][PARAMS["first_strike_prob"]]
            held = [i for i, t in enumerate(self.hand[o]) if cd.first_strike[t] == 1]
            if fs_prob > 0.0 and held and rng.random() < fs_prob:
                fs_card = self.hand[o].pop(held[0])
                met[o, M["first_strikes"]] += 1
            cmd = len(hand)  # rule E6: the hand at the start of the turn
            rack_size = len(rack)
            c = min(cmd, self.cmax)
            # rule D3: a Counter-Attack copies (mirrored) a card the opponent played on his last
            # turn: his hand card, or under counter_attack_copies = either also his rack card,
            # which it copies when there is no hand card or when it scores strictly more (P1)
            copy = last_hand[o]
            copy_at = last_at[o][0]
            if self.rule("counter_attack_copies") == "either" and last_rack[o] != void:
                if copy == void or (self.single_value(s, c, int(cd.mirror[last_rack[o]]))
                                    > self.single_value(s, c, int(cd.mirror[copy])) + TOL):
                    copy = last_rack[o]
                    copy_at = last_at[o][1]
            # rules D3, S4 (counter_attack_section = facing): a copied tactic card goes to the
            # section facing the one the opponent placed it in
            pin = -1
            if (self.rule("counter_attack_section") == "facing" and copy != void
                    and sc.format not in ("standard",) and cd.kind[int(cd.mirror[copy])] == KIND_PLACED
                    and any(cd.counter[t] == 1 for t in hand + rack)):
                pin = 2 - copy_at
            # rule E4: every hand and rack card (as it would play) a section card of one section
            e4 = False
            if not self.standard and hand and rack:
                res = [self.resolve(t, copy) for t in hand + rack]
                e4 = (all(cd.kind[t] == KIND_SECTION for t in res)
                      and len({int(cd.sec[t]) for t in res}) == 1)
                if e4:
                    met[s, M["same_section_turns"]] += 1
            offer = rack if not self.standard else []
            pick = self.choose(s, c, hand, offer, e4, copy, pin)
            if pick is None and hand and offer:
                # no legal pair: the hand card alone, the rack left as it is
                pick = self.choose(s, c, hand, [], e4, copy, pin)
            i, j, p = pick if pick is not None else (None, None, 0)
            ta = hand.pop(i) if i is not None else void
            tb = void
            if j is not None:
                tb = rack.pop(j)
                met[s, M["pick_from_0"] + rack_size] += 1  # rule E10
            ra = self.resolve(ta, copy)
            rb = self.resolve(tb, copy)
            met[s, M["counter_attacks"]] += int(cd.counter[ta] == 1) + int(cd.counter[tb] == 1)
            if ta != void:
                met[s, M["hand_" + KIND_SLOT[cd.kind[ta]]]] += 1
                last_hand[s] = ra
                last_at[s][0] = p // 3
            if tb != void:
                met[s, M["rack_" + KIND_SLOT[cd.kind[tb]]]] += 1
            last_rack[s] = rb  # void when he took none
            last_at[s][1] = p % 3
            if e4 and ra != void and rb != void and cd.sec[ra] == cd.sec[rb]:
                if self.e4_playable:
                    met[s, M["same_section_used"]] += 1
                else:  # rules M6.1 / M8.1, same_section_receiver = two_commanders
                    if self.single_value(s, c, rb) > self.single_value(s, c, ra) + TOL:
                        ra = void
                    else:
                        rb = void
                    p = 0
            if ra != void and rb != void and self.kept(s, ra, rb, p) != (ra, rb):
                ra, rb = self.kept(s, ra, rb, p)  # rule M6.1, cic_keeps = one
                p = 0
            # rules G1 / G5: Spanish Guerrilla Action against the French cards, before any orders
            turn_over = False
            # the cards as played and where (who received what, rules M4, M6.1, M8.1)
            played = [(ra, self.placed_section(ra, p // 3)), (rb, self.placed_section(rb, p % 3))]
            if self.g_rule[o] != "off" and sc.sides[s].french:
                ra, rb, p, turn_over = self.guerrilla_attack(s, o, c, ra, rb, p)
                # rules D8, G5: a nullified card may still be copied by a Counter-Attack (the
                # designer's ruling); under counter_attack_nullified = none it cannot
                if self.rule("counter_attack_nullified") == "none":
                    if played[0][0] != void and ra == void:
                        last_hand[s] = void
                    if played[1][0] != void and rb == void:
                        last_rack[s] = void
            # rule D2: a card that rolls its orders rolls them now (the hand card's dice first)
            da = self.rolled(ra, c)
            nom, eff, rem = self._eval_cache(s, c, da, self.rolled(rb, c), p)
            for x, sec in enumerate("LCR"):
                met[s, M["nominal_" + sec]] += nom[x]
                met[s, M["effective_" + sec]] += eff[x]
            met[s, M["wasted"]] += sum(nom) - sum(eff)
            # rules G3 / G4 / P5: a Spanish Scout may trade its second draw for a counter
            gain = self.guerrilla_gain(s, ra, rb) if self.g_rule[s] != "off" else None
            # rules G4, E9.2: with two Scouts the gain needs two_scouts = gain
            if cd.scout[ra] + cd.scout[rb] > 1 and self.rule("two_scouts") == "draw_two":
                gain = None
            # rules E8 / P3: stars March Move up to 3 free units in the card's section, else draw
            r = list(rem)
            earned = [int(cd.tdraw[ra]), int(cd.tdraw[rb])]  # Tactician draws per card
            for k, (t, pl) in enumerate(((ra, p // 3), (rb, p % 3))):
                if cd.stars[t] == 0:
                    continue
                kd = cd.kind[t]
                x = int(cd.sec[t]) if kd == KIND_SECTION else (pl if kd == KIND_PLACED else -1)
                if gain is not None and self.g_rule[s] == "epic" and cd.scout[t] == 1 and x == gain:
                    continue  # rule G4: the Scout's stars stay unused to gain the counter
                avail = min(3, r[x]) if x >= 0 else 0
                if avail > 0 and rng.random() < pv[PARAMS["march_prob"]]:
                    r[x] -= avail
                    met[s, M["stars_march"]] += 1
                    met[s, M["march_units"]] += avail
                else:
                    earned[k] += 1
                    met[s, M["stars_tactician"]] += 1
            # rule D7: played cards (and a First Strike) to the discards; First Strike redraw
            for t in (ta, tb):
                if t != void:
                    self.disc.append(t)
            if fs_card >= 0:
                self.disc.append(fs_card)
                t = self.draw(o)
                if t >= 0:
                    self.hand[o].append(t)
            # rules G3 / G4: the counter is taken and the Scout draws one card, not two
            if gain is not None:
                self.g_held[s][gain] += 1
                self.g_pool -= 1
                met[s, M["g_acquired"]] += 1
                if multi:  # rule G6: the section's commander (the CIC's with two a side)
                    cc = self.owner[s][gain] if self.players >= 3 and gain < 3 else 0
                    self.cmet[s, cc, CM["g_acquired"]] += 1
            # rule E9.4 under elan_order = shuffle_first: the Elan reshuffle before the draws
            elan = cd.elan[ra] == 1 or cd.elan[rb] == 1
            if elan and self.shuffle_first:
                self.elan_reshuffle(s)
            # rules E9.1 / E9.2 / P2: draw one; with a Scout draw two and keep the better
            t1 = self.draw(s)
            if (cd.scout[ra] == 1 or cd.scout[rb] == 1) and gain is None and t1 >= 0:
                t2 = self.draw(s)
                met[s, M["scout_draws"]] += 1
                if t2 >= 0:
                    c2 = min(len(hand) + 1, self.cmax)
                    v1 = self.single_value(s, c2, self.resolve(t1, void))
                    v2 = self.single_value(s, c2, self.resolve(t2, void))
                    keep, drop = t1, t2
                    if v2 > v1 + TOL or (abs(v2 - v1) <= TOL and t2 < t1):
                        keep, drop = t2, t1
                    if pv[PARAMS["kind"]] == 1.0 and rng.random() < 0.5:
                        keep, drop = drop, keep
                    t1 = keep
                    self.disc.append(drop)
            if t1 >= 0:
                hand.append(t1)
            # rule E9.3: Tactician draws the played cards call for, none after a turn the
            # Guerrillas ended (rule G1); with 2-4 a side the commander layer deals them
            if multi and turn_over:
                for cc in sorted(set(self.owner[s]) if self.players >= 3 else {0, 1}):
                    self.cmet[s, cc, CM["commander_turns"]] += 1
            elif multi:
                self.commanders_turn(s, c, played, earned, nom, eff, r)
            elif not turn_over:
                for _ in range(sum(earned)):
                    self.draw_tactician(s)
            # rule E9.4: Elan shuffles draw pile and discards together (here, after the draws,
            # under elan_order = draw_first); every player draws one
            if elan:
                if not self.shuffle_first:
                    self.elan_reshuffle(s)
                for k in (s, o):  # rule M6.4: every Tactician holder of both sides
                    if multi:
                        for cc in self.tactician_holders():
                            self.draw_tactician(k, cc)
                    else:
                        self.draw_tactician(k)
            # rules E9.5 / E9.6: refill the rack (after all draws) when it holds 2 or fewer
            if not self.standard and len(rack) <= 2:
                met[s, M["refills"]] += 1
                while len(rack) < RACK:
                    t = self.draw(s)
                    if t < 0:
                        break
                    rack.append(t)
        for s in range(2):
            met[s, M["tactician_held_end"]] += self.tac[s]
            for cc in range(4):
                self.cmet[s, cc, CM["tactician_held_end"]] += self.tac_by[s][cc]
            if self.g_rule[s] != "off":
                met[s, M["g_held_end"]] += sum(self.g_held[s])
                met[s, M["g_pool_end"]] += self.g_pool
        return met


def play_games(sim, n_games: int, seed: int, per_game: bool = False):
    """Play n_games; metric sums [2, N_METRICS] (and per-game rows [n, 2, M] when per_game)."""
    rng = random.Random(seed)
    rows = np.zeros((n_games, 2, N_METRICS), np.int64)
    proto = _Game(sim, rng)
    for g in range(n_games):
        proto.met = np.zeros((2, N_METRICS), np.int64)
        rows[g] = proto.play()
    totals = rows.sum(axis=0)
    return (totals, rows) if per_game else totals


def play_games_multi(sim, n_games: int, seed: int, per_game: bool = False):
    """Play n_games of any EPIC format (per-commander metrics are zero with one player a side).
    Returns (metric totals [2, N_METRICS], commander totals [2, 4, N_CM]); with per_game, the
    per-game rows instead ([n, 2, N_METRICS], [n, 2, 4, N_CM])."""
    game = _Game(sim, random.Random(seed))
    rows = np.zeros((n_games, 2, N_METRICS), np.int64)
    crows = np.zeros((n_games, 2, 4, N_CM), np.int64)
    for g in range(n_games):
        game.met = np.zeros((2, N_METRICS), np.int64)
        rows[g] = game.play()
        crows[g] = game.cmet
    if per_game:
        return rows, crows
    return rows.sum(axis=0), crows.sum(axis=0)


__all__ = ["play_games", "play_games_multi", "KIND_MULTI"]
