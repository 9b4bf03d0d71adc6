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
    table = trace_table(sc.format)
    for ev in events:
        code, ply, s = int(ev[layout.TR_CODE]), int(ev[layout.TR_PLY]), int(ev[layout.TR_SIDE])
        out = early if ply > header_ply and code != layout.EV_TURN else lines
        a = event_fields(table, ev)
        who = sides[s] if 0 <= s < 2 else "?"
        if sc.format == "lgb":
            line = _lgb_event(sim, code, s, who, a, fm)
            if line is not None:
                out.append(line)
                continue
        if code == layout.EV_TURN:
            tac = a["tactician_held"]
            hand = ", ".join(names[int(t)] for t in ev[layout.TR_HAND:layout.TR_HAND + a["hand_cards"]])
            rack = ", ".join(names[int(t)] for t in ev[layout.TR_RACK:layout.TR_RACK + a["rack_cards"]])
            out.append("")
            out.append(f"turn {ply // 2 + 1}.{ply % 2 + 1}  {who} to play  (hand size {a['hand_size']}, "
                       f"squares {a['squares']}, Tactician cards {tac}, draw pile {a['pile_cards']}, "
                       f"discards {a['discards']})")
            if tac < held[s] and sc.format in PLAYS_FROM_COUNTS:
                out.append(tactician_play_line(who, held[s] - tac))
            held[s] = tac
            out.extend(early)
            early.clear()
            header_ply = ply
            out.append(f"  hand: {hand}")
            e4 = "   [E4: all one section]" if a["e4"] else ""
            out.append(f"  rack ({a['rack_cards']}): {rack}{e4}")
        elif code == layout.EV_CHOICE:
            policy_kind, score = a["policy_kind"], a["score"]
            why = ("uniform over legal plays (random)" if policy_kind == 1 else
                   f"score {score / 1000:.2f}, the most orders in rollouts (lookahead)"
                   if policy_kind == 2 else f"best score {score / 1000:.2f} (greedy)")
            hand_card, rack_card = (_card(names, sim.cards.kind, a[f"{x}_card"], a[f"{x}_place"],
                                          a[f"{x}_plays_as"]) for x in ("hand", "rack"))
            out.append(f"  plays {hand_card} from hand + {rack_card} from rack: {why}")
        elif code == layout.EV_ORDERS:
            out.append(_orders_line("L/C/R", a))
        elif code == layout.EV_DRAW:
            out.append(f"  {who} draws {names[a['card']]}")
        elif code == layout.EV_SCOUT:
            out.append(f"  Scout: {who} draws two, keeps {names[a['kept']]}, "
                       f"discards {names[a['discarded']]}")
        elif code == layout.EV_TACTICIAN:
            out.append(f"  {who} draws a Tactician card (now {a['tactician_held']})")
            held[s] = a["tactician_held"]
        elif code == layout.EV_ELAN:
            out.append("  Elan: draw pile and discards shuffled together "
                       f"({plural(a['pile_cards'], 'card')})")
        elif code == layout.EV_RESHUFFLE:
            out.append(f"  draw pile empty: discards reshuffled into a new pile of {a['pile_cards']}")
        elif code == layout.EV_REFILL:
            rack = ", ".join(names[a[f"rack_{i}"]] for i in range(a["rack_cards"]))
            out.append(f"  rack refilled to {a['rack_cards']}: {rack}")
        elif code == layout.EV_SQUARE:
            out.append(f"  {who} forms a square: {names[a['card']]} goes to the Square Track")
        elif code == layout.EV_UNSQUARE:
            out.append(f"  {who} leaves square: {names[a['card']]} returns to hand")
        elif code == layout.EV_FIRST_STRIKE:
            out.append(f"  {who} plays {_first_strike(names[a['card']])} in the opponent's turn")
        elif code == layout.EV_G_ATTEMPT:
            tsec, t_eff, roll, outcome = a["section"], a["target_effective"], a["roll"], a["outcome"]
            card = {0: "the hand card", 1: "the rack card", 2: "the turn's cards"}[a["target"]]
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
            sec = a["section"]
            where = (f"the commander of the {SECTION_WORDS[sec]}" if sec < 3 else "the CIC")
            out.append(f"  Guerrilla: a {who} Scout draws one card instead of two and gains a "
                       f"counter for {where} (unacquired pool now {a['pool']})")
        elif code == layout.EV_INITIATIVE:
            extra = "; a double: he draws a Tactician card" if a["tactician_draws"] else ""
            why = ("no card and no multi-section orders in his section"
                   if sc.rule("initiative") == "no_card_no_orders" else "no card")
            out.append(f"  {who} {_role(sc, a['commander'], s)} ({SECTION_WORDS[a['section']]}) has {why}: "
                       f"initiative roll {DIE_FACES[a['die_1']]} + {DIE_FACES[a['die_2']]}, "
                       f"{plural(a['ordered'], 'unit')} ordered{extra}")
        elif code == layout.EV_DICE:
            k = a["corps"]
            roller = f"{who} Corps {WINGS[k]}" if sc.format == "lgb" and k >= 0 else who
            out.append(f"  {roller} rolls {plural(a['dice'], 'die', 'dice')} for {names[a['card']]} "
                       f"(its Command): {a['ordering']} show an ordering face "
                       f"({sim.deck.dice_order_faces} of 6), so the card orders up to "
                       f"{plural(a['ordering'], 'unit')} (D2)")
        elif code == layout.EV_PASS:
            out.append(f"  {who} CIC passes {names[a['card']]} ({SECTION_WORDS[a['section']]}) to his "
                       f"sub-commander and plays the other card")
        elif code == layout.EV_COMMANDER_TACTICIAN:
            out.append(f"  {who} {_role(sc, a['commander'], s)} draws a Tactician card "
                       f"(now {a['commander_held']})")
            held[s] += 1
        elif code == layout.EV_STARVED:
            out.append(f"  {who} cannot draw: draw pile and discards are empty")
    lines += early
    if metrics is not None:
        lines += game_summary(sim, metrics, events)
    return "\n".join(lines)


