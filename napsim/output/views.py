"""The text of the show commands, what napsim knows in words: `napsim scenarios` (the built-in
scenarios in one line each, one scenario in words with `show`, a commented template to start a new
one with `new`, from napsim.model.scenario_template), `napsim decks` (the built-in decks in a list,
one deck's composition by kind and section, its plausible count ranges and its warnings) and
`napsim rules` (the rule catalogue as a table, or rules in full)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from napsim.engine.layout import COMMANDER_ROLES
from napsim.model import rulebook
from napsim.model.cards import builtin_decks, load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.scenario_template import FORMAT_WORDS, check_template_name, template_text
from napsim.model.scenarios import (
    LGB_SECTIONS,
    Scenario,
    Side,
    builtin_scenarios,
    load_scenario,
    what_if_notes,
)
from napsim.output.sensitivity import committed_text
from napsim.sim.packing import FORMAT_PLAYERS, commander_config

# --------------------------------------------------------------------------------------------
# scenarios (`napsim scenarios`)


SECTION_WORDS = ("Left", "Centre", "Right")
WING_WORDS = ("left", "centre", "right")
GUERRILLA_RULE_WORDS = {"base": "base rule (G1-G3)", "epic": "EPIC clarifications (G4-G6)"}


def _players(game_format: str) -> str:
    n = FORMAT_PLAYERS[game_format]
    return f"{n} player{'s' if n > 1 else ''} a side"


def scenario_list_text() -> str:
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
    for o in rulebook.load_options():
        value = sc.rule(o.name)
        if o.formats and sc.format not in o.formats:
            other.append(f"{o.name} = {value}")
            continue
        which = ("the default reading" if value == o.default
                 else f"not the default; the default reading is {o.default}")
        if o.house:  # a house rule, not a reading of the text
            which = ("house rule off: the rule as written" if value == o.default
                     else f"HOUSE RULE on, not the rule as written ({o.default})")
        out.append(f"  {o.name} = {value} ({which}; rules {', '.join(o.rules)})")
        meaning = next((v.text for v in o.values if v.name == value), "")
        for text in (_first_sentence(o.text), f"{value}: {_first_sentence(meaning)}"):
            out.append(textwrap.fill(text, 100, initial_indent="      ", subsequent_indent="      "))
    if other:
        out.append(f"  not read in {sc.format}: {', '.join(other)}")
    return out


def scenario_text(name_or_path: str | Path) -> str:
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
    lines += [f"note: {n}" for n in what_if_notes(sc)]
    return "\n".join(lines)


def write_template(name: str, game_format: str, out: str | Path | None = None) -> Path:
    """Write the commented template of a new scenario (refusing to overwrite a file)."""
    check_template_name(name)
    path = Path(out) if out is not None else Path(f"{name}.toml")
    if path.suffix != ".toml":
        raise NapsimInputError(str(path), None, "a scenario file must end in .toml", f"{name}.toml")
    if path.exists():
        raise NapsimInputError(str(path), None, "already exists; napsim never overwrites it",
                               hint="choose another --out path, or delete the file first")
    if not path.parent.is_dir():
        raise NapsimInputError(str(path), None, "no such folder", "an existing folder")
    text = template_text(name, game_format, str(path))
    with path.open("x", encoding="utf-8") as f:  # "x": fail rather than overwrite in a race
        f.write(text)
    return path


# --------------------------------------------------------------------------------------------
# decks (`napsim decks`)


def deck_list_text() -> str:
    """Every built-in deck: cards, mix of kinds, Tactician deck, and whether counts are estimated."""
    rows = []
    for name in builtin_decks():
        d = load_deck(name)
        kinds = d.cards.groupby("kind")["count"].sum().to_dict()
        mix = ", ".join(f"{k} {v}" for k, v in kinds.items())
        flag = "  (some counts estimated)" if d.estimated_rows else ""
        rows.append(f"{name:<20} {d.n_cards:>3} cards  {mix}{flag}\n"
                    f"{'':<20} {d.title}; {_tactician_text(d)}")
    return "\n".join(rows)


def deck_text(deck: str) -> str:
    """A deck's composition grouped by kind and section, every row with its orders, marks and
    confidence, then its plausible ranges, unit classes outside napsim's model and warnings."""
    out = []
    d = load_deck(deck)
    out.append(f"{d.title}  [{d.path}]")
    for line in filter(None, d.note.splitlines()):
        out.append(f"note: {line}")
    default = "" if d.tactician_deck_declared else " (default: the file has no '# tactician_deck:' line)"
    out.append(_tactician_text(d) + default)
    c = d.cards
    for kind, group in c.groupby("kind", sort=False):
        out.append(f"\n{kind} cards: {int(group['count'].sum())}")
        for section, sub in group.groupby("section", sort=False):
            label = f"section {section}" if section != "-" else "no section"
            out.append(f"  {label}: {int(sub['count'].sum())}")
            for _, r in sub.iterrows():
                out.append(f"    {r['count']:>3}  {r['name']:<28} {_describe(r)}  [{r['confidence']}]"
                           + _range_text(r))
    out.append(f"\ntotal: {d.n_cards} cards in {d.n_types} types")
    if d.dice_order_faces or (c["dice"] == 1).any():  # D2: the cards that roll their orders
        out.append(f"battle die of the cards that roll their orders: {d.dice_order_faces} of its 6 "
                   "faces order a unit (# dice_order_faces; the notes say where the number comes from)")
    if d.has_ranges:
        kept = "".join(f", {k} {n}" for k, n in d.kind_totals)
        out.append(f"plausible ranges: {int(d.cards['count_min'].sum())}-{int(d.cards['count_max'].sum())} "
                   f"cards summed over the rows; every plausible deck keeps the total {d.n_cards}{kept} "
                   "(--deck-ensemble draws such decks)")
        out.append(committed_text(d.name) or "which of these counts matter most: `napsim sensitivity "
                   "--scenario NAME --deck ...` moves each one card down and one up")
    else:
        out.append("plausible ranges: none, every count is fixed (a deck ensemble has zero spread)")
    outside = d.unit_classes_outside_model()
    if outside:  # the engine orders these cards' units by unit_filter alone
        treated: dict[str, list[str]] = {}
        for uc, filters in outside.items():
            treated.setdefault(" or ".join(_FILTER_WORDS.get(f, f) for f in filters), []).append(uc)
        out.append(f"unit classes not in napsim's model: {', '.join(outside)} (treated as: "
                   + "; ".join(f"{', '.join(ucs)} = {t}" for t, ucs in treated.items()) + ")")
    warning = d.estimated_warning()
    if warning:
        out.append(warning)
    return "\n".join(out)


