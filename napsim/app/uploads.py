"""Files uploaded to the page: a scenario TOML or a deck CSV, checked in memory first.

An upload is refused over `MAX_BYTES`, or when it is not UTF-8 text of the right kind; it is
never executed. A scenario is parsed and validated in memory (`tomllib`, `parse_scenario`); then,
since the Python API takes files, the bytes are written into this process's temporary folder
(one sub-folder per content hash, so tabs share them and nothing lands anywhere else) and loaded
from there by the model layer, errors naming the uploaded file, not the temporary copy.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
import threading
import tomllib
from pathlib import Path

from napsim.model.cards import load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import parse_scenario

MAX_BYTES = 256 * 1024  # a scenario or deck file is a few kB
SUFFIX = {"scenario": ".toml", "deck": ".csv"}
_FOLDER: list[Path] = []
_LOCK = threading.Lock()


def folder() -> Path:
    """The process's temporary folder for uploads (made on first use)."""
    with _LOCK:
        if not _FOLDER:
            _FOLDER.append(Path(tempfile.mkdtemp(prefix="napsim-app-")))
        return _FOLDER[0]


def _safe_name(name: str, kind: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", Path(name).name)[:80].lstrip(".") or "upload"
    if not base.lower().endswith(SUFFIX[kind]):
        raise NapsimInputError(name, None, f"is not a {SUFFIX[kind]} file", f"a {kind} file ({SUFFIX[kind]})")
    return base


def _text(name: str, data: bytes, kind: str) -> str:
    if len(data) > MAX_BYTES:
        raise NapsimInputError(name, None, f"{len(data):,} bytes is too large for a {kind} file",
                               f"at most {MAX_BYTES:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NapsimInputError(name, None, f"not UTF-8 text (byte {e.start}); binary file?",
                               f"a UTF-8 {kind} file") from None


def _store(name: str, data: bytes, kind: str) -> Path:
    path = folder() / hashlib.sha256(data).hexdigest()[:16] / _safe_name(name, kind)
    path.parent.mkdir(exist_ok=True)
    if not path.exists():
        path.write_bytes(data)
    return path


def scenario_upload(name: str, data: bytes) -> str:
    """The path of an uploaded scenario that loads; `NapsimInputError` naming the upload if not."""
    _safe_name(name, "scenario")
    text = _text(name, data, "scenario")
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise NapsimInputError(name, None, f"not valid TOML: {e}") from None
    parse_scenario(doc, Path(name))  # errors name the uploaded file
    return str(_store(name, data, "scenario"))


def deck_upload(name: str, data: bytes) -> str:
    """The path of an uploaded deck that loads; `NapsimInputError` naming the upload if not."""
    _safe_name(name, "deck")
    _text(name, data, "deck")
    path = _store(name, data, "deck")
    try:
        load_deck(path)
    except NapsimInputError as e:
        raise NapsimInputError(e.where.replace(str(path), name), e.field, e.problem.replace(str(path), name),
                               e.allowed) from None
    return str(path)
