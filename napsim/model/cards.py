"""Command deck files: one CSV row per card type, validated into a `Deck`.

A deck file starts with `# key: value` header lines, then a CSV table. Header keys:

- `title`: the deck's name for display (default: the file name).
- `total`: a declared card count that must match the sum of `count` (optional).
- `note`: free text shown by `napsim decks show`; may be given on several lines, kept in order.
- `tactician_deck`: how many Tactician cards come with this Command deck, a non-negative integer;
  0 means the deck has no Tactician deck (no Tactician cards are dealt or drawn with it). Optional:
  a file without the line gets DEFAULT_TACTICIAN_DECK (50, the GM&T Tactician deck), so deck files
  written before the key existed keep their old meaning. Every shipped deck sets it explicitly.
- `elan_reshuffle`: when a card with the `elan` mark reshuffles the draw pile and the discards,
  `after_draw` (the default: EPIC's end-of-turn list, where the Command draw comes first and the
  option `elan_order` may move it) or `before_draw` (the card's own text says so, as the Ancients
  I Am Spartacus does: the played card and the discards are shuffled in before the new card is
  drawn, in every format).
- `dice_order_faces`: of the battle die's six faces, how many order a unit when a card with the
  `dice` mark is rolled (an integer 0-6). Required when a card has `dice` = 1, refused otherwise:
  the die's faces are a fact of the game the deck belongs to, stated in the deck file.

Each key but `note` may appear once. The table has the columns in COLUMNS (all required) and may
add those in OPTIONAL_COLUMNS:

- `dice`: 1 when the card's orders are rolled: as many battle dice as the Command, each die showing
  an ordering face (`dice_order_faces`) orders one unit (the Ancients I Am Spartacus and Rally). Such
  a card has cap `cmd` and is played like a tactic card. Blank or missing: 0.
- `unit_class`: the unit class the card's own text names (free text, e.g. "light", "mounted"),
  kept for display and filters. Classes that napsim's scenario model lacks are listed by
  `Deck.unit_classes_outside_model()`; the engine orders units by `unit_filter` alone.
- `count_min`, `count_max`, `count_tie`: a plausible range for a count that is not confirmed, and
  a label tying rows whose counts move together (napsim.model.deck_ranges). Blank: the count is
  fixed. The header key `kind_totals` (e.g. `# kind_totals: multi=8, tactic=22`) names known kind
  subtotals that every plausible deck keeps; `Deck.plausible(n, seed)` draws such decks.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from napsim.model import deck_ranges
from napsim.model.errors import NapsimInputError, excerpt, unknown_name

DECK_DIR = Path(__file__).parents[1] / "data" / "decks"  # the shipped decks

KINDS = ("section", "multi", "tactic", "troop", "leadership", "champion", "object", "event")
SECTIONS = ("L", "C", "R")
# unit filters: which units a card may order. "cav_leader": mounted units and leaders (Ancients
# Order Mounted Troops); "led": the units under a leader's command, only where a leader stands
# (Ancients Leadership and Inspired cards; without one the card's fallback orders one unit)
UNIT_FILTERS = ("any", "inf", "cav", "art", "inf_art", "leader", "cav_leader", "led")
CONFIDENCE = ("confirmed", "secondary", "estimated")
MARKS = (
    "tactician_draw", "scout", "elan", "first_strike", "counter_attack", "force_march",
    "take_command", "fallback",
)
ORDER_COLUMNS = ("orders_l", "orders_c", "orders_r")
COLUMNS = (
    "name", "count", "kind", "section", *ORDER_COLUMNS, "equal_to_command", "cap",
    "unit_filter", "stars", *MARKS, "category", "confidence", "source",
)
OPTIONAL_COLUMNS = ("unit_class", "dice", *deck_ranges.RANGE_COLUMNS)
ALL_COLUMNS = (*COLUMNS, *OPTIONAL_COLUMNS)
HEADER_KEYS = ("title", "total", "note", "tactician_deck", "kind_totals", "elan_reshuffle",
               "dice_order_faces")
ELAN_RESHUFFLE = ("after_draw", "before_draw")  # `# elan_reshuffle:` values, the default first
REPEATABLE_HEADER_KEYS = ("note",)
# Tactician cards assumed when a deck file has no `# tactician_deck:` line (the GM&T deck's 50).
DEFAULT_TACTICIAN_DECK = 50
MAX_TACTICIAN_DECK = 999
# unit classes of napsim's scenario model (a unit_class outside these is display-only)
MODEL_UNIT_CLASSES = ("infantry", "cavalry", "artillery", "leader")

# `cap` codes in the packed tables: a number of units, or one of these.
CAP_NONE, CAP_CMD, CAP_ALL = -1, -2, -3
_CAP_WORDS = {"-": CAP_NONE, "cmd": CAP_CMD, "all": CAP_ALL}
_INT = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Deck:
    """A validated Command deck: one row per card type, plus header facts and a file hash."""

    name: str
    path: Path
    title: str
    note: str
    cards: pd.DataFrame = field(repr=False)
    sha256: str = field(repr=False)
    # Tactician cards that come with this Command deck; 0: the deck has no Tactician deck.
    tactician_deck: int = DEFAULT_TACTICIAN_DECK
    # True when the file says so with a `# tactician_deck:` line, False when the default was used.
    tactician_deck_declared: bool = False
    # kind subtotals every plausible deck keeps: (("multi", 8), ...) from `# kind_totals:`
    kind_totals: tuple = ()
    # True when the deck's Elan-marked cards reshuffle before the Command draw (`# elan_reshuffle:`)
    elan_before_draw: bool = False
    # faces of the six-faced battle die that order a unit when a `dice` card is rolled (0: no
    # card of the deck rolls; `# dice_order_faces:`)
    dice_order_faces: int = 0

    @property
    def n_cards(self) -> int:
        return int(self.cards["count"].sum())

    @property
    def n_types(self) -> int:
        return len(self.cards)

    @property
    def counts(self) -> np.ndarray:
        return self.cards["count"].to_numpy(np.int64)

    @property
    def estimated_rows(self) -> list[str]:
        """Names of card types whose count or marks are our estimate, not a published fact."""
        return self.cards.loc[self.cards["confidence"] == "estimated", "name"].tolist()

    @property
    def has_ranges(self) -> bool:
        """True when some count has a plausible range (count_min < count_max)."""
        return deck_ranges.has_ranges(self.cards)

    def plausible(self, n: int, seed: int) -> list[Deck]:
        """n plausible decks: every count inside its range, tied rows equal, the total and the kept
        kind subtotals as in the file; reproducible from `seed`. Without ranges: n copies."""
        out = []
        for counts in deck_ranges.plausible_counts(self.cards, self.kind_totals, n, seed):
            cards = self.cards.copy()
            cards["count"] = counts
            digest = hashlib.sha256((self.sha256 + ":" + ",".join(map(str, counts))).encode())
            out.append(dataclasses.replace(self, cards=cards, sha256=digest.hexdigest()))
        return out

    def unit_classes_outside_model(self) -> dict[str, list[str]]:
        """Unit classes named by the cards (`unit_class`) that napsim's scenario model lacks, each
        with the sorted `unit_filter` values the engine uses for those cards instead."""
        out: dict[str, set[str]] = {}
        for uc, filt in zip(self.cards["unit_class"], self.cards["unit_filter"], strict=True):
            if uc and uc.lower() not in MODEL_UNIT_CLASSES:
                out.setdefault(uc, set()).add(filt)
        return {uc: sorted(f) for uc, f in sorted(out.items())}

    def card_types(self) -> np.ndarray:
        """The deck as one type index per physical card (length `n_cards`), in file order."""
        return np.repeat(np.arange(self.n_types, dtype=np.int64), self.counts)

    def estimated_warning(self) -> str | None:
        """The warning line every report built from this deck must carry, or None."""
        rows = self.estimated_rows
        if not rows:
            return None
        n = int(self.cards.loc[self.cards["confidence"] == "estimated", "count"].sum())
        return (
            f"warning: deck '{self.name}' has {len(rows)} card types ({n} of {self.n_cards} cards) "
            "whose counts are estimated (confidence=estimated); treat results as provisional"
        )


def builtin_decks() -> list[str]:
    """Names of the deck files shipped with napsim."""
    return sorted(p.stem for p in DECK_DIR.glob("*.csv"))


def looks_like_path(value: str | Path, suffix: str) -> bool:
    """A file reference is a path when it says so: a folder separator or the file suffix. Anything
    else is the name of a shipped file, never a path (`../x` cannot reach outside the package)."""
    text = str(value)
    return isinstance(value, Path) or "/" in text or "\\" in text or text.endswith(suffix)


def resolve_named_file(name_or_path: str | Path, kind: str, folder: Path, suffix: str,
                       builtins: list[str]) -> Path:
    """A built-in name (a file `folder/NAME{suffix}`) or a path to a user's file (with a separator
    or ending in `suffix`); `kind` names the file in errors ("deck", "scenario")."""
    if looks_like_path(name_or_path, suffix):
        p = Path(name_or_path)
        if not p.is_file():
            raise NapsimInputError(str(p), None, f"{kind} file not found" if not p.is_dir() else
                                   f"is a folder, not a {kind} file")
        return p
    if name_or_path not in builtins:
        raise unknown_name(excerpt(name_or_path), kind, f"unknown {kind} name", str(name_or_path),
                           builtins, extra=f" or a path to a {suffix} file")
    return folder / f"{name_or_path}{suffix}"


def ranked_names(typed: str, names: list[str]) -> list[str]:
    """`names` in the order a user who typed `typed` looks for them: the name itself, then names
    that start with it, then names that hold it, then the rest (typing "tamames" offers `tamames`
    before `epic3-tamames`)."""
    t = typed.strip().lower()

    def rank(n: str) -> tuple[int, int, str]:
        low = n.lower()
        return (0 if low == t else 1 if low.startswith(t) else 2 if t and t in low else 3, len(n), n)
    return sorted(names, key=rank) if t else list(names)


def resolve_deck_path(name_or_path: str | Path) -> Path:
    """A built-in deck name or a path to a user's deck file (with a separator or ending in .csv)."""
    return resolve_named_file(name_or_path, "deck", DECK_DIR, ".csv", builtin_decks())


