"""The run folder of a study: chunk files in place, study.json and what it must hold, the lock,
atomic writes, stale temporary files.

A study runs into a folder ``DIR``: engine results go to ``DIR/points/<point>/chunk-<k>.npz``, one
file per chunk of ``chunk`` games (games [k * chunk, (k + 1) * chunk)), each written to a temporary
file and moved into place with `os.replace`, so a chunk file is either complete or absent whatever
moment a run is killed; odds results go to ``DIR/points/<point>/odds.csv`` the same way. A chunk is
a pure function of (inputs, seed, game range), so rerunning the same command skips the chunks on
disk and ends with exactly the numbers of an uninterrupted run.

``DIR/study.json`` records the normalized study and its identity (`napsim.study.chunks.study_identity`: a hash
of everything a chunk depends on: scenario and deck file contents, policies, overrides, sweep,
seed, chunk size, the engine's source files). A later run refuses a folder whose hash differs
unless ``force``. Changes that cannot alter a stored chunk (``games``, ``target_error``,
``max_games``, the reported metrics, names) are accepted and the chunks reused: raising ``games``
from 20,000 to 50,000 plays only the 30,000 new games. That is deliberately more useful than
refusing every edit, and never mixes incompatible numbers. One run at a time holds ``DIR/.lock``.

`meta_problem` checks a study.json record against `SCHEMA` before anything reads it, so that a
damaged or foreign file is reported as unreadable (one line), never as a KeyError deep inside the
report. `SCHEMA` is a small type grammar: "str", "int", "num", "bool", "scalar" (any of those),
"any"; "?T" is T or null; ("list", T) and ("map", T) are a list and a table of T; a dict is a
table with exactly-typed keys (others are allowed).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

from napsim.model.defaults import MAX_CHUNKS, MAX_GAMES, __version__
from napsim.model.errors import NapsimInputError, excerpt
from napsim.sim.metric_table import metric_names, per_game_columns
from napsim.sim.sums import GameSums
from napsim.study.chunks import chunk_bytes, chunk_record, load_chunk, sha, target_met
from napsim.study.spec import Study


def temp_name(path: Path) -> Path:
    """The temporary file `path` is written to first (`clean_stale_temp` knows its pattern)."""
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write to a temporary file in the same folder, then rename it into place: the file is either
    complete or as it was (`atomic_write_files`)."""
    atomic_write_files({path: data})


