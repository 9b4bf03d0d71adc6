"""Turn a game's event log (engine.epic trace) into text a player can check against the rules
(`napsim trace`), and the trace's words: counts with the right plural, what a La Grande Battles
play option chose, and the end-of-game summary per side computed from the game's metrics row
(layout M_*)."""

from __future__ import annotations

import numpy as np

from napsim.engine import layout
from napsim.sim.summary import commander_roles
from napsim.sim.tables import KIND_MULTI, KIND_PLACED, KIND_SECTION

DIE_FACES = ("infantry", "infantry", "cavalry", "artillery", "flag", "sabre")
SECTION_WORDS = ("Left", "Centre", "Right")  # L, C, R, each named from its own side's seat (S4)
# the formats whose side count of Tactician cards tells every card played (with three or four players
# a side the commanders' own cards move it too, so a drop is not a play there)
PLAYS_FROM_COUNTS = ("standard", "epic1", "epic2")


def format_trace(sim, events: np.ndarray, seed: int, game: int, metrics: np.ndarray | None = None) -> str:
    """One line per event, grouped by turn, using card and side names; with the game's metrics
    row (`Simulation.trace`), an end-of-game summary per side follows."""
    names = sim.cards.names
    sides = [s.name for s in sim.scenario.sides]
    sc = sim.scenario
    lines = [f"napsim trace: scenario {sc.name} ({sc.format}), deck {sim.deck.name}, seed {seed}, "
             f"game {game}; policies {sim.policy_names[0]} vs {sim.policy_names[1]}"]
    # the kernels log a turn's first events (squares, a First Strike of the opponent and its
    # replacement draw) before the turn's header: they are held back and printed under it
    early: list[str] = []
    header_ply = -1
    fm = force_march_flags(sim) if sc.format == "lgb" else None
    held = [side.tactician for side in sc.sides]  # Tactician cards each side holds, as last seen
    for ev in events:
        code, ply, s = int(ev[0]), int(ev[1]), int(ev[2])
        out = early if ply > header_ply and code != layout.EV_TURN else lines
        a = [int(x) for x in ev[3:11]]
        who = sides[s] if 0 <= s < 2 else "?"
        if sc.format == "lgb":
            line = _lgb_event(sim, code, s, who, a, fm)
            if line is not None:
                out.append(line)
                continue
        if code == layout.EV_TURN:
            cmd, rn, e4, hn, sqn, tac, pn, dn = a
            hand = ", ".join(names[int(t)] for t in ev[11:11 + hn])
            rack = ", ".join(names[int(t)] for t in ev[11 + layout.MAX_HAND:11 + layout.MAX_HAND + rn])
            out.append("")
            out.append(f"turn {ply // 2 + 1}.{ply % 2 + 1}  {who} to play  (hand size {cmd}, "
                       f"squares {sqn}, Tactician cards {tac}, draw pile {pn}, discards {dn})")
            if tac < held[s] and sc.format in PLAYS_FROM_COUNTS:
                out.append(tactician_play_line(who, held[s] - tac))
            held[s] = tac
            out.extend(early)
            early.clear()
            header_ply = ply
            out.append(f"  hand: {hand}")
            out.append(f"  rack ({rn}): {rack}" + ("   [E4: all one section]" if e4 else ""))
        elif code == layout.EV_CHOICE:
            ta, tb, pa, pb, ra, rb, score, policy_kind = a
            why = ("uniform over legal plays (random)" if policy_kind == 1 else
                   f"score {score / 1000:.2f}, the most orders in rollouts (lookahead)"
                   if policy_kind == 2 else f"best score {score / 1000:.2f} (greedy)")
            kind = sim.cards.kind
            out.append(f"  plays {_card(names, kind, ta, pa, ra)} from hand + "
                       f"{_card(names, kind, tb, pb, rb)} from rack: {why}")
        elif code == layout.EV_ORDERS:
            out.append(_orders_line("L/C/R", a))
        elif code == layout.EV_DRAW:
            out.append(f"  {who} draws {names[a[0]]}")
        elif code == layout.EV_SCOUT:
            out.append(f"  Scout: {who} draws two, keeps {names[a[0]]}, discards {names[a[1]]}")
        elif code == layout.EV_TACTICIAN:
            out.append(f"  {who} draws a Tactician card (now {a[0]})")
            held[s] = a[0]
        elif code == layout.EV_ELAN:
            out.append(f"  Elan: draw pile and discards shuffled together ({plural(a[0], 'card')})")
        elif code == layout.EV_RESHUFFLE:
            out.append(f"  draw pile empty: discards reshuffled into a new pile of {a[0]}")
        elif code == layout.EV_REFILL:
            rack = ", ".join(names[t] for t in a[1:1 + a[0]])
            out.append(f"  rack refilled to {a[0]}: {rack}")
        elif code == layout.EV_SQUARE:
            out.append(f"  {who} forms a square: {names[a[0]]} goes to the Square Track")
        elif code == layout.EV_UNSQUARE:
            out.append(f"  {who} leaves square: {names[a[0]]} returns to hand")
        elif code == layout.EV_FIRST_STRIKE:
            out.append(f"  {who} plays {_first_strike(names[a[0]])} in the opponent's turn")
        elif code == layout.EV_G_ATTEMPT:
            target, tsec, t_eff, roll, outcome = a[0:5]
            card = {0: "the hand card", 1: "the rack card", 2: "the turn's cards"}[target]
            # S4: the French card's section from the French seat, and the Spanish one facing it
            where = (f" in the French {SECTION_WORDS[tsec]} (facing the Spanish "
                     f"{SECTION_WORDS[2 - tsec]})") if tsec >= 0 else ""
            worth = f"worth {plural(t_eff, 'effective order')}"
            if outcome == layout.G_OUT_DECLINED:
                out.append(f"  Guerrilla: {who} holds a counter against {card}{where}, {worth}, "
                           "but keeps it (policy P4)")
            else:
                out.append(f"  Guerrilla: {who} spends a counter against {card}{where}, {worth}; "
                           f"{_guerrilla_roll(roll, outcome)}")
        elif code == layout.EV_G_GAIN:
            where = (f"the commander of the {SECTION_WORDS[a[0]]}" if a[0] < 3 else "the CIC")
            out.append(f"  Guerrilla: a {who} Scout draws one card instead of two and gains a "
                       f"counter for {where} (unacquired pool now {a[1]})")
        elif code == layout.EV_INITIATIVE:
            k, d1, d2, ordered, tac = a[:5]
            extra = "; a double: he draws a Tactician card" if tac else ""
            why = ("no card and no multi-section orders in his section"
                   if sc.rule("initiative") == "no_card_no_orders" else "no card")
            out.append(f"  {who} {_role(sc, k, s)} ({SECTION_WORDS[a[6]]}) has {why}: initiative roll "
                       f"{DIE_FACES[d1]} + {DIE_FACES[d2]}, {plural(ordered, 'unit')} "
                       f"ordered{extra}")
        elif code == layout.EV_DICE:
            t, n_dice, hits, k = a[:4]
            roller = f"{who} Corps {WINGS[k]}" if sc.format == "lgb" and k >= 0 else who
            out.append(f"  {roller} rolls {plural(n_dice, 'die', 'dice')} for {names[t]} (its "
                       f"Command): {hits} show an ordering face ({sim.deck.dice_order_faces} of 6), "
                       f"so the card orders up to {plural(hits, 'unit')} (D2)")
        elif code == layout.EV_PASS:
            out.append(f"  {who} CIC passes {names[a[0]]} ({SECTION_WORDS[a[1]]}) to his sub-commander "
                       f"and plays the other card")
        elif code == layout.EV_COMMANDER_TACTICIAN:
            out.append(f"  {who} {_role(sc, a[0], s)} draws a Tactician card (now {a[1]})")
            held[s] += 1
        elif code == layout.EV_STARVED:
            out.append(f"  {who} cannot draw: draw pile and discards are empty")
    lines += early
    if metrics is not None:
        lines += game_summary(sim, metrics, events)
    return "\n".join(lines)


