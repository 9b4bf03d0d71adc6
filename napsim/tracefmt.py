"""Turn a game's event log (engine.epic trace) into text a player can check against the rules."""

from __future__ import annotations

import numpy as np

from napsim.cards import SECTIONS
from napsim.engine import epic
from napsim.tables import KIND_PLACED

DIE_FACES = ("infantry", "infantry", "cavalry", "artillery", "flag", "sabre")


def format_trace(sim, events: np.ndarray, seed: int, game: int) -> str:
    """One line per event, grouped by turn, using card and side names."""
    names = sim.cards.names
    sides = [s.name for s in sim.scenario.sides]
    sc = sim.scenario
    out = [f"napsim trace: scenario {sc.name} ({sc.format}), deck {sim.deck.name}, seed {seed}, "
           f"game {game}; policies {sim.policy_names[0]} vs {sim.policy_names[1]}"]
    for ev in events:
        code, ply, s = int(ev[0]), int(ev[1]), int(ev[2])
        a = [int(x) for x in ev[3:11]]
        who = sides[s] if 0 <= s < 2 else "?"
        if code == epic.EV_TURN:
            cmd, rn, e4, hn, sqn, tac, pn, dn = a
            hand = ", ".join(names[int(t)] for t in ev[11:11 + hn])
            rack = ", ".join(names[int(t)] for t in ev[11 + epic.MAX_HAND:11 + epic.MAX_HAND + rn])
            out.append("")
            out.append(f"turn {ply // 2 + 1}.{ply % 2 + 1}  {who} to play  (command {cmd}, "
                       f"squares {sqn}, Tactician {tac}, draw pile {pn}, discards {dn})")
            out.append(f"  hand: {hand}")
            out.append(f"  rack ({rn}): {rack}" + ("   [E4: all one section]" if e4 else ""))
        elif code == epic.EV_CHOICE:
            ta, tb, pa, pb, ra, rb, score, is_random = a
            why = "uniform over legal plays (random)" if is_random else \
                f"best score {score / 1000:.2f} (greedy)"
            kind = sim.cards.kind
            out.append(f"  plays {_card(names, kind, ta, pa, ra)} from hand + "
                       f"{_card(names, kind, tb, pb, rb)} from rack: {why}")
        elif code == epic.EV_ORDERS:
            nom, eff, marched, tdraws = a[0:3], a[3:6], a[6], a[7]
            out.append("  orders L/C/R nominal " + "/".join(map(str, nom)) + ", effective "
                       + "/".join(map(str, eff)) + f"; March Moves {marched}; "
                       f"Tactician draws due {tdraws}")
        elif code == epic.EV_DRAW:
            out.append(f"  {who} draws {names[a[0]]}")
        elif code == epic.EV_SCOUT:
            out.append(f"  Scout: {who} draws two, keeps {names[a[0]]}, discards {names[a[1]]}")
        elif code == epic.EV_TACTICIAN:
            out.append(f"  {who} draws a Tactician card (now {a[0]})")
        elif code == epic.EV_ELAN:
            out.append(f"  Elan: draw pile and discards shuffled together ({a[0]} cards)")
        elif code == epic.EV_RESHUFFLE:
            out.append(f"  draw pile empty: discards reshuffled into a new pile of {a[0]}")
        elif code == epic.EV_REFILL:
            rack = ", ".join(names[t] for t in a[1:1 + a[0]])
            out.append(f"  rack refilled to {a[0]}: {rack}")
        elif code == epic.EV_SQUARE:
            out.append(f"  {who} forms a square: {names[a[0]]} goes to the Square Track")
        elif code == epic.EV_UNSQUARE:
            out.append(f"  {who} leaves square: {names[a[0]]} returns to hand")
        elif code == epic.EV_FIRST_STRIKE:
            out.append(f"  {who} plays First Strike ({names[a[0]]}) in the opponent's turn")
        elif code == epic.EV_G_ATTEMPT:
            target, tsec, t_eff, roll, outcome = a[0:5]
            card = {0: "the hand card", 1: "the rack card", 2: "the turn's cards"}[target]
            where = f" in {SECTIONS[tsec]}" if tsec >= 0 else ""
            if outcome == epic.G_OUT_DECLINED:
                out.append(f"  Guerrilla: {who} holds a counter against {card}{where} "
                           f"({t_eff} effective orders) but keeps it (policy P4)")
            else:
                die = DIE_FACES[roll]
                result = "a sabre: the guerrillas are stopped, the card is carried out" \
                    if outcome == epic.G_OUT_SABRE else "no sabre: the card is nullified"
                out.append(f"  Guerrilla: {who} spends a counter against {card}{where} "
                           f"({t_eff} effective orders); French roll {die}: {result}")
        elif code == epic.EV_G_GAIN:
            where = f"section {SECTIONS[a[0]]}" if a[0] < 3 else "the commander"
            out.append(f"  Guerrilla: {who}'s Scout draws one card instead of two and gains a "
                       f"counter for {where} (pool now {a[1]})")
        elif code == epic.EV_STARVED:
            out.append(f"  {who} cannot draw: draw pile and discards are empty")
    return "\n".join(out)


def _card(names, kind, t: int, p: int, resolved: int) -> str:
    """A card name, what it plays as, and where a tactic card was placed (E3)."""
    if t == len(names) - 1:
        return "(nothing)"
    label = names[t]
    if resolved != t:
        label += f" (plays as {names[resolved]})"
    if kind[resolved] == KIND_PLACED:
        label += f" placed in {SECTIONS[p]}"
    return label
