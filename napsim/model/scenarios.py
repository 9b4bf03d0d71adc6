"""Scenario files (TOML): the battlefield as napsim knows it (docs/rules.md S1).

Per side: name, Command hand size, starting Tactician cards, Guerrilla counters, square event
rates (E11); per section: infantry, cavalry, artillery, leaders and how many units are Spanish.
Per game: format, deck, turns per side (V1), who moves first.

Formats (docs/rules.md, E, M, L): `standard`, `epic1`, `epic2`, `epic3`, `epic4` (1-4 players a side) and
`lgb` (La Grande Battles, six sections). Sections are given either as the three EPIC sections
L, C, R or as the six LGB sections L1 L2 C1 C2 R1 R2; the other view is derived (a pair is merged,
or a section split in two with the odd unit in its first half), so one army can be played in
every format. The multi-player formats read a few more side keys: `cic_section` (epic3: the
section the CIC commands), `corps_hand`, `corps_tactician` and `corps_guerrilla` (lgb: one value
per Corps commander, left, centre, right wing).

A scenario document is written back as TOML text by `toml_text` (what `napsim app` downloads as a
scenario file; a `[policy.<side>]` table `napsim tune` prints), and a value as `--set` text by
`override_text`. The standard library reads TOML (`tomllib`) but does not write it; scenario
documents hold only tables, strings, integers, floats, booleans and lists of them, so a small
writer suffices. Its output reads back to the same document (`tomllib.loads(toml_text(doc)) == doc`).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from napsim.model.cards import SECTIONS, resolve_named_file
from napsim.model.errors import (
    NapsimInputError,
    check_keys,
    did_you_mean,
    excerpt,
    get_bool,
    get_choice,
    get_float,
    get_int,
    get_str,
)
from napsim.model.house_rules import HOUSE_RULES
from napsim.model.policies import policy_tables
from napsim.model.rulebook import load_options

SCENARIO_DIR = Path(__file__).parents[1] / "data" / "scenarios"  # the shipped scenarios
GAME_FORMATS = ("standard", "epic1", "epic2", "epic3", "epic4", "lgb")
LGB_SECTIONS = ("L1", "L2", "C1", "C2", "R1", "R2")
UNIT_TYPES = ("infantry", "cavalry", "artillery")
SECTION_KEYS = (*UNIT_TYPES, "leaders", "spanish")
SIDE_KEYS = (
    "name", "hand", "tactician", "guerrilla", "guerrilla_rule", "square_form", "square_leave",
    "french", "sections", "cic_section", "corps_hand", "corps_tactician", "corps_guerrilla",
)
SCENARIO_KEYS = ("name", "format", "deck", "turns", "first", "description", "examples",
                 "guerrilla_pool")
GUERRILLA_RULES = ("off", "base", "epic")
# Open readings of the rule texts and house rules (docs/rules.md, "Rule options", "House rules"), as
# the catalogue napsim/model/rulebook.toml declares them: the optional [rules] table of a scenario
# picks one value per option; the first value is the default: the reading that gives every clause of
# the rule text a meaning and fits the rule's purpose, or for a house rule the rule as written.
RULE_OPTIONS: dict[str, tuple[str, ...]] = {
    o.name: (o.default, *(v.name for v in o.values if v.name != o.default)) for o in load_options()
}
DEFAULT_RULES: dict[str, str] = {k: v[0] for k, v in RULE_OPTIONS.items()}


@dataclass(frozen=True)
class Section:
    """Units of one side in one section (S1)."""

    infantry: int
    cavalry: int
    artillery: int
    leaders: int
    spanish: int

    @property
    def units(self) -> int:
        return self.infantry + self.cavalry + self.artillery


@dataclass(frozen=True)
class Side:
    """One army: hand sizes, starting cards and counters, squares, units per section."""

    key: str
    name: str
    hand: int
    tactician: int
    guerrilla: int
    guerrilla_rule: str
    square_form: float
    square_leave: float
    french: bool
    sections: tuple[Section, ...]          # the three EPIC sections L, C, R
    lgb_sections: tuple[Section, ...] = ()  # the six LGB sections L1 L2 C1 C2 R1 R2
    cic_section: int = 1                   # epic3: the section the CIC commands (0 L, 1 C, 2 R)
    corps_hand: tuple[int, int, int] = (0, 0, 0)       # lgb: Command cards per Corps commander
    corps_tactician: tuple[int, int, int] = (0, 0, 0)  # lgb: Tactician cards per Corps commander
    corps_guerrilla: tuple[int, int, int] = (0, 0, 0)  # lgb: Guerrilla counters per Corps commander


@dataclass(frozen=True)
class Scenario:
    """A validated scenario file."""

    name: str
    path: Path
    format: str
    deck: str
    turns: int
    first: int
    sides: tuple[Side, ...]
    description: str = ""
    examples: str = ""
    guerrilla_pool: int = 0
    sha256: str = field(default="", repr=False)
    rules: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_RULES))  # RULE_OPTIONS
    policies: dict[str, tuple[str, dict]] = field(default_factory=dict)  # [policy.<side>] tables

    def rule(self, name: str) -> str:
        """The reading in force for one open point (a key of RULE_OPTIONS)."""
        return self.rules[name]

    @property
    def side_names(self) -> dict[str, str]:
        """{side key: side name}, in the file's order ({'F': 'French', 'S': 'Spanish'})."""
        return {s.key: s.name for s in self.sides}


