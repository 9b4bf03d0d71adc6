"""A chunk: what one chunk file holds, how a chunk is played, the file on disk, and the identity of
the study it belongs to.

A chunk is games [first, first + n) of one sweep point: its `napsim.sim.sums.GameSums` (the
kernel's totals, per-game sums, sums of squares and of products with turns of every per-game
column, per-game value histograms, rack waits, further per-turn and per-commander arrays) and the
per-game rows when the study keeps them (`compute_chunk`). Integer sums: any split of a point's
games into chunks adds up to the same arrays. `target_met` is the target-error rule.

A chunk file is an ``.npz`` archive of the chunk's arrays (`compute_chunk`, unchanged) whose zip
archive comment holds its record, one JSON object:

    {"napsim_chunk": 1, "study": <identity hash>, "point": "p001", "chunk": 3, "first": 900,
     "n": 300, "seed": 7, "sha256": <hash of the record's other fields and of every array>}

A file is used only when it opens, its record names this study, point, chunk, game range and seed,
and its arrays hash to the recorded checksum (`load_chunk`). Anything else (truncated, bit-flipped,
copied from another point or chunk, edited, written by an older napsim without a record) is
*damaged*: the run says which file and why and plays the chunk again; the report refuses the folder
and says that `napsim run` will recompute it. The record lives in the archive comment so that the
arrays a chunk holds, and every reader of them, stay as they were.

A study's identity (`study_identity`) is everything its stored chunks depend on, and its hash keys
the run folder: the chunk file format, the seed and chunk size, the sweep and fixed values, per
point the scenario and deck file hashes and the policies, and `code_sha256()`: a hash of the source
files that decide what a chunk holds. A run folder whose recorded identity differs is refused
(`napsim.study.store.check_out`); a Dask worker whose code hash differs is refused too.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

from napsim.engine import layout
from napsim.engine.rng import seed_key
from napsim.model.cards import load_deck
from napsim.sim.metric_table import DERIVED
from napsim.sim.runner import play_chunks
from napsim.sim.sums import GameSums

CHUNK_FORMAT = 1  # bump when the content of a chunk file changes
KERNEL_GAMES = 16_384  # most games per kernel call: bounds the per-game arrays a chunk needs


def compute_chunk(args: tuple, seed: int, first: int, n: int, keep_rows: bool) -> dict:
    """Play games [first, first + n) with the packed kernel arguments `args` (`Simulation.kernel_args()`)
    and return the chunk file's arrays. The games are played `KERNEL_GAMES` at a time and added up
    (integers: the same arrays as one call), so a chunk of any size holds at most `KERNEL_GAMES`
    games' per-game rows in memory (all of them only when `keep_rows`)."""
    sums = GameSums(hist=True)
    rows = []
    for _, out in play_chunks(args, seed_key(seed), first, n, KERNEL_GAMES):
        sums.add_chunk(out)
        if keep_rows:
            rows.append(out.rows.astype(np.int32))
        del out
    arrays = dict(format=np.int64(CHUNK_FORMAT), first=np.int64(first), **sums.arrays())
    if keep_rows:
        arrays["rows"] = np.concatenate(rows)
    return arrays


def target_met(meta: dict, point_id: str, sums: GameSums) -> bool:
    """Has the point's main metric reached the run's target error (False without a target)?"""
    target, spec = meta["run"]["target_error"], meta["spec"]
    if target is None:
        return False
    rows = sums.summary_rows(meta["side_keys"], list(side_names(meta, point_id).values()),
                             spec["main_metric"])
    halves = [(r["ci_high"] - r["ci_low"]) / 2 for r in rows if r["side_key"] == spec["main_side"]]
    return bool(halves) and halves[0] < target  # NaN never is


def side_names(meta: dict, point_id: str | None = None) -> dict[str, str]:
    """{side key: side name} of a point of a run (`study.json`'s `meta`, or anything that holds its
    `side_keys` and `points`, such as a report's chart inputs); without `point_id` the first
    point's ({} when there is none, as in an odds study)."""
    points = meta.get("points") or []
    if point_id is not None:
        points = [p for p in points if p["id"] == point_id]
        if not points:
            raise KeyError(point_id)
    names = points[0].get("side_names", []) if points else []
    return dict(zip(meta.get("side_keys", []), names, strict=False))


RECORD_VERSION = 1
_FIELDS = ("study", "point", "chunk", "first", "n", "seed")


def chunk_record(meta: dict, point_id: str, k: int, first: int, n: int) -> dict:
    """What chunk k of a point of the run `meta` (study.json) must record."""
    return dict(study=meta["identity_sha256"], point=point_id, chunk=int(k), first=int(first),
                n=int(n), seed=meta["identity"]["seed"])


