"""How the kernels' helpers are compiled: the one place for their numba options (issue 17).

An entry kernel (called from Python: `play_blocks`, which a trace plays too, the odds blocks) is
cached on disk with everything it calls. A helper it calls is `inlined`: numba compiles the helper
as a small function of its own, and LLVM inlines it into the caller (numba's forceinline: LLVM's
alwaysinline), so a game still runs as one straight body of machine code. numba's own inlining
(`inline="always"`, at the level of its IR) gave the same speed, but ran numba's passes (type
inference, SSA, lowering) over the whole inlined game and cost the EPIC kernel about twice the
compile time. A helper has no CPython wrapper (Python never calls it) and no cache of its own (its
code lives in its callers' cached code).

A constant argument compiles a helper once more: numba types a call with a literal argument, or
with a variable that starts as one, for that literal first. Such call sites pass np.int64(...) or
np.bool_(...).

Every helper states its reference counting. numba otherwise compiles a helper with the setting of
whichever caller compiles it first, and keeps that one copy for every later caller: a helper first
compiled for a kernel without counting (`_nrt=False`) and then called from one with it (a block
loop, a test kernel) handed back uncounted views, which the counting caller freed while the game
still wrote to them (heap corruption, seen as an abort in the slow tests). Stated, the helper
compiles the same whoever calls it first, and the kernels' code no longer depends on the order.
"""

from numba import njit

inlined = njit(forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False)
"""Decorator of a kernel helper: compiled on its own, inlined by LLVM into every caller, without
reference counting. A helper takes arrays and returns numbers, never an array: a caller that counts
references would free a returned array's memory under it (an array-returning leaf is `inlined_ir`)."""

inlined_py = njit(forceinline=True, no_cfunc_wrapper=True, _nrt=False)
"""Decorator of a kernel helper that Python also calls (keeps the CPython wrapper): tests and the
pure-Python reference engines call the streams and draws (napsim.engine.rng, cardflow). Python
calling an `inlined` helper crashes the interpreter: numba gives it no entry point for Python."""

counted = njit(forceinline=True, no_cfunc_wrapper=True, _nrt=True)
"""Decorator of a helper that allocates (a block's scratch arrays, the pair tables' work arrays):
compiled with numba's reference counting, which allocation needs, and called only by callers that
count too (the block loops, the table builders) and by Python."""

inlined_ir = njit(inline="always")
"""Decorator of a leaf that returns views of its argument (`_st_views`): inlined at numba's IR level,
so the views are counted exactly where the caller counts references and nowhere else."""
