"""The commented scenario template `napsim scenarios new` writes (docs/rules.md S1).

Every field carries a comment saying what it means and which values it takes; the `[rules]` table
lists every open reading with its allowed values (from the rule catalogue); the units are marked as
example numbers. The text validates as written (`load_scenario`) and plays in every format.
"""

from __future__ import annotations

import re
import textwrap

from napsim.model.errors import NapsimInputError
from napsim.model.rulebook import load_options
from napsim.model.scenarios import GAME_FORMATS, LGB_SECTIONS, RULE_OPTIONS

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
FORMAT_WORDS = {
    "standard": "the standard game: one card a turn from the hand, no Courier Rack",
    "epic1": "EPIC, one player a side (a hand card and a Courier Rack card a turn)",
    "epic2": "EPIC, two players a side (a CIC and a sub-commander)",
    "epic3": "EPIC, three players a side (a CIC and two sub-commanders, one section each)",
    "epic4": "EPIC, four players a side (a CIC and three Corps commanders, one section each)",
    "lgb": "La Grande Battles: six sections, a CIC and three Corps commanders a side",
}
# example units of one EPIC section (L, C, R) and of one LGB section pair (first, second half)
EPIC_UNITS = {"L": (4, 1, 1, 1), "C": (5, 1, 2, 1), "R": (4, 2, 1, 1)}
LGB_UNITS = {"1": (3, 1, 1, 1), "2": (2, 1, 0, 0)}


def check_template_name(name: str) -> str:
    """A scenario name a file can carry: letters, digits, '_', '-' and '.', at most 64."""
    if not NAME_RE.fullmatch(name):
        raise NapsimInputError(f"scenario name '{name}'", None, "not a usable scenario name",
                               "letters, digits, '_', '-' or '.', starting with a letter or digit")
    return name


def _comment(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, 98 - len(indent), initial_indent=f"{indent}# ",
                         subsequent_indent=f"{indent}# ", break_on_hyphens=False,
                         break_long_words=False)


def _section_lines(side: str, sec: str, units: tuple[int, int, int, int], first: bool) -> list[str]:
    inf, cav, art, leaders = units
    out = [f"[sides.{side}.sections.{sec}]"]
    note = "   # EXAMPLE numbers: put your scenario's units here" if first else ""
    out += [f"infantry = {inf}{note}", f"cavalry = {cav}", f"artillery = {art}",
            f"leaders = {leaders}"]
    if first:
        out.append("spanish = 0       # how many of these units are Spanish (Guerrilla rules, G3-G6)")
    return out


def _side_fields(name: str, game_format: str) -> list[tuple[str, list[str]]]:
    """(comment, key lines) of one side's table, in the order written."""
    if game_format == "lgb":
        fields = [
            ("Command cards of the CIC (1-20) and of each Corps commander, [left, centre, right] wing "
             "(0-20 each; rule L1).", ["hand = 6", "corps_hand = [4, 4, 4]"]),
            ("Tactician cards the CIC and each Corps commander start with (D4, L1).",
             ["tactician = 0", "corps_tactician = [1, 1, 1]"]),
        ]
    else:
        fields = [
            ("Command cards in the CIC's hand, 1-20 (the scenario's hand size).", ["hand = 6"]),
            ("Tactician cards the side starts with, 0-50 (D4; with 3-4 players a side they are "
             "shared out, M6.3, M8.2).", ["tactician = 2"]),
        ]
    if game_format == "epic3":
        fields.append(('The section the CIC commands himself with three players a side: "L", "C" '
                       'or "R" (M6); the two sub-commanders hold the other two.', ['cic_section = "C"']))
    fields += [
        ("Squares (E11): the chance a turn that a unit forms a square (0-1) and that a unit in square "
         "leaves it (0-1). napsim has no battlefield, so these stand for the opponent's attacks.",
         ["square_form = 0.0", "square_leave = 0.5"]),
        ("true for the French army: the other side's Guerrilla counters play against it (G1).",
         ["french = false"]),
        ('Spanish Guerrilla counters the side starts with (0-9) and the rule that plays them: "off", '
         '"base" (G1-G3, the standard game and EPIC) or "epic" (G4-G6, EPIC and La Grande '
         "Battles). Counters need Spanish units (`spanish` in a section), a French opponent "
         "(french = true there) and a rule other than off.", ["guerrilla = 0", 'guerrilla_rule = "off"']),
    ]
    if game_format == "lgb":
        fields.append(("Optional: Guerrilla counters per Corps commander [left, centre, right] (0-9 "
                       "each) instead of a total.", ["# corps_guerrilla = [0, 0, 0]"]))
    return [("The side's name, used in every table, chart and trace.", [f'name = "{name}"']), *fields]