def trace_parts(text: str) -> tuple[str, list[tuple[str, str]], str]:
    """A trace's text in parts a page can fold: (the head line, [(turn header, the turn's lines)],
    the end-of-game summary); joined back with line breaks they are the text."""
    head, *blocks = text.split("\n\nturn ")
    turns, tail = [], ""
    for i, block in enumerate(blocks):
        block = "turn " + block
        if i == len(blocks) - 1 and "\n\nend of game" in block:
            block, tail = block.split("\n\nend of game", 1)
            tail = "end of game" + tail
        title, _, body = block.partition("\n")
        turns.append((title, body))
    return head, turns, tail


def tactician_play_line(who: str, n: int) -> str:
    """The Tactician cards a side played as its turn began (the kernels count them, at the
    policy's rate, and log no event: the drop in the count says it)."""
    return (f"  {who} plays {plural(n, 'Tactician card')} as the turn begins (napsim counts Tactician "
            "cards at the policy's rate; their text is not played)")


def _orders_line(by: str, a: list[int]) -> str:
    """A turn's orders per section (or wing), March Moves and Tactician draws (EV_ORDERS)."""
    return (f"  orders {by}: nominal {'/'.join(map(str, a[0:3]))}, effective "
            f"{'/'.join(map(str, a[3:6]))}; {plural(a[6], 'unit')} moved by March Moves; "
            f"{plural(a[7], 'Tactician draw')} due")


