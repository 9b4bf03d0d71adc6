"""Kernel calls one ahead: while the caller handles one call's result (writes a chunk file, adds
the sums up, streams the rows to Parquet), the next call already plays on a worker thread.

The kernels run without the GIL on numba's thread count of Python threads (`napsim.engine.blocks`),
so the writing, which would leave all but one core idle, overlaps the next chunk's games. Results
come in order, each once, and are the same numbers a serial loop gives. With one numba thread
(`--threads 1`) the calls play one after another on the caller's thread: one core, as asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numba

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
