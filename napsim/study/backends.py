"""Where chunks run: in this process (`LocalRunner`) or on a Dask cluster (`DaskRunner`).

A chunk is a pure function of (point inputs, seed, game range), so the runner only decides *who*
plays it; the numbers do not change. Both runners have one method the run loop
(`napsim.study.runloop`) uses: ``stream(fn, items, args_of)``, which yields ``(item, fn(*args_of(item)))``
as results come in; the loop writes the chunk files and adds them up the same way for both.

- `LocalRunner`: one chunk at a time in this process, in order; each kernel call's blocks (at most
  64) run on ``--threads`` Python threads, without the GIL (`napsim.engine.blocks`; the count is
  numba's, ``numba.set_num_threads``). With more than one thread the next chunk plays while the
  loop writes the last one.
- `DaskRunner`: every missing chunk becomes a task ``run_chunk(job, first, n)`` on a Dask cluster
  (``--scheduler tcp://HOST:PORT``) or on a `distributed.LocalCluster` of N single-threaded worker
  processes (``--dask-local N``). `run_chunk` is a module-level plain Python function and `job` a
  plain dict (the validated scenario and deck, the policies, the seed), never a jitted object: a
  pickled numba dispatcher would recompile on every worker and skip the cache. Each worker builds
  the point's packed tables once and keeps them (`_JOBS`), and plays with one numba thread
  (``numba.set_num_threads(1)`` on every call, and ``NUMBA_NUM_THREADS=1`` in the workers of a
  LocalCluster: Dask runs one task per worker thread already). The driver writes each chunk file
  as its result arrives, as for a local run, so resume works the same, and it submits a bounded
  window of chunks at a time, so a 10-million-game point never holds more than a few chunks'
  results in memory.

Lost work: when a worker dies, the scheduler reruns the chunks it was playing (or had finished but
not handed over) on the other workers; a chunk that still fails with `KilledWorker` or a broken
connection is submitted again (`resubmits` times), so no chunk is lost and the final numbers are
those of an uninterrupted local run.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import sys
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator

import numba

from napsim.engine.blocks import one_ahead
from napsim.model.errors import NapsimInputError
from napsim.sim.odds import answer_questions
from napsim.sim.packing import Simulation
from napsim.study.chunks import code_sha256, compute_chunk

WORKER_ENV = {"NUMBA_NUM_THREADS": "1"}
JOB_CACHE = 4  # points whose packed tables a worker keeps
RESUBMITS = 3


# --------------------------------------------------------------------------------------------
# threads


def max_threads() -> int:
    """The most threads numba may use here (``NUMBA_NUM_THREADS``, by default the CPU count)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def check_threads(threads: int | None, where: str = "--threads") -> int | None:
    """A valid thread count (1..NUMBA_NUM_THREADS), or None for "leave numba's setting"."""
    if threads is None:
        return None
    top = max_threads()
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= top:
        raise NapsimInputError(where, "threads", f"{threads} is out of range",
                               f"1..{top} (NUMBA_NUM_THREADS)")
    return threads


def use_threads(threads: int | None) -> None:
    """Set the numba thread count of this process (validated); None leaves it as it is."""
    if check_threads(threads) is not None:
        numba.set_num_threads(threads)


