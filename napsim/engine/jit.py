"""How the kernels are compiled: the one place for their numba options, and the switch of the
compile shortcuts that make a first run's compile shorter.

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

Keeping fresh: napsim.engine.kernel_cache, one numba cache folder per version of the kernel
sources, chosen when this module is imported: before any kernel is defined, as every module that
defines one imports this module first.

The compile shortcuts. Two helps make a first run's compile shorter: the linked-only path of the
wrapper-less helpers (napsim.engine.linked) and the second process that compiles the turn's later
phases and the table builder while this one compiles the kernel (napsim.sim.precompile,
napsim.engine.compile_plan). `COMPILE_SHORTCUTS` turns both on or off
(NAPSIM_COMPILE_SHORTCUTS=off: the plain numba way). Either only ever changes how long a compile
takes: a numba without the internals linked.py expects, or with a pipeline of another shape,
compiles the plain way, a stale plan compiles a version nobody asks for, and the games are the
same every way (tests/test_jit_flags.py removes the internal and compares the games). Each still
pays (docs/speed.md, "The compile shortcuts, measured"). linked.py is the one module that leans on
numba's internals (its code library; pyproject pins numba below its next minor release): numba's
public API compiles every jitted function into a code library that is optimised and turned into
machine code of its own before any caller can link it, and has no option to leave that to the
caller.
"""

from __future__ import annotations

import os

from numba import njit

from napsim.engine import linked
from napsim.engine.kernel_cache import check_cache_folder, use_cache_folder

__all__ = ["COMPILE_SHORTCUTS", "check_cache_folder", "counted", "inlined", "inlined_cached",
           "inlined_ir", "inlined_py", "linked_only_options", "outlined"]

# numba's cache folder of these kernel sources, set here, once: every module that defines a cached
# kernel imports this one first (and checks at its end, `check_cache_folder`)
use_cache_folder()

COMPILE_SHORTCUTS = os.environ.get("NAPSIM_COMPILE_SHORTCUTS", "on").lower() not in ("off", "0", "no")
"""Whether a first run's compile takes the shortcuts (see the module text); on unless
NAPSIM_COMPILE_SHORTCUTS is off."""


def linked_only_options() -> dict:
    """The `njit` options of a wrapper-less helper: the linked-only path where the shortcuts are on
    and numba has the internals it needs, else none (the plain way)."""
    return linked.linked_only_options() if COMPILE_SHORTCUTS else {}


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
Its code is still inlined by LLVM into every caller. Given to the turn's later steps and phases,
which the kernel's compile reaches last (a first `simulate --scenario symmetric` 10.0 -> 7.0 s; the
steps of EPIC's orders, Command draw, keep and end and of La Grande Battles' orders, keep and end
too: docs/speed.md, "The turn's later steps compiled in the second process")."""

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
function stands between each planned kernel and its turn (`planner.plan`, one call site for
the card choice, the spend and the keep: the first compile of a symmetric lookahead run 38.8 -> 29.0
s of CPU against four functions; LGB's 46.3 -> 32.9 s against three). Without reference counting."""

inlined_ir = njit(inline="always")
"""Decorator of a leaf that returns views of its argument (`epic.game_of`): inlined at numba's IR level,
so the views are counted exactly where the caller counts references and nowhere else."""