_FILTER_WORDS = {"any": "any unit", "inf": "infantry", "cav": "cavalry", "art": "artillery",
                 "inf_art": "infantry or artillery", "leader": "leaders and their units",
                 "cav_leader": "cavalry and leaders", "led": "the units of a section with a leader"}


def _tactician_text(d) -> str:
    return f"Tactician deck: {d.tactician_deck} cards" if d.tactician_deck else "no Tactician deck"


def _range_text(r) -> str:
    if r["count_min"] == r["count_max"]:
        return ""
    tie = f", equal to the other '{r['count_tie']}' rows" if r["count_tie"] else ""
    return f"  range {r['count_min']}-{r['count_max']}{tie}"


def _describe(r) -> str:
    parts = []
    if r["kind"] in ("section", "multi"):
        if r["equal_to_command"]:
            parts.append("orders = command")
        else:
            parts.append(f"orders L/C/R {r['orders_l']}/{r['orders_c']}/{r['orders_r']}")
    elif r["dice"]:
        parts.append("rolls command dice: one unit per ordering face, "
                     f"{_FILTER_WORDS.get(r['unit_filter'], r['unit_filter'])}")
    elif r["cap"] != -1:
        cap = {-2: "= command", -3: "all"}.get(r["cap"], str(r["cap"]))
        parts.append(f"up to {cap} {r['unit_filter']}")
    marks = [m for m in ("tactician_draw", "scout", "elan", "first_strike", "counter_attack",
                         "force_march", "take_command") if r[m]]
    if r["stars"]:
        marks.insert(0, f"stars {r['stars']}")
    if marks:
        parts.append("marks: " + ", ".join(marks))
    if r["unit_class"]:
        parts.append(f"unit class: {r['unit_class']}")
    return "; ".join(parts)