def trace_table(game_format: str) -> dict[int, tuple[str, tuple[str, ...]]]:
    """The events a game format's kernel writes, each with the names of its fields (engine.layout:
    TRACE_EVENTS_LGB for La Grande Battles, TRACE_EVENTS for EPIC and the standard game)."""
    return layout.TRACE_EVENTS_LGB if game_format == "lgb" else layout.TRACE_EVENTS


def field_column(table: dict, code: int, name: str) -> int:
    """The column of an event row of `code` that holds its field `name` (`table`: `trace_table`)."""
    return layout.TR_A + table[code][1].index(name)


def event_fields(table: dict, row) -> dict[str, int]:
    """One event row's fields by name (`table`: `trace_table`); none for a code the table lacks."""
    _, fields = table.get(int(row[layout.TR_CODE]), ("", ()))
    return {name: int(row[layout.TR_A + i]) for i, name in enumerate(fields) if name != "_"}


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


def _orders_line(by: str, a: dict[str, int]) -> str:
    """A turn's orders per section (or wing), March Moves and Tactician draws (EV_ORDERS)."""
    nominal = "/".join(str(a[f"nominal_{x}"]) for x in "lcr")
    effective = "/".join(str(a[f"effective_{x}"]) for x in "lcr")
    return (f"  orders {by}: nominal {nominal}, effective {effective}; "
            f"{plural(a['march_units'], 'unit')} moved by March Moves; "
            f"{plural(a['tactician_draws'], 'Tactician draw')} due")


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


