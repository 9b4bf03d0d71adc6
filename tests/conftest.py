"""Fixtures shared by the tests. Shared helper functions live in tests/support/ (a package)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# before numba is imported: at least two numba threads, so that the thread-count checks
# (tests/support/threads.py) run on a one-core machine too; more cores keep numba's default (the
# cores this process may run on)
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
os.environ.setdefault("NUMBA_NUM_THREADS", str(max(2, _CORES)))

import numba  # noqa: E402
import pytest  # noqa: E402
from support.studies import write_study  # noqa: E402
from support.warmup import WarmUp, wait_before_compiling  # noqa: E402

from napsim.model.cards import DECK_DIR  # noqa: E402


def _whole_run(config) -> bool:
    """Whether pytest runs the whole suite (its testpaths, perhaps filtered by -m or -k), not
    files or tests named on the command line."""
    return config.args_source != pytest.Config.ArgsSource.ARGS


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject's addopts): a worker per core for the whole suite; one process, no
    workers, for tests named on the command line (`-n 2` still spreads them)."""
    return _CORES if _whole_run(config) and _CORES > 1 else 0


_WARM_UP: list[WarmUp] = []  # the controller's warm-up, when it started one
_DONE = "NAPSIM_TEST_WARMUP_DONE"  # the file the warm-up creates when it ends (for the workers)
_GROUPS = "NAPSIM_TEST_WARMUP_GROUPS"  # its groups, each with a file of its own beside that one


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Before pytest-xdist's workers start: the kernels of the run compiling once, in parallel
    processes (tests/support/warmup.py), into the numba cache every worker reads."""
    config = session.config
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", 0):
        return
    if config.option.collectonly:
        return
    done = Path(tempfile.mkdtemp(prefix="napsim-warmup-")) / "done"
    warm = WarmUp("slow" in (config.option.markexpr or "").replace("not slow", ""), done)
    os.environ[_DONE] = str(done)  # before the workers start: they inherit both
    os.environ[_GROUPS] = "|".join(warm.names)
    _WARM_UP.append(warm)


def pytest_runtest_setup(item):
    """A worker, while the warm-up runs: a kernel it needs waits for the warm-up group that
    compiles it instead of compiling its own copy (the modules loaded since the last test too)."""
    done = os.environ.get(_DONE)
    if done and os.environ.get("PYTEST_XDIST_WORKER") and not Path(done).exists():
        wait_before_compiling(Path(done), os.environ.get(_GROUPS, "").split("|"))


def pytest_terminal_summary(terminalreporter):
    for warm in _WARM_UP:
        for line in warm.summary():
            terminalreporter.write_line(line)


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


@pytest.fixture
def study_toml(tmp_path):
    """Writer of a small study file in tmp_path: study_toml(games=600, sweep={...}) -> its path
    (tests/support/studies.py)."""
    def write(**kw) -> Path:
        return write_study(tmp_path, **kw)

    return write
