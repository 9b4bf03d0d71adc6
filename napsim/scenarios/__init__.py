"""Scenario files (TOML): the battlefield as napsim knows it (RULES.md S1).

Per side: name, Command hand size, starting Tactician cards, Guerrilla counters, square event
rates (E11); per section: infantry, cavalry, artillery, leaders and how many units are Spanish.
Per game: format, deck, turns per side (V1), who moves first.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from napsim.cards import SECTIONS
from napsim.errors import NapsimInputError
from napsim.validate import check_keys, get_bool, get_choice, get_float, get_int, get_str

SCENARIO_DIR = Path(__file__).parent
FORMATS = ("standard", "epic1")
UNIT_TYPES = ("infantry", "cavalry", "artillery")
SECTION_KEYS = (*UNIT_TYPES, "leaders", "spanish")
SIDE_KEYS = (
    "name", "hand", "tactician", "guerrilla", "guerrilla_rule", "square_form", "square_leave",
    "french", "sections",
)
SCENARIO_KEYS = ("name", "format", "deck", "turns", "first", "description", "examples",
                 "guerrilla_pool")
GUERRILLA_RULES = ("off", "base", "epic")


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
    sections: tuple[Section, ...]


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


def builtin_scenarios() -> list[str]:
    """Names of the scenario files shipped with napsim."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def resolve_scenario_path(name_or_path: str | Path) -> Path:
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.exists():
        if not p.is_file():
            raise NapsimInputError(str(p), None, "scenario file not found")
        return p
    builtin = SCENARIO_DIR / f"{name_or_path}.toml"
    if not builtin.is_file():
        raise NapsimInputError(str(name_or_path), "scenario", "unknown scenario name",
                               ", ".join(builtin_scenarios()) + " or a .toml path")
    return builtin


def load_scenario(name_or_path: str | Path, overrides: dict | None = None) -> Scenario:
    """Read and validate a scenario; `overrides` maps dotted paths (sides.A.hand) to values."""
    path = resolve_scenario_path(name_or_path)
    raw = path.read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise NapsimInputError(str(path), None, f"not valid TOML: {e}") from None
    for dotted, value in (overrides or {}).items():
        apply_override(data, dotted, value, str(path))
    return parse_scenario(data, path, hashlib.sha256(raw).hexdigest())


def apply_override(data: dict, dotted: str, value, where: str) -> None:
    """Set data[a][b][c] = value for 'a.b.c'; every step but the last must already exist."""
    keys = dotted.split(".")
    node = data
    for i, k in enumerate(keys[:-1]):
        if not isinstance(node, dict) or k not in node:
            valid = ", ".join(node) if isinstance(node, dict) else "(none)"
            raise NapsimInputError(where, ".".join(keys[: i + 1]), "unknown parameter path", valid)
        node = node[k]
    if not isinstance(node, dict):
        raise NapsimInputError(where, dotted, "unknown parameter path")
    node[keys[-1]] = value


def parse_scenario(data: dict, path: Path, sha256: str = "") -> Scenario:
    """Validate a parsed TOML document into a Scenario."""
    where = str(path)
    check_keys(where, data, ("scenario", "sides"), ("scenario", "sides"))
    head = data["scenario"]
    w = f"{where}: [scenario]"
    check_keys(w, head, SCENARIO_KEYS, ("name", "format", "deck", "turns", "first"))
    fmt = get_choice(w, head, "format", FORMATS)
    turns = get_int(w, head, "turns", 1, 10_000)
    sides_raw = data["sides"]
    if not isinstance(sides_raw, dict) or len(sides_raw) != 2:
        raise NapsimInputError(where, "sides", "need exactly two sides", "[sides.A] and [sides.B]")
    sides = tuple(_parse_side(f"{where}: [sides.{k}]", k, v) for k, v in sides_raw.items())
    first_key = get_choice(w, head, "first", tuple(sides_raw))
    deck = get_str(w, head, "deck")
    for i, s in enumerate(sides):
        w_side = f"{where}: [sides.{s.key}]"
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
            if s.guerrilla_rule == "epic" and fmt == "standard":
                raise NapsimInputError(w_side, "guerrilla_rule",
                                       "the EPIC clarifications (G4-G6) need an EPIC format", "off, base")
        elif s.guerrilla:
            raise NapsimInputError(w_side, "guerrilla_rule",
                                   f"{s.guerrilla} counters but the guerrilla rule is off", "base, epic")
    any_rule = any(s.guerrilla_rule != "off" for s in sides)
    pool = get_int(w, head, "guerrilla_pool", 0, 99, ... if any_rule else 0)
    return Scenario(
        name=get_str(w, head, "name"), path=path, format=fmt, deck=deck, turns=turns,
        first=list(sides_raw).index(first_key), sides=sides,
        description=get_str(w, head, "description", ""), examples=get_str(w, head, "examples", ""),
        guerrilla_pool=pool, sha256=sha256,
    )


def _parse_side(where: str, key: str, t: dict) -> Side:
    check_keys(where, t, SIDE_KEYS, ("name", "hand", "tactician", "sections"))
    secs = t["sections"]
    check_keys(f"{where}.sections", secs, SECTIONS, SECTIONS)
    sections = []
    for s in SECTIONS:
        w = f"{where}.sections.{s}"
        check_keys(w, secs[s], SECTION_KEYS, (*UNIT_TYPES, "leaders"))
        inf, cav, art = (get_int(w, secs[s], u, 0, 99) for u in UNIT_TYPES)
        leaders = get_int(w, secs[s], "leaders", 0, 20)
        spanish = get_int(w, secs[s], "spanish", 0, 99, 0)
        if spanish > inf + cav + art:
            raise NapsimInputError(w, "spanish", f"{spanish} Spanish units but only "
                                   f"{inf + cav + art} units in the section",
                                   f"0-{inf + cav + art}")
        sections.append(Section(inf, cav, art, leaders, spanish))
    return Side(
        key=key, name=get_str(where, t, "name"), hand=get_int(where, t, "hand", 1, 20),
        tactician=get_int(where, t, "tactician", 0, 50), guerrilla=get_int(where, t, "guerrilla", 0, 9, 0),
        guerrilla_rule=get_choice(where, t, "guerrilla_rule", GUERRILLA_RULES, "off"),
        square_form=get_float(where, t, "square_form", 0.0, 1.0, 0.0),
        square_leave=get_float(where, t, "square_leave", 0.0, 1.0, 0.5),
        french=get_bool(where, t, "french", False), sections=tuple(sections),
    )
