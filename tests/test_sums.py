"""The per-game moments the kernels add up block by block (napsim.engine.blocks.add_game) against
the obvious numpy version over the extended per-game rows, on random rows and on every format's
played games, and GameSums adding any split of the games alike."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from napsim.engine import layout
from napsim.engine.blocks import add_game, block_moments
from napsim.engine.rng import seed_key
from napsim.model.scenarios import load_scenario
from napsim.sim.metric_table import COLUMNS, extend_rows
from napsim.sim.packing import Simulation
from napsim.sim.runner import play_chunk
from napsim.sim.sums import ChunkOut, GameSums


def obvious_moments(rows: np.ndarray) -> np.ndarray:
    """Sums, squares and products with the turns [MO_*, side, column] of the extended rows, the
    plain numpy way."""
    x = extend_rows(rows)
    turns = x[:, :, layout.M_TURNS]
    return np.stack([x.sum(axis=0), (x * x).sum(axis=0), (x * turns[:, :, None]).sum(axis=0)])


@njit
def _add_games(rows, mom_b):
    """add_game over rows [n, 2, M] in the blocks of mom_b, as a block kernel adds its games."""
    n = rows.shape[0]
    nb = mom_b.shape[0]
    cmet = np.zeros((2, 4, layout.N_CM), np.int64)
    cmet_b = np.zeros((nb, 2, 4, layout.N_CM), np.int64)
    out = np.zeros_like(rows)
    crows = np.zeros((0, 2, 4, layout.N_CM), np.int64)
    for b in range(nb):
        for g in range((n * b) // nb, (n * (b + 1)) // nb):
            add_game(b, g, rows[g], cmet, mom_b, cmet_b, out, crows, True, False)
    return mom_b, out


def test_the_moments_cover_the_report_columns():
    assert layout.N_COLUMNS == len(COLUMNS) and layout.N_MO == 3


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 60), nb=st.integers(1, 7), seed=st.integers(0, 2**32 - 1),
       hi=st.sampled_from([1, 9, 10**6]))
def test_add_game_moments_equal_the_obvious_version(n, nb, seed, hi):
    rows = np.random.default_rng(seed).integers(0, hi + 1, size=(n, 2, layout.N_METRICS))
    mom_b, written = _add_games(rows, block_moments(nb))
    assert mom_b.dtype == np.int64 and np.array_equal(mom_b.sum(axis=0), obvious_moments(rows))
    assert np.array_equal(written, rows)


def _sim(name: str) -> Simulation:
    name, _, game_format = name.partition(":")
    over = {"scenario.format": game_format} if game_format else None
    return Simulation.build(load_scenario(name, overrides=over))


@pytest.mark.parametrize("name", ["symmetric", "tamames", "formats-armies:epic3", "lgb-symmetric"])
def test_kernel_moments_equal_the_obvious_version_of_its_rows(name, restore_threads):
    args, key = _sim(name).kernel_args(), seed_key(7)
    with_rows = play_chunk(args, key, 40, 333, False, True)
    assert np.array_equal(with_rows.moments, obvious_moments(with_rows.rows))
    assert np.array_equal(with_rows.totals, with_rows.rows.sum(axis=0))
    for threads in (1, 2):  # without rows, on any thread count: the same moments
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        bare = play_chunk(args, key, 40, 333, False, False)
        assert bare.rows.shape[0] == 0 and bare.games == 333
        assert np.array_equal(bare.moments, with_rows.moments)
        assert np.array_equal(bare.commander_totals, with_rows.commander_totals)


def test_game_sums_of_a_run_equal_its_rows_moments_in_any_split():
    res = Simulation.build("symmetric").run(300, seed=11, per_game=True)
    rows = res.per_game
    whole, halves = GameSums(), GameSums()
    empty = np.zeros((0,), np.int64)

    def chunk(r):
        return ChunkOut(r.sum(axis=0), r, empty, empty, empty, empty, empty, obvious_moments(r),
                        games=r.shape[0])

    whole.add_chunk(chunk(rows))
    for part in (rows[:117], rows[117:]):
        halves.add_chunk(chunk(part))
    want = obvious_moments(rows)
    for k, (a, b) in enumerate(zip((whole.sums, whole.sumsq, whole.sumxt),
                                   (halves.sums, halves.sumsq, halves.sumxt), strict=True)):
        assert np.array_equal(a, want[k]) and np.array_equal(b, want[k])
    assert np.array_equal(res.game_sums.sums, want[0]) and res.game_sums.games == whole.games == 300


def test_sums_that_keep_per_game_values_refuse_a_call_without_rows():
    bare = play_chunk(Simulation.build("symmetric").kernel_args(), seed_key(1), 0, 50, False, False)
    GameSums().add_chunk(bare)
    for sums in (GameSums(hist=True), GameSums(rows=True), GameSums(parts=("orders_total",))):
        with pytest.raises(ValueError, match="per-game"):
            sums.add_chunk(bare)
