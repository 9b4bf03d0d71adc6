"""Two sizes for a long statistical test: a quick one that the default run (`python -m pytest -q`)
plays, and the full one, marked slow, that `python -m pytest -q -m slow` (CI's second step) plays.
A quick size keeps the check (same seed, tolerances from the standard error at that size); the
full size has the power to see smaller differences."""

from __future__ import annotations

import pytest


def quick_and_full(quick: int, full: int) -> list:
    """Parameters [quick, full (slow)] for a size, with ids 'quick' and 'full'."""
    return [pytest.param(quick, id="quick"), pytest.param(full, id="full", marks=pytest.mark.slow)]
