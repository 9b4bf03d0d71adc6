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
"""

from numba import njit

inlined = njit(forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
"""Decorator of a kernel helper: compiled on its own, inlined by LLVM into every caller."""

inlined_py = njit(forceinline=True, no_cfunc_wrapper=True)
"""Decorator of a kernel helper that Python also calls (keeps the CPython wrapper): tests, and the
pure-Python reference engines, which run `eval_pair` and `eval_corps_card` as Python functions that
call the pair-table helpers. Python calling an `inlined` helper crashes the interpreter: numba
gives it no entry point for Python."""
