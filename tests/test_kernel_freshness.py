"""The stale-kernel guard (napsim.engine.jit): numba's cache checks only the file a function is
defined in, so napsim stamps every cached kernel with a hash of all kernel sources."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

import napsim.sim.odds  # noqa: F401 - imports the odds kernels
import napsim.sim.packing  # noqa: F401 - imports the pair tables
import napsim.sim.runner  # noqa: F401 - imports the EPIC and LGB kernels
from napsim.engine import jit

ROOT = Path(__file__).resolve().parents[1]


def _cached_dispatchers():
    for name, mod in list(sys.modules.items()):
        if name.startswith(jit.KERNEL_MODULES) and mod is not None:
            for obj in vars(mod).values():
                if isinstance(obj, numba.core.registry.CPUDispatcher) and obj._cache is not None \
                        and hasattr(obj._cache, "_cache_file"):
                    yield f"{name}.{obj.__name__}", obj


def test_every_cached_kernel_carries_the_source_hash():
    found = dict(_cached_dispatchers())
    assert {"napsim.engine.epic.play_blocks", "napsim.engine.lgb.play_blocks_lgb",
            "napsim.sim.tables._build"} <= set(found)
    digest = jit.kernel_source_hash()
    unstamped = [n for n, d in found.items() if d._cache._cache_file._source_stamp[:2]
                 != ("napsim-sources", digest)]
    assert unstamped == []
    assert jit.stamp_loaded() == 0  # stamping twice changes nothing


def test_the_hash_covers_every_engine_file_and_the_tables():
    files = {f.relative_to(jit.PACKAGE_DIR).as_posix() for p in jit.KERNEL_SOURCES
             for f in jit.PACKAGE_DIR.glob(p)}
    assert {"engine/epic_phases.py", "engine/cardflow.py", "sim/tables.py", "sim/tables_lgb.py"} <= files
    assert len(jit.kernel_source_hash()) == 64


_KERNEL = """
from numba import njit
from toy.helper import value
from napsim.engine import jit

@njit(cache=True)
def kernel():
    return value()

if STAMP:
    import os
    digest = open(os.path.join(os.path.dirname(__file__), "helper.py")).read()
    jit.stamp_dispatchers(globals(), digest)
print(kernel())
"""


def _run(pkg: Path, cache: Path, stamp: bool) -> str:
    """The toy kernel's output in a fresh interpreter; its defining file (one per mode) is written
    once, so that numba's own cache check (that file's time stamp and size) sees no change."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=f"{pkg}{os.pathsep}{ROOT}")
    run = pkg / "toy" / f"run_{'stamped' if stamp else 'plain'}.py"
    if not run.exists():
        run.write_text(f"STAMP = {stamp}\n" + (pkg / "toy" / "kernel.py").read_text())
    script = f"import runpy; runpy.run_path({str(run)!r})"
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.slow  # four fresh interpreters that compile
def test_a_change_in_an_inlined_helper_recompiles_a_stamped_kernel(tmp_path):
    pkg = tmp_path / "src"
    (pkg / "toy").mkdir(parents=True)
    (pkg / "toy" / "__init__.py").write_text("")
    (pkg / "toy" / "kernel.py").write_text(textwrap.dedent(_KERNEL))
    helper = pkg / "toy" / "helper.py"
    helper.write_text("from numba import njit\n\n@njit(cache=True, inline='always')\n"
                      "def value():\n    return 1\n")
    assert _run(pkg, tmp_path / "stamped", True) == "1"
    assert _run(pkg, tmp_path / "plain", False) == "1"
    helper.write_text(helper.read_text().replace("return 1", "return 2"))
    # numba alone keeps the kernel it cached: the defining file did not change (this is the hazard,
    # and the control that shows this test can see it)
    assert _run(pkg, tmp_path / "plain", False) == "1", \
        "numba recompiled on a helper's change by itself: the freshness guard may be retired"
    # stamped with its sources, the kernel compiles again and plays the new helper
    assert _run(pkg, tmp_path / "stamped", True) == "2"


_SHARED = """
import sys
import numpy as np
from numba import njit
from napsim.engine import jit

@njit(cache=True)
def f(x):
    return x + 1

jit.stamp_dispatchers(globals(), "digest")
KINDS = {"ints": [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16],
         "floats": [np.float32, np.float64, np.uint32, np.uint64, np.bool_, np.complex128]}
if sys.argv[1] == "load":
    for kind in KINDS.values():
        for t in kind:
            assert f(t(1)) == t(1) + 1, t
    import numba
    wanted = {(numba.typeof(t(1)),) for kind in KINDS.values() for t in kind}
    assert set(f.signatures) == wanted  # each the code of its own types
    print(dict(f.stats.cache_misses) or "all loaded")
else:
    for t in KINDS[sys.argv[1]]:
        f(t(1))
"""


def test_two_processes_saving_argument_types_of_one_function_at_once_lose_none(tmp_path):
    # numba picks a cache entry's data file by reading the index first: two processes saving at
    # once could pick the same file, and an entry would then name the other's code; napsim's lock
    # (jit._locked, installed by the stamp) makes the saves take turns
    (tmp_path / "shared_toy.py").write_text(_SHARED)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    script = "import runpy, sys; runpy.run_module('shared_toy', run_name='__main__')"
    savers = [subprocess.Popen([sys.executable, "-c", script, kind], env=env, stderr=subprocess.PIPE,
                               text=True) for kind in ("ints", "floats")]
    for p in savers:
        assert p.wait(timeout=300) == 0, p.stderr.read()
    out = subprocess.run([sys.executable, "-c", script, "load"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "all loaded"  # all 12 argument types from the cache, none lost
