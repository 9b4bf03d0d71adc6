"""The scenario's fields on the page, and the model layer's errors beside them.

A field is a `--set` path of the scenario file with its value, its words (the metric catalogue's
`parameter_title`) and the kind of widget that edits it; the choices come from the model layer
(`GAME_FORMATS`, `GUERRILLA_RULES`, the rule catalogue's `[rules]` options with their plain-words
explanation). The page keeps no range of its own: every value goes through `load_scenario`,
`load_deck` and `check_deck_plays`, and an error is put beside the field that caused it.

Files uploaded to the page (a scenario TOML or a deck CSV) are checked in memory first: an upload
is refused over `MAX_BYTES`, or when it is not UTF-8 text of the right kind; it is never
executed. A scenario is parsed and validated in memory (`tomllib`, `parse_scenario`); then, since
the Python API takes files, the bytes are written into this process's temporary folder (one
sub-folder per content hash, so tabs share them and nothing lands anywhere else) and loaded from
there by the model layer, errors naming the uploaded file, not the temporary copy.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
import threading
import tomllib
from dataclasses import dataclass
from pathlib import Path

from napsim.model.cards import SECTIONS, builtin_decks, load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.metrics import parameter_title
from napsim.model.policies import KINDS, parse_policy_option, policy_vector
from napsim.model.rulebook import load_options
from napsim.model.scenarios import (
    GAME_FORMATS,
    GUERRILLA_RULES,
    LGB_SECTIONS,
    SECTION_KEYS,
    Scenario,
    builtin_scenarios,
    load_scenario,
    parse_scenario,
    read_toml,
    resolve_scenario_path,
)
from napsim.sim.packing import check_deck_plays

FORMAT_WORDS = {"standard": "standard game (one card a turn)", "epic1": "EPIC, 1 player a side",
                "epic2": "EPIC, 2 players a side", "epic3": "EPIC, 3 players a side",
                "epic4": "EPIC, 4 players a side", "lgb": "La Grande Battles (6 sections)"}
POLICIES = tuple(KINDS)
POOL_HELP = ("Guerrilla counters in the box that no side holds at the start; Scouts gain from them. "
             "Starting counters changed on this page come from this pool (the box keeps its total) "
             "unless 'Keep this pool' is ticked.")
SCENARIO = "scenario"  # the key of errors that belong to no single field
DECK = "deck"
POLICY = "policy"
HOUSE = "house"  # the group of the house rules' fields
PAGE = "on the page"  # who gave an override, in errors (the CLI says `--set`)


@dataclass(frozen=True)
class Field:
    """One editable value: its `--set` path, words, value in the scenario, widget kind."""

    path: str
    label: str
    value: object
    kind: str                 # int, float, choice, bool, list (three integers)
    group: str                # a side key, "scenario", "rules" (readings) or "house" (house rules)
    choices: tuple = ()
    help: str = ""
    section: str = ""         # the section of a unit count (L, C, R, or L1..R2)


def scenario_choices() -> list[tuple[str, str]]:
    """(name, one-line description) of every shipped scenario, shortest names first, so that a
    name typed in the box comes before the longer names that hold it (`tamames` before
    `epic3-tamames`)."""
    return [(n, load_scenario(n).description) for n in sorted(builtin_scenarios(), key=lambda n: (len(n), n))]


def vary_fields(fs: list[Field], names: dict[str, str]) -> list[Field]:
    """The whole-number settings a balance may vary, grouped by side and kind, each labelled so:
    'Spanish · cards and counters · Command hand size', 'Spanish · units · Infantry units in the
    left section'; the scenario's own settings first."""
    out = []
    for f in fs:
        if f.kind != "int" or f.group in ("rules", HOUSE):
            continue
        if f.group == SCENARIO:
            out.append((0, 0, f, f"Scenario · {f.label}"))
            continue
        side = names.get(f.group, f.group)
        title = f.label.removesuffix(f", {side}")
        kind = "units" if f.section else "cards and counters"
        out.append((1 + list(names).index(f.group), 1 if f.section else 0, f, f"{side} · {kind} · {title}"))
    out.sort(key=lambda t: t[:2])
    return [Field(f.path, label, f.value, f.kind, f.group, f.choices, f.help, f.section)
            for _, _, f, label in out]


def deck_choices() -> list[str]:
    return builtin_decks()


def fields(scenario: str, sc: Scenario) -> list[Field]:
    """The fields of a scenario (`sc`: it loaded with the overrides on screen, so that a changed
    format shows that format's fields), in the page's order."""
    doc, _ = read_toml(resolve_scenario_path(scenario))
    names = sc.side_names
    out = [Field("scenario.format", "Game format", sc.format, "choice", SCENARIO, GAME_FORMATS),
           Field("scenario.turns", "Turns a game, per side", sc.turns, "int", SCENARIO),
           Field("scenario.first", "Side moving first", sc.sides[sc.first].key, "choice", SCENARIO,
                 tuple(names))]
    if "guerrilla_pool" in doc["scenario"]:  # the scenario has a Guerrilla box (`guerrilla_box`)
        out.append(Field("scenario.guerrilla_pool", "Unacquired Guerrilla counters (the pool)",
                         doc["scenario"]["guerrilla_pool"], "int", SCENARIO, help=POOL_HELP))
    for side in sc.sides:
        out += _side_fields(side, doc["sides"][side.key], sc.format, names)
    for o in load_options():
        if o.formats and sc.format not in o.formats:
            continue
        words = "; ".join(f"{v.name}: {v.text}" for v in o.values)
        if o.house:  # a house rule: shown apart from the readings of the rule text, with its source
            out.append(Field(f"rules.{o.name}", f"{o.name} (house rule; changes {', '.join(o.rules)})",
                             sc.rule(o.name), "choice", HOUSE, tuple(v.name for v in o.values),
                             f"{o.text} {words} Source: {o.source}"))
            continue
        out.append(Field(f"rules.{o.name}", f"{o.name} (rules {', '.join(o.rules)})", sc.rule(o.name),
                         "choice", "rules", tuple(v.name for v in o.values), f"{o.text} {words}"))
    return out


def _side_fields(side, raw: dict, game_format: str, names: dict[str, str]) -> list[Field]:
    k = side.key
    p = f"sides.{k}"

    def f(key, value, kind, choices=()):
        return Field(f"{p}.{key}", parameter_title(f"{p}.{key}", names), value, kind, k, choices)

    out = [f("hand", side.hand, "int"), f("tactician", side.tactician, "int"),
           f("guerrilla", side.guerrilla, "int"),
           f("guerrilla_rule", side.guerrilla_rule, "choice", GUERRILLA_RULES)]
    if game_format == "epic3":
        out.append(f("cic_section", SECTIONS[side.cic_section], "choice", SECTIONS))
    if game_format == "lgb":
        out += [f("corps_hand", list(side.corps_hand), "list"),
                f("corps_tactician", list(side.corps_tactician), "list"),
                f("corps_guerrilla", list(side.corps_guerrilla), "list")]
    six = set(raw.get("sections", {})) & set(LGB_SECTIONS)
    secs = (LGB_SECTIONS, side.lgb_sections) if six else (SECTIONS, side.sections)
    for name, sec in zip(*secs, strict=True):
        for unit in SECTION_KEYS:
            path = f"{p}.sections.{name}.{unit}"
            out.append(Field(path, parameter_title(path, names), getattr(sec, unit), "int", k, section=name))
    return out


def overrides(fs: list[Field], values: dict[str, object]) -> dict:
    """{path: value} of the fields whose value on screen differs from the scenario's."""
    return {f.path: values[f.path] for f in fs if f.path in values and values[f.path] != f.value}


def _beside_field(e: NapsimInputError, path: str, names: dict[str, str]) -> NapsimInputError:
    """An override's error as shown beside its field: the field's words, not its `--set` path."""
    if e.where != PAGE:
        return e
    title = parameter_title(path, names) if e.field == path else (e.field or "the scenario")
    return NapsimInputError(title, None, e.problem, e.allowed, e.hint)


def loads(scenario: str, sets: dict) -> Scenario | None:
    """The scenario with these overrides, or None when they do not load."""
    try:
        return load_scenario(scenario, sets)
    except NapsimInputError:
        return None


def errors(scenario: str, sets: dict, deck: str | None, policy: str) -> dict[str, str]:
    """{field path (or DECK, POLICY, SCENARIO): napsim's one-line error} for the settings on screen;
    empty when they play. Each override is added in turn, and the one that makes the scenario fail
    to load takes the error (and is left out of the rest), so every bad field says so at once."""
    out: dict[str, str] = {}
    good: dict = {}
    try:
        load_scenario(scenario)
    except NapsimInputError as e:
        return {SCENARIO: str(e)}
    names = load_scenario(scenario).side_names
    for path, value in sets.items():
        try:
            load_scenario(scenario, {**good, path: value}, given_as=PAGE)
        except NapsimInputError as e:
            out[path] = str(_beside_field(e, path, names))
            continue
        good[path] = value
    if out:
        return out
    sc = load_scenario(scenario, good)
    try:
        for name, opts in parse_policy_option(policy):
            policy_vector(name, opts)
    except NapsimInputError as e:
        out[POLICY] = str(e)
    try:
        check_deck_plays(sc, load_deck(deck or sc.deck))
    except NapsimInputError as e:
        out[DECK] = str(e)
    return out


# --------------------------------------------------------------------------------------------
# uploaded scenario and deck files


MAX_BYTES = 256 * 1024  # a scenario or deck file is a few kB
SUFFIX = {"scenario": ".toml", "deck": ".csv"}
_FOLDER: list[Path] = []
_LOCK = threading.Lock()


def folder() -> Path:
    """The process's temporary folder for uploads (made on first use)."""
    with _LOCK:
        if not _FOLDER:
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="napsim-app-")))
        return _FOLDER[0]


