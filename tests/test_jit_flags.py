"""The kernels' helpers compile the same whoever calls them first (napsim.engine.jit), and the
wrapper-less ones leave their optimisation and machine code to their callers (napsim.engine.linked,
a compile shortcut: without numba's internals it needs, or switched off, the plain way).

numba gives a helper that does not state its reference counting the setting of the caller that
compiles it first, and keeps that copy for every later caller. A view-returning helper first
compiled for a kernel without counting, then called from a counting one, freed the game's state
under it: heap corruption that aborted the slow tests only in some orders of compilation.
"""

import importlib
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import njit

import napsim
from napsim.engine import jit, linked
from napsim.engine.jit import inlined, inlined_py, outlined
from napsim.engine.kernel_cache import has_own_cache

ROOT = Path(__file__).resolve().parents[1]
shortcuts = pytest.mark.skipif(not jit.COMPILE_SHORTCUTS, reason="NAPSIM_COMPILE_SHORTCUTS is off")


def _napsim_dispatchers():
    """(module.name, dispatcher) of every numba function defined in a napsim module."""
    for info in pkgutil.walk_packages(napsim.__path__, "napsim."):
        if info.name.startswith("napsim.app") or info.name.endswith("__main__"):
            continue  # the page (streamlit, no kernels) and the command line's entry
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, numba.core.registry.CPUDispatcher) and obj.py_func.__module__ == info.name:
                yield f"{info.name}.{name}", obj


def test_every_helper_states_its_reference_counting():
    # a helper (inlined by LLVM, or without an entry for Python) either says _nrt or is inlined at
    # numba's IR level, where it takes its caller's setting by construction
    helpers = [(name, d) for name, d in _napsim_dispatchers()
               if d.targetoptions.get("forceinline") or d.targetoptions.get("no_cpython_wrapper")]
    assert len(helpers) > 50, len(helpers)
    unstated = [name for name, d in helpers if "_nrt" not in d.targetoptions]
    assert unstated == []


def _first_row_helper(decorator):
    @decorator
    def first(a):
        return a[0] + 1
    return first


@pytest.mark.parametrize("decorator", [inlined, inlined_py], ids=["inlined", "inlined_py"])
def test_a_helper_compiles_without_counting_even_when_a_counting_caller_comes_first(decorator):
    helper = _first_row_helper(decorator)

    @njit  # counts references, and compiles the helper first
    def counting(a):
        return helper(a)

    @njit(_nrt=False)
    def uncounted(a):
        return helper(a)

    a = np.arange(3, dtype=np.int64)
    assert counting(a) == uncounted(a) == 1
    overloads = list(helper.overloads.values())
    assert len(overloads) == 1  # one copy, shared by both callers
    assert overloads[0].target_context.enable_nrt is False


