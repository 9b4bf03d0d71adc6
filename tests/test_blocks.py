"""The block runner (napsim.engine.blocks): every block of a chunk played exactly once, on any
thread count, and a kernel's error reaching the caller. (That the games' results do not depend on
the thread count is checked on the real kernels by tests/test_engine_contract.py.)"""

from __future__ import annotations

import threading

import numba
import pytest
from support.threads import thread_counts

from napsim.engine.blocks import MAX_BLOCKS, block_count, run_blocks


def _recorder():
    runs, names, lock = [], set(), threading.Lock()

    def kernel(b_lo, b_hi, nb, tag):
        with lock:
            runs.append((b_lo, b_hi, nb, tag))
            names.add(threading.current_thread().name)
    return kernel, runs, names


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 2000])
def test_block_count_is_fixed_by_the_chunk_alone(n):
    assert block_count(n) == max(1, min(n, MAX_BLOCKS))


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("nb", [1, 2, 3, 64])
def test_every_block_is_played_once(nb, n_threads, restore_threads):
    assert n_threads in thread_counts()
    numba.set_num_threads(n_threads)
    kernel, runs, names = _recorder()
    run_blocks(kernel, nb, ("x",))
    played = sorted(b for lo, hi, total, tag in runs for b in range(lo, hi))
    assert played == list(range(nb))
    assert all(total == nb and tag == "x" for _, _, total, tag in runs)
    expected_runs = min(numba.get_num_threads(), nb)
    assert len([r for r in runs if r[1] > r[0]]) == expected_runs
    assert threading.current_thread().name in names  # the calling thread plays a run itself


def test_a_kernel_error_reaches_the_caller(restore_threads):
    numba.set_num_threads(thread_counts()[-1])

    def kernel(b_lo, b_hi, nb):
        if b_lo > 0 or numba.get_num_threads() == 1:
            raise ValueError("block failed")

    with pytest.raises(ValueError, match="block failed"):
        run_blocks(kernel, 8, ())
