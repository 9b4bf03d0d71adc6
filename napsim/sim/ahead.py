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
    """Yield (item, fn(*args_of(item))) for every item, in order, the next item's call running
    while the caller holds this one's result (on the caller's numba thread count; serially with
    one thread). Closing the generator starts nothing more; a call already started is finished
    and dropped."""
    threads = numba.get_num_threads()  # thread-local in numba: the worker is given the caller's
    if threads == 1:
        for item in items:
            yield item, fn(*args_of(item))
        return
    items = iter(items)
    item = next(items, _END)
    if item is _END:
        return
    with ThreadPoolExecutor(1, thread_name_prefix=f"{tag}-ahead", initializer=numba.set_num_threads,
                            initargs=(threads,)) as pool:
        running = pool.submit(fn, *args_of(item))
        while item is not _END:
            result = running.result()
            done, item = item, next(items, _END)
            if item is not _END:
                running = pool.submit(fn, *args_of(item))
            yield done, result
