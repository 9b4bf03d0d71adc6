"""`napsim scenarios`: the built-in scenarios in one line each, one scenario in words (`show`) and
a commented template to start a new one (`new`, napsim.model.scenario_template)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from napsim.engine.layout import COMMANDER_ROLES
from napsim.model.errors import NapsimInputError
from napsim.model.rulebook import load_options
from napsim.model.scenario_template import FORMAT_WORDS, check_template_name, template_text
from napsim.model.scenarios import LGB_SECTIONS, Scenario, Side, builtin_scenarios, load_scenario
from napsim.sim.packing import FORMAT_PLAYERS, commander_config

SECTION_WORDS = ("Left", "Centre", "Right")
WING_WORDS = ("left", "centre", "right")
GUERRILLA_RULE_WORDS = {"base": "base rule (G1-G3)", "epic": "EPIC clarifications (G4-G6)"}


def _players(fmt: str) -> str:
    n = FORMAT_PLAYERS[fmt]
    return f"{n} player{'s' if n > 1 else ''} a side"


def list_text() -> str:
    """One line per built-in scenario: name, format, players a side, turns, description."""
    rows = [(n, load_scenario(n)) for n in builtin_scenarios()]  # the name --scenario takes
    width = max(len(n) for n, _ in rows)
    lines = [f"{'name':<{width}}  {'format':<8} {'players':<16} {'turns':>5}  description"]
    for n, sc in rows:
        lines.append(f"{n:<{width}}  {sc.format:<8} {_players(sc.format):<16} {sc.turns:>5}  "
                     f"{sc.description or '(no description)'}")
    lines.append("")
    lines.append("`napsim scenarios show NAME` prints one in full; `napsim scenarios new NAME` writes "
                 "a commented template.")
    return "\n".join(lines)


def _cards(n: int, what: str = "card") -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _side_lines(sc: Scenario, i: int) -> list[str]:
    s = sc.sides[i]
    head = f"{s.name} (sides.{s.key})" + (", the French army" if s.french else "")
    head += ", moves first" if sc.first == i else ""
    out = [head]
    if sc.format == "lgb":
        out.append(f"  Command hands: the CIC {_cards(s.hand)}; Corps commanders (left/centre/right "
                   f"wing) {'/'.join(map(str, s.corps_hand))}")
        out.append(f"  Tactician cards at the start: the CIC {s.tactician}; Corps commanders "
                   f"{'/'.join(map(str, s.corps_tactician))}")
    else:
        cic = f"; the CIC commands the {SECTION_WORDS[s.cic_section]}" if sc.format == "epic3" else ""
        out.append(f"  Command hand: {_cards(s.hand)}{cic}")
        out.append(f"  Tactician cards at the start: {s.tactician}" + _tactician_share(sc, i))
    out.append("  Guerrilla: " + _guerrilla_words(sc, s))
    if s.key in sc.policies:
        out.append("  " + _policy_words(*sc.policies[s.key]))
    out.append(f"  squares (E11): a unit forms one with chance {s.square_form:.2f} a turn, leaves "
               f"it with chance {s.square_leave:.2f}")
    return out


def _tactician_share(sc: Scenario, i: int) -> str:
    """epic3/epic4: what each commander holds at the start (M6.3, M8.2)."""
    if sc.format not in ("epic3", "epic4"):
        return ""
    roles = COMMANDER_ROLES[sc.format]
    tac = commander_config(sc)[1][i]
    return (" in the scenario; per commander, as dealt (M6.3, M8.2): "
            + ", ".join(f"{r}: {int(n)}" for r, n in zip(roles, tac, strict=False)))


def _policy_words(name: str, params: dict) -> str:
    """A side's [policy.<side>] table in words: which policy it tunes and how."""
    settings = ", ".join(f"{k} = {v}" for k, v in params.items()) or "its defaults"
    return (f"policy table [policy]: whenever this side plays {name}, it plays it with {settings} "
            f"(a --policy {name}:PARAM=VALUE on the command line still wins)")


