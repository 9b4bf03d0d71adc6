"""The one-pass moments of the per-game rows (napsim.sim.sums.row_moments) against the obvious
numpy version over the extended rows, and GameSums adding any split of the games alike."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from napsim.engine import layout
from napsim.sim.metric_table import extend_rows
from napsim.sim.packing import Simulation
from napsim.sim.sums import ChunkOut, GameSums, row_moments


def obvious_moments(rows: np.ndarray):
    """Sums, squares and products with the turns of the extended rows, the plain numpy way."""
    x = extend_rows(rows)
    turns = x[:, :, layout.M_TURNS]
    return x.sum(axis=0), (x * x).sum(axis=0), (x * turns[:, :, None]).sum(axis=0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 60), seed=st.integers(0, 2**32 - 1), hi=st.sampled_from([1, 9, 10**6]))
def test_row_moments_equal_the_obvious_version(n, seed, hi):
    rows = np.random.default_rng(seed).integers(0, hi + 1, size=(n, 2, layout.N_METRICS))
    for got, want in zip(row_moments(rows), obvious_moments(rows), strict=True):
        assert got.dtype == np.int64 and np.array_equal(got, want)


def test_game_sums_of_a_run_equal_its_rows_moments_in_any_split():
    res = Simulation.build("symmetric").run(300, seed=11, per_game=True)
    rows = res.per_game
    whole, halves = GameSums(), GameSums()
    empty = np.zeros((0,), np.int64)

    def chunk(r):
        return ChunkOut(r.sum(axis=0), r, empty, empty, empty, empty, empty)

    whole.add_chunk(chunk(rows))
    for part in (rows[:117], rows[117:]):
        halves.add_chunk(chunk(part))
    want = obvious_moments(rows)
    for a, b, w in zip((whole.sums, whole.sumsq, whole.sumxt), (halves.sums, halves.sumsq, halves.sumxt),
                       want, strict=True):
        assert np.array_equal(a, w) and np.array_equal(b, w)
