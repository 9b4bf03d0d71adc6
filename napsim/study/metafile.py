"""What a run folder's study.json must hold before anything reads it: a damaged or foreign file is
reported as unreadable (one line), never as a KeyError deep inside the report.

`meta_problem` checks the record against `SCHEMA`, a small type grammar: "str", "int", "num",
"bool", "scalar" (any of those), "any"; "?T" is T or null; ("list", T) and ("map", T) are a list
and a table of T; a dict is a table with exactly-typed keys (others are allowed).
"""

from __future__ import annotations

import re

from napsim.model.defaults import MAX_CHUNKS, MAX_GAMES
from napsim.model.errors import NapsimInputError, excerpt
from napsim.sim.metric_table import metric_names, per_game_columns

POINT_ID = re.compile(r"p[0-9]{3,}")  # point folder names: never a path
_SCALAR = ("str", "int", "num", "bool")
_POLICY = ("list", "any")  # [name, {param: value}]: checked by _policy_problem
SPEC = {"name": "str", "kind": "str", "description": "str", "scenario": "?str", "deck": "?str",
        "policies": ("list", _POLICY), "games": "?int", "target_error": "?num", "max_games": "?int",
        "seed": "int", "chunk": "int", "main_metric": "?str", "main_side": "?str",
        "metrics": ("list", "str"), "distribution": ("list", "str"), "per_game": "bool", "hand": "?int",
        "questions": ("list", ("map", "scalar")), "set": ("map", "scalar"), "sweep": ("map", ("list", "any"))}
POINT = {"id": "str", "params": ("map", "scalar"), "label": "str", "side_names": ("list", "str")}
SCHEMA = {"napsim": "str", "study_file": "str", "study_sha256": "str", "identity_sha256": "str",
          "identity": ("map", "any"), "spec": SPEC, "side_keys": ("list", "str"), "points": ("list", POINT),
          "columns": ("list", "str"), "run": {"target_error": "?num", "cap": "int"},
          "status": ("map", ("map", "any"))}


def _type_problem(value, kind, path: str) -> str | None:
    """Why `value` is not of `kind` (the grammar above), naming where; None when it is."""
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            return f"'{path}' is not a table"
        for key, sub in kind.items():
            if key not in value:
                return f"no '{path + '.' if path else ''}{key}'"
            problem = _type_problem(value[key], sub, f"{path + '.' if path else ''}{key}")
            if problem:
                return problem
        return None
    if isinstance(kind, tuple):
        container, sub = kind
        items = (value if isinstance(value, list) else None) if container == "list" else \
            (value.values() if isinstance(value, dict) else None)
        if items is None:
            return f"'{path}' is not a {'list' if container == 'list' else 'table'}"
        return next((p for i, v in enumerate(items) if (p := _type_problem(v, sub, f"{path}[{i}]"))), None)
    if kind.startswith("?"):
        return None if value is None else _type_problem(value, kind[1:], path)
    ok = {"any": True, "str": isinstance(value, str), "bool": isinstance(value, bool),
          "int": isinstance(value, int) and not isinstance(value, bool),
          "num": isinstance(value, int | float) and not isinstance(value, bool),
          "scalar": isinstance(value, str | int | float)}[kind]
    return None if ok else f"'{path}' is not a {kind}"


def _policy_problem(policies) -> str | None:
    for i, p in enumerate(policies):
        if not (isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], dict)):
            return f"'spec.policies[{i}]' is not [name, parameters]"
    return None


def meta_problem(meta) -> str | None:
    """Why `meta` (a parsed study.json) is not a study record this napsim wrote, or None."""
    if not isinstance(meta, dict):
        return f"holds a {type(meta).__name__}, not a study record"
    problem = _type_problem(meta, SCHEMA, "")
    if problem:
        return problem
    spec, points = meta["spec"], meta["points"]
    if spec["kind"] not in ("engine", "odds"):
        return f"unknown study kind {excerpt(repr(spec['kind']))}"
    cap = meta["run"]["cap"]
    if spec["chunk"] < 1 or not 0 <= cap <= MAX_GAMES or cap > spec["chunk"] * MAX_CHUNKS:
        return "'spec.chunk' or 'run.cap' out of range"
    if not points:
        return "no points"
    for i, p in enumerate(points):
        if not POINT_ID.fullmatch(p["id"]):
            return f"point #{i + 1}: id {excerpt(repr(p['id']))} is not a point folder name"
        problem = _params_problem(p["params"], spec["sweep"])
        if problem:
            return f"point #{i + 1}: {problem}"
    if spec["kind"] == "odds":
        return None
    return _engine_problem(meta, spec, points)


def _params_problem(params: dict, sweep: dict) -> str | None:
    """Why a point's parameters are not one combination of the swept values (a path joined by +
    sweeps lists of values, one per part), or None."""
    if set(params) != {key for path in sweep for key in path.split("+")}:
        return "its parameters are not the swept ones"
    for path, values in sweep.items():
        keys = path.split("+")
        got = [params[k] for k in keys]
        if not any(_same(got, v if len(keys) > 1 else [v]) for v in values):
            return f"its value of '{excerpt(path)}' is not one of the swept values"
    return None


def _same(got: list, swept) -> bool:
    """A point's values are those of a sweep entry: equal, and of the same kind (5 is not '5')."""
    return isinstance(swept, list) and len(swept) == len(got) and all(
        a == b and isinstance(a, str) == isinstance(b, str) for a, b in zip(got, swept, strict=True))


def _engine_problem(meta: dict, spec: dict, points: list) -> str | None:
    if len(meta["side_keys"]) != 2 or len(spec["policies"]) != 2 or any(len(p["side_names"]) != 2
                                                                       for p in points):
        return "not two sides"
    if meta["columns"] != per_game_columns():
        return "per-game columns of another napsim version"
    metrics = metric_names()
    if spec["main_metric"] not in metrics or any(m not in metrics for m in spec["metrics"]):
        return "unknown metric"
    if any(m not in meta["columns"] for m in spec["distribution"]):
        return "unknown distribution column"
    return _policy_problem(spec["policies"])


def check_meta(meta, where: str) -> dict:
    """`meta` if it is a study record napsim wrote, else one NapsimInputError saying why not."""
    problem = meta_problem(meta)
    if problem:
        raise NapsimInputError(where, None, f"unreadable study.json ({problem}): not written by this "
                               "napsim, or damaged", "a folder written by `napsim run`")
    return meta