def test_views_of_a_counted_array_keep_it_alive_in_a_counting_caller():
    # the planned LGB kernel's rollout-copy test plays the LGB turn from a counting test kernel
    # on _lst_views of a state it allocated: the views are counted there, so the state outlives
    # them (with the uncounted copy the state was freed at the first view's release)
    from napsim.engine.layout import LST_HAND_N, N_LST
    from napsim.engine.lgb import _lst_views

    @njit(_nrt=False)
    def uncounted(st):  # compiled first, as the La Grande Battles kernel is
        _, _, _, hn = _lst_views(st)[:4]
        return hn[0]

    @njit
    def counting(k):
        st = np.zeros(N_LST, np.int64)
        total = 0
        for _ in range(k):
            hn = _lst_views(st)[3]
            hn[0] += 1
            junk = np.full(N_LST, -7, np.int64)  # would reuse a freed state's memory
            total += hn[0] + junk[0] + 7
        return total, st[LST_HAND_N]

    st = np.zeros(N_LST, np.int64)
    st[LST_HAND_N] = 5
    assert uncounted(st) == 5
    assert counting(200) == (200 * 201 // 2, 200)


def _machine_code_defined(helper) -> bool:
    """Whether LLVM's engine holds machine code of the helper's one compiled version."""
    cres = next(iter(helper.overloads.values()))
    return cres.library._codegen._engine.is_symbol_defined(cres.fndesc.mangled_name)


@shortcuts
def test_a_wrapperless_helper_runs_only_inside_its_callers_with_no_machine_code_of_its_own():
    assert linked.available()  # numba's internals as linked.py expects them (else: the plain path)
    inner = _first_row_helper(inlined)

    @outlined  # called, not inlined, from two places
    def twice(a):
        return inner(a) * 2

    @njit
    def caller(a):
        return twice(a) + twice(a[1:]) + inner(a)

    assert caller(np.arange(3, dtype=np.int64)) == 2 * 1 + 2 * 2 + 1
    for helper in (inner, twice):
        library = next(iter(helper.overloads.values())).library
        assert isinstance(library, linked.LinkedOnlyLibrary)
        assert not _machine_code_defined(helper)
    # the control: a helper Python may call keeps its machine code (and this check can see it)
    python_callable = _first_row_helper(inlined_py)
    assert python_callable(np.arange(3, dtype=np.int64)) == 1
    assert _machine_code_defined(python_callable)


@shortcuts
def test_every_wrapperless_napsim_helper_compiles_on_the_linked_only_path():
    # a helper without a Python entry and without a cache of its own is only ever linked into
    # its callers; a cached one (the commander layer's) keeps the plain path: its cache holds
    # machine code
    helpers = {name: d for name, d in _napsim_dispatchers()
               if d.targetoptions.get("no_cpython_wrapper") and not has_own_cache(d)}
    assert len(helpers) > 50, len(helpers)
    plain = [name for name, d in helpers.items()
             if d._compiler.pipeline_class is not linked.LinkedOnlyCompiler]
    assert plain == []


_PLAIN = """
import sys
import numba.core.codegen
if sys.argv[1] == "removed":
    del numba.core.codegen.JITCodeLibrary  # as if a numba release had renamed its code library
import numpy as np
from numba import njit
from napsim.engine import jit, linked
from napsim.engine.jit import inlined, outlined

@inlined
def first(a):
    return a[0] + 1

@outlined
def twice(a):
    return first(a) * 2

@njit
def caller(a):
    return twice(a) + twice(a[1:]) + first(a)

assert caller(np.arange(3, dtype=np.int64)) == 2 * 1 + 2 * 2 + 1
print(linked.available(), jit.linked_only_options() != {},
      type(next(iter(first.overloads.values())).library).__name__)
"""


@pytest.mark.parametrize(("internals", "switch", "expected"), [
    ("removed", "on", "False False JITCodeLibrary"),
    ("kept", "off", "True False JITCodeLibrary"),
    ("kept", "on", "True True LinkedOnlyLibrary"),
])
def test_without_numba_s_internals_or_switched_off_helpers_compile_the_plain_way(
        tmp_path, internals, switch, expected):
    # a missing internal (or NAPSIM_COMPILE_SHORTCUTS=off) costs compile time, never a wrong
    # kernel: the helpers compile the ordinary way and the caller computes the same
    env = dict(os.environ, NAPSIM_COMPILE_SHORTCUTS=switch, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _PLAIN, internals], env=env, capture_output=True,
                         text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected


def test_a_missing_internal_leaves_the_plain_options(monkeypatch):
    # the switch reads linked.py, which reads numba: any missing piece means no pipeline option
    monkeypatch.setattr(linked, "JITCodeLibrary", None)
    assert not linked.available()
    monkeypatch.setattr(linked, "LinkedOnlyCompiler", None)
    assert linked.linked_only_options() == {} and jit.linked_only_options() == {}
    monkeypatch.undo()
    monkeypatch.setattr(jit, "COMPILE_SHORTCUTS", False)
    assert jit.linked_only_options() == {}


def test_a_pipeline_of_another_shape_compiles_the_plain_way(monkeypatch):
    # numba's nopython pipeline without the pass this path hooks onto (as if a release renamed
    # it): numba's own pipeline compiles the helper, with machine code of its own, and the
    # caller computes the same
    monkeypatch.setattr(linked, "AnnotateTypes", "no such pass")
    helper = njit(no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False,
                  **linked.linked_only_options())(lambda a: a[0] + 1)

    @njit
    def caller(a):
        return helper(a) * 2

    assert caller(np.arange(3, dtype=np.int64)) == 2
    library = next(iter(helper.overloads.values())).library
    assert not isinstance(library, linked.LinkedOnlyLibrary) and _machine_code_defined(helper)


_GAMES = """
import sys
import numba.core.codegen
if sys.argv[1] == "removed":
    del numba.core.codegen.JITCodeLibrary
import napsim.api as api
from napsim.engine import jit
res = api.simulate("symmetric", games=200, seed=7, per_game=False)
print(jit.linked_only_options() != {}, res.summary.to_csv(index=False))
"""


@pytest.mark.slow  # two fresh interpreters compile the EPIC kernel from empty caches
def test_without_numba_s_internals_the_kernel_plays_the_same_games(tmp_path):
    runs = {}
    for internals in ("removed", "kept"):
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / internals), PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", _GAMES, internals], env=env, capture_output=True,
                             text=True, timeout=900, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        runs[internals] = out.stdout
    assert runs["removed"].startswith("False ") and runs["kept"].startswith("True ")
    assert runs["removed"][6:] == runs["kept"][5:] and len(runs["kept"]) > 200  # bit for bit

