"""A cache that cannot serve stale kernels (napsim.engine.kernel_cache): numba's cache checks only
the file a function is defined in, so napsim caches every kernel in a folder named by a hash of all
the kernel sources, and numba's saves from two processes take turns."""

from __future__ import annotations

import fcntl
import importlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

import napsim.sim.odds  # noqa: F401 - imports the odds kernels
import napsim.sim.packing  # noqa: F401 - imports the pair tables
import napsim.sim.runner  # noqa: F401 - imports the EPIC and LGB kernels
from napsim.engine import kernel_cache
from napsim.engine.kernel_cache import (
    FOLDER_PREFIX,
    cache_folder,
    check_cache_folder,
    has_own_cache,
    kernel_source_files,
    kernel_source_hash,
    prune_unused,
    saved,
    usable_folder,
    use_cache_folder,
)

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "napsim"


def _cached_dispatchers():
    for name, mod in list(sys.modules.items()):
        if name.startswith(("napsim.engine.", "napsim.sim.tables")) and mod is not None:
            for obj in vars(mod).values():
                if isinstance(obj, numba.core.registry.CPUDispatcher) and has_own_cache(obj):
                    yield f"{name}.{obj.__name__}", obj


def test_every_cached_kernel_lives_in_the_folder_of_these_sources():
    found = dict(_cached_dispatchers())
    assert {"napsim.engine.epic.play_blocks", "napsim.engine.lgb.play_blocks_lgb",
            "napsim.sim.tables._build", "napsim.sim.tables_lgb._build_lgb"} <= set(found)
    folder = use_cache_folder()
    assert folder.name == FOLDER_PREFIX + kernel_source_hash()[:16]
    assert os.environ["NUMBA_CACHE_DIR"] == str(folder) == numba.config.CACHE_DIR
    elsewhere = [n for n, d in found.items() if not Path(d.stats.cache_path).is_relative_to(folder)]
    assert elsewhere == []
    assert check_cache_folder(dict(found)) == len(found)


def test_the_folder_is_chosen_when_the_kernels_decorators_are_imported(tmp_path):
    script = "import os, napsim.engine.jit\nprint(os.environ['NUMBA_CACHE_DIR'])\n"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(cache_folder({"NUMBA_CACHE_DIR": str(tmp_path)}))


def test_the_hash_covers_every_engine_file_the_tables_and_the_modules_they_import_from():
    files = {f.relative_to(PACKAGE).as_posix() for f in kernel_source_files()}
    assert {"engine/epic_phases.py", "engine/cardflow.py", "engine/jit.py", "sim/tables.py",
            "sim/tables_lgb.py", "model/cards.py"} <= files  # cards.py: CAP_ALL is frozen in
    assert "output/report.py" not in files and "cli.py" not in files
    assert len(kernel_source_hash()) == 64


def _copy_package(tmp_path: Path) -> Path:
    pkg = tmp_path / "src" / "napsim"
    shutil.copytree(PACKAGE, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return pkg


def test_a_comment_in_any_kernel_source_opens_a_new_folder(tmp_path):
    pkg = _copy_package(tmp_path)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    before = cache_folder(env, pkg)
    assert before == cache_folder(env, PACKAGE)  # the copy is these sources
    for source in ("engine/cardflow.py", "sim/tables.py", "model/cards.py"):
        with open(pkg / source, "a") as f:
            f.write("# a comment\n")
        after = cache_folder(env, pkg)
        assert after != before and after.parent == before.parent, source
        before = after
    with open(pkg / "output" / "report.py", "a") as f:  # not compiled into a kernel
        f.write("# a comment\n")
    assert cache_folder(env, pkg) == before


def test_the_folder_sits_under_numba_cache_dir_or_beside_an_inherited_one(tmp_path):
    mine = cache_folder({"NUMBA_CACHE_DIR": str(tmp_path)})
    assert mine.parent == tmp_path and mine.name.startswith(FOLDER_PREFIX)
    inherited = tmp_path / (FOLDER_PREFIX + "0123456789abcdef")  # a parent napsim's, of other sources
    assert cache_folder({"NUMBA_CACHE_DIR": str(inherited)}) == mine
    assert cache_folder({"NUMBA_CACHE_DIR": str(mine)}) == mine
    assert cache_folder({"XDG_CACHE_HOME": str(tmp_path)}).parent.name == "napsim"


def test_an_unwritable_folder_gives_a_fresh_private_one(tmp_path):
    (tmp_path / "a-file").write_text("")
    fallback = usable_folder(tmp_path / "a-file" / "cache")  # cannot be made under a file
    try:
        assert fallback.is_dir() and fallback.name.startswith(FOLDER_PREFIX)
        assert list(fallback.iterdir()) == []  # empty: the kernels compile afresh
    finally:
        shutil.rmtree(fallback)
    assert usable_folder(tmp_path / "ok") == tmp_path / "ok"


def test_other_versions_folders_unused_for_a_week_are_removed(tmp_path):
    mine = tmp_path / (FOLDER_PREFIX + "aaaaaaaaaaaaaaaa")
    old = tmp_path / (FOLDER_PREFIX + "bbbbbbbbbbbbbbbb")
    recent = tmp_path / (FOLDER_PREFIX + "cccccccccccccccc")
    other = tmp_path / "someone-elses"
    for f in (mine, old, recent, other):
        f.mkdir()
    week_ago = time.time() - 8 * 86400
    for f in (mine, old, other):
        os.utime(f, (week_ago, week_ago))
    assert prune_unused(mine) == [old]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, recent.name, other.name])


