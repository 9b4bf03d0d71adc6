"""Kernel calls on Python threads: a chunk's blocks of games, and the next chunk one ahead.

The serial block kernels run without the GIL. A chunk of n games is cut into min(n, 64) fixed
blocks (so a result never depends on the thread count); `run_blocks` hands each thread a run of
whole blocks. Python threads instead of numba's `prange` spare the compiler a parallel copy of the
whole game (numba re-optimises the inlined game for each parfor), which was about a quarter of the
cold compile.

`one_ahead` keeps the next kernel call playing on a worker thread while the caller handles the
result before it (writes a chunk file, adds the sums up, streams rows to Parquet), so the writing,
which would leave all but one core idle, overlaps the next chunk's games. Results come in order,
each once, and are the same numbers a serial loop gives. With one numba thread (`--threads 1`) the
calls play one after another on the caller's thread: one core, as asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from napsim.engine.jit import inlined_cached
from napsim.engine.layout import (
    DERIVED_PARTS,
    M_TURNS,
    MO_SQ,
    MO_SUM,
    MO_XT,
    N_COLUMNS,
    N_METRICS,
    N_MO,
)

MAX_BLOCKS = 64  # blocks a chunk is cut into at most: the unit of work of one thread


def block_count(n: int) -> int:
    """Blocks of a chunk of n games (at least one)."""
    return max(1, min(int(n), MAX_BLOCKS))


def run_blocks(kernel: Callable, nb: int, args: tuple, scratch: Callable[[], tuple] | None = None) -> None:
    """Call kernel(b_lo, b_hi, nb, *args) over blocks [0, nb), on numba's thread count
    (`numba.set_num_threads`) of Python threads, each with a contiguous run of blocks. With
    `scratch`, each call gets a state of its own as its last argument, kernel(..., scratch()):
    a kernel compiled without numba's reference counting (_nrt=False) allocates nothing."""
    threads = max(1, min(numba.get_num_threads(), nb))

    def call(lo: int, hi: int) -> None:
        kernel(lo, hi, nb, *args, *((scratch(),) if scratch else ()))

    if threads == 1:
        call(0, nb)
        return
    cuts = [nb * i // threads for i in range(threads + 1)]
    with ThreadPoolExecutor(threads - 1, thread_name_prefix="napsim-blocks") as pool:
        jobs = [pool.submit(call, cuts[i], cuts[i + 1]) for i in range(1, threads)]
        call(cuts[0], cuts[1])  # the first run on this thread, as prange did
        for job in jobs:
            job.result()  # a kernel's error reaches the caller


@inlined_cached
def add_game(b, g, met, cmet, mom_b, cmet_b, rows, crows, per_game, commanders):
    """Add one game into block b's sums: the moments mom_b[b, MO_*, side, column] of its per-game
    columns (layout.N_COLUMNS: the metrics, then the DERIVED_PARTS totals; integers, so any split
    of the games adds up to the same sums) and its commander metrics, and write row g when
    per_game. Plain loops: numba compiles array `+=` and row assignment with a shape check whose
    error message alone took about 6 s of each format's cold compile."""
    for s in range(met.shape[0]):
        t = met[s, M_TURNS]
        for m in range(N_METRICS):
            v = met[s, m]
            mom_b[b, MO_SUM, s, m] += v
            mom_b[b, MO_SQ, s, m] += v * v
            mom_b[b, MO_XT, s, m] += v * t
            if per_game:
                rows[g, s, m] = v
        for k in range(len(DERIVED_PARTS)):
            v = np.int64(0)
            for j in DERIVED_PARTS[k]:
                if j >= 0:
                    v += met[s, j]
            mom_b[b, MO_SUM, s, N_METRICS + k] += v
            mom_b[b, MO_SQ, s, N_METRICS + k] += v * v
            mom_b[b, MO_XT, s, N_METRICS + k] += v * t
        if commanders:
            for k in range(cmet.shape[1]):
                for m in range(cmet.shape[2]):
                    cmet_b[b, s, k, m] += cmet[s, k, m]
                    if per_game:
                        crows[g, s, k, m] = cmet[s, k, m]


def block_moments(nb: int):
    """The zeroed moments of nb blocks [block, MO_*, side, column] (add_game adds into them)."""
    return np.zeros((nb, N_MO, 2, N_COLUMNS), np.int64)


# ------------------------------------------------------------ the next kernel call one ahead
_END = object()  # no more items


def one_ahead(fn: Callable, items: Iterable, args_of: Callable[..., tuple] = lambda item: (item,),
              tag: str = "napsim") -> Iterator[tuple]:
    """Yield (item, fn(*args_of(item))) for every item, in order: the first call on this thread,
    each later one on a worker thread while the caller holds the result before it (with the
    caller's numba thread count; all here, one after another, with one thread). Closing the
    generator starts nothing more; a call already started is finished and dropped."""
    threads = numba.get_num_threads()  # thread-local in numba: the worker is given the caller's
    if threads == 1:
        for item in items:
            yield item, fn(*args_of(item))
        return
    items = iter(items)
    item = next(items, _END)
    if item is _END:
        return
    # the first call plays here: on a first run it compiles the kernel, and numba compiling on the
    # worker thread made a first EPIC simulate take 65 s instead of 46 s (17 s of system time:
    # 1.8 million mmap and munmap calls, strace -c)
    result = fn(*args_of(item))
    with ThreadPoolExecutor(1, thread_name_prefix=f"{tag}-ahead", initializer=numba.set_num_threads,
                            initargs=(threads,)) as pool:
        while item is not _END:
            done, item = item, next(items, _END)
            running = pool.submit(fn, *args_of(item)) if item is not _END else None
            yield done, result
            if running is not None:
                result = running.result()