def load_deck(name_or_path: str | Path) -> Deck:
    """Read and validate a deck file; raise NapsimInputError naming file, row and field."""
    path = resolve_deck_path(name_or_path)
    raw = path.read_bytes()
    text = _deck_text(path, raw)
    header, header_lines, body_lines, first_row_line = _split_header(path, text)
    rows = _read_rows(path, body_lines, first_row_line)
    if not rows:
        raise NapsimInputError(str(path), None, "no CSV table after the header lines")
    columns = [c.strip() for c in rows[0][1]]
    _check_columns(f"{path}:{first_row_line}", columns)
    records = []
    lines: dict[str, int] = {}  # card name -> line of its first row
    row_lines: list[int] = []
    for line, values in rows[1:]:
        if not any(v.strip() for v in values):
            continue
        if len(values) != len(columns):
            raise NapsimInputError(
                f"{path}:{line}", None, f"has {len(values)} values, the header has {len(columns)}"
            )
        row = _parse_row(f"{path}:{line}", dict(zip(columns, values, strict=True)))
        if row["name"] in lines:
            raise NapsimInputError(
                f"{path}:{line}", "name",
                f"duplicate card name '{excerpt(row['name'])}' (first on line {lines[row['name']]})",
                "unique names",
            )
        lines[row["name"]] = line
        row_lines.append(line)
        records.append(row)
    if not records:
        raise NapsimInputError(str(path), "count", "the deck has no cards")
    cards = pd.DataFrame.from_records(records, columns=ALL_COLUMNS)
    deck_ranges.check_ties(path, cards, row_lines)
    total = int(cards["count"].sum())
    if total <= 0:
        raise NapsimInputError(str(path), "count", "the deck has no cards")
    if "total" in header:
        where = f"{path}:{header_lines['total']}"
        declared = _parse_int(where, "total", header["total"], 0, 10_000)
        if declared != total:
            raise NapsimInputError(
                where, "total", f"declared total {declared} but the counts sum to {total}"
            )
    tactician_deck = DEFAULT_TACTICIAN_DECK
    if "tactician_deck" in header:
        tactician_deck = _parse_int(
            f"{path}:{header_lines['tactician_deck']}", "tactician_deck", header["tactician_deck"],
            0, MAX_TACTICIAN_DECK,
        )
    kind_totals = ()
    if "kind_totals" in header:
        kind_totals = deck_ranges.parse_kind_totals(f"{path}:{header_lines['kind_totals']}",
                                                    header["kind_totals"], cards)
    elan_reshuffle = header.get("elan_reshuffle", ELAN_RESHUFFLE[0]).strip()
    if elan_reshuffle not in ELAN_RESHUFFLE:
        raise NapsimInputError(f"{path}:{header_lines['elan_reshuffle']}", "elan_reshuffle",
                               f"unknown value '{excerpt(elan_reshuffle)}'", ", ".join(ELAN_RESHUFFLE))
    dice_faces = _dice_order_faces(path, header, header_lines, cards, row_lines)
    return Deck(
        name=path.stem,
        path=path,
        title=header.get("title", path.stem),
        note=header.get("note", ""),
        cards=cards,
        sha256=hashlib.sha256(raw).hexdigest(),
        tactician_deck=tactician_deck,
        tactician_deck_declared="tactician_deck" in header,
        kind_totals=kind_totals,
        elan_before_draw=elan_reshuffle == "before_draw",
        dice_order_faces=dice_faces,
    )