def _first_strike(name: str) -> str:
    """'First Strike', or the card that plays as one ('Leadership as a First Strike')."""
    return name if name == "First Strike" else f"{name} as a First Strike"


def _card(names, kind, t: int, p: int, resolved: int) -> str:
    """A card name, what it plays as, and where a tactic card was placed (E3)."""
    if t == len(names) - 1:
        return "(nothing)"
    label = names[t]
    if resolved == len(names) - 1:
        return label + " (gives no orders this turn)"  # First Strike; or its receiver cannot use it
    if resolved != t:
        label += f" (plays as {names[resolved]})"
    if kind[resolved] == KIND_PLACED:
        label += f" placed in the {SECTION_WORDS[p]}"
    return label


WINGS = ("left wing", "centre wing", "right wing")
LGB_SOURCES = {layout.SRC_CIC: "the CIC's card", layout.SRC_OWN: "his own card"}
LGB_DRAWS = {layout.DRAW_SCOUT_GIFT: "a Scout gift", layout.DRAW_STARS: "unused stars (L7)",
             layout.DRAW_TWO_SABRES: "two sabres (L6)"}


def _lgb_event(sim, code: int, s: int, who: str, a: list[int], fm: np.ndarray) -> str | None:
    """La Grande Battles lines (engine.lgb events and the events it reads differently)."""
    names = sim.cards.names
    void = len(names) - 1

    def corps(k: int) -> str:
        return f"{who} Corps {WINGS[k]}"

    if code == layout.EV_CORPS_HANDS:
        return (f"  Corps hands (left/centre/right wing): Command cards {a[0]}/{a[1]}/{a[2]}, "
                f"Tactician cards {a[3]}/{a[4]}/{a[5]}")
    if code == layout.EV_GIVE:
        ta, tb, ka, kb, ra, rb, score, policy_kind = a
        why = ("uniform over legal gifts (random)" if policy_kind == 1 else
               f"the most orders in rollouts (lookahead, P8; greedy's gain {score / 1000:.2f})"
               if policy_kind == 2 else
               f"best gain {score / 1000:.2f} over the receivers' own options (greedy, P6)")
        parts = []
        for t, k, r, src in ((ta, ka, ra, "hand"), (tb, kb, rb, "rack")):
            if t == void:
                continue
            label = names[t] + ("" if r == t else " (gives no orders)" if r == void
                                else f" (plays as {names[r]})")
            parts.append(f"{label} from {src} to " + (WINGS[k] if k >= 0 else "nobody (no orders)"))
        return f"  CIC gives {' and '.join(parts) or 'nothing'}: {why}"
    if code == layout.EV_CORPS_PLAY:
        k, src, t, r, opt, nom, ea, eb = a
        if src == layout.SRC_HOLD:
            return f"  {corps(k)} keeps his cards and issues no orders"
        chose = corps_option(sim.cards, fm, k, src, t, r, opt)
        chose = f", {chose}" if chose else ""
        if nom < 0:
            return f"    and also {names[t]}{chose} (E4: both cards in his wing)"
        label = names[t] + (f" (plays as {names[r]})" if r != t and r != void else "")
        if r == void:
            label += " (nullified)"
        return (f"  {corps(k)} plays {label}, {LGB_SOURCES.get(src, '?')}{chose}: "
                f"{plural(nom, 'order')} nominal, effective {ea} in {LGB_SIX[2 * k]} + {eb} in "
                f"{LGB_SIX[2 * k + 1]}")
    if code == layout.EV_CORPS_REACH:
        k, n, into_l, into_r = a[:4]
        six = ("L1", "L2", "C1", "C2", "R1", "R2")
        where = [f"{x} in {six[i]}" for x, i in ((into_l, 2 * k - 1), (into_r, 2 * k + 2)) if 0 <= i < 6]
        return (f"  {corps(k)}'s Take Command reaches the sections next to his (E7): "
                f"{' and '.join(where)} effective, of {plural(n, 'order')} left")
    if code == layout.EV_REJECT:
        return f"  {corps(a[0])} discards the CIC's {names[a[1]]} to play one of his own (L5)"
    if code == layout.EV_INITIATIVE:
        k, d1, d2, ordered, _tac, cmd_draw = a[:6]
        blocks = a[7] if len(a) > 7 else 0
        extra = "; two sabres: no block lost, he draws a Command card" if cmd_draw else (
            "; the sabre costs one of his units a block (L6)" if blocks > 0 else "")
        return (f"  {corps(k)} has no card: initiative roll {DIE_FACES[d1]} + {DIE_FACES[d2]}, "
                f"{plural(ordered, 'unit')} ordered{extra}")
    if code == layout.EV_CORPS_DRAW:
        return f"  {corps(a[0])} draws {names[a[1]]} into his hand"
    if code == layout.EV_CORPS_TACTICIAN:
        return f"  {corps(a[0])} draws a Tactician card (now {a[1]})"
    if code == layout.EV_SCOUT:
        return (f"  Scout: the CIC draws two, keeps {names[a[0]]} and gives {names[a[1]]} to the "
                f"{WINGS[a[2]]} Corps commander")
    if code in (layout.EV_SQUARE, layout.EV_UNSQUARE):
        owner = "the CIC" if a[1] == 3 else f"the {WINGS[a[1]]} Corps commander"
        if code == layout.EV_SQUARE:
            return f"  {who} forms a square: {names[a[0]]} from {owner} goes to the Square Track"
        return f"  {who} leaves square: {names[a[0]]} returns to {owner}"
    if code == layout.EV_G_ATTEMPT:
        which, k, t_eff, roll, outcome = a[0:5]
        # S4: the French wing k faces the Spanish wing 2 - k, whose Corps commander spends
        card = f"the {'second ' if which else ''}card played by the French {WINGS[k]}"
        spender = f"{who} {WINGS[2 - k]} (facing it)"
        worth = f"worth {plural(t_eff, 'effective order')}"
        if outcome == layout.G_OUT_DECLINED:
            return f"  Guerrilla: {spender} could spend a counter against {card}, {worth}, but keeps it"
        return (f"  Guerrilla: {spender} spends a counter against {card}, {worth}; "
                f"{_guerrilla_roll(roll, outcome)}")
    if code == layout.EV_G_GAIN:
        return (f"  Guerrilla: a {who} Scout gains a counter for the {WINGS[a[0]]}; the CIC draws one "
                f"card instead of two (unacquired pool now {a[1]})")
    if code == layout.EV_ORDERS:
        return _orders_line("by wing L/C/R", a)
    return None


