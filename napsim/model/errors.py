"""Bad input reaches the user as one clear line (file, field, allowed values), never a traceback:
`NapsimInputError`, and the checks of values read from TOML files or the command line that raise
it (keys, integers, floats, choices, text, seeds, game counts, a run's arguments)."""

from __future__ import annotations

import difflib
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np

from napsim.model.defaults import MAX_GAMES, MAX_SEED

EXCERPT = 60  # the most characters of a user's file (or value) an error line quotes


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text` on one line, cut to `limit` characters (with '...' when cut): what an error may quote
    of a user's file."""
    text = _one_line(str(text))
    return text if len(text) <= limit else text[: limit - 3] + "..."


LISTED = 12  # the most names an error lists in "(allowed: ...)"; longer lists get a "did you mean"


class NapsimInputError(ValueError):
    """Bad user input: a deck, scenario, policy or study file, or a command-line value.

    `allowed` names the values the field takes ("(allowed: ...)"); `hint` says what to do instead
    where no value is at fault (another folder, a command to run first), after a semicolon."""

    def __init__(self, where: str, field: str | None, problem: str, allowed: str | None = None,
                 hint: str | None = None):
        if field:
            field = excerpt(field)
        self.where, self.field, self.problem, self.allowed = where, field, problem, allowed
        self.hint = hint
        parts = [where]
        if field:
            parts.append(f"field '{field}'")
        msg = ": ".join(parts) + f": {problem}"
        if allowed:
            msg += f" (allowed: {allowed})"
        if hint:
            msg += f" {hint[0].upper()}{hint[1:]}." if msg.endswith("?") else f"; {hint}"
        super().__init__(_one_line(msg))


def did_you_mean(value: str, names: list[str] | tuple[str, ...]) -> str:
    """'did you mean 'x'?' for the names closest to a mistyped `value` (up to three), or ''."""
    text = str(value)
    close = difflib.get_close_matches(text, list(names), n=3, cutoff=0.6)
    lower = {n.lower(): n for n in names}
    if text.lower() in lower and lower[text.lower()] not in close:
        close.insert(0, lower[text.lower()])
    starting = [n for n in names if len(text) >= 3 and n.startswith(text) and n not in close]
    close += starting[:3 - len(close)]
    if not close:
        return ""
    quoted = [f"'{c}'" for c in close[:3]]
    listed = f"{', '.join(quoted[:-1])} or {quoted[-1]}" if len(quoted) > 1 else quoted[0]
    return f"did you mean {listed}?"


def unknown_name(where: str, field: str | None, problem: str, value: str, names: list[str] | tuple[str, ...],
                 listed_by: str = "", extra: str = "") -> NapsimInputError:
    """The error for a name not among `names`: the closest names first ("did you mean ..."), then
    every name when there are few, else `listed_by` (how many there are, where they are listed).
    `extra` is added to a short list ("or a path to a .toml file")."""
    guess = did_you_mean(value, names)
    problem = f"{problem}: {guess}" if guess else problem
    if len(names) <= LISTED:
        return NapsimInputError(where, field, problem, ", ".join(names) + extra)
    hint = listed_by or f"one of {len(names)} names"
    return NapsimInputError(where, field, problem, hint=hint)


def _one_line(msg: str) -> str:
    """The message as one printable line (a value quoted from a file may hold line breaks)."""
    return msg if msg.isprintable() else "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in msg)


# --------------------------------------------------------------------------------------------
# checks of values


def check_keys(where: str, table: dict, allowed: tuple[str, ...], required: tuple[str, ...] = ()):
    """Reject unknown keys (naming the valid ones) and missing required keys."""
    if not isinstance(table, dict):
        raise NapsimInputError(where, None, "expected a table", ", ".join(allowed))
    for key in table:
        if key not in allowed:
            if not key.strip():
                raise NapsimInputError(where, key, "empty key", ", ".join(allowed))
            guess = did_you_mean(key, allowed)
            raise NapsimInputError(where, key, f"unknown key: {guess}" if guess else "unknown key",
                                   ", ".join(allowed))
    for key in required:
        if key not in table:
            raise NapsimInputError(where, key, "missing required key", ", ".join(allowed))


def get_int(where: str, table: dict, key: str, lo: int, hi: int, default: Any = ...) -> int:
    """An integer in [lo, hi]; `default` is used only when given (never silently otherwise)."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", f"integers {lo}-{hi}")
        return default
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, int):
        raise NapsimInputError(where, key, f"{excerpt(repr(v))} is not an integer", f"integers {lo}-{hi}")
    if not lo <= v <= hi:
        raise NapsimInputError(where, key, f"{excerpt(v)} is out of range", f"integers {lo}-{hi}")
    return v


def get_float(where: str, table: dict, key: str, lo: float, hi: float, default: Any = ...) -> float:
    """A number in [lo, hi]."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", f"numbers {lo}-{hi}")
        return float(default)
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise NapsimInputError(where, key, f"{excerpt(repr(v))} is not a number", f"numbers {lo}-{hi}")
    if not lo <= v <= hi:
        raise NapsimInputError(where, key, f"{excerpt(v)} is out of range", f"numbers {lo}-{hi}")
    return float(v)


def get_choice(where: str, table: dict, key: str, allowed: tuple[str, ...], default: Any = ...) -> str:
    """One of `allowed`."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", ", ".join(allowed))
        return default
    v = table[key]
    if v not in allowed:
        raise NapsimInputError(where, key, f"{excerpt(repr(v))} is not allowed", ", ".join(allowed))
    return v


def get_str(where: str, table: dict, key: str, default: Any = ...) -> str:
    """A string."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", "a string")
        return default
    v = table[key]
    if not isinstance(v, str):
        raise NapsimInputError(where, key, f"{excerpt(repr(v))} is not a string", "a string")
    return check_text(where, key, v)


def get_bool(where: str, table: dict, key: str, default: Any = ...) -> bool:
    """true or false."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", "true, false")
        return default
    v = table[key]
    if not isinstance(v, bool):
        raise NapsimInputError(where, key, f"{excerpt(repr(v))} is not a boolean", "true, false")
    return v


def check_seed(seed, where: str = "--seed") -> int:
    """A seed: an integer 0..2**63-1."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed <= MAX_SEED:
        raise NapsimInputError(where, "seed", f"{excerpt(repr(seed))} is out of range", "0..2**63-1")
    return int(seed)


def check_count(value, where: str, field: str, lo: int, hi: int, what: str = "") -> int:
    """An integer lo..hi given on the command line (`what` says what the bound means)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not lo <= value <= hi:
        problem = f"{excerpt(repr(value))} is out of range" + (f" ({what})" if what else "")
        raise NapsimInputError(where, field, problem, f"integers {lo:,}..{hi:,}")
    return int(value)


def check_games(games, where: str = "--games") -> int:
    """A number of games (or hands) to play: 1..MAX_GAMES, refused before anything starts."""
    return check_count(games, where, "games", 1, MAX_GAMES)


def check_run(games, seed, chunk) -> None:
    """The arguments of a run (games or hands 1..MAX_GAMES, a 63-bit seed, a positive chunk),
    checked before anything is played or simulated."""
    check_games(games)
    check_seed(seed)
    check_count(chunk, "--chunk", "chunk", 1, 10**9)


def check_text(where: str, field: str, value: str) -> str:
    """A text value without control characters (a NUL byte or an escape in a name is binary junk,
    not a name); tabs and line breaks are allowed."""
    bad = next((c for c in value if c not in "\t\n\r" and unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise NapsimInputError(where, field, f"control character U+{ord(bad):04X} in "
                               f"'{excerpt(value)}'", "printable text")
    return value


def read_toml_file(path: str | Path) -> dict:
    """A TOML file's tables; a one-line error naming the file when it is missing or not TOML."""
    where = str(path)
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NapsimInputError(where, None, "file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise NapsimInputError(where, None, f"not valid TOML: {e}") from None
