"""A slow, obvious, pure-Python re-implementation of napsim.engine.lgb.play_blocks_lgb.

La Grande Battles (docs/rules.md L1-L9, with D, E and the LGB Guerrilla rules G4-G6, policies P1-P7).
It reads the scenario, the policy vectors and the card table of a `Simulation`, but never its
precomputed `Simulation.lgb` tables: what one card does for one Corps commander comes from the
reference's own order arithmetic (`reference.orders.corps_card_orders`, written without reading
napsim.sim.tables_lgb), and every greedy score, gain and choice is computed here. Randomness
comes from Python's `random.Random(seed)`, so results agree with the kernel only statistically.
Piles, hands, Corps hands, rack and Square Track are lists.

The kernel's readings of open rule points (its module docstring) are followed:
- the CIC scores a gift as what the receiver gains over his own alternative (his best own card
  when it scores at least `corps_own_min`, else nothing); a receiver who would swap the gift
  gains his best own card instead; under E4 the wing's commander gets both cards (he cannot
  swap then, so the pair is worth both cards' scores over his alternative);
- a Corps commander swaps the gift for his best own card when that scores more than
  `corps_swap_margin` above it, and without a gift plays his best own card when it scores at
  least `corps_own_min`; the random policy flips a coin for each, and plays a uniform own card;
- options (L4 split, a Center card's section, Force March's section) take the best, the lower on
  ties (random: uniform over the legal ones); every other greedy tie is broken uniformly;
- L8: a square takes a random card of a random Corps commander's hand, or, when that hand is
  empty, the CIC lends a random one of his when he holds two or more;
- after a Scout the CIC keeps the better card (by its best gift score over the three Corps
  commanders, as the card type itself; equal scores: the lower type) and gives the other to the
  Corps commander with the fewest cards (ties broken uniformly);
- a First Strike of the opponent: the first of CIC, left, centre, right Corps commander holding
  one may play it, with probability `first_strike_prob`; its player draws a replacement first at
  the end of the turn (option `first_strike_draw`: under cic_at_once only a CIC, at once);
- a Counter-Attack plays as the opponent CIC's last hand card, mirrored;
- rule E7 in LGB (napsim.sim.tables_lgb): a Take Command given by the CIC orders, once his two sections
  are all ordered, units of the sections next to his two (at most those of the card's types)
  that their own Corps commander left unordered (cards, March Moves, initiative), as evenly
  between the two as they allow; they count where the units stand and in his card_effective;
- G4 in LGB: one Scout a turn may gain a counter for its Corps commander when his two sections
  hold at least four Spanish units; G5: one counter a French turn, held by the Spanish Corps
  commander facing the card (S4: sections are named from each seat, so the French wing w faces
  the Spanish Corps 2 - w, who alone may spend against it and is credited with the spend),
  against the single-section card with the larger effective orders (ties: the leftmost wing,
  then the first card; saving for Assaults targets an Assault first); per-wing metrics name the
  French wing;
- G6: a scenario giving only a total `guerrilla` has it dealt to the Corps commanders as with 3-4
  players a side (option `guerrilla_share`); the counters nobody receives stay in the pool;
- D4: a deck without a Tactician deck deals and draws no Tactician card (no starved draws);
- L9 Elan (option `elan_order`): the reshuffle after the turn's Command draws, or before them.
- G4 with two Scouts in a turn (option `two_scouts`): one counter is gained and the CIC draws one
  card ("gain"), or the CIC draws two and none is gained ("draw_two"); never both.
"""

from __future__ import annotations

import random

import numpy as np

from napsim.engine.layout import CM_NAMES, MAX_HAND, METRIC_NAMES, N_CM, N_METRICS, RACK
from napsim.model.policies import PARAMS
from napsim.sim.tables import KIND_MULTI, KIND_SECTION
from napsim.sim.tables_lgb import units6_array

from .engine import _Game as _EpicGame
from .engine import deal_guerrilla, facing
from .orders import corps_card_orders, eligible

M = {name: i for i, name in enumerate(METRIC_NAMES)}
CM = {name: i for i, name in enumerate(CM_NAMES)}
KIND_SLOT = ("section", "multi", "tactic", "other")
TOL = 1e-9
SRC_CIC, SRC_OWN = 0, 1
CIC = 3        # owner code of a CIC card on the Square Track
SABRE = 5      # rule D5: the sixth face of the battle die
FLAG = 3       # die symbols: 0 infantry, 1 cavalry, 2 artillery, 3 flag, 4 sabre
WINGS = "LCR"


def _symbol(face: int) -> int:
    """Rule D5: faces 0-1 infantry, 2 cavalry, 3 artillery, 4 flag, 5 sabre."""
    return 0 if face <= 1 else face - 1