def _guerrilla_roll(roll: int, outcome: int) -> str:
    """The French die against a spent counter, in words (G1)."""
    if outcome == layout.G_OUT_SABRE:
        return "the French roll a sabre, so the guerrillas fail and the card is carried out"
    return f"the French roll {DIE_FACES[roll]}, not a sabre, so the card is nullified"


def _role(sc, k: int, side: int) -> str:
    """Commander k of a side, named by the section he holds where he holds one."""
    roles = list(commander_roles(sc.format, sc.sides[side].cic_section).values())
    return roles[k] if 0 <= k < len(roles) else f"commander {k}"


# --------------------------------------------------------------------------------------------
# the trace's words


LGB_SIX = ("L1", "L2", "C1", "C2", "R1", "R2")
INITIATIVE_FORMATS = ("epic3", "epic4", "lgb")  # a commander with no card rolls (M6.2, M8.2, L6)


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 unit', '0 units', '2 units' ('many' for an irregular plural)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def force_march_flags(sim) -> np.ndarray:
    """Per card type (VOID last): 1 for a Force March card (D3 force_march)."""
    out = np.zeros(len(sim.cards.names), np.int64)
    out[:-1] = sim.deck.cards["force_march"].to_numpy()[sim.cards.base[:-1]]
    return out


def corps_option(cards, force_march: np.ndarray, k: int, src: int, t: int, r: int, opt: int) -> str:
    """What the option of a Corps commander's play chose (L4, tables_lgb), in words; '' when the
    card leaves him no choice. k: his wing (sections 2k, 2k+1); t the card, r what it plays as."""
    c = r if r != len(cards.names) - 1 else t
    if not 0 <= opt <= 1 or c == len(cards.names) - 1:
        return ""
    where = f"his {('left', 'right')[opt]} section {LGB_SIX[2 * k + opt]}"
    kind = int(cards.kind[c])
    if kind == KIND_SECTION and src == layout.SRC_OWN and cards.sec[c] == 1:
        return f"the Center card orders in {where}"
    if kind == KIND_MULTI and cards.orders[c, 1] > 0:
        return f"its Center orders go to {where} (L4)"
    if kind == KIND_PLACED and force_march[c]:
        return f"its infantry march in {where}"
    return ""


