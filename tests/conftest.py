"""Fixtures shared by the tests. Shared helper functions live in tests/support/ (a package)."""

from __future__ import annotations

from pathlib import Path

import numba
import pytest

from napsim.model.cards import DECK_DIR


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
