"""A tiny TOML writer for the scenario dicts tests build (scalars and nested tables only)."""

from __future__ import annotations

import json
import re

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def _key(k: str) -> str:
    return k if _BARE.fullmatch(k) else json.dumps(k)


def _is_tables(v) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def dump_toml(data: dict) -> str:
    """TOML text for nested dicts of scalars and lists of scalars: a table's scalars first, then
    its sub-tables; a list of tables becomes an array of tables ([[name]]). Keys that are not bare
    TOML keys are quoted."""
    lines: list[str] = []

    def emit(prefix: str, table: dict, header: str | None = None) -> None:
        if header or prefix:
            lines.append(header or f"[{prefix}]")
        for k, v in table.items():
            if not isinstance(v, dict) and not _is_tables(v):
                lines.append(f"{_key(k)} = {json.dumps(v)}")  # JSON scalars are valid TOML scalars
        for k, v in table.items():
            name = f"{prefix}.{_key(k)}" if prefix else _key(k)
            if isinstance(v, dict):
                emit(name, v)
            elif _is_tables(v):
                for item in v:
                    emit(name, item, f"[[{name}]]")

    emit("", data)
    return "\n".join(lines) + "\n"
