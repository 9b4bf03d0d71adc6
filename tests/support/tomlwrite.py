"""A tiny TOML writer for the scenario dicts tests build (scalars and nested tables only)."""

from __future__ import annotations

import json


def dump_toml(data: dict) -> str:
    """TOML text for nested dicts of scalars: a table's scalars first, then its sub-tables."""
    lines: list[str] = []

    def emit(prefix: str, table: dict) -> None:
        if prefix:
            lines.append(f"[{prefix}]")
        for k, v in table.items():
            if not isinstance(v, dict):
                lines.append(f"{k} = {json.dumps(v)}")  # JSON scalars are valid TOML scalars
        for k, v in table.items():
            if isinstance(v, dict):
                emit(f"{prefix}.{k}" if prefix else k, v)

    emit("", data)
    return "\n".join(lines) + "\n"
