"""Chunk files on disk: each records what it belongs to and a checksum of its arrays.

A chunk file is an ``.npz`` archive of the chunk's arrays (`napsim.study.chunks.compute_chunk`,
unchanged) whose zip archive comment holds its record, one JSON object:

    {"napsim_chunk": 1, "study": <identity hash>, "point": "p001", "chunk": 3, "first": 900,
     "n": 300, "seed": 7, "sha256": <hash of the record's other fields and of every array>}

A file is used only when it opens, its record names this study, point, chunk, game range and seed,
and its arrays hash to the recorded checksum. Anything else (truncated, bit-flipped, copied from
another point or chunk, edited, written by an older napsim without a record) is *damaged*: the run
says which file and why and plays the chunk again; the report refuses the folder and says that
`napsim run` will recompute it. The record lives in the archive comment so that the arrays a chunk
holds, and every reader of them, stay as they were.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path

import numpy as np

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