def arrays_sha256(arrays: dict, record: dict) -> str:
    """sha256 of a record's fields and of every array (name, dtype, shape and bytes)."""
    h = hashlib.sha256(json.dumps({f: record[f] for f in _FIELDS}, sort_keys=True).encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(np.asarray(arrays[name]))
        h.update(f"\0{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


COMPRESS_LEVEL = 1  # zlib's fastest: the histograms are mostly zeros, level 6 took 3x the time


def chunk_bytes(arrays: dict, record: dict) -> bytes:
    """The content of a chunk file: the arrays (a compressed npz, as np.savez_compressed writes it
    but at zlib level COMPRESS_LEVEL) and the record as archive comment."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, allowZip64=True,
                         compresslevel=COMPRESS_LEVEL) as z:
        for name, value in arrays.items():
            with z.open(f"{name}.npy", "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.asanyarray(value), allow_pickle=False)
        z.comment = json.dumps({"napsim_chunk": RECORD_VERSION, **record,
                                "sha256": arrays_sha256(arrays, record)}).encode()
    return buf.getvalue()


def read_record(path: Path, expected: dict) -> tuple[dict | None, str | None]:
    """(record, problem) of a chunk file from its archive comment alone (the arrays are not read):
    (None, None) when there is no file, (record, None) when the record is the expected one."""
    try:
        with zipfile.ZipFile(path) as z:
            comment = z.comment
    except FileNotFoundError:
        return None, None
    except (OSError, zipfile.BadZipFile, ValueError, EOFError) as e:
        return None, f"not a readable chunk file ({type(e).__name__})"
    try:
        rec = json.loads(comment.decode())
    except (UnicodeDecodeError, ValueError):
        rec = None
    if not isinstance(rec, dict) or rec.get("napsim_chunk") != RECORD_VERSION or "sha256" not in rec:
        return None, "no chunk record (damaged, or written by an older napsim)"
    wrong = [f for f in _FIELDS if rec.get(f) != expected[f]]
    if wrong:
        return None, "belongs elsewhere (" + ", ".join(
            f"{f} {str(rec.get(f))[:16]}, not {str(expected[f])[:16]}" for f in wrong) + ")"
    return rec, None


def load_chunk(path: Path, expected: dict) -> tuple[dict | None, str | None]:
    """(arrays, problem) of a chunk file, checked against `expected` (`chunk_record`) and its
    checksum: (None, None) when there is no file, (None, problem) when it is damaged."""
    rec, problem = read_record(path, expected)
    if rec is None:
        return None, problem
    try:
        with np.load(path) as z:
            ch = {k: z[k] for k in z.files}
    except Exception as e:  # noqa: BLE001 - zlib, zipfile, numpy: any failure means a damaged file
        return None, f"damaged arrays ({type(e).__name__})"
    if arrays_sha256(ch, rec) != rec["sha256"]:
        return None, "checksum mismatch (damaged or edited)"
    return ch, None


# the source files (relative to the package) whose content decides what a chunk holds
CODE_FILES = ("engine/*.py", "sim/*.py", "model/cards.py", "model/scenarios.py", "model/policies.py",
              "model/filters.py", "study/chunks.py")
PACKAGE_DIR = Path(__file__).resolve().parents[1]


def code_sha256() -> str:
    """Hash of the source files that decide what a chunk holds (engine, tables, policies...)."""
    h = hashlib.sha256()
    for pattern in CODE_FILES:
        for f in sorted(PACKAGE_DIR.glob(pattern)):
            h.update(f.relative_to(PACKAGE_DIR).as_posix().encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def sha(obj) -> str:
    """sha256 of a JSON-able value (keys sorted)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def study_identity(st) -> dict:
    """Everything a stored result of the study `st` (a `napsim.study.spec.Study`) depends on; its
    hash keys the output folder."""
    ident = dict(format=CHUNK_FORMAT, kind=st.kind, seed=st.seed, chunk=st.chunk,
                 code=code_sha256(), sweep=st.sweep, set=st.fixed)
    points = []
    if st.kind == "engine":
        ident.update(per_game=st.per_game, metric_names=list(layout.METRIC_NAMES),
                     derived=DERIVED)
        for p in st.points:
            sc, dk, policies = st.load_point(p)
            points.append(dict(id=p.id, params=p.params, scenario_sha256=sc.sha256,
                               deck_sha256=dk.sha256, policies=[[n, o] for n, o in policies]))
    else:
        ident.update(games=st.games, questions=st.questions)
        for p in st.points:
            deck, hand = st.odds_inputs(p)
            points.append(dict(id=p.id, params=p.params, hand=hand,
                               deck_sha256=load_deck(deck).sha256))
    ident["points"] = points
    return ident
