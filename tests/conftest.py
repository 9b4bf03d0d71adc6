"""Fixtures shared by the tests. Shared helper functions live in tests/support/ (a package)."""

from __future__ import annotations

import os
from pathlib import Path

# before numba is imported: at least two numba threads, so that the thread-count checks
# (tests/support/threads.py) run on a one-core machine too; more cores keep numba's default (the
# cores this process may run on)
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
os.environ.setdefault("NUMBA_NUM_THREADS", str(max(2, _CORES)))

import numba  # noqa: E402
import pytest  # noqa: E402
from support.studies import write_study  # noqa: E402

from napsim.model.cards import DECK_DIR  # noqa: E402


@pytest.fixture
def builtin_path():
    def get(name: str) -> Path:
        return DECK_DIR / f"{name}.csv"

    return get


@pytest.fixture
def restore_threads():
    """numba's thread count as it was before the test (tests that set it)."""
    before = numba.get_num_threads()
    yield
    numba.set_num_threads(before)


@pytest.fixture
def study_toml(tmp_path):
    """Writer of a small study file in tmp_path: study_toml(games=600, sweep={...}) -> its path
    (tests/support/studies.py)."""
    def write(**kw) -> Path:
        return write_study(tmp_path, **kw)

    return write