# --------------------------------------------------------------------------------------------
# rules (`napsim rules`)


def catalogue_text() -> str:
    """Every rule in one line (ID, title, tests, where implemented, options), then the options."""
    return _rule_table(rulebook.load_rules(), rulebook.load_options())


def rules_text(rule_id: str) -> str:
    """Every rule `rule_id` names (G5; a group: E9, M6) in full, a blank line between them."""
    return "\n\n".join(rule_text(r) for r in rulebook.rules_matching(rule_id))


def _rule_table(rules, options) -> str:
    def short(names, width):
        if not names:
            return "-"
        first = names[0].removeprefix("napsim.")
        more = f" (+{len(names) - 1})" if len(names) > 1 else ""
        return first[: width - len(more)] + more

    lines = [f"{'ID':<5} {'title':<44} {'tests':>5}  {'implemented in':<44} options"]
    for r in rules:
        title = r.title if len(r.title) <= 44 else r.title[:43] + "~"
        impl = short(r.implemented_in, 44 - 9 * (r.status == "partial"))
        if r.status != "implemented":
            impl = f"({r.status})" if not r.implemented_in else f"partial: {impl}"
        lines.append(f"{r.id:<5} {title:<44} {len(r.tests):>5}  {impl:<44} "
                     f"{', '.join(r.options) or '-'}")
    missing = [r.id for r in rules if r.status != "implemented"]
    lines.append("")
    partly = f" (not fully implemented: {', '.join(missing)})" if missing else ""
    lines.append(f"{len(rules)} rules{partly}; `napsim rules ID` prints one in full; "
                 "reference: docs/rules.md")
    lines.append("scenario [rules] options (--set rules.NAME=VALUE): "
                 + ", ".join(f"{o.name}={o.default}" for o in options))
    return "\n".join(lines)


def rule_text(r) -> str:
    """One rule in full: its text, note, options and their values, readings, code and tests."""
    def wrap(text, indent=""):
        return textwrap.fill(text, 100, initial_indent=indent, subsequent_indent=indent)

    out = [f"{r.id}  {r.title}  [{r.status}]", "", wrap(r.text)]
    if r.note:
        out += ["", wrap(("status: " if r.status != "implemented" else "note: ") + r.note)]
    for name in r.options:
        o = rulebook.get_option(name)
        kind = "house rule" if o.house else "option"
        out += ["", f"{kind} {o.name} (rules {', '.join(o.rules)}; formats {', '.join(o.formats) or 'all'}; "
                f"--set rules.{o.name}=VALUE):"]
        out.append(wrap(o.text, "  "))
        if o.source:
            out.append(wrap(f"source: {o.source}", "  "))
        for v in o.values:
            mark = " (default)" if v.name == o.default else ""
            out.append(f"  {v.name}{mark}")
            out.append(wrap(v.text, "      "))
    for x in rulebook.readings_for(r.id):
        out += ["", wrap(f"fixed reading ({', '.join(x.rules)}): {x.text}")]
    out += ["", "implemented in:"] + [f"  {n}" for n in r.implemented_in or ["(nothing)"]]
    out += ["", f"tests ({len(r.tests)}):"] + [f"  {t}" for t in r.tests or ["(none)"]]
    return "\n".join(out)