class _LgbGame:
    """One game's state and the rules that move cards between its lists."""

    def __init__(self, sim, rng: random.Random):
        sc = sim.scenario
        self.sc = sc
        self.rng = rng
        self.cards = sim.cards
        self.void = sim.cards.void
        self.pol = sim.policies
        self.units = units6_array(sc)  # [side, type, section of six]
        n_types = len(sim.cards.names)
        self.force_march = np.zeros(n_types, np.int64)
        self.force_march[:-1] = sim.deck.cards["force_march"].to_numpy()[sim.cards.base[:-1]]
        # E6 commands beyond every hand and every wing's units order nothing more; the kernel
        # clamps commands (and so nominal "equal to command" orders) at this bound
        wing_units = self.units[:, :, 0::2].sum(axis=1) + self.units[:, :, 1::2].sum(axis=1)
        hands = max(max(s.hand, *s.corps_hand) for s in sc.sides)
        self.cmax = min(max(hands, int(wing_units.max())) + 1, MAX_HAND + len(sim.cards.deck) - 1)
        self.wing_units = [[int(self.units[s, :, 2 * k].sum() + self.units[s, :, 2 * k + 1].sum())
                            for k in range(3)] for s in range(2)]
        self.g_on = [side.guerrilla_rule != "off" for side in sc.sides]
        self.tac_deck = int(sim.deck.tactician_deck)  # rule D4: 0 when the deck comes without one
        # rule E9.4: the Elan reshuffle before the Command draw, by option or by the card text
        # (a deck whose `# elan_reshuffle:` is before_draw, the Ancients I Am Spartacus)
        self.shuffle_first = (sim.scenario.rule("elan_order") == "shuffle_first"
                              or sim.deck.elan_before_draw)
        self.spanish = [[side.lgb_sections[2 * k].spanish + side.lgb_sections[2 * k + 1].spanish
                         for k in range(3)] for side in sc.sides]
        self._opts: dict = {}
        self._best: dict = {}

    # ----- what a card does (rules L3, L4, L5, L7, P1) ------------------------------------------
    def options(self, s: int, k: int, src: int, c: int, t: int):
        """[(option, nominal, effective left, effective right, score)] of the legal ways Corps
        commander k of side s plays card type t from source src with command c."""
        key = (s, k, src, c, t)
        got = self._opts.get(key)
        if got is not None:
            return got
        cd = self.cards
        pv = self.pol[s]
        w = pv[PARAMS[("w_l", "w_c", "w_r")[k]]]
        tac_bonus = pv[PARAMS["tactician_bonus"]]
        march_bonus = pv[PARAMS["march_bonus"]]
        march_prob = pv[PARAMS["march_prob"]]
        def value(t, ea, eb):
            v = w * (ea + eb) + tac_bonus * cd.tdraw[t] + pv[PARAMS["scout_bonus"]] * cd.scout[t]
            if cd.stars[t] > 0:  # rule L7: March Move 3 free units, or a Command + Tactician card
                avail = min(3, self.wing_units[s][k] - ea - eb)
                if avail > 0:
                    v += march_prob * march_bonus * avail + (1 - march_prob) * 2 * tac_bonus
                else:
                    v += 2 * tac_bonus
            return v

        res = []
        for opt in range(2):
            got = corps_card_orders(cd, self.units[s], t, src == SRC_CIC, opt, c, k,
                                    self.force_march)
            if got is None:
                continue
            nom, ea, eb = got
            v = value(t, ea, eb)
            if cd.dice_var[t] >= 0:  # rule D2: a card that rolls its orders: the expected score
                v = 0.0
                for q, r in self.roll_chances(t, c):
                    _, ra, rb = corps_card_orders(cd, self.units[s], r, src == SRC_CIC, opt, c, k,
                                                  self.force_march)
                    v += q * value(r, ra, rb)
            res.append((opt, nom, ea, eb, float(v)))
        self._opts[key] = res
        return res

    def best(self, s: int, k: int, src: int, c: int, t: int):
        """(best score, its option: the lower on ties), or None when t is not legal for him
        (remembered per argument, as options are: the gift search asks for it many times)."""
        key = (s, k, src, c, t)
        if key in self._best:
            return self._best[key]
        b = None
        for opt, _, _, _, v in self.options(s, k, src, c, t):
            if b is None or v > b[0] + TOL:
                b = (v, opt)
        self._best[key] = b
        return b

    def pick_option(self, s: int, k: int, src: int, c: int, t: int, random_policy: bool) -> int:
        if random_policy:
            return self.rng.choice([o[0] for o in self.options(s, k, src, c, t)])
        return self.best(s, k, src, c, t)[1]

    def orders(self, s: int, k: int, src: int, c: int, t: int, opt: int):
        """(nominal, effective left, effective right) of one card played with option opt."""
        for o, nom, ea, eb, _ in self.options(s, k, src, c, t):
            if o == opt:
                return nom, ea, eb
        raise AssertionError("illegal option played")

    def keep_value(self, s: int, c: int, t: int) -> float:
        """Rule P2 after a Scout: a drawn card's best score as a gift to any Corps commander, the
        card as it would play (a First Strike plays as nothing on its owner's turn)."""
        t = self.resolve(t, self.void)
        return max(b[0] for b in (self.best(s, w, SRC_CIC, c, t) for w in range(3)) if b is not None)

    # rules D3 (First Strike, Counter-Attack as the opponent CIC's last hand card) and D6 (draw,
    # reshuffle): the same list operations as the EPIC reference
    resolve = _EpicGame.resolve
    rolled = _EpicGame.rolled  # rule D2: the roll of a card that rolls its orders
    roll_chances = _EpicGame.roll_chances
    draw = _EpicGame.draw
    elan_reshuffle = _EpicGame.elan_reshuffle

    # ----- rule D4 --------------------------------------------------------------------------------
    def draw_tactician(self, s: int, k: int) -> None:
        """Rule D4: one Tactician card for Corps commander k of side s; nothing (and no starved
        draw) when the game has no Tactician deck."""
        if self.tac_deck == 0:
            return
        if self.tac_pile == 0:
            self.tac_pile, self.tac_disc = self.tac_disc, 0
        if self.tac_pile == 0:
            self.met[s, M["tactician_starved"]] += 1
            return
        self.tac_pile -= 1
        self.tac[s][k] += 1
        self.met[s, M["tactician_drawn"]] += 1
        self.cmet[s, k + 1, CM["tactician_drawn"]] += 1

    # ----- rule L6 ----------------------------------------------------------------------------------
    def initiative(self, s: int, k: int) -> int:
        """Two battle dice for Corps commander k; returns the Command cards he draws."""
        cm = self.cmet[s, k + 1]
        sym = [_symbol(self.rng.randrange(6)), _symbol(self.rng.randrange(6))]
        cm[CM["initiative_rolls"]] += 1
        for x in sym:
            cm[CM["face_" + ("infantry", "cavalry", "artillery", "flag", "sabre")[x]]] += 1
        if sym[0] == sym[1]:
            cm[CM["initiative_doubles"]] += 1
            if sym[0] == 4:
                cm[CM["initiative_two_sabres"]] += 1
                cm[CM["initiative_command_draws"]] += 1
                return 1  # two sabres: no block lost, one Command card
        units = self.units[s]
        secs = (2 * k, 2 * k + 1)
        free = self.wing_units[s][k]
        used = [0, 0, 0]
        for x in sym:
            if x <= 2:  # a unit symbol orders a free unit of that type
                if sum(units[x, y] for y in secs) > used[x] and free > 0:
                    free -= 1
                    used[x] += 1
                    cm[CM["initiative_ordered"]] += 1
                    self.met[s, M["initiative_orders"]] += 1
            elif x == FLAG:  # one unit March Moves
                if free > 0:
                    free -= 1
                    cm[CM["initiative_march"]] += 1
                    self.met[s, M["initiative_orders"]] += 1
            elif sum(units[u, y] for u in range(3) for y in secs) > 0:  # a sabre: one block lost
                cm[CM["blocks_lost"]] += 1
        return 0

    # ----- rule L2, P1, P6: the CIC's gifts ---------------------------------------------------------
    def choose_gifts(self, s, c, hand, rack, e4, opp_last, own_best, alt):
        """(hand index, rack index, receiver of the hand card, receiver of the rack card, score);
        indices and receivers None where nothing is given."""
        cd, void, pv = self.cards, self.void, self.pol[s]
        margin = pv[PARAMS["corps_swap_margin"]]
        random_policy = pv[PARAMS["kind"]] == 1.0

        def gain(k, v):  # what receiver k gains over his own alternative (he may swap the gift)
            return (v if v + margin >= own_best[k] else own_best[k]) - alt[k]

        def scores(cards):  # [(index, card as it plays, {receiver: best (score, option)})]
            out = []
            for i, t in (enumerate(cards) if cards else [(None, void)]):
                r = self.resolve(t, opp_last)
                out.append((i, r, {q: self.best(s, q, SRC_CIC, c, r) for q in range(3)} if r != void
                               else {}))
            return out

        cands = []
        hand_scores, rack_scores = scores(hand), scores(rack)
        for i, ra, best_a in hand_scores:
            for j, rb, best_b in rack_scores:
                for qa in (range(3) if ra != void else [None]):
                    ga = 0.0
                    va = None
                    if qa is not None:
                        va = best_a[qa]
                        if va is None:
                            continue  # L2: a section card goes to the wing it names
                        ga = gain(qa, va[0])
                    for qb in (range(3) if rb != void else [None]):
                        v = ga
                        if qb is not None:
                            vb = best_b[qb]
                            if vb is None:
                                continue
                            if qb == qa:
                                if not (e4 and cd.kind[ra] == KIND_SECTION
                                        and cd.kind[rb] == KIND_SECTION):
                                    continue  # L2: two different Corps commanders
                                # E4: the wing's commander plays both and cannot swap: both
                                # scores over his alternative
                                v = va[0] + vb[0] - alt[qa]
                            else:
                                v = ga + gain(qb, vb[0])
                        cands.append((v, i, j, qa, qb))
        if not cands:
            return None, None, None, None, -1.0e18
        if random_policy:
            return self.rng.choice(cands)[1:] + (0.0,)
        top = max(x[0] for x in cands)
        v, i, j, qa, qb = self.rng.choice([x for x in cands if x[0] >= top - TOL])
        return i, j, qa, qb, v

    # ----- one game ---------------------------------------------------------------------------------
    def play(self):
        sc, rng, cd, void = self.sc, self.rng, self.cards, self.void
        self.met = met = np.zeros((2, N_METRICS), np.int64)
        self.cmet = cmet = np.zeros((2, 4, N_CM), np.int64)
        self.pile = [int(t) for t in cd.deck]
        rng.shuffle(self.pile)
        self.disc = []
        hand: list[list[int]] = [[], []]
        corps: list[list[list[int]]] = [[[], [], []], [[], [], []]]
        squares: list[list[tuple[int, int]]] = [[], []]  # (card, owner: Corps 0-2 or CIC)
        rack: list[int] = []
        self.tac = [[0, 0, 0], [0, 0, 0]]
        self.tac_pile = self.tac_deck
        self.tac_disc = 0
        last_hand = [void, void]
        first = sc.first
        # rule G6 (LGB): each Corps commander's own counters, as the scenario assigns them; a
        # scenario giving only a total has it dealt as with 3-4 players a side, the Spanish units
        # of a Corps commander's two sections counted together (guerrilla_share), and the
        # counters nobody receives stay in the unacquired pool
        g_held = [[0, 0, 0], [0, 0, 0]]
        pool = sc.guerrilla_pool
        for k in range(2):
            if self.g_on[k]:
                side = sc.sides[k]
                if any(side.corps_guerrilla) or side.guerrilla == 0:
                    g_held[k] = [int(x) for x in side.corps_guerrilla]
                else:
                    g_held[k] = deal_guerrilla(side.guerrilla, self.spanish[k],
                                               sc.rule("guerrilla_share"))
                    pool += side.guerrilla - sum(g_held[k])
                for w in range(3):
                    cmet[k, w + 1, CM["g_start"]] += g_held[k][w]
        # rule L1: CIC hand, then each Corps commander's hand and Tactician cards, then the rack
        for k in range(2):
            s = (first + k) % 2
            side = sc.sides[s]
            for _ in range(side.hand):
                t = self.draw(s)
                if t >= 0:
                    hand[s].append(t)
            for w in range(3):
                for _ in range(side.corps_hand[w]):
                    t = self.draw(s)
                    if t >= 0:
                        corps[s][w].append(t)
                take = min(side.corps_tactician[w], self.tac_pile)
                self.tac[s][w] = take
                self.tac_pile -= take
        for _ in range(RACK):
            t = self.draw(first)
            if t >= 0:
                rack.append(t)
        for ply in range(2 * sc.turns):
            s = (first + ply) % 2
            o = 1 - s
            pv = self.pol[s]
            side = sc.sides[s]
            random_policy = pv[PARAMS["kind"]] == 1.0
            margin = pv[PARAMS["corps_swap_margin"]]
            own_min = pv[PARAMS["corps_own_min"]]
            met[s, M["turns"]] += 1
            # rule L8: square cards come back to their owner, then a square may form
            stay = []
            for t, owner in squares[s]:
                if rng.random() < side.square_leave:
                    (hand[s] if owner == CIC else corps[s][owner]).append(t)
                else:
                    stay.append((t, owner))
            squares[s] = stay
            if side.square_form > 0.0 and rng.random() < side.square_form:
                w = rng.randrange(3)
                if len(squares[s]) < side.hand:
                    if corps[s][w]:
                        squares[s].append((corps[s][w].pop(rng.randrange(len(corps[s][w]))), w))
                        cmet[s, w + 1, CM["square_cards"]] += 1
                        met[s, M["squares_formed"]] += 1
                    elif len(hand[s]) >= 2:  # the CIC lends one, keeping at least one
                        squares[s].append((hand[s].pop(rng.randrange(len(hand[s]))), CIC))
                        cmet[s, 0, CM["square_cards"]] += 1
                        met[s, M["squares_formed"]] += 1
            # Tactician cards spent at the policy rate (their count is all that matters)
            for w in range(3):  # held counted at the start of the turn, before spending
                cmet[s, w + 1, CM["commander_turns"]] += 1
                cmet[s, w + 1, CM["tactician_held_sum"]] += self.tac[s][w]
                cmet[s, w + 1, CM["hand_sum"]] += len(corps[s][w])
                if self.tac[s][w] > 0 and rng.random() < pv[PARAMS["tactician_use_prob"]]:
                    self.tac[s][w] -= 1
                    self.tac_disc += 1
                    met[s, M["tactician_played"]] += 1
                    cmet[s, w + 1, CM["tactician_played"]] += 1
            cmet[s, 0, CM["hand_sum"]] += len(hand[s])
            # rule P7: the opponent's first commander holding a First Strike may play it
            # (first_strike_draw = cic_at_once: only a CIC replaces it, at once; end_of_turn: the
            # player who played it draws first at the end of the turn, the card text)
            fs_card = -1
            fs_holder = None
            at_once = sc.rule("first_strike_draw") == "cic_at_once"
            fs_prob = self.pol[o][PARAMS["first_strike_prob"]]
            if fs_prob > 0.0:
                for holder in (hand[o], *corps[o]):
                    held = [i for i, t in enumerate(holder) if cd.first_strike[t] == 1]
                    if not held:
                        continue
                    if rng.random() < fs_prob:
                        fs_card = holder.pop(held[0])
                        fs_holder = holder
                        met[o, M["first_strikes"]] += 1
                        if holder is hand[o] and at_once:
                            t = self.draw(o)
                            if t >= 0:
                                hand[o].append(t)
                    break
            c = min(len(hand[s]), self.cmax)  # rule E6: the CIC's hand at the start of his turn
            rack_size = len(rack)
            opp_last = last_hand[o]
            # rule E4: every CIC hand and rack card (as it would play) a section card of one section
            e4 = False
            if hand[s] and rack:
                res = [self.resolve(t, opp_last) for t in hand[s] + rack]
                e4 = (all(cd.kind[t] == KIND_SECTION for t in res)
                      and len({int(cd.sec[t]) for t in res}) == 1)
                if e4:
                    met[s, M["same_section_turns"]] += 1
            # rule L5 / P6: each Corps commander's best own card and what he would do without a gift
            own_best, own_slot, alt = [], [], []
            for w in range(3):
                cw = min(len(corps[s][w]), self.cmax)  # L5: his own hand including the card
                vals = [self.best(s, w, SRC_OWN, cw, self.resolve(t, opp_last))[0]
                        for t in corps[s][w]]
                if vals:
                    top = max(vals)
                    own_best.append(top)
                    own_slot.append(rng.choice([i for i, v in enumerate(vals) if v >= top - TOL]))
                    alt.append(top if top >= own_min else 0.0)
                else:
                    own_best.append(-1.0e18)
                    own_slot.append(None)
                    alt.append(0.0)
            # rule L2: the CIC gives a hand card and a rack card to two Corps commanders
            hi, rj, ka, kb, _ = self.choose_gifts(s, c, hand[s], rack, e4, opp_last, own_best, alt)
            ta = hand[s].pop(hi) if hi is not None else void
            tb = rack.pop(rj) if rj is not None else void
            if ta != void:
                met[s, M["hand_" + KIND_SLOT[cd.kind[ta]]]] += 1
            if tb != void:
                met[s, M["pick_from_" + str(rack_size)]] += 1  # rule E10
                met[s, M["rack_" + KIND_SLOT[cd.kind[tb]]]] += 1
            ra = self.resolve(ta, opp_last)
            rb = self.resolve(tb, opp_last)
            met[s, M["counter_attacks"]] += int(cd.counter[ta] == 1) + int(cd.counter[tb] == 1)
            if ta != void:
                last_hand[s] = ra
            if e4 and ka is not None and ka == kb:
                met[s, M["same_section_used"]] += 1
            # a card that plays as nothing is given to nobody: straight to the discards
            for t, q in ((ta, ka), (tb, kb)):
                if t != void and q is None:
                    self.disc.append(t)
            # plays[w]: None (no card), "hold", "initiative", or (source, command, [[resolved,
            # physical, option], ...]) for the one or two cards he plays
            gifts = [[], [], []]
            for t, r, q in ((ta, ra, ka), (tb, rb, kb)):
                if q is not None:
                    gifts[q].append([r, t, 0])
            plays: list = [None, None, None]
            for w in range(3):
                slot = own_slot[w]
                got = bool(gifts[w])
                if got:
                    cmet[s, w + 1, CM["cards_received"]] += len(gifts[w])
                    swap = False
                    if slot is not None and len(gifts[w]) == 1:
                        if random_policy:
                            swap = rng.random() < 0.5
                        else:
                            r = gifts[w][0][0]
                            swap = own_best[w] > self.best(s, w, SRC_CIC, c, r)[0] + margin
                    if swap:  # rule L5: he discards the CIC's card for his own
                        cmet[s, w + 1, CM["cic_cards_rejected"]] += 1
                        self.disc.append(gifts[w][0][1])
                        got = False
                        if w == ka:  # rule D8: the CIC's hand card, discarded, gave no orders
                            last_hand[s] = void
                    else:
                        for g in gifts[w]:
                            g[2] = self.pick_option(s, w, SRC_CIC, c, g[0], random_policy)
                        plays[w] = (SRC_CIC, c, gifts[w])
                if got:
                    continue
                if not gifts[w]:
                    cmet[s, w + 1, CM["turns_without_card"]] += 1
                play_own = False
                if slot is not None:
                    if gifts[w]:
                        play_own = True  # swapped: he plays his own card
                    elif random_policy:
                        play_own = rng.random() < 0.5
                    else:
                        play_own = own_best[w] >= own_min
                if play_own:
                    if random_policy:
                        slot = rng.randrange(len(corps[s][w]))
                    cw = min(len(corps[s][w]), self.cmax)
                    t = corps[s][w].pop(slot)
                    r = self.resolve(t, opp_last)
                    plays[w] = (SRC_OWN, cw, [[r, t, self.pick_option(s, w, SRC_OWN, cw, r,
                                                                      random_policy)]])
                    cmet[s, w + 1, CM["own_cards_played"]] += 1
                    met[s, M["counter_attacks"]] += int(cd.counter[t] == 1)
                elif not corps[s][w]:
                    plays[w] = "initiative"  # rule L6: no card in hand and none received
                else:
                    plays[w] = "hold"
            # rule G5 (LGB): one Spanish counter a French turn, held by the Corps commander facing
            # the card (S4: the French wing w faces the Spanish Corps 2 - w); multi-section cards
            # cannot be stopped. w below is always the French wing, from the French seat.
            if self.g_on[o] and side.french:
                pvo = self.pol[o]
                met[o, M["g_french_turns"]] += 1
                target = None
                t_eff, t_assault = -1, 0
                for w in range(3):
                    if g_held[o][facing(w)] == 0 or not isinstance(plays[w], tuple):
                        continue
                    src, cw, cards = plays[w]
                    for g in cards:
                        r = g[0]
                        if r == void or cd.kind[r] == KIND_MULTI:
                            continue
                        _, ea, eb = self.orders(s, w, src, cw, r, g[2])
                        assault = int(cd.eq_cmd[r])
                        if pvo[PARAMS["g_spend_mode"]] == 2 and assault != t_assault:
                            better = assault > t_assault
                        else:
                            better = ea + eb > t_eff
                        if better:
                            target, t_eff, t_assault = (w, g), ea + eb, assault
                if target is not None:
                    met[o, M["g_offered"]] += 1
                    mode = pvo[PARAMS["g_spend_mode"]]
                    if not (mode == 0 or (mode == 1 and t_eff >= pvo[PARAMS["g_threshold"]])
                            or (mode == 2 and t_assault == 1)):  # rule P4
                        met[o, M["g_available_not_spent"]] += 1
                    else:
                        w, g = target
                        spanish_corps = facing(w)  # rule S4: the Spanish Corps across from w
                        g_held[o][spanish_corps] -= 1
                        met[o, M["g_spent"]] += 1
                        cmet[o, spanish_corps + 1, CM["g_spent"]] += 1
                        sabre = rng.randrange(6) == SABRE
                        if sabre or sc.rule("spent_counters") == "all_return":
                            pool += 1  # rule G1: a stopped counter returns to the pool
                        if sabre:  # rule G1: a sabre stops the guerrillas
                            met[o, M["g_stopped_by_sabre"]] += 1
                        else:
                            src, cw, _ = plays[w]
                            nom, _, _ = self.orders(s, w, src, cw, g[0], g[2])
                            met[o, M["g_cards_nullified"]] += 1
                            met[o, M["g_nullified_in_french_" + WINGS[w]]] += 1
                            cmet[o, spanish_corps + 1, CM["g_nullified"]] += 1
                            met[o, M["g_denied_nominal"]] += nom
                            met[o, M["g_denied_effective"]] += t_eff
                            met[o, M["g_denied_effective_in_french_" + WINGS[w]]] += t_eff
                            g[0] = void  # nullified: plays as nothing (the card is discarded)
                            # rules D8, G5: the CIC's hand card, nullified, may still be copied
                            # (the designer's ruling), unless counter_attack_nullified = none
                            if (sc.rule("counter_attack_nullified") == "none" and src == SRC_CIC
                                    and gifts[w] and g is gifts[w][0] and w == ka):
                                last_hand[s] = void
            # orders (L3-L5), stars (L7), initiative (L6), Scout for a counter (G4)
            cmd_draws = [0, 0, 0]
            tac_draws = [0, 0, 0]
            elan = False
            # rules G4, E9.2, L9: the first Scout (left wing first) whose wing holds four Spanish
            # units gains the counter when the pool and the policy allow; the CIC then draws one
            # card, not two. With two Scouts the gain needs two_scouts = gain.
            scouts = [(w, i) for w in range(3) if isinstance(plays[w], tuple)
                      for i, (r, _, _) in enumerate(plays[w][2]) if r != void and cd.scout[r] == 1]
            gm = pv[PARAMS["g_gain_mode"]]
            wants = self.g_on[s] and pool > 0 and not (
                gm == 1 or (gm == 2 and sum(g_held[s]) >= pv[PARAMS["g_gain_below"]]))
            gain_at = next(((w, i) for w, i in scouts if wants and self.spanish[s][w] >= 4), None)
            if len(scouts) > 1 and sc.rule("two_scouts") == "draw_two":
                gain_at = None
            scouted = bool(scouts) and gain_at is None
            # rule E7 (LGB): units of each section that no card orders, units of each wing left
            # unordered, and the orders a Take Command from the CIC may still give next door
            room = [int(self.units[s, :, x].sum()) for x in range(6)]
            free_w = list(self.wing_units[s])
            reach = [0, 0, 0]
            for w in range(3):
                p = plays[w]
                if p == "initiative":
                    cm = cmet[s, w + 1]
                    before = cm[CM["initiative_ordered"]] + cm[CM["initiative_march"]]
                    cmd_draws[w] += self.initiative(s, w)
                    free_w[w] -= cm[CM["initiative_ordered"]] + cm[CM["initiative_march"]] - before
                    continue
                if not isinstance(p, tuple):
                    continue
                src, cw, cards = p
                tot_a = int(self.units[s, :, 2 * w].sum())
                tot_b = int(self.units[s, :, 2 * w + 1].sum())
                nom = ea = eb = 0
                for r, _, q in cards:
                    if r != void:  # rule D2: a card that rolls its orders rolls them now
                        n1, a1, b1 = self.orders(s, w, src, cw, self.rolled(r, cw), q)
                        nom, ea, eb = nom + n1, ea + a1, eb + b1
                ea, eb = min(ea, tot_a), min(eb, tot_b)  # S2: a unit is ordered once
                room[2 * w] -= ea
                room[2 * w + 1] -= eb
                for r, _, q in cards:
                    if r != void and src == SRC_CIC and cd.take_command[r] == 1:
                        n1, a1, b1 = self.orders(s, w, src, cw, r, q)
                        near = sum(eligible(self.units[s], cd.filt[r], x)
                                   for x in (2 * w - 1, 2 * w + 2) if 0 <= x < 6)
                        reach[w] += max(0, min(n1 - a1 - b1, near))
                cmet[s, w + 1, CM["card_nominal"]] += nom
                cmet[s, w + 1, CM["card_effective"]] += ea + eb
                cmet[s, w + 1, CM["card_effective_first_half"]] += ea
                cmet[s, w + 1, CM["card_effective_second_half"]] += eb
                met[s, M["nominal_" + WINGS[w]]] += nom
                met[s, M["effective_" + WINGS[w]]] += ea + eb
                met[s, M["wasted"]] += nom - ea - eb
                free = tot_a + tot_b - ea - eb
                for i, (r, _, _) in enumerate(cards):
                    if r == void:
                        continue
                    tac_draws[w] += int(cd.tdraw[r])
                    elan = elan or cd.elan[r] == 1
                    gain_here = gain_at == (w, i)
                    if gain_here:  # rule G4: the counter instead of the second draw
                        g_held[s][w] += 1
                        pool -= 1
                        met[s, M["g_acquired"]] += 1
                        cmet[s, w + 1, CM["g_acquired"]] += 1
                    if cd.stars[r] == 0 or gain_here:
                        continue  # G4: the stars stay unused when the counter is gained
                    avail = min(3, free)
                    if avail > 0 and rng.random() < pv[PARAMS["march_prob"]]:
                        free -= avail
                        met[s, M["march_units"]] += avail
                        met[s, M["stars_march"]] += 1
                    else:  # rule L7: a Command card and a Tactician card at the end of the turn
                        met[s, M["stars_tactician"]] += 1
                        cmet[s, w + 1, CM["star_command_draws"]] += 1
                        cmd_draws[w] += 1
                        tac_draws[w] += 1
                free_w[w] = free
            # rule E7 (LGB): the Take Command's orders beyond his sections, after every wing's own
            for w in range(3):
                n = reach[w]
                if n == 0:
                    continue
                near = [(w - 1, 2 * w - 1), (w + 1, 2 * w + 2)]  # (neighbour wing, section)
                rooms = [min(room[x], free_w[v]) if 0 <= v < 3 else 0 for v, x in near]
                into_l = max(min(rooms[0], max(n - rooms[1], (n + 1) // 2)), 0)
                into_r = max(min(rooms[1], n - into_l), 0)
                for (v, x), took in zip(near, (into_l, into_r), strict=True):
                    if took:
                        room[x] -= took
                        free_w[v] -= took
                        half = "first" if x % 2 == 0 else "second"
                        cmet[s, v + 1, CM[f"card_effective_{half}_half"]] += took
                        met[s, M["effective_" + WINGS[v]]] += took
                        cmet[s, w + 1, CM["card_effective"]] += took
                        met[s, M["wasted"]] -= took
            # rule D7: played cards and a First Strike go to the discards
            for p in plays:
                if isinstance(p, tuple):
                    self.disc.extend(t for _, t, _ in p[2])
            if fs_card >= 0:
                self.disc.append(fs_card)
            # rule L9 Elan under elan_order = shuffle_first: the reshuffle before the Command draws
            if elan and self.shuffle_first:
                self.elan_reshuffle(s)
            # rule P7 (first_strike_draw = end_of_turn): the First Strike's player draws first
            if fs_holder is not None and not at_once:
                t = self.draw(o)
                if t >= 0:
                    fs_holder.append(t)
            # rule L9: the CIC draws one; after a Scout two, keeps one and gives one away
            t1 = self.draw(s)
            if scouted and t1 >= 0:
                t2 = self.draw(s)
                met[s, M["scout_draws"]] += 1
                if t2 >= 0:
                    c2 = min(len(hand[s]) + 1, self.cmax)
                    v1, v2 = self.keep_value(s, c2, t1), self.keep_value(s, c2, t2)
                    keep, give = t1, t2
                    if v2 > v1 + TOL or (abs(v2 - v1) <= TOL and t2 < t1):
                        keep, give = t2, t1
                    if random_policy and rng.random() < 0.5:
                        keep, give = give, keep
                    t1 = keep
                    sizes = [len(corps[s][w]) for w in range(3)]
                    to = rng.choice([w for w in range(3) if sizes[w] == min(sizes)])
                    corps[s][to].append(give)
                    cmet[s, to + 1, CM["scout_gifts"]] += 1
            if t1 >= 0:
                hand[s].append(t1)
            # Corps commanders' Command draws (L6 two sabres, L7 unused stars), Tactician draws
            for w in range(3):
                for _ in range(cmd_draws[w]):
                    t = self.draw(s)
                    if t >= 0:
                        corps[s][w].append(t)
                for _ in range(tac_draws[w]):
                    self.draw_tactician(s, w)
            # rule L9 Elan: draw pile and discards shuffled (the rack stays); every Corps
            # commander of both sides draws a Tactician card
            if elan:
                if not self.shuffle_first:
                    self.elan_reshuffle(s)
                for k2 in (s, o):
                    for w in range(3):
                        self.draw_tactician(k2, w)
            # rule E9.6: refill the rack when it holds 2 or fewer
            if len(rack) <= 2:
                met[s, M["refills"]] += 1
                while len(rack) < RACK:
                    t = self.draw(s)
                    if t < 0:
                        break
                    rack.append(t)
        # every card in exactly one place (draw pile, discards, a hand, the rack, a square)
        places = self.pile + self.disc + rack + [t for s in range(2) for t in hand[s]] + [
            t for s in range(2) for w in range(3) for t in corps[s][w]] + [
            t for s in range(2) for t, _ in squares[s]]
        assert sorted(places) == sorted(int(t) for t in cd.deck), "a card was lost or copied"
        for s in range(2):
            for w in range(3):
                met[s, M["tactician_held_end"]] += self.tac[s][w]
                cmet[s, w + 1, CM["tactician_held_end"]] += self.tac[s][w]
                cmet[s, w + 1, CM["hand_end"]] += len(corps[s][w])
            cmet[s, 0, CM["hand_end"]] += len(hand[s])
            if self.g_on[s]:
                met[s, M["g_held_end"]] += sum(g_held[s])
                met[s, M["g_pool_end"]] += pool
        return met, cmet


def play_games_lgb(sim, n: int, seed: int, per_game: bool = False):
    """Play n La Grande Battles games. Returns (metric totals [2, N_METRICS], commander totals
    [2, 4, N_CM]); with per_game, the per-game rows instead ([n, 2, N_METRICS], [n, 2, 4, N_CM])."""
    if sim.scenario.format != "lgb":
        raise ValueError("play_games_lgb needs a scenario of format 'lgb'")
    game = _LgbGame(sim, random.Random(seed))
    rows = np.zeros((n, 2, N_METRICS), np.int64)
    crows = np.zeros((n, 2, 4, N_CM), np.int64)
    for g in range(n):
        rows[g], crows[g] = game.play()
    if per_game:
        return rows, crows
    return rows.sum(axis=0), crows.sum(axis=0)


__all__ = ["play_games_lgb"]