def builtin_scenarios() -> list[str]:
    """Names of the scenario files shipped with napsim."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def resolve_scenario_path(name_or_path: str | Path) -> Path:
    """A built-in scenario name, or a path to a scenario file (with a separator or ending in .toml)."""
    return resolve_named_file(name_or_path, "scenario", SCENARIO_DIR, ".toml", builtin_scenarios())


def read_toml(path: Path) -> tuple[dict, bytes]:
    """(the document, the file's bytes) of a TOML file; a leading byte-order mark is allowed."""
    raw = path.read_bytes()
    try:
        return tomllib.loads(raw.decode("utf-8-sig")), raw
    except UnicodeDecodeError as e:
        raise NapsimInputError(str(path), None, f"not UTF-8 text (byte {e.start}); binary file?",
                               "a UTF-8 TOML text file") from None
    except tomllib.TOMLDecodeError as e:
        raise NapsimInputError(str(path), None, f"not valid TOML: {e}") from None


def parse_overrides(items: tuple[str, ...] | list[str], where: str = "--set") -> dict:
    """--set a.b.c=value pairs -> {path: value}, values read as TOML scalars (else as text)."""
    out = {}
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq:
            raise NapsimInputError(where, "set", f"cannot read '{excerpt(item)}': no '='",
                                   "path.to.key=value")
        if not key or any(not k.strip() for k in key.split(".")):
            raise NapsimInputError(where, "set", f"empty key in '{excerpt(item)}'",
                                   "path.to.key=value, e.g. sides.A.hand=7")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        out[key] = value
    return out


def load_scenario(name_or_path: str | Path, overrides: dict | None = None,
                  given_as: str = "--set") -> Scenario:
    """Read and validate a scenario; `overrides` maps dotted paths (sides.A.hand) to values. A value
    the overrides put wrong is named as the user gave it (`given_as` and the path), not as a line
    of the shipped file (`override_error`).

    The Guerrilla box holds what it holds: where the file gives `guerrilla_pool`, its counters
    (starting plus unacquired) are a total, and an override that moves the starting counters
    takes them from the unacquired pool or puts them back there (`guerrilla_box`); overriding
    `scenario.guerrilla_pool` too moves the pool instead (the total then changes)."""
    path = resolve_scenario_path(name_or_path)
    data, raw = read_toml(path)
    sha = hashlib.sha256(raw).hexdigest()
    head = data.get("scenario")
    written = head.get("format") if isinstance(head, dict) else None  # the file's own format
    if not overrides:
        return parse_scenario(data, path, sha, written)
    file_doc = copy.deepcopy(data)
    parse_scenario(copy.deepcopy(data), path, sha, written)  # sound: errors below are the overrides'
    for dotted, value in overrides.items():
        apply_override(data, dotted, value, given_as)
    try:
        sc = parse_scenario(data, path, sha, written)
    except NapsimInputError as e:
        raise override_error(e, str(path), overrides, given_as) from None
    try:
        return guerrilla_box(sc, file_doc, overrides)
    except NapsimInputError as e:  # named by the override that moved the counters
        raise NapsimInputError(given_as, e.where, e.problem, e.allowed, e.hint) from None


def override_error(e: NapsimInputError, where: str, overrides: dict, given_as: str) -> NapsimInputError:
    """The error of a scenario made wrong by overrides, named by the override: `--set: field
    'sides.S.hand': 'abc' is not an integer`, not `tamames.toml: [sides.S]: field 'hand': ...`."""
    table = e.where[len(where):].removeprefix(": ").strip("[]") if e.where.startswith(where) else ""
    path = f"{table}.{e.field}" if table and e.field else (e.field or table)
    if path in overrides:
        return NapsimInputError(given_as, path, e.problem, e.allowed, e.hint)
    given = ", ".join(f"{k}={override_text(v)}" for k, v in overrides.items())
    return NapsimInputError(given_as, path or None, f"{e.problem} (with {given_as} {given})",
                            e.allowed, e.hint)


COUNTER_KEYS = ("guerrilla", "corps_guerrilla")  # a side's starting Guerrilla counters


def starting_counters(sc: Scenario) -> int:
    """Guerrilla counters that start with the sides (the CIC's and every Corps commander's)."""
    return sum(s.guerrilla + sum(s.corps_guerrilla) for s in sc.sides)


def guerrilla_box(sc: Scenario, file_doc: dict, overrides: dict) -> Scenario:
    """`sc` (loaded with `overrides`) with the unacquired pool the file's Guerrilla box leaves
    when the overrides move the starting counters: the file's total (its starting counters plus
    its `guerrilla_pool`) less the new starting counters. Unchanged when the file gives no
    `guerrilla_pool`, when the overrides set `scenario.guerrilla_pool` (the pool moves instead)
    or leave the starting counters alone; starting counters above the total are refused."""
    moved = [k for k in overrides
             if k.startswith("sides.") and k.count(".") == 2 and k.rsplit(".", 1)[1] in COUNTER_KEYS]
    if (not moved or "scenario.guerrilla_pool" in overrides
            or "guerrilla_pool" not in file_doc.get("scenario", {})):
        return sc
    try:
        original = parse_scenario(file_doc, sc.path)
    except NapsimInputError:
        return sc  # a file that loads only with its overrides has no box of its own to keep
    total = starting_counters(original) + original.guerrilla_pool
    start = starting_counters(sc)
    if start > total:
        raise NapsimInputError(
            moved[0], None, f"{start} starting Guerrilla counters, but the Guerrilla box of "
            f"{original.name} holds {total} ({starting_counters(original)} starting + "
            f"{original.guerrilla_pool} unacquired)", f"0-{total} starting counters",
            hint="or set scenario.guerrilla_pool too to move the pool instead (the box then holds more)")
    return replace(sc, guerrilla_pool=total - start)


def apply_override(data: dict, dotted: str, value, where: str) -> None:
    """Set data[a][b][c] = value for 'a.b.c'; every step but the last must already exist."""
    keys = dotted.split(".")
    if keys[0] == "rules" and len(keys) == 2:
        data.setdefault("rules", {})  # the [rules] table is optional in a scenario file
    node = data
    for i, k in enumerate(keys[:-1]):
        if not isinstance(node, dict) or k not in node:
            names = list(node) if isinstance(node, dict) else []
            guess = did_you_mean(k, names)
            problem = f"unknown parameter path: {guess}" if guess else "unknown parameter path"
            raise NapsimInputError(where, ".".join(keys[: i + 1]), problem, ", ".join(names) or None)
        node = node[k]
    if not isinstance(node, dict):
        raise NapsimInputError(where, dotted, "unknown parameter path")
    node[keys[-1]] = value


def parse_scenario(data: dict, path: Path, sha256: str = "", written_format: str | None = None
                   ) -> Scenario:
    """Validate a parsed TOML document into a Scenario. `written_format`: the format the file
    itself names, when an override plays it in another (None: the document's own). A key of
    another format is then the army's value for that format (one army played in every format),
    not a mistake to refuse."""
    where = str(path)
    check_keys(where, data, ("scenario", "sides", "rules", "policy"), ("scenario", "sides"))
    head = data["scenario"]
    w = f"{where}: [scenario]"
    check_keys(w, head, SCENARIO_KEYS, ("name", "format", "deck", "turns", "first"))
    game_format = get_choice(w, head, "format", GAME_FORMATS)
    turns = get_int(w, head, "turns", 1, 10_000)
    sides_raw = data["sides"]
    if not isinstance(sides_raw, dict) or len(sides_raw) != 2:
        raise NapsimInputError(where, "sides", "need exactly two sides", "[sides.A] and [sides.B]")
    sides = tuple(_parse_side(f"{where}: [sides.{k}]", k, v, game_format) for k, v in sides_raw.items())
    first_key = get_choice(w, head, "first", tuple(sides_raw))
    deck = get_str(w, head, "deck")
    for i, s in enumerate(sides):
        w_side = f"{where}: [sides.{s.key}]"
        if game_format == "lgb" and s.guerrilla_rule == "base":
            raise NapsimInputError(w_side, "guerrilla_rule",
                                   "La Grande Battles plays the EPIC clarifications (G4-G6)", "off, epic")
        if game_format == "lgb" and s.tactician and (written_format or game_format) == "lgb":
            raise NapsimInputError(w_side, "tactician",
                                   f"{s.tactician} Tactician cards for a La Grande Battles CIC, who "
                                   "holds none (L10): give them per Corps commander with "
                                   "corps_tactician", "0")
        if game_format == "lgb" and s.guerrilla and any(s.corps_guerrilla):
            raise NapsimInputError(w_side, "guerrilla",
                                   f"{s.guerrilla} counters as a total beside corps_guerrilla "
                                   f"{list(s.corps_guerrilla)}: give the counters one way (G6)",
                                   "0 with corps_guerrilla, or corps_guerrilla = [0, 0, 0]")
        if game_format == "lgb" and s.guerrilla_rule == "off" and any(s.corps_guerrilla):
            raise NapsimInputError(w_side, "corps_guerrilla",
                                   "Corps counters but the guerrilla rule is off",
                                   "[0, 0, 0], or guerrilla_rule = epic")
        if s.guerrilla and not any(sec.spanish for sec in s.sections):
            raise NapsimInputError(w_side, "guerrilla",
                                   "guerrilla counters for a side without Spanish units", "0")
        if s.guerrilla_rule != "off":
            if not any(sec.spanish for sec in s.sections):
                raise NapsimInputError(w_side, "guerrilla_rule",
                                       "guerrilla rule on for a side without Spanish units", "off")
            if not sides[1 - i].french:
                raise NapsimInputError(w_side, "guerrilla_rule",
                                       "guerrilla rule on but the other side is not French "
                                       "(french = true)", "off")
            if s.guerrilla_rule == "epic" and game_format == "standard":
                raise NapsimInputError(w_side, "guerrilla_rule",
                                       "the EPIC clarifications (G4-G6) need an EPIC format", "off, base")
        elif s.guerrilla:
            raise NapsimInputError(w_side, "guerrilla_rule",
                                   f"{s.guerrilla} counters but the guerrilla rule is off", "base, epic")
    any_rule = any(s.guerrilla_rule != "off" for s in sides)
    pool = get_int(w, head, "guerrilla_pool", 0, 99, ... if any_rule else 0)
    return Scenario(
        name=get_str(w, head, "name"), path=path, format=game_format, deck=deck, turns=turns,
        first=list(sides_raw).index(first_key), sides=sides,
        description=get_str(w, head, "description", ""), examples=get_str(w, head, "examples", ""),
        guerrilla_pool=pool, sha256=sha256,
        rules=_house_rules_fit(where, game_format, parse_rules(where, data.get("rules", {}))),
        policies=policy_tables(where, data.get("policy", {}), tuple(sides_raw)),
    )


def what_if_notes(sc: Scenario) -> list[str]:
    """Settings that play but are no rules configuration of the game: one sentence each, for
    `napsim scenarios show` and the simulate console to print as notes."""
    notes = []
    for s in sc.sides:
        if s.guerrilla_rule == "base" and sc.format != "standard":
            notes.append(
                f"side {s.key} plays guerrilla_rule = \"base\" in {sc.format}: the base Guerrilla "
                "rule (G1-G3) is the standard game's; EPIC with the GM&T deck plays its "
                "clarifications (guerrilla_rule = \"epic\", G4-G6), so this is a what-if, not a "
                "rules configuration")
    return notes


def parse_rules(where: str, table) -> dict[str, str]:
    """The [rules] table: one reading per open point, the default reading where not given."""
    w = f"{where}: [rules]"
    if not isinstance(table, dict):
        raise NapsimInputError(where, "rules", "not a table", "[rules] with " + ", ".join(RULE_OPTIONS))
    check_keys(w, table, tuple(RULE_OPTIONS))
    return {k: get_choice(w, table, k, v, v[0]) for k, v in RULE_OPTIONS.items()}


def _house_rules_fit(where: str, game_format: str, rules: dict[str, str]) -> dict[str, str]:
    """A house rule is refused in a format it does not speak of (the standard game takes it: there
    it changes nothing, its tactic cards already order in every section)."""
    for h in HOUSE_RULES.values():
        if rules[h.option] == h.house and game_format not in (*h.formats, "standard"):
            raise NapsimInputError(f"{where}: [rules]", h.option, f"a house rule of the formats "
                                   f"{', '.join(h.formats)}, not {game_format}", h.as_written)
    return rules


def _parse_section(w: str, table: dict) -> Section:
    check_keys(w, table, SECTION_KEYS, (*UNIT_TYPES, "leaders"))
    inf, cav, art = (get_int(w, table, u, 0, 99) for u in UNIT_TYPES)
    leaders = get_int(w, table, "leaders", 0, 20)
    spanish = get_int(w, table, "spanish", 0, 99, 0)
    if spanish > inf + cav + art:
        raise NapsimInputError(w, "spanish", f"{spanish} Spanish units but only "
                               f"{inf + cav + art} units in the section", f"0-{inf + cav + art}")
    return Section(inf, cav, art, leaders, spanish)


def _merge(a: Section, b: Section) -> Section:
    return Section(a.infantry + b.infantry, a.cavalry + b.cavalry, a.artillery + b.artillery,
                   a.leaders + b.leaders, a.spanish + b.spanish)


def _split(x: Section) -> tuple[Section, Section]:
    """Halves of a section (the odd unit, leader or Spanish unit in the first), Spanish units
    kept within each half's units."""
    first = Section(*((v + 1) // 2 for v in (x.infantry, x.cavalry, x.artillery, x.leaders, 0)))
    second = Section(x.infantry - first.infantry, x.cavalry - first.cavalry,
                     x.artillery - first.artillery, x.leaders - first.leaders, 0)
    sp1 = min(first.units, (x.spanish + 1) // 2)
    sp2 = x.spanish - sp1
    if sp2 > second.units:
        sp1, sp2 = x.spanish - second.units, second.units
    return (Section(first.infantry, first.cavalry, first.artillery, first.leaders, sp1),
            Section(second.infantry, second.cavalry, second.artillery, second.leaders, sp2))


def _triple(where: str, t: dict, key: str, lo: int, hi: int, required: bool) -> tuple[int, int, int]:
    """Three integers (left, centre, right wing Corps commanders)."""
    if key not in t:
        if required:
            raise NapsimInputError(where, key, "missing required key for format lgb",
                                   f"three integers {lo}-{hi}, e.g. [4, 4, 4]")
        return (0, 0, 0)
    v = t[key]
    if (not isinstance(v, list) or len(v) != 3
            or any(isinstance(i, bool) or not isinstance(i, int) or not lo <= i <= hi for i in v)):
        raise NapsimInputError(where, key, f"{v!r} is not three integers {lo}-{hi}",
                               f"[left, centre, right] with integers {lo}-{hi}")
    return (v[0], v[1], v[2])


def _parse_side(where: str, key: str, t: dict, game_format: str = "epic1") -> Side:
    check_keys(where, t, SIDE_KEYS, ("name", "hand", "tactician", "sections"))
    secs = t["sections"]
    if isinstance(secs, dict) and set(secs) & set(LGB_SECTIONS):
        check_keys(f"{where}.sections", secs, LGB_SECTIONS, LGB_SECTIONS)
        six = tuple(_parse_section(f"{where}.sections.{s}", secs[s]) for s in LGB_SECTIONS)
        three = tuple(_merge(six[2 * i], six[2 * i + 1]) for i in range(3))
    else:
        check_keys(f"{where}.sections", secs, SECTIONS + LGB_SECTIONS, SECTIONS)
        three = tuple(_parse_section(f"{where}.sections.{s}", secs[s]) for s in SECTIONS)
        six = tuple(h for x in three for h in _split(x))
    lgb = game_format == "lgb"
    return Side(
        key=key, name=get_str(where, t, "name"), hand=get_int(where, t, "hand", 1, 20),
        tactician=get_int(where, t, "tactician", 0, 50), guerrilla=get_int(where, t, "guerrilla", 0, 9, 0),
        guerrilla_rule=get_choice(where, t, "guerrilla_rule", GUERRILLA_RULES, "off"),
        square_form=get_float(where, t, "square_form", 0.0, 1.0, 0.0),
        square_leave=get_float(where, t, "square_leave", 0.0, 1.0, 0.5),
        french=get_bool(where, t, "french", False), sections=three, lgb_sections=six,
        cic_section=SECTIONS.index(get_choice(where, t, "cic_section", SECTIONS, "C")),
        corps_hand=_triple(where, t, "corps_hand", 0, 20, lgb),
        corps_tactician=_triple(where, t, "corps_tactician", 0, 20, lgb),
        corps_guerrilla=_triple(where, t, "corps_guerrilla", 0, 9, False),
    )


# --------------------------------------------------------------------------------------------
# a scenario document written back as TOML text

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k, ensure_ascii=False)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        text = repr(v)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # JSON escapes are TOML basic-string escapes
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def toml_text(doc: dict, comments: list[str] = ()) -> str:
    """The document as TOML text, `comments` first (one '# ' line each); tables after their
    parent's plain values, in the document's order."""
    lines = [f"# {c}" for c in comments]

    def table(node: dict, path: list[str]) -> None:
        plain = [(k, v) for k, v in node.items() if not isinstance(v, dict)]
        subs = [(k, v) for k, v in node.items() if isinstance(v, dict)]
        if path and (plain or not subs):
            if lines:
                lines.append("")
            lines.append("[" + ".".join(_key(k) for k in path) + "]")
        lines.extend(f"{_key(k)} = {_value(v)}" for k, v in plain)
        for k, v in subs:
            table(v, [*path, k])

    table(doc, [])
    return "\n".join(lines) + "\n"


def override_text(value) -> str:
    """A value as the text after '=' of `--set PATH=VALUE` that reads back to it
    (`napsim.model.scenarios.parse_overrides`): a string as it is where that reads back as the
    same string, else quoted."""
    if isinstance(value, str):
        try:
            back = tomllib.loads(f"v = {value}")["v"]
        except tomllib.TOMLDecodeError:
            back = value
        return value if back == value and value.strip() == value and value else _value(value)
    return _value(value)
