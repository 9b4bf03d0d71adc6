"""The thread counts the determinism tests compare. tests/conftest.py asks numba for at least two
threads (NUMBA_NUM_THREADS) even on a one-core machine, so the two-thread case always runs; if
numba still has one (NUMBA_NUM_THREADS=1 set by hand, or numba imported before the conftest),
these tests fail saying so instead of skipping in silence."""

from __future__ import annotations

import numba

THREADS = (1, 2)


def thread_counts() -> tuple[int, int]:
    """(1, 2), once numba is known to be able to run two threads."""
    assert numba.config.NUMBA_NUM_THREADS >= 2, (
        f"numba has {numba.config.NUMBA_NUM_THREADS} thread(s): the 1-against-2-threads checks need "
        "NUMBA_NUM_THREADS >= 2 (tests/conftest.py sets it unless the environment does)")
    return THREADS