def _dice_order_faces(path: Path, header: dict[str, str], header_lines: dict[str, int],
                      cards: pd.DataFrame, row_lines: list[int]) -> int:
    """The `# dice_order_faces:` header: required by a card with the `dice` mark, refused without
    one (a die nobody rolls would be a fact that changes nothing)."""
    rolled = cards.index[cards["dice"] == 1].tolist()
    if "dice_order_faces" not in header:
        if rolled:
            raise NapsimInputError(f"{path}:{row_lines[rolled[0]]}", "dice",
                                   f"card '{excerpt(cards['name'].iat[rolled[0]])}' rolls dice but "
                                   "the file has no '# dice_order_faces:' line",
                                   "a header line '# dice_order_faces: N' with N 0-6, or dice 0")
        return 0
    where = f"{path}:{header_lines['dice_order_faces']}"
    if not rolled:
        raise NapsimInputError(where, "dice_order_faces", "no card of the deck rolls dice (dice = 1)",
                               "the line left out, or a card with dice 1")
    return _parse_int(where, "dice_order_faces", header["dice_order_faces"], 0, 6)


def _read_rows(path: Path, body_lines: list[str], first_line: int) -> list[tuple[int, list[str]]]:
    """(file line where the row starts, values) of each CSV row of the table."""
    reader = csv.reader(io.StringIO("".join(body_lines), newline=""))
    rows, start = [], 1
    try:
        for values in reader:
            rows.append((first_line + start - 1, values))
            start = reader.line_num + 1
    except csv.Error as e:
        raise NapsimInputError(f"{path}:{first_line + start - 1}", None,
                               f"cannot read the CSV table: {e}") from None
    return rows