def test_a_function_cached_elsewhere_is_an_error_never_a_stale_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    (tmp_path / "elsewhere_toy.py").write_text("from numba import njit\n"
                                               "@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = importlib.import_module("elsewhere_toy")
    with pytest.raises(RuntimeError, match="not in napsim's kernel cache folder"):
        check_cache_folder({"f": toy.f})


_TOY = """
import sys
import napsim.engine.jit  # chooses the cache folder
from numba import njit

@njit(cache=True)
def inner(x):
    return x + 1

@njit(cache=True)
def outer(x):
    return inner(x) * 2

assert outer(1) == 4
print("loaded" if outer.stats.cache_hits else "compiled")
"""


def _toy_run(tmp_path: Path, pkg_parent: Path) -> str:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=f"{tmp_path}{os.pathsep}{pkg_parent}")
    out = subprocess.run([sys.executable, "-c", "import fresh_toy"], env=env, capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_an_edit_of_a_kernel_source_makes_the_next_run_compile_afresh(tmp_path):
    # fresh interpreters on a copy of the package: the first compiles, the second loads, and after
    # a comment in cardflow.py (not the file the cached function is defined in) it compiles again
    pkg = _copy_package(tmp_path)
    (tmp_path / "fresh_toy.py").write_text(_TOY)
    assert _toy_run(tmp_path, pkg.parent) == "compiled"
    assert _toy_run(tmp_path, pkg.parent) == "loaded"
    with open(pkg / "engine" / "cardflow.py", "a") as f:
        f.write("# a comment\n")
    assert _toy_run(tmp_path, pkg.parent) == "compiled"
    assert _toy_run(tmp_path, pkg.parent) == "loaded"
    assert len(list((tmp_path / "cache").glob(FOLDER_PREFIX + "*"))) == 2


def test_a_save_takes_the_lock_and_marks_the_function_saved_nested_ones_too(tmp_path, monkeypatch):
    folder = use_cache_folder()
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "lock_toy.py").write_text(_TOY.replace('print("loaded" if', '_ = ("loaded" if'))
    held = []
    real_flock = fcntl.flock

    def flock(fd, op):
        held.append(op)
        return real_flock(fd, op)

    monkeypatch.setattr(kernel_cache.fcntl, "flock", flock)
    toy = importlib.import_module("lock_toy")
    assert saved(toy.outer) and saved(toy.inner)
    assert (folder / "saved" / "lock_toy.inner").exists()
    assert (folder / "saved" / "lock_toy.outer").exists()
    assert held.count(fcntl.LOCK_EX) == 2  # a save each (a new folder of sources: nothing to load)
    fd = os.open(folder / "save.lock", os.O_RDWR)
    try:  # nothing holds it any more
        real_flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


_SHARED = """
import sys
import numpy as np
import napsim.engine.jit  # chooses the cache folder, installs the save lock
from numba import njit

@njit(cache=True)
def f(x):
    return x + 1

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
    # (kernel_cache.SaveLock, installed with the folder) makes the saves take turns
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
