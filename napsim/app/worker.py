"""The one owner of the page's kernel work: a single thread that plays every job, one at a time.

Streamlit runs the script of each browser tab on a thread of its own. numba's threading layers
abort the process when parallel code is entered from two threads at once (numba's bug reports #8563
and #9288), and napsim's kernels run their blocks on Python threads of their own
(`napsim.engine.blocks`), so no page thread calls a kernel: it submits a job here and waits for it.
A job's `channel` (a tab and a kind of answer) says what it supersedes: a newer job of the same
channel drops the older one if it has not started, and tells it to stop at its next `check` (the
jobs check between chunks of games) if it has.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable


class Cancelled(Exception):
    """A job superseded by a newer one of its channel."""


class Job:
    """One call `fn(job, *args)` on the worker thread. `fn` may `publish` a first answer and
    report `progress` (both stop a superseded job); the page waits with `wait` and reads
    `partial`, `progress`, then `result()`."""

    def __init__(self, channel: Hashable, fn: Callable, args: tuple):
        self.channel, self._fn, self._args = channel, fn, args
        self._cancel = threading.Event()
        self._done = threading.Event()
        self.value = None
        self.error: BaseException | None = None
        self.partial = None        # the latest first answer `fn` published
        self.progress = 0.0        # 0..1, what `fn` said
        self.thread: int | None = None  # the thread that ran it

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def cancel(self) -> None:
        self._cancel.set()

    def check(self) -> None:
        """Raise `Cancelled` when a newer job of the channel superseded this one."""
        if self._cancel.is_set():
            raise Cancelled(str(self.channel))

    def publish(self, value, progress: float | None = None) -> None:
        self.partial = value
        self.set_progress(self.progress if progress is None else progress)

    def set_progress(self, fraction: float) -> None:
        self.progress = float(fraction)
        self.check()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def result(self, timeout: float | None = None):
        """The value `fn` returned; its error raised here (`Cancelled` for a superseded job)."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"job {self.channel} still running")
        if self.error is not None:
            raise self.error
        return self.value

    def _finish(self, error: BaseException | None = None) -> None:
        self.error = error
        self._done.set()

    def _run(self) -> None:
        self.thread = threading.get_ident()
        if self.cancelled:
            self._finish(Cancelled(str(self.channel)))
            return
        try:
            self.value = self._fn(self, *self._args)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting page, which says it
            self._finish(e)
            return
        self._finish()


class KernelWorker:
    """The worker thread and its queue (first in, first out, across channels)."""

    def __init__(self, name: str = "napsim-kernels"):
        self._cond = threading.Condition()
        self._queue: deque[Job] = deque()
        self._running: Job | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    @property
    def ident(self) -> int | None:
        """The worker thread's id: every job runs on it."""
        return self._thread.ident

    def submit(self, channel: Hashable, fn: Callable, *args) -> Job:
        """Queue `fn(job, *args)`; the channel's older jobs are superseded (dropped or stopped)."""
        job = Job(channel, fn, args)
        with self._cond:
            if self._closed:
                raise RuntimeError("the kernel worker is closed")
            kept = deque()
            for old in self._queue:
                if old.channel == channel:
                    old.cancel()
                    old._finish(Cancelled(str(channel)))
                else:
                    kept.append(old)
            self._queue = kept
            if self._running is not None and self._running.channel == channel:
                self._running.cancel()
            self._queue.append(job)
            self._cond.notify()
        return job

    def pending(self) -> int:
        with self._cond:
            return len(self._queue) + (self._running is not None)

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if self._closed and not self._queue:
                    return
                job = self._queue.popleft()
                self._running = job
            job._run()
            with self._cond:
                self._running = None

    def close(self, timeout: float | None = 10) -> None:
        """Finish the queued jobs and stop the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout)


_WORKER: list[KernelWorker] = []
_WORKER_LOCK = threading.Lock()


def worker() -> KernelWorker:
    """The process's one kernel worker (started on first use): every tab's jobs go through it."""
    with _WORKER_LOCK:
        if not _WORKER:
            _WORKER.append(KernelWorker())
        return _WORKER[0]


class ResultCache:
    """Finished answers by their settings (same settings and seed: the same numbers), the least
    recently used dropped first; shared by the tabs, safe across threads."""

    def __init__(self, size: int = 64):
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable):
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: Hashable, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