def _side_lines(key: str, name: str, game_format: str, first_side: bool) -> list[str]:
    """One side's table; comments on the first side only (the second repeats the keys)."""
    out = [f"[sides.{key}]"]
    for comment, keys in _side_fields(name, game_format):
        if first_side:
            out += _comment(comment)
        out += [k for k in keys if first_side or not k.startswith("#")]
    if game_format == "lgb":
        sections, units = LGB_SECTIONS, [LGB_UNITS[x[1]] for x in LGB_SECTIONS]
        note = ("Units per section, L1 L2 C1 C2 R1 R2 (six sections, L1): infantry, cavalry, "
                "artillery (0-99 each), leaders (0-20) and how many of the units are Spanish.")
    else:
        sections, units = ("L", "C", "R"), [EPIC_UNITS[x] for x in "LCR"]
        note = ("Units per section, L C R (S1): infantry, cavalry, artillery (0-99 each), leaders "
                "(0-20) and how many of the units are Spanish. Six sections L1 L2 C1 C2 R1 R2 may "
                "be given instead (La Grande Battles); each view is derived from the other.")
    if first_side:
        out += _comment(note)
    for i, (sec, u) in enumerate(zip(sections, units, strict=True)):
        out += _section_lines(key, sec, u, first_side and i == 0)
    return out


def _rules_lines(game_format: str) -> list[str]:
    out = ["[rules]"]
    out += _comment("Open readings of the rule texts (docs/rules.md, \"Rule options\"; `napsim rules "
                    "ID` explains each). The first value is the default (docs/rules.md says why). "
                    "An option for other formats is accepted and changes nothing here.")
    for o in load_options():
        allowed = RULE_OPTIONS[o.name]
        used = "" if not o.formats or game_format in o.formats else "  (not read in this format)"
        out.append("")
        out += _comment(f"{o.text} Rules {', '.join(o.rules)}; formats {', '.join(o.formats) or 'all'}"
                        f"{used}.")
        for v in o.values:
            mark = " (default)" if v.name == o.default else ""
            out += _comment(f"{v.name}{mark}: {v.text}")
        out.append(f'{o.name} = "{o.default}"   # allowed: {", ".join(allowed)}')
    return out


def template_text(name: str, game_format: str = "epic1", path: str | None = None) -> str:
    """The commented template of a scenario called `name` in format `game_format`, to be written to
    `path` (the commands its header suggests name it; default NAME.toml)."""
    check_template_name(name)
    path = path or f"{name}.toml"
    if game_format not in GAME_FORMATS:
        raise NapsimInputError(f"--format {game_format}", "format", "unknown format", ", ".join(GAME_FORMATS))
    out = _comment(f"Scenario {name}: a template written by `napsim scenarios new`. Every number "
                   "below is an EXAMPLE: replace it with your scenario's. Check the file with "
                   f"`napsim scenarios show {path}`, play it with `napsim simulate --scenario "
                   f"{path} --games 10000 --out results/{name}`.")
    out += ["", "[scenario]"]
    out += _comment("The scenario's name (reports and result folders use it).")
    out.append(f'name = "{name}"')
    out += _comment(f"Format: {', '.join(GAME_FORMATS)}. This one: {FORMAT_WORDS[game_format]}.")
    out.append(f'format = "{game_format}"')
    out += _comment("The Command deck: a built-in deck (`napsim decks` lists them) or a CSV path.")
    out.append('deck = "gmt90"')
    out += _comment("Turns each side plays, 1-10000 (V1: napsim plays a fixed number of turns).")
    out.append("turns = 30")
    out += _comment('The side that moves first: a key of [sides.*] ("A" or "B" here).')
    out.append('first = "A"')
    out += _comment("One line for `napsim scenarios`, and a note saying which numbers are examples "
                    "(shown by `napsim scenarios show`).")
    out.append(f'description = "Blue vs Red, {FORMAT_WORDS[game_format].split(":")[0].split(" (")[0]}; '
               'a template to fill in."')
    out.append('examples = "All numbers are examples (template)."')
    out += _comment("Unacquired Guerrilla counters, 0-99 (G3, G4): required when a side plays a "
                    "Guerrilla rule. With the starting counters they make the Guerrilla box: a "
                    "setting that changes the starting counters takes them from this pool.")
    out.append("guerrilla_pool = 0")
    for i, (key, side) in enumerate((("A", "Blue"), ("B", "Red"))):
        out.append("")
        out += _side_lines(key, side, game_format, i == 0)
    out.append("")
    out += _rules_lines(game_format)
    out.append("")
    out += _policy_lines()
    return "\n".join(out) + "\n"


def _policy_lines() -> list[str]:
    """The optional [policy.<side>] tables, commented out: what `napsim tune` prints to paste."""
    out = _comment("Optional: a [policy.<side>] table tunes the policy a side plays (docs/rules.md "
                   "P1-P8, docs/tune.md): `name` is greedy, random or lookahead, and the other keys "
                   "are that policy's parameters. Whenever the side plays the named policy, it "
                   "starts from these values (a --policy NAME:PARAM=VALUE on the command line still "
                   "wins). `napsim tune` prints such a table. Remove the '# ' to use it.")
    out += ["# [policy.B]", '# name = "greedy"', '# g_spend_mode = "threshold"   # P4: always, '
            "threshold or assault", "# g_threshold = 5"]
    return out
