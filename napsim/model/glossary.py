"""What napsim's numbers are, in the game's words: the glossary (the page's "What the numbers mean"
and docs/guide.md, checked by tests/test_glossary.py), the sentence that says napsim measures card
flow and not the chance of winning (shown wherever a balance or a comparison is answered), and a
help text for every scenario setting (the page's (?) beside each field, `napsim ... --help`)."""

from __future__ import annotations

CARD_FLOW = ("napsim measures card flow (the orders the Command cards give each side), not the chance of "
             "winning: a side with more orders can still lose the battle on the board.")

GLOSSARY: tuple[tuple[str, str], ...] = (
    ("Card flow", "What the cards give each side, turn after turn: which Command cards reach the hand "
     "and the Courier Rack, how many units they order, the Tactician and Scout draws, the Guerrilla "
     "counters. napsim plays the cards only: no dice for combat, no losses, no victory banners."),
    ("Effective orders a turn", "The units a side's cards order in one of its turns, counting only "
     "units the side has in the sections the cards name (rule S2), averaged over every turn of every "
     "game. napsim's main answer: more effective orders means more of the army moves and fights."),
    ("Nominal orders a turn", "The units the cards say they order, whether or not the side has those "
     "units there; nominal minus effective are the orders wasted."),
    ("Side A minus side B", "The difference of one number between the two sides (for instance "
     "Spanish minus French effective orders a turn); positive when the first-named side gets more."),
    ("Balanced card flow", "Both sides get the same effective orders a turn (the difference's 95% "
     "interval holds 0). It says nothing about the board: terrain, units and victory conditions can "
     "favour either side."),
    ("Even point", "The setting (a hand size, a number of counters) at which both sides get the same "
     "number, read between the two played settings around it. For a whole-number setting the answer "
     "is the two settings either side of it and who leads at each."),
    ("95% interval", "The range [low, high] that holds the long-run value in 95 of 100 runs like this "
     "one: a mean's from the spread of its per-game values, a share's the Wilson interval. More games "
     "make it narrower."),
    ("n", "How many things a number is measured over: turns played for a number a turn, games for a "
     "number a game, trials (rack picks, chances to spend a counter) for a share."),
    ("std", "The standard deviation of the per-game values: how much one game differs from another "
     "(not the uncertainty of the mean, which is the 95% interval)."),
    ("Exact", "A number that is the same in every game by the rules, such as the share of rack picks "
     "from 5, 4 and 3 cards (the rack's 5-4-3 cycle, rule E9.6: a third each over 30 turns): shown "
     "without an interval or a band."),
    ("Paired difference (B - A)", "A and B play the same games (the same seeds and draws where they "
     "agree), so their difference is measured game by game and its interval is much narrower than "
     "the two intervals side by side."),
    ("Policy", "How the simulated player chooses cards: greedy (the best-scoring play this turn), "
     "lookahead (plans over the next turns by playing them out) or random (any legal play)."),
    ("Plausible decks", "Decks drawn inside the count ranges of a deck file whose counts are "
     "estimated: an answer that holds on every plausible deck does not hang on the estimates."),
    ("Courier Rack", "EPIC: the five face-up cards a CIC takes one from each turn, besides his hand "
     "card; it is topped up to five when it is down to two (rule E9.6)."),
    ("Tactician cards", "The second deck, drawn with unused stars and draw marks (rule E9.3)."),
    ("Guerrilla counters", "The Spanish counters that can cancel a French Command card as it is "
     "played (rules G1-G7); a sabre on the die stops the attempt."),
    ("Initiative", "EPIC with three or four players a side and La Grande Battles: a commander who "
     "gets no orders rolls dice that order units of his own (rule M6.2)."),
    ("Seed", "The number that fixes every random draw: the same seed gives the same games and the "
     "same numbers, bit for bit."),
)

# help texts of the command-line options every command shares (`napsim ... --help`)
OPTION_HELP = {
    "scenario": "The battle: a shipped scenario's name (`napsim scenarios` lists them) or your own "
                "scenario TOML file.",
    "set": "Change one scenario setting for this run (repeatable), e.g. --set sides.S.hand=5: the "
           "Spanish hold 5 Command cards. `napsim scenarios show NAME` lists the settings.",
    "seed": "Fixes every random draw: the same seed plays the same games and gives the same numbers.",
    "games": "Games to play; each lasts the scenario's turns. More games, narrower 95% intervals.",
    "policy": "How each side chooses its cards, one per side: greedy (the best play this turn), "
              "lookahead (plans over the next turns) or random; e.g. greedy,lookahead or "
              "greedy:w_c=2,random.",
    "deck": "The Command deck: a shipped deck's name (`napsim decks` lists them) or your own CSV "
            "(default: the scenario's).",
    "metric": "What is measured, a metric of summary.csv; the default, effective_per_turn, is the "
              "units a side's cards order in a turn, counting only units it has where the cards "
              "send them.",
}

FIELD_HELP = {
    "hand": "The Command cards a player holds. Each turn he plays one (in EPIC with one from the "
            "Courier Rack) and draws back up to this number.",
    "tactician": "Tactician cards in hand when the game starts; more come with unused stars and "
                 "draw marks (rule E9.3).",
    "guerrilla": "Guerrilla counters the Spanish hold when the game starts; each can cancel one "
                 "French Command card as it is played (rules G1, G5).",
    "guerrilla_rule": "Which Guerrilla rule is played: off; base (a counter stops the whole French "
                      "turn, rules G1-G3); epic (the EPIC clarifications, one of the two cards, "
                      "rules G4-G6).",
    "square_form": "The chance each turn that the opponent's attacks force a new square, which "
                   "takes a card out of the hand until the square is given up (rule E11).",
    "square_leave": "The chance each turn that a square breaks up and its card returns (rule E11).",
    "french": "Whether this side plays the French (the side the Guerrilla counters act on).",
    "cic_section": "EPIC with three players a side: the section the Commander-in-Chief commands "
                   "himself (rule M6.1).",
    "corps_hand": "La Grande Battles: the hand size of each Corps commander, left, centre, right "
                  "(rule L1).",
    "corps_tactician": "La Grande Battles: each Corps commander's Tactician cards at the start.",
    "corps_guerrilla": "La Grande Battles: each Corps commander's Guerrilla counters at the start.",
    "format": "Which card game is played: the standard game (one card a turn), EPIC with one to four "
              "players a side (a hand card and a Courier Rack card a turn) or La Grande Battles.",
    "turns": "How many turns each side plays in a game; every game lasts this long (rule V1).",
    "first": "The side that plays the first turn.",
    "guerrilla_pool": "Guerrilla counters not yet acquired, in the common box: counters are gained "
                      "from it and return to it (rules G3, G4).",
    "deck": "The Command deck both sides draw from.",
    "units": "Units of this kind the side has in the section: orders count as effective only where "
             "units can take them (rule S2).",
}


def field_help(path: str) -> str:
    """The help text of a scenario setting (a `--set` path): what it is and does in the game."""
    parts = path.split(".")
    if parts[0] == "sides" and len(parts) == 5 and parts[2] == "sections":
        return FIELD_HELP["units"]
    return FIELD_HELP.get(parts[-1], "")


def glossary_markdown() -> str:
    """The glossary as a Markdown list (the page and docs/guide.md show this very text)."""
    return "\n".join(f"- **{term}**: {text}" for term, text in GLOSSARY)
