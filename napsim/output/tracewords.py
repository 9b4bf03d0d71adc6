"""Words for `napsim trace`: counts with the right plural, what a La Grande Battles play option
chose, and the end-of-game summary per side computed from the game's metrics row (layout M_*)."""

from __future__ import annotations

import numpy as np

from napsim.engine import layout
from napsim.sim.tables import KIND_MULTI, KIND_PLACED, KIND_SECTION

LGB_SIX = ("L1", "L2", "C1", "C2", "R1", "R2")
INITIATIVE_FORMATS = ("epic3", "epic4", "lgb")  # a commander with no card rolls (M6.2, M8.2, L6)


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 unit', '0 units', '2 units' ('many' for an irregular plural)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def force_march_flags(sim) -> np.ndarray:
    """Per card type (VOID last): 1 for a Force March card (D3 force_march)."""
    out = np.zeros(len(sim.cards.names), np.int64)
    out[:-1] = sim.deck.cards["force_march"].to_numpy()
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