def atomic_write_files(files: dict[Path, bytes]) -> None:
    """Write each file to a temporary file beside it, and only once all are written rename them
    into place: a failed write (disk full...) removes the temporary files, leaves every file as it
    was and raises OSError naming the file."""
    written: list[tuple[Path, Path]] = []
    path = None
    try:
        for path, data in files.items():
            tmp = temp_name(path)
            written.append((tmp, path))
            with open(tmp, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, path in written:
            os.replace(tmp, path)
    except OSError as e:
        for tmp, _ in written:
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None


def chunk_path(pdir: Path, k: int) -> Path:
    return pdir / f"chunk-{k:05d}.npz"


def write_chunk(path: Path, arrays: dict, record: dict) -> None:
    """A chunk file, with its record and checksum (`napsim.study.chunks`), written atomically."""
    atomic_write_bytes(path, chunk_bytes(arrays, record))


def chunk_ranges(meta: dict) -> list[tuple[int, int, int]]:
    """(k, first game, games) of every chunk of a point up to the run's cap."""
    cap, chunk = meta["run"]["cap"], meta["spec"]["chunk"]
    return [(k, f, min(chunk, cap - f)) for k, f in enumerate(range(0, cap, chunk))]


def point_dir(out: Path, point_id: str) -> Path:
    return Path(out) / "points" / point_id


class ChunkWalk:
    """A point's chunks added up in order, up to the first boundary where the target error is met:
    the one walk of the report (`point_chunks`) and of the run loop (`napsim.study.runloop`), so
    both stop at the same chunk. Chunks come from disk, or from memory as they are played
    (`advance(k, arrays)`); `stored`: the chunks known to be on disk (None: look for every one).

    A chunk file that is damaged (or, when `stored` counted it, gone) goes to `damaged(path,
    problem)`; by default that is an error naming the file."""

    def __init__(self, meta: dict, point_id: str, out: Path, stored: set[int] | None = None,
                 on_chunk: Callable[[int, dict, GameSums], None] | None = None,
                 damaged: Callable[[Path, str], None] | None = None):
        self.meta, self.point_id, self.pdir = meta, point_id, point_dir(out, point_id)
        self.ranges = chunk_ranges(meta)
        self.stored = stored
        self.on_chunk = on_chunk  # on_chunk(k, arrays, sums) after each chunk added
        self.damaged = damaged or _damaged_error
        self.sums = GameSums()
        self.next = 0  # the position of the walk in self.ranges
        self.met = False

    def advance(self, k_new: int | None = None, ch_new: dict | None = None) -> bool:
        """Add the chunks that are next in order (`ch_new`, chunk `k_new`, from memory; the others
        from disk) until one is missing; True once the target error is met."""
        while not self.met and self.next < len(self.ranges):
            k, first, n = self.ranges[self.next]
            ch = ch_new if k == k_new else self._load(k, first, n)
            if ch is None:
                return False
            self.sums.merge(GameSums.from_arrays(ch))
            self.next += 1
            if self.on_chunk:
                self.on_chunk(k, ch, self.sums)
            self.met = target_met(self.meta, self.point_id, self.sums)
        return self.met

    def _load(self, k: int, first: int, n: int) -> dict | None:
        if self.stored is not None and k not in self.stored:
            return None
        path = chunk_path(self.pdir, k)
        ch, problem = load_chunk(path, chunk_record(self.meta, self.point_id, k, first, n))
        if ch is None and (problem or self.stored is not None):
            self.damaged(path, problem or "gone")
            if self.stored is not None:
                self.stored.discard(k)
        return ch

    @property
    def complete(self) -> bool:
        """Every chunk up to the cap added, or the target met."""
        return self.met or self.next == len(self.ranges)


def _damaged_error(path: Path, problem: str) -> None:
    raise NapsimInputError(str(path), None, f"damaged chunk: {problem}; `napsim run` on this "
                           "folder will recompute it")


def point_chunks(meta: dict, point_id: str, out: Path,
                 on_chunk: Callable[[int, dict, GameSums], None] | None = None) -> tuple[GameSums, bool]:
    """A point's chunks on disk added up in order (`ChunkWalk`): (sums, complete); complete is
    False when a chunk is missing before the target error is met."""
    walk = ChunkWalk(meta, point_id, out, on_chunk=on_chunk)
    walk.advance()
    return walk.sums, walk.complete


OWN_ENTRIES = ("points", "study.json", "report.md", "report.html", "charts", "summary.csv",
               "points.csv", "convergence.csv", "rack_wait.csv", "distribution.csv", "chunks.csv",
               "odds.csv", "manifest.json", "deck_ensemble.csv", "deck_ensemble.json",
               "deck_ensemble_summary.csv", ".lock")


def clear_out(out: Path) -> None:
    """Remove what napsim wrote in `out` (only its own entries, never anything else)."""
    for name in OWN_ENTRIES:
        p = out / name
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


def changed_keys(old: dict, new: dict) -> list[str]:
    keys = sorted(set(old) | set(new))
    out = [k for k in keys if old.get(k) != new.get(k)]
    if "code" in out:
        out[out.index("code")] = "engine source code"
    return out


def check_out(study: Study, out: str | Path, force: bool) -> tuple[dict, str, bool]:
    """May `out` hold this study? Returns (identity, its hash, whether old results must be cleared);
    raises when the folder holds another study's results (or foreign files) and not `force`."""
    out = Path(out)
    ident = json.loads(json.dumps(study.identity(), default=str))  # as study.json will hold it
    digest = sha(ident)
    meta_path = out / "study.json"
    if out.exists() and not out.is_dir():
        raise NapsimInputError(str(out), "--out", "is a file, not a folder")
    check_writable(out, str(out), "--out")
    if meta_path.exists():
        try:
            old = json.loads(meta_path.read_text())
            problem = meta_problem(old)
        except (OSError, ValueError) as e:
            old, problem = {}, f"not valid JSON: {e}"
        if problem:
            if not force:
                raise NapsimInputError(str(meta_path), "--out", f"unreadable study.json ({problem}); "
                                       "cannot tell which study it holds",
                                       hint="--force discards the folder's results, or choose another --out")
            return ident, digest, True
        if old.get("identity_sha256") != digest:
            if not force:
                changed = changed_keys(old.get("identity", {}), ident)
                raise NapsimInputError(
                    str(out), "--out", "holds results of a different study "
                    f"(changed: {', '.join(changed) or 'unknown'}); its chunks cannot be reused",
                    hint="--force discards them, or choose another --out")
            return ident, digest, True
    elif out.exists() and any(p.name != ".lock" for p in out.iterdir()):
        if not force:
            names = sorted(p.name for p in out.iterdir() if p.name != ".lock")
            more = f" and {len(names) - 1} more" if len(names) > 1 else ""
            raise NapsimInputError(str(out), "--out", f"holds files that are not a napsim study "
                                   f"({names[0]}{more})", hint="choose a new or empty folder, or --force "
                                   "(which removes only napsim's own files)")
        return ident, digest, True
    return ident, digest, False


def prepare_dir(study: Study, out: Path, force: bool, target_error: float | None) -> dict:
    """Check that `out` may hold this study (same identity, or --force) and write study.json."""
    ident, digest, clear = check_out(study, out, force)
    meta_path = out / "study.json"
    if clear:
        clear_out(out)
    out.mkdir(parents=True, exist_ok=True)
    target = study.target_error if target_error is None else target_error
    cap = study.cap_for(target_error)
    sides = []
    if study.kind == "engine":
        for p in study.points:
            sc, _, _ = study.load_point(p)
            sides.append([s.name for s in sc.sides])
    meta = dict(
        napsim=__version__, study_file=str(study.path), study_sha256=study.sha256,
        identity_sha256=digest, identity=ident, spec=study.spec(), side_keys=list(study.side_keys),
        points=[dict(id=p.id, params=p.params, label=p.label,
                     side_names=sides[p.index] if sides else []) for p in study.points],
        columns=per_game_columns() if study.kind == "engine" else [],
        run=dict(target_error=target, cap=cap), status={},
    )
    if meta_path.exists():
        with contextlib.suppress(OSError, ValueError):
            meta["status"] = json.loads(meta_path.read_text()).get("status", {})
    write_meta(out, meta)
    return meta


def write_meta(out: Path, meta: dict) -> None:
    atomic_write_bytes(out / "study.json", (json.dumps(meta, indent=1, default=str) + "\n").encode())


def read_meta(out: str | Path) -> dict:
    p = Path(out) / "study.json"
    if not p.is_file():
        raise NapsimInputError(str(out), None, "no study.json: not a napsim run folder",
                               "a folder written by `napsim run`")
    try:
        meta = json.loads(p.read_text())
    except ValueError as e:
        raise NapsimInputError(str(p), None, f"unreadable study.json (not valid JSON: {e})",
                               "a folder written by `napsim run`") from None
    return check_meta(meta, str(p))


@contextlib.contextmanager
def locked(out: Path) -> Iterator[None]:
    """One run at a time per folder (released by the OS if the process dies)."""
    out.mkdir(parents=True, exist_ok=True)
    fh = open(out / ".lock", "w")  # noqa: SIM115
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise NapsimInputError(str(out), "--out", "another napsim run is using this folder") from None
        yield
    finally:
        fh.close()


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def temp_owner(name: str, suffix: str = ".tmp") -> int | None:
    """The process id in a temporary name `.<name>.<pid><suffix>` (`temp_name`), else None."""
    if not (name.startswith(".") and name.endswith(suffix)):
        return None
    pid = name[: -len(suffix)].rpartition(".")[2]
    return int(pid) if pid.isdigit() else None


def clean_stale_temp(folder: Path) -> list[Path]:
    """Remove the temporary files (`temp_name`) in `folder` left by a killed process (its process
    id is gone): never complete files, never read as results. Returns what was removed."""
    removed = []
    if folder.is_dir():
        for p in sorted(folder.glob(".*.tmp")):
            pid = temp_owner(p.name)
            if pid is not None and pid != os.getpid() and not pid_alive(pid) and p.is_file():
                with contextlib.suppress(OSError):
                    p.unlink()
                    removed.append(p)
    return removed


def check_writable(folder: Path, where: str, flag: str) -> None:
    """Refuse, before any game is played, a destination whose folder napsim cannot create or write:
    the nearest existing folder of `folder` (itself or a parent) must be a writable folder."""
    p = Path(os.path.abspath(folder))
    try:
        while not p.exists() and p.parent != p:
            p = p.parent
        is_dir = p.is_dir()
    except OSError as e:
        raise NapsimInputError(where, flag, f"cannot be reached: {e.strerror or e}") from None
    if not is_dir:
        raise NapsimInputError(where, flag, f"{p} is a file, not a folder", "a path in a writable folder")
    if not os.access(p, os.W_OK | os.X_OK):
        raise NapsimInputError(where, flag, f"folder {p} is not writable", "a path in a writable folder")


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