def _deck_text(path: Path, raw: bytes) -> str:
    """The file as text with '\\n' line ends: UTF-8 (a leading byte-order mark is dropped), CRLF
    and CR-only line ends read as LF; binary content (NUL and other control characters) refused."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise NapsimInputError(f"{path}:{line}", None, f"not UTF-8 text (byte {e.start}: "
                               f"0x{raw[e.start]:02x}); binary file?", "a UTF-8 CSV text file") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    found = _CONTROL.search(text)
    if found is not None:
        n = text.count("\n", 0, found.start())
        line = text.split("\n")[n]
        raise NapsimInputError(f"{path}:{n + 1}", None, f"control character U+{ord(found.group()):04X} "
                               f"(binary content?) in '{excerpt(line)}'", "printable UTF-8 text")
    return text


# Unicode's control characters (category Cc: U+0000-U+001F, U+007F-U+009F) but tab and line end
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _split_header(
    path: Path, text: str
) -> tuple[dict[str, str], dict[str, int], list[str], int]:
    """(header values, header key -> line number, table lines, line number of the table's header)"""
    header: dict[str, str] = {}
    header_lines: dict[str, int] = {}
    lines = text.split("\n")
    lines = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    for n, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            return header, header_lines, lines[n:], n + 1
        key, sep, value = stripped.lstrip("#").partition(":")
        key = key.strip().lower()
        if not sep or key not in HEADER_KEYS:
            raise NapsimInputError(
                f"{path}:{n + 1}", "header", f"unknown header line '{excerpt(stripped)}'",
                "# title: ..., # total: N, # note: ..., # tactician_deck: N, # kind_totals: kind=N, ...",
            )
        if key in header and key not in REPEATABLE_HEADER_KEYS:
            raise NapsimInputError(
                f"{path}:{n + 1}", key, f"header line given twice (first on line {header_lines[key]})",
                "once; only '# note:' may repeat",
            )
        value = value.strip()
        header[key] = f"{header[key]}\n{value}" if key in header else value
        header_lines.setdefault(key, n + 1)
    return header, header_lines, [], len(lines)


def _check_columns(where: str, columns: list[str]) -> None:
    if not set(columns) & set(ALL_COLUMNS):  # quote nothing of a file that is not a deck at all
        raise NapsimInputError(where, None, "not a deck file: the table's header row names none of "
                               "the deck columns", "a CSV header row: " + ", ".join(COLUMNS))
    unknown = [c for c in columns if c not in ALL_COLUMNS]
    if unknown:
        raise NapsimInputError(
            where, unknown[0], "unknown column",
            ", ".join(COLUMNS) + "; optional: " + ", ".join(OPTIONAL_COLUMNS),
        )
    repeated = [c for i, c in enumerate(columns) if c in columns[:i]]
    if repeated:
        raise NapsimInputError(where, repeated[0], "column given twice", "each column once")
    missing = [c for c in COLUMNS if c not in columns]
    if missing:
        raise NapsimInputError(where, missing[0], "missing column", ", ".join(COLUMNS))


def _parse_int(where: str, name: str, value: str, lo: int, hi: int) -> int:
    v = value.strip()
    # plain ASCII digits only: int() would also take '1_0', '+3' and non-ASCII digits
    if not _INT.fullmatch(v):
        raise NapsimInputError(where, name, f"'{excerpt(v)}' is not an integer", f"integers {lo}-{hi}")
    n = int(v)
    if not lo <= n <= hi:
        raise NapsimInputError(where, name, f"{n} is out of range", f"integers {lo}-{hi}")
    return n


def _parse_choice(where: str, name: str, value: str, allowed: tuple[str, ...]) -> str:
    v = value.strip()
    if v not in allowed:
        raise NapsimInputError(where, name, f"'{excerpt(v)}' is not allowed", ", ".join(allowed))
    return v


def _parse_row(where: str, row: dict[str, str]) -> dict:
    out: dict = {}
    name = row["name"].strip()
    if not name:
        raise NapsimInputError(where, "name", "empty card name")
    out["name"] = name
    out["count"] = _parse_int(where, "count", row["count"], 0, 999)
    kind = out["kind"] = _parse_choice(where, "kind", row["kind"], KINDS)
    out["section"] = _parse_choice(where, "section", row["section"], ("-", *SECTIONS))
    for col in ORDER_COLUMNS:
        out[col] = _parse_int(where, col, row[col], 0, 9)
    out["equal_to_command"] = _parse_int(where, "equal_to_command", row["equal_to_command"], 0, 1)
    cap = row["cap"].strip()
    out["cap"] = _CAP_WORDS[cap] if cap in _CAP_WORDS else _parse_cap(where, cap)
    out["unit_filter"] = _parse_choice(where, "unit_filter", row["unit_filter"], UNIT_FILTERS)
    out["stars"] = _parse_int(where, "stars", row["stars"], 0, 3)
    for mark in MARKS:
        out[mark] = _parse_int(where, mark, row[mark], 0, 1)
    out["category"] = row["category"].strip()
    out["confidence"] = _parse_choice(where, "confidence", row["confidence"], CONFIDENCE)
    out["source"] = row["source"].strip()
    out["unit_class"] = row.get("unit_class", "").strip()  # optional column
    out["dice"] = _parse_int(where, "dice", row.get("dice", "").strip() or "0", 0, 1)  # optional
    deck_ranges.parse_range(where, out, row, _parse_int)  # optional columns
    _check_kind_consistency(where, out, kind)
    return out


def _parse_cap(where: str, cap: str) -> int:
    try:
        return _parse_int(where, "cap", cap, 0, 99)
    except NapsimInputError:
        raise NapsimInputError(
            where, "cap", f"'{excerpt(cap)}' is not a cap", "an integer 0-99, cmd, all or -"
        ) from None


def _check_kind_consistency(where: str, row: dict, kind: str) -> None:
    """Each kind uses the columns its rules need (docs/rules.md D2), and no others that would mislead."""
    orders = sum(row[c] for c in ORDER_COLUMNS)
    if kind == "section":
        if row["section"] == "-":
            raise NapsimInputError(where, "section", "a section card must name its section", "L, C, R")
        own = f"orders_{row['section'].lower()}"
        others = [c for c in ORDER_COLUMNS if c != own and row[c]]
        if others:
            raise NapsimInputError(
                where, others[0], "a section card orders only in its own section", "0"
            )
        if row["equal_to_command"] == 0 and row[own] == 0:
            raise NapsimInputError(
                where, own, "a section card needs orders in its section or equal_to_command=1", "1-9"
            )
    elif kind == "multi":
        if row["section"] != "-":
            raise NapsimInputError(where, "section", "a multi-section card names no section", "-")
        if orders == 0:
            raise NapsimInputError(where, "orders_l", "a multi-section card needs orders", "0-9 each")
    elif orders:
        raise NapsimInputError(
            where, "orders_l", f"a {kind} card has no fixed section orders; use cap", "0"
        )
    if row["dice"] == 1 and (kind not in ("tactic", "troop", "leadership") or row["cap"] != CAP_CMD):
        raise NapsimInputError(where, "dice", "a card that rolls its orders is a tactic, troop or "
                               "leadership card with cap cmd (one die per Command)", "0")
