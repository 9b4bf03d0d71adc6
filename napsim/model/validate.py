"""Small helpers that check values read from TOML files and raise one-line NapsimInputErrors."""

from __future__ import annotations

from typing import Any

from napsim.model.errors import NapsimInputError


def check_keys(where: str, table: dict, allowed: tuple[str, ...], required: tuple[str, ...] = ()):
    """Reject unknown keys (naming the valid ones) and missing required keys."""
    if not isinstance(table, dict):
        raise NapsimInputError(where, None, "expected a table", ", ".join(allowed))
    for key in table:
        if key not in allowed:
            raise NapsimInputError(where, key, "unknown key", ", ".join(allowed))
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
        raise NapsimInputError(where, key, f"{v!r} is not an integer", f"integers {lo}-{hi}")
    if not lo <= v <= hi:
        raise NapsimInputError(where, key, f"{v} is out of range", f"integers {lo}-{hi}")
    return v


def get_float(where: str, table: dict, key: str, lo: float, hi: float, default: Any = ...) -> float:
    """A number in [lo, hi]."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", f"numbers {lo}-{hi}")
        return float(default)
    v = table[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise NapsimInputError(where, key, f"{v!r} is not a number", f"numbers {lo}-{hi}")
    if not lo <= v <= hi:
        raise NapsimInputError(where, key, f"{v} is out of range", f"numbers {lo}-{hi}")
    return float(v)


def get_choice(where: str, table: dict, key: str, allowed: tuple[str, ...], default: Any = ...) -> str:
    """One of `allowed`."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", ", ".join(allowed))
        return default
    v = table[key]
    if v not in allowed:
        raise NapsimInputError(where, key, f"{v!r} is not allowed", ", ".join(allowed))
    return v


def get_str(where: str, table: dict, key: str, default: Any = ...) -> str:
    """A string."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", "a string")
        return default
    v = table[key]
    if not isinstance(v, str):
        raise NapsimInputError(where, key, f"{v!r} is not a string", "a string")
    return v


def get_bool(where: str, table: dict, key: str, default: Any = ...) -> bool:
    """true or false."""
    if key not in table:
        if default is ...:
            raise NapsimInputError(where, key, "missing required key", "true, false")
        return default
    v = table[key]
    if not isinstance(v, bool):
        raise NapsimInputError(where, key, f"{v!r} is not a boolean", "true, false")
    return v