def _guerrilla_words(sc: Scenario, s: Side) -> str:
    if s.guerrilla_rule == "off":
        return "none (rule off)"
    spanish = sum(x.spanish for x in s.sections)
    corps = (f"; per Corps commander (left/centre/right) {'/'.join(map(str, s.corps_guerrilla))}"
             if any(s.corps_guerrilla) else "")
    return (f"{_cards(s.guerrilla, 'counter')} at the start{corps}, "
            f"{GUERRILLA_RULE_WORDS[s.guerrilla_rule]}, {_cards(spanish, 'Spanish unit')}; "
            f"unacquired pool {sc.guerrilla_pool}")


def _units_table(sc: Scenario) -> list[str]:
    lgb = sc.format == "lgb"
    names = LGB_SECTIONS if lgb else SECTION_WORDS
    width = max(len(s.name) for s in sc.sides)
    cols = ("infantry", "cavalry", "artillery", "units", "leaders", "Spanish")
    out = [f"units per section ({'six LGB sections' if lgb else 'three EPIC sections'}, each "
           "named from its own side's seat):",
           f"  {'side':<{width}}  {'section':<8}" + "".join(f"{c:>10}" for c in cols)]
    for s in sc.sides:
        secs = s.lgb_sections if lgb else s.sections
        for k, x in enumerate(secs):
            who = s.name if k == 0 else ""
            vals = (x.infantry, x.cavalry, x.artillery, x.units, x.leaders, x.spanish)
            out.append(f"  {who:<{width}}  {names[k]:<8}" + "".join(f"{v:>10}" for v in vals))
        total = sum(x.units for x in secs)
        out.append(f"  {'':<{width}}  {'total':<8}{'':>30}{total:>10}"
                   f"{sum(x.leaders for x in secs):>10}{sum(x.spanish for x in secs):>10}")
    return out


def _first_sentence(text: str) -> str:
    head, dot, _ = text.partition(". ")
    return head + "." if dot else text


def _rules_lines(sc: Scenario) -> list[str]:
    out = ["rule options in force (--set rules.NAME=VALUE changes one; `napsim rules ID` explains "
           "each rule):"]
    other = []
    for o in load_options():
        value = sc.rule(o.name)
        if o.formats and sc.format not in o.formats:
            other.append(f"{o.name} = {value}")
            continue
        which = ("the default reading" if value == o.default
                 else f"not the default; the default reading is {o.default}")
        out.append(f"  {o.name} = {value} ({which}; rules {', '.join(o.rules)})")
        meaning = next((v.text for v in o.values if v.name == value), "")
        for text in (_first_sentence(o.text), f"{value}: {_first_sentence(meaning)}"):
            out.append(textwrap.fill(text, 100, initial_indent="      ", subsequent_indent="      "))
    if other:
        out.append(f"  not read in {sc.format}: {', '.join(other)}")
    return out


def show_text(name_or_path: str | Path) -> str:
    """One scenario in words: format, sides, hands, counters, squares, units, rule options and
    which numbers are examples."""
    sc = load_scenario(name_or_path)
    first = sc.sides[sc.first].name
    lines = [f"{sc.name}: {sc.description or '(no description)'}", f"file: {sc.path}",
             f"format: {sc.format}, {FORMAT_WORDS[sc.format]}",
             f"{sc.turns} turns a side; {first} moves first; deck {sc.deck}",
             f"examples: {sc.examples or 'the file does not say which numbers are examples'}", ""]
    for i in range(2):
        lines += _side_lines(sc, i)
    lines.append("")
    lines += _units_table(sc)
    lines.append("")
    lines += _rules_lines(sc)
    return "\n".join(lines)


def write_template(name: str, fmt: str, out: str | Path | None = None) -> Path:
    """Write the commented template of a new scenario (refusing to overwrite a file)."""
    check_template_name(name)
    path = Path(out) if out is not None else Path(f"{name}.toml")
    if path.suffix != ".toml":
        raise NapsimInputError(str(path), None, "a scenario file must end in .toml", f"{name}.toml")
    if path.exists():
        raise NapsimInputError(str(path), None, "already exists; napsim never overwrites it",
                               "another --out path, or delete the file first")
    if not path.parent.is_dir():
        raise NapsimInputError(str(path), None, "no such folder", "an existing folder")
    text = template_text(name, fmt, str(path))
    with path.open("x", encoding="utf-8") as f:  # "x": fail rather than overwrite in a race
        f.write(text)
    return path