def _per_turn(n: int, turns: int) -> str:
    return f"{n / turns:.2f} a turn" if turns else "no turns"


def _count_events(events: np.ndarray, code: int, side: int, src: int | None = None) -> int:
    if len(events) == 0:
        return 0
    hit = (events[:, layout.TR_CODE] == code) & (events[:, layout.TR_SIDE] == side)
    if src is not None:
        hit &= events[:, layout.TR_A + 1] == src
        hit &= events[:, layout.TR_A + 5] >= 0  # not the second card of an E4 pair
    return int(hit.sum())


def side_summary(sim, met: np.ndarray, events: np.ndarray, s: int) -> list[str]:
    """The summary lines of one side: orders, cards played, Tactician cards, initiative rolls
    and Guerrilla counters, from the metrics row met[s] (and the event log for what it lacks)."""
    sc = sim.scenario
    m = [int(x) for x in met[s]]
    turns = m[layout.M_TURNS]
    nom = m[layout.M_NOM:layout.M_NOM + 3]
    eff = m[layout.M_EFF:layout.M_EFF + 3]
    by = "wing" if sc.format == "lgb" else "section"
    out = [f"  {sc.sides[s].name} ({plural(turns, 'turn')}):",
           f"    orders: {sum(nom)} nominal ({_per_turn(sum(nom), turns)}), {sum(eff)} effective "
           f"({_per_turn(sum(eff), turns)}); effective by {by} L/C/R {'/'.join(map(str, eff))}, "
           f"{plural(m[layout.M_MARCH_UNITS], 'unit')} moved by March Moves"]
    hand = sum(m[layout.M_HAND_KIND:layout.M_HAND_KIND + 4])
    rack = sum(m[layout.M_RACK_KIND:layout.M_RACK_KIND + 4])
    if sc.format == "standard":
        cards = f"{plural(hand, 'card')} from the hand (the standard game has no Courier Rack)"
    else:
        cards = f"{plural(hand, 'card')} from the hand, {rack} from the Courier Rack"
    if sc.format == "lgb":
        own = _count_events(events, layout.EV_CORPS_PLAY, s, layout.SRC_OWN)
        cards = (f"the CIC gave {cards.replace(' from the hand', ' from his hand')}; the Corps "
                 f"commanders played {plural(own, 'card')} of their own")
    out.append(f"    cards played: {cards}")
    out.append(f"    Tactician cards: {m[layout.M_TAC_DRAWN]} drawn, {m[layout.M_TAC_PLAYED]} played, "
               f"{m[layout.M_TAC_HELD]} held at the end")
    if sc.format in INITIATIVE_FORMATS:
        rolls = _count_events(events, layout.EV_INITIATIVE, s)
        out.append(f"    initiative: {plural(rolls, 'roll')} by commanders with no card, "
                   f"{plural(m[layout.M_INIT_ORDERS], 'unit')} ordered")
    foe = sc.sides[1 - s]
    if foe.guerrilla_rule != "off":
        out.append(f"    Guerrilla: the {foe.name} guerrillas nullified "
                   f"{plural(int(met[1 - s, layout.M_G_NULLIFIED]), 'card')} of this side "
                   f"({plural(int(met[1 - s, layout.M_G_DENIED_EFF]), 'effective order')} lost)")
    if sc.sides[s].guerrilla_rule != "off":
        spent, sabre = m[layout.M_G_SPENT], m[layout.M_G_SABRE]
        out.append(
            f"    Guerrilla: {plural(spent, 'counter')} spent against French cards, "
            f"{plural(m[layout.M_G_NULLIFIED], 'card')} nullified "
            f"({plural(m[layout.M_G_DENIED_EFF], 'French effective order')} denied), "
            f"{sabre} stopped by a sabre; {plural(m[layout.M_G_ACQUIRED], 'counter')} gained by "
            f"Scouts, {m[layout.M_G_HELD_END]} held at the end")
    return out


def game_summary(sim, met: np.ndarray, events: np.ndarray) -> list[str]:
    """The end-of-game summary: a header, then each side's lines (side_summary)."""
    lines = ["", "end of game: what each side did (from the game's metrics)"]
    for s in range(2):
        lines.extend(side_summary(sim, met, events, s))
    return lines
