"""Stale-kernel guard: numba's on-disk cache checks only the file a jitted function is defined in.

A kernel cached before an edit of another file it compiles in (a phase inlined from
epic_phases.py, a helper from cardflow.py, the pair tables of sim/tables.py) would otherwise load
from the cache unchanged, and play the old rules without a word. `stamp_loaded()` adds a hash of
every source file compiled into the kernels to the cache stamp of each cached function already
imported, so that a change to any of them makes numba compile again. Called at the end of every
module that defines an entry kernel (epic, lgb, odds, sim.tables, sim.tables_lgb).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
# the source files compiled into the kernels, relative to the package
KERNEL_SOURCES = ("engine/*.py", "sim/tables.py", "sim/tables_lgb.py")
KERNEL_MODULES = ("napsim.engine.", "napsim.sim.tables")

_digest: str | None = None


def kernel_source_hash() -> str:
    """sha256 of every file compiled into the kernels (names and contents)."""
    global _digest
    if _digest is None:
        h = hashlib.sha256()
        for pattern in KERNEL_SOURCES:
            for f in sorted(PACKAGE_DIR.glob(pattern)):
                h.update(f.relative_to(PACKAGE_DIR).as_posix().encode())
                h.update(f.read_bytes())
        _digest = h.hexdigest()
    return _digest


def stamp_dispatchers(namespace: dict, digest: str) -> int:
    """Make `digest` part of the cache stamp of every cached numba function in `namespace`; the
    number stamped now. numba keeps the stamp on the cache's index file object
    (`_cache._cache_file._source_stamp`): its stamp of the defining file stays, the digest joins
    it, so an index written under other sources no longer matches and numba compiles anew."""
    count = 0
    for obj in list(namespace.values()):
        cache_file = getattr(getattr(obj, "_cache", None), "_cache_file", None)
        stamp = getattr(cache_file, "_source_stamp", None)
        if stamp is None or (isinstance(stamp, tuple) and stamp[:1] == ("napsim-sources",)):
            continue
        cache_file._source_stamp = ("napsim-sources", digest, stamp)
        count += 1
    return count


def stamp_loaded() -> int:
    """Stamp the cached functions of every kernel module imported so far (see the module text)."""
    digest = kernel_source_hash()
    return sum(stamp_dispatchers(vars(m), digest) for name, m in list(sys.modules.items())
               if name.startswith(KERNEL_MODULES) and m is not None)