def _safe_name(name: str, kind: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).name)[:80].lstrip(".") or "upload"
    if not base.lower().endswith(SUFFIX[kind]):
        raise NapsimInputError(name, None, f"is not a {SUFFIX[kind]} file", f"a {kind} file ({SUFFIX[kind]})")
    return base


def _text(name: str, data: bytes, kind: str) -> str:
    if len(data) > MAX_BYTES:
        raise NapsimInputError(name, None, f"{len(data):,} bytes is too large for a {kind} file",
                               f"at most {MAX_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NapsimInputError(name, None, f"not UTF-8 text (byte {e.start}); binary file?",
                               f"a UTF-8 {kind} file") from None


def _store(name: str, data: bytes, kind: str) -> Path:
    path = folder() / hashlib.sha256(data).hexdigest()[:16] / _safe_name(name, kind)
    path.parent.mkdir(exist_ok=True)
    if not path.exists():
        path.write_bytes(data)
    return path


def scenario_upload(name: str, data: bytes) -> str:
    """The path of an uploaded scenario that loads; `NapsimInputError` naming the upload if not."""
    _safe_name(name, "scenario")
    text = _text(name, data, "scenario")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise NapsimInputError(name, None, f"not valid TOML: {e}") from None
    parse_scenario(doc, Path(name))  # errors name the uploaded file
    return str(_store(name, data, "scenario"))


def deck_upload(name: str, data: bytes) -> str:
    """The path of an uploaded deck that loads; `NapsimInputError` naming the upload if not."""
    _safe_name(name, "deck")
    _text(name, data, "deck")
    path = _store(name, data, "deck")
    try:
        load_deck(path)
    except NapsimInputError as e:
        raise NapsimInputError(e.where.replace(str(path), name), e.field, e.problem.replace(str(path), name),
                               e.allowed) from None
    return str(path)
