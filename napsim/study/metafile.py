"""What a run folder's study.json must hold before anything reads it: a damaged or foreign file is
reported as unreadable (one line), never as a KeyError deep inside the report."""

from __future__ import annotations

import re

from napsim.model.errors import NapsimInputError, excerpt

POINT_ID = re.compile(r"p[0-9]{3,}")  # point folder names: never a path
_TOP = {"spec": dict, "points": list, "side_keys": list, "columns": list, "run": dict, "status": dict,
        "identity": dict, "identity_sha256": str, "study_file": str, "study_sha256": str}
_SPEC = {"name": str, "kind": str, "seed": int, "chunk": int, "sweep": dict, "set": dict,
         "questions": list, "metrics": list, "distribution": list, "per_game": bool}
_POINT = {"id": str, "params": dict, "label": str, "side_names": list}


def meta_problem(meta) -> str | None:
    """Why `meta` (a parsed study.json) is not one napsim wrote, or None."""
    if not isinstance(meta, dict):
        return f"holds a {type(meta).__name__}, not a study record"
    for table, keys in (("", _TOP), ("spec", _SPEC)):
        node = meta if not table else meta["spec"]
        for key, kind in keys.items():
            if key not in node:
                return f"no '{table + '.' if table else ''}{key}'"
            if not isinstance(node[key], kind) or (kind is int and isinstance(node[key], bool)):
                return f"'{table + '.' if table else ''}{key}' is not a {kind.__name__}"
    spec = meta["spec"]
    if spec["kind"] not in ("engine", "odds"):
        return f"unknown study kind {excerpt(repr(spec['kind']))}"
    if spec["chunk"] < 1:
        return "'spec.chunk' is not positive"
    if spec["kind"] == "engine" and not isinstance(spec.get("main_metric"), str):
        return "'spec.main_metric' is not a str"
    for k in ("games", "max_games"):
        if spec.get(k) is not None and (not isinstance(spec[k], int) or isinstance(spec[k], bool)):
            return f"'spec.{k}' is not an int"
    if not meta["points"]:
        return "no points"
    for i, p in enumerate(meta["points"]):
        if not isinstance(p, dict):
            return f"point #{i + 1} is not a table"
        for key, kind in _POINT.items():
            if not isinstance(p.get(key), kind):
                return f"point #{i + 1}: '{key}' is missing or not a {kind.__name__}"
        if not POINT_ID.fullmatch(p["id"]):
            return f"point #{i + 1}: id {excerpt(repr(p['id']))} is not a point folder name"
    if not isinstance(meta["run"].get("cap", 0), int):
        return "'run.cap' is not an int"
    return None


def check_meta(meta, where: str) -> dict:
    """`meta` if it is a study record napsim wrote, else one NapsimInputError saying why not."""
    problem = meta_problem(meta)
    if problem:
        raise NapsimInputError(where, None, f"unreadable study.json ({problem}): not written by this "
                               "napsim, or damaged", "a folder written by `napsim run`")
    return meta
