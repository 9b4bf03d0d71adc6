"""How the kernels are compiled and kept fresh: the one place for their numba options (issue 17),
and the guard that recompiles a cached kernel when any source compiled into it changes.

Compiling. An entry kernel (called from Python: `play_blocks`, which a trace plays too, the odds
blocks) is cached on disk with everything it calls. A helper it calls is `inlined`: numba compiles
the helper as a small function of its own, and LLVM inlines it into the caller (numba's
forceinline: LLVM's alwaysinline), so a game still runs as one straight body of machine code.
numba's own inlining (`inline="always"`, at the level of its IR) gave the same speed, but ran
numba's passes (type inference, SSA, lowering) over the whole inlined game and cost the EPIC kernel
about twice the compile time. A helper has no CPython wrapper (Python never calls it) and no cache
of its own (its code lives in its callers' cached code), so neither its own optimisation nor
machine code is needed (napsim.engine.linked skips both). The exception, `inlined_cached`: the
later phases of a turn, cached on their own so that a first run's second process can compile them
while this one compiles the kernel (napsim.sim.precompile, napsim.engine.compile_plan).

A constant argument compiles a helper once more: numba types a call with a literal argument, or
with a variable that starts as one, for that literal first. Such call sites pass np.int64(...) or
np.bool_(...).

Every helper states its reference counting. numba otherwise compiles a helper with the setting of
whichever caller compiles it first, and keeps that one copy for every later caller: a helper first
compiled for a kernel without counting (`_nrt=False`) and then called from one with it (a block
loop, a test kernel) handed back uncounted views, which the counting caller freed while the game
still wrote to them (heap corruption, seen as an abort in the slow tests). Stated, the helper
compiles the same whoever calls it first, and the kernels' code no longer depends on the order.

Keeping fresh. numba's on-disk cache checks only the file a jitted function is defined in. A
kernel cached before an edit of another file it compiles in (a phase inlined from epic_phases.py, a
helper from cardflow.py, the pair tables of sim/tables.py) would otherwise load from the cache
unchanged, and play the old rules without a word. `stamp_loaded()` adds a hash of every source file
compiled into the kernels to the cache stamp of each cached function already imported, so that a
change to any of them makes numba compile again. Called at the end of every module that defines an
entry kernel (epic, lgb, lookahead, lookahead_lgb, odds, sim.tables, sim.tables_lgb). It also makes
each cache's saves and loads take a file lock (`_locked`): numba's cache is not safe for two
processes saving two argument types of one function at once.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from numba import njit

try:
    import fcntl
except ImportError:  # not on Unix
    fcntl = None

from napsim.engine.linked import linked_only_options

inlined = njit(forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False,
               **linked_only_options())
"""Decorator of a kernel helper: compiled on its own, inlined by LLVM into every caller, without
reference counting. A helper takes arrays and returns numbers, never an array: a caller that counts
references would free a returned array's memory under it (an array-returning leaf is `inlined_ir`)."""

inlined_cached = njit(forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False,
                      cache=True)
"""Decorator of a kernel helper that a first run's second process compiles while the kernel compiles
in the first (napsim.sim.precompile, napsim.engine.compile_plan): an `inlined` helper with a cache of
its own, so that the kernel's compile loads it from numba's on-disk cache instead of compiling it.
Its code is still inlined by LLVM into every caller. Given to the EPIC turn's later phases, which the
kernel's compile reaches last (a first `simulate --scenario symmetric` 10.0 -> 7.0 s)."""

inlined_py = njit(forceinline=True, no_cfunc_wrapper=True, _nrt=False)
"""Decorator of a kernel helper that Python also calls (keeps the CPython wrapper): tests and the
pure-Python reference engines call the streams and draws (napsim.engine.rng, cardflow). Python
calling an `inlined` helper crashes the interpreter: numba gives it no entry point for Python."""

counted = njit(forceinline=True, no_cfunc_wrapper=True, _nrt=True)
"""Decorator of a helper that allocates (a block's scratch arrays, the pair tables' work arrays):
compiled with numba's reference counting, which allocation needs, and called only by callers that
count too (the block loops, the table builders) and by Python."""

outlined = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False, **linked_only_options())
"""Decorator of a big helper that one kernel calls from several places (the planned kernels' turn,
`epic._ply` and `lgb._ply_lgb`, called to probe a decision, in every rollout and for the real
turn): compiled once and called, not inlined, so that one copy of its body is typed and lowered,
not one per call site (with one signature at every site, the EPIC planned kernel's first compile
took 28.6 s of CPU against 32.4 s). Its code is still optimised again inside every jitted function
that calls it, directly or not (numba links a callee's code into each caller): so one planner
function stands between each planned kernel and its turn (`lookahead._plan`, `lookahead_lgb._plan_lgb`,
each for the card choice and the spend: the first compile of a symmetric lookahead run 38.8 -> 29.0
s of CPU against four functions; LGB's 46.3 -> 32.9 s against three). Without reference counting."""

inlined_ir = njit(inline="always")
"""Decorator of a leaf that returns views of its argument (`_st_views`): inlined at numba's IR level,
so the views are counted exactly where the caller counts references and nowhere else."""


# ------------------------------------------------------------ the stale-kernel guard
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
        lock = os.path.join(getattr(cache_file, "_cache_path", ""), "napsim-cache.lock")
        cache_file.save = _locked(cache_file.save, lock, exclusive=True)
        cache_file.load = _locked(cache_file.load, lock, exclusive=False)
        count += 1
    return count


def _locked(method, lock_path: str, exclusive: bool):
    """`method` of numba's cache index file, run holding a lock on `lock_path` shared by every
    process. numba saves an entry in steps (read the index, pick the first free data file name,
    write the index, then the data): two processes saving two argument types of one function at
    once (a first run's two processes, napsim.sim.precompile; the test run's parallel warm-ups)
    could both pick the same data file, and an index entry would then name the other's code. A
    save holds the lock alone, a load shares it. Without fcntl (not on Unix), numba's own way."""
    if fcntl is None or not lock_path:
        return method

    def call(*args):
        try:
            os.makedirs(os.path.dirname(lock_path), exist_ok=True)
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:  # a read-only cache: nothing is saved there anyway
            return method(*args)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            return method(*args)
        finally:
            os.close(fd)  # closing releases the lock
    return call


def stamp_loaded() -> int:
    """Stamp the cached functions of every kernel module imported so far (see the module text)."""
    digest = kernel_source_hash()
    return sum(stamp_dispatchers(vars(m), digest) for name, m in list(sys.modules.items())
               if name.startswith(KERNEL_MODULES) and m is not None)