@contextlib.contextmanager
def threads_set(threads: int | None) -> Iterator[None]:
    """`use_threads` for the duration of a block (the previous count is restored)."""
    if threads is None:
        yield
        return
    before = numba.get_num_threads()
    use_threads(threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


# --------------------------------------------------------------------------------------------
# the worker side: plain data in, chunk arrays out


_JOBS: OrderedDict = OrderedDict()  # job key -> packed kernel arguments (one worker process)
_JOBS_LOCK = threading.Lock()  # a local run builds the next point's on a thread (LocalRunner.prepare)
_CODE: list[str] = []


class WorkerCodeMismatch(RuntimeError):
    """A worker runs other napsim code than the driver: its chunks could differ."""


def _in_dask_worker() -> bool:
    mod = sys.modules.get("distributed")
    if mod is None:
        return False
    try:
        mod.get_worker()
    except ValueError:
        return False
    return True


def _code_sha256() -> str:
    """The engine code hash of this process (computed once)."""
    if not _CODE:
        _CODE.append(code_sha256())
    return _CODE[0]


def engine_job(key: str, scenario, deck, policies, seed: int, per_game: bool) -> dict:
    """What a worker needs to play a point's chunks: plain, picklable data (no jitted objects).

    `key` names the point (it keys the worker's cache of packed tables); `scenario` and `deck` are
    the validated `Scenario` / `Deck` values (a few kB), so workers need no study, scenario or deck
    files; `code` is the hash of the engine source, checked on the worker.
    """
    return dict(key=key, code=_code_sha256(), scenario=scenario, deck=deck,
                policies=[(str(n), dict(o)) for n, o in policies], seed=int(seed),
                per_game=bool(per_game))


def _job_args(job: dict) -> tuple:
    """The packed kernel arguments of a job, built once per worker process and point."""
    with _JOBS_LOCK:  # LocalRunner.prepare builds the next point's on a thread
        args = _JOBS.get(job["key"])
        if args is not None:
            _JOBS.move_to_end(job["key"])
            return args
        if job["code"] != _code_sha256():
            raise WorkerCodeMismatch(
                f"worker {os.uname().nodename} (pid {os.getpid()}) runs napsim engine code that differs "
                "from the driver's; install the same napsim version on every worker")
        sim = Simulation.build(job["scenario"], [tuple(p) for p in job["policies"]], job["deck"])
        args = sim.kernel_args()
        _JOBS[job["key"]] = args
        while len(_JOBS) > JOB_CACHE:
            _JOBS.popitem(last=False)
        return args


def run_chunk(job: dict, first: int, n: int) -> dict:
    """Play games [first, first + n) of one study point; returns the chunk file's arrays.

    The function every runner plays a chunk with (Dask workers receive it as a task). In a Dask
    worker it plays on one numba thread (set on every call).
    """
    _one_thread_in_worker()
    return compute_chunk(_job_args(job), job["seed"], int(first), int(n), job["per_game"])


def run_odds_point(questions: list, deck, hand: int, games: int, seed: int, chunk: int) -> bytes:
    """Answer an odds study's questions for one deck and hand size; the odds.csv bytes."""
    _one_thread_in_worker()
    return answer_questions(questions, deck, hand, games, seed, chunk).to_csv(index=False).encode()


def _one_thread_in_worker() -> None:
    """In a Dask worker, play on one numba thread (Dask runs one task per worker thread)."""
    if _in_dask_worker():
        numba.set_num_threads(1)


# --------------------------------------------------------------------------------------------
# runners


class LocalRunner:
    """Chunks played in this process, one kernel call at a time (numba threads inside)."""

    parallel = False
    name = "local"

    def __init__(self, threads: int | None = None):
        self.threads = check_threads(threads)

    def __enter__(self) -> LocalRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        pass

    def prepare(self, job: dict, next_job_of: Callable[[], dict]) -> None:
        """Build the packed tables of `job` here, then those of the job `next_job_of()` returns on a
        thread, while `job`'s chunks play (the kernel threads hold no lock Python needs):
        `run_chunk` then finds both built. A failure on the thread is left for `run_chunk` to
        raise, where it would have."""
        _job_args(job)

        def build_next() -> None:
            with contextlib.suppress(Exception):
                _job_args(next_job_of())

        threading.Thread(target=build_next, name="napsim-prepare", daemon=True).start()

    def stream(self, fn, items: Iterable[tuple], args_of, tag: str = "napsim") -> Iterator[tuple]:
        """Run ``fn(*args_of(item))`` for every item here, in order; yields (item, result). The
        next item plays while the caller writes this one (`napsim.engine.blocks.one_ahead`; one at a
        time with ``--threads 1``). Closing the generator starts nothing more."""
        return one_ahead(fn, items, args_of, tag)

    def describe(self) -> str:
        return f"local, {self.threads or numba.get_num_threads()} thread(s)"


class DaskRunner:
    """Chunks played as tasks on a Dask cluster: an existing scheduler or a LocalCluster."""

    parallel = True
    name = "dask"

    def __init__(self, scheduler: str | None = None, local_workers: int | None = None,
                 resubmits: int = RESUBMITS, window: int | None = None, timeout: float = 30):
        if (scheduler is None) == (local_workers is None):
            raise NapsimInputError("--scheduler", None, "give either a scheduler address or a number "
                                   "of local workers", "--scheduler tcp://HOST:PORT or --dask-local N")
        try:  # lazy: Dask is an optional dependency (pip install "napsim[dask]")
            import distributed
        except ImportError:
            raise NapsimInputError("--scheduler" if scheduler else "--dask-local", None,
                                   "Dask is not installed", hint='pip install "napsim[dask]"') from None
        self.resubmits = resubmits
        self._window = window
        self.cluster = None
        if local_workers is not None:
            check_local_workers(local_workers)
            self.cluster = distributed.LocalCluster(
                n_workers=local_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                silence_logs=logging.ERROR, env=dict(WORKER_ENV))
            self.client = distributed.Client(self.cluster)
            self.address = self.cluster.scheduler_address
        else:
            check_options(scheduler=scheduler)
            try:
                self.client = distributed.Client(scheduler, timeout=timeout)
            except (OSError, TimeoutError) as e:
                raise NapsimInputError("--scheduler", None, f"cannot reach {scheduler}: {e}",
                                       "the address `dask scheduler` printed") from None
            self.address = scheduler

    def __enter__(self) -> DaskRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.close()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close()

    def workers(self) -> int:
        return len(self.client.scheduler_info(n_workers=-1).get("workers", {}))

    def describe(self) -> str:
        kind = "LocalCluster" if self.cluster is not None else "scheduler"
        return f"dask {kind} {self.address}, {self.workers()} worker(s)"

    def window(self) -> int:
        """Chunks in flight at once: enough to keep every worker busy, few enough to bound memory
        and the work a lost worker takes with it."""
        return self._window or max(4, 2 * self.workers())

    def stream(self, fn, items: Iterable[tuple], args_of, tag: str = "napsim") -> Iterator[tuple]:
        """Run ``fn(*args_of(item))`` for every item on the cluster, a window at a time; yields
        (item, result) as results arrive (any order). Closing the generator cancels what is still
        in flight. A task lost with its worker is submitted again (`resubmits` times)."""
        # lazy: Dask is an optional dependency, imported only by a DaskRunner
        from distributed import as_completed
        from distributed.comm.core import CommClosedError
        from distributed.scheduler import KilledWorker

        lost = (KilledWorker, CommClosedError, TimeoutError)
        it = iter(items)
        pending: dict = {}
        done = as_completed()

        def submit(item, attempt: int = 0) -> None:
            fut = self.client.submit(fn, *args_of(item), pure=False,
                                     key=f"{tag}-{uuid.uuid4().hex}-{attempt}")
            pending[fut] = (item, attempt)
            done.add(fut)

        try:
            for item in itertools.islice(it, self.window()):
                submit(item)
            for fut in done:
                item, attempt = pending.pop(fut)
                try:
                    result = fut.result()
                except WorkerCodeMismatch as e:
                    raise NapsimInputError("--scheduler", None, str(e)) from None
                except lost:
                    if attempt >= self.resubmits:
                        raise
                    submit(item, attempt + 1)
                    continue
                fut.release()
                for nxt in itertools.islice(it, 1):
                    submit(nxt)
                yield item, result
        finally:
            for fut in pending:
                fut.cancel()


def check_local_workers(n) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1024:
        raise NapsimInputError("--dask-local", None, f"{n} is not a number of workers", "1..1024")
    return n


def check_options(threads: int | None = None, scheduler: str | None = None,
                  dask_local: int | None = None) -> None:
    """Refuse conflicting or out-of-range runner options (one line each) before anything starts."""
    if scheduler is not None and dask_local is not None:
        raise NapsimInputError("--scheduler", None, "give --scheduler or --dask-local, not both")
    if threads is not None and (scheduler is not None or dask_local is not None):
        raise NapsimInputError("--threads", None, "sets the threads of a local run; Dask workers play "
                               "with one thread each", "leave it out, and start one worker per core")
    check_threads(threads)
    if dask_local is not None:
        check_local_workers(dask_local)
    if scheduler is not None and (not isinstance(scheduler, str) or "://" not in scheduler):
        raise NapsimInputError("--scheduler", None, f"{scheduler!r} is not a scheduler address",
                               "tcp://HOST:PORT")


def make_runner(threads: int | None = None, scheduler: str | None = None,
                dask_local: int | None = None) -> LocalRunner | DaskRunner:
    """The runner the command-line options ask for (at most one of the three)."""
    check_options(threads, scheduler, dask_local)
    if scheduler is not None or dask_local is not None:
        return DaskRunner(scheduler=scheduler, local_workers=dask_local)
    return LocalRunner(threads)