def _lgb_event(sim, code: int, s: int, who: str, a: dict[str, int], fm: np.ndarray) -> str | None:
    """La Grande Battles lines (engine.lgb events and the events it reads differently); `a` the
    event's fields by name (layout.TRACE_EVENTS_LGB)."""
    names = sim.cards.names
    void = len(names) - 1

    def corps(k: int) -> str:
        return f"{who} Corps {WINGS[k]}"

    if code == layout.EV_CORPS_HANDS:
        command = "/".join(str(a[f"command_{x}"]) for x in "lcr")
        tactician = "/".join(str(a[f"tactician_{x}"]) for x in "lcr")
        return f"  Corps hands (left/centre/right wing): Command cards {command}, Tactician cards {tactician}"
    if code == layout.EV_GIVE:
        score, policy_kind = a["score"], a["policy_kind"]
        why = ("uniform over legal gifts (random)" if policy_kind == 1 else
               f"the most orders in rollouts (lookahead, P8; greedy's gain {score / 1000:.2f})"
               if policy_kind == 2 else
               f"best gain {score / 1000:.2f} over the receivers' own options (greedy, P6)")
        parts = []
        for src in ("hand", "rack"):
            t, k, r = a[f"{src}_card"], a[f"{src}_to"], a[f"{src}_plays_as"]
            if t == void:
                continue
            label = names[t] + ("" if r == t else " (gives no orders)" if r == void
                                else f" (plays as {names[r]})")
            parts.append(f"{label} from {src} to " + (WINGS[k] if k >= 0 else "nobody (no orders)"))
        return f"  CIC gives {' and '.join(parts) or 'nothing'}: {why}"
    if code == layout.EV_CORPS_PLAY:
        k, src, t, r, opt = a["corps"], a["source"], a["card"], a["plays_as"], a["option"]
        nom, ea, eb = a["nominal"], a["effective_a"], a["effective_b"]
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
        k, n, into_l, into_r = a["corps"], a["orders_left"], a["into_left"], a["into_right"]
        six = ("L1", "L2", "C1", "C2", "R1", "R2")
        where = [f"{x} in {six[i]}" for x, i in ((into_l, 2 * k - 1), (into_r, 2 * k + 2)) if 0 <= i < 6]
        return (f"  {corps(k)}'s Take Command reaches the sections next to his (E7): "
                f"{' and '.join(where)} effective, of {plural(n, 'order')} left")
    if code == layout.EV_REJECT:
        return f"  {corps(a['corps'])} discards the CIC's {names[a['card']]} to play one of his own (L5)"
    if code == layout.EV_INITIATIVE:
        extra = "; two sabres: no block lost, he draws a Command card" if a["command_draws"] else (
            "; the sabre costs one of his units a block (L6)" if a["blocks_lost"] > 0 else "")
        return (f"  {corps(a['corps'])} has no card: initiative roll {DIE_FACES[a['die_1']]} + "
                f"{DIE_FACES[a['die_2']]}, {plural(a['ordered'], 'unit')} ordered{extra}")
    if code == layout.EV_CORPS_DRAW:
        return f"  {corps(a['corps'])} draws {names[a['card']]} into his hand"
    if code == layout.EV_CORPS_TACTICIAN:
        return f"  {corps(a['corps'])} draws a Tactician card (now {a['tactician_held']})"
    if code == layout.EV_SCOUT:
        return (f"  Scout: the CIC draws two, keeps {names[a['kept']]} and gives {names[a['given']]} to "
                f"the {WINGS[a['corps']]} Corps commander")
    if code in (layout.EV_SQUARE, layout.EV_UNSQUARE):
        owner = "the CIC" if a["owner"] == 3 else f"the {WINGS[a['owner']]} Corps commander"
        if code == layout.EV_SQUARE:
            return f"  {who} forms a square: {names[a['card']]} from {owner} goes to the Square Track"
        return f"  {who} leaves square: {names[a['card']]} returns to {owner}"
    if code == layout.EV_G_ATTEMPT:
        which, k, t_eff = a["second"], a["wing"], a["target_effective"]
        roll, outcome = a["roll"], a["outcome"]
        # S4: the French wing k faces the Spanish wing 2 - k, whose Corps commander spends
        card = f"the {'second ' if which else ''}card played by the French {WINGS[k]}"
        spender = f"{who} {WINGS[2 - k]} (facing it)"
        worth = f"worth {plural(t_eff, 'effective order')}"
        if outcome == layout.G_OUT_DECLINED:
            return f"  Guerrilla: {spender} could spend a counter against {card}, {worth}, but keeps it"
        return (f"  Guerrilla: {spender} spends a counter against {card}, {worth}; "
                f"{_guerrilla_roll(roll, outcome)}")
    if code == layout.EV_G_GAIN:
        return (f"  Guerrilla: a {who} Scout gains a counter for the {WINGS[a['corps']]}; the CIC draws "
                f"one card instead of two (unacquired pool now {a['pool']})")
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
    """Events of `code` of a side; with `src`, La Grande Battles Corps plays of that source, each
    pair (E4) once."""
    if len(events) == 0:
        return 0
    hit = (events[:, layout.TR_CODE] == code) & (events[:, layout.TR_SIDE] == side)
    if src is not None:
        table = layout.TRACE_EVENTS_LGB
        hit &= events[:, field_column(table, code, "source")] == src
        hit &= events[:, field_column(table, code, "nominal")] >= 0  # not an E4 pair's second card
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
