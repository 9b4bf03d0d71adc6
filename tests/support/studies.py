"""The small engine study files the tests run, written in one place: a [study] table (SMALL's
fields, any of them changed, or dropped with None), then [set] and [sweep] (support.tomlwrite).
tests/conftest.py's `study_toml` fixture writes one into the test's tmp_path."""

from __future__ import annotations

from pathlib import Path

from support.tomlwrite import dump_toml

SMALL = {"name": "small", "scenario": "symmetric", "policies": ["greedy", "random"], "games": 1200,
         "seed": 7, "chunk": 300, "main_metric": "scout_turn_rate"}
FIVE_TURNS = {"scenario.turns": 5}


def study_text(set: dict | None = FIVE_TURNS, sweep: dict | None = None, **fields) -> str:
    """TOML text of a small study: SMALL updated with `fields` (a None value drops the key), then
    the [set] overrides (five turns unless told) and the [sweep] lists."""
    study = {k: v for k, v in {**SMALL, **fields}.items() if v is not None}
    data: dict = {"study": study}
    if set:
        data["set"] = set
    if sweep:
        data["sweep"] = sweep
    return dump_toml(data)


def write_study(folder: Path, **kw) -> Path:
    """study_text(**kw) written to folder/<name>.toml; returns the path."""
    path = folder / f"{kw.get('name', SMALL['name'])}.toml"
    path.write_text(study_text(**kw), encoding="utf-8")
    return path
