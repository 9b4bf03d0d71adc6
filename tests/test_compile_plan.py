"""The compile plan (napsim.engine.compile_plan): which cached helpers a kernel's first compile
reaches, with their argument types, so that a second process can compile them meanwhile."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core import event, types

from napsim.engine import compile_plan
from napsim.engine.compile_plan import (
    Recorder,
    args_key,
    compile_planned,
    decode_type,
    encode_type,
    load_plan,
    planned_functions,
)
from napsim.engine.kernel_cache import has_own_cache
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation

ROOT = Path(__file__).resolve().parents[1]

TYPES = [types.int64, types.boolean, types.float64, types.none, types.uint16,
         types.Array(types.int64, 2, "C"), types.Array(types.float64, 4, "C"),
         types.Array(types.int16, 1, "A", readonly=True), types.literal(-1), types.literal(3),
         types.literal(True), types.literal(False), types.UniTuple(types.int64, 3),
         types.Tuple([types.int64, types.boolean]), types.Optional(types.Array(types.int64, 2, "C"))]


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_a_type_survives_json(t):
    assert decode_type(json.loads(json.dumps(encode_type(t)))) == t


def test_a_type_a_plan_cannot_hold_is_left_out_and_a_bad_one_refused():
    assert encode_type(types.unicode_type) is None
    assert encode_type(types.Tuple([types.int64, types.unicode_type])) is None
    assert encode_type(types.Optional(types.unicode_type)) is None
    for bad in (["array", "int64"], "no_such_type", ["literal", "x"], ["optional", "x"], 7):
        with pytest.raises(ValueError):
            decode_type(bad)


def test_the_shipped_plan_names_cached_functions_with_types_napsim_rebuilds():
    plan = load_plan()
    assert len(plan) >= 4  # EPIC lean and full, La Grande Battles, the planned kernels
    for key, entries in plan.items():
        functions = planned_functions(key, plan)
        assert len(functions) == len(entries) > 0, key  # nothing left out: every entry usable
        for fn, _ in functions:
            assert has_own_cache(fn)  # another process can cache it


def test_the_key_tells_the_lean_epic_kernel_from_the_full_one_and_ignores_values():
    def key(scenario):
        sim = Simulation.build(load_scenario(scenario), dry=True)
        return args_key(*sim.kernel_args())
    lean, full, lgb = key("symmetric"), key("epic3-tamames"), key("lgb-symmetric")
    assert len({lean, full, lgb}) == 3
    assert key("epic2-talavera") == full  # same types, same kernel: one plan
    assert key("formats-armies") == lean
    plan = load_plan()
    assert {lean, full, lgb} <= set(plan)


def test_a_stale_or_foreign_entry_is_skipped_never_an_error():
    plan = {"k": [["napsim.engine.epic_phases", "no_such_helper", ["int64"]],
                  ["napsim.no_such_module", "x", []],
                  ["napsim.engine.epic_phases", "_orders", [["array", "nope", 1, "C", False]]],
                  ["napsim.engine.jit", "inlined", []],  # not a cached numba function
                  "not an entry"]}
    assert planned_functions("k", plan) == []
    assert compile_planned("k", plan) == 0
    assert compile_planned("no such key", plan) == 0
    assert load_plan(ROOT / "no-such-file.json") == {}


def test_the_recorder_keeps_cached_functions_compiled_inside_another_in_order(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    mod = tmp_path / "plan_toy.py"
    mod.write_text("from numba import njit\n"
                   "@njit(cache=True)\ndef leaf(a, k):\n    return a[0] + k\n"
                   "@njit\ndef plain(a):\n    return a[1]\n"
                   "@njit(cache=True)\ndef top(a):\n    return leaf(a, 2) + plain(a)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = importlib.import_module("plan_toy")
    rec = Recorder()
    event.register("numba:compile", rec)
    try:
        assert toy.top(np.arange(3, dtype=np.int64)) == 3
    finally:
        event.unregister("numba:compile", rec)
    # top compiles first (from Python: no second process could help), plain has no cache
    assert rec.entries == [["plan_toy", "leaf", [["array", "int64", 1, "C", False], ["literal", 2]]]]


def test_a_planned_function_compiles_into_the_cache_with_its_types(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))
    mod = tmp_path / "plan_toy2.py"
    mod.write_text("from numba import njit\n@njit(cache=True)\ndef leaf(a, k):\n    return a[0] + k\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    toy = importlib.import_module("plan_toy2")
    plan = {"k": [["plan_toy2", "leaf", [["array", "int64", 1, "C", False], "int64"]]]}
    assert compile_planned("k", plan) == 1
    assert toy.leaf.signatures == [(types.Array(types.int64, 1, "C"), types.int64)]
    # written where another process finds it
    assert list(Path(toy.leaf.stats.cache_path).glob("plan_toy2.leaf-*.nbi"))


@pytest.mark.slow  # a fresh interpreter compiles the lean EPIC kernel from an empty cache
def test_the_shipped_plan_is_what_the_lean_epic_kernel_compiles_now():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        tool = importlib.import_module("compile_plan")
    finally:
        sys.path.pop(0)
    with tempfile.TemporaryDirectory() as tmp:
        key = tool._child("symmetric", "greedy,greedy", "key", f"{tmp}/k")
        entries = tool._child("symmetric", "greedy,greedy", "record", f"{tmp}/c")
    assert entries == load_plan()[key], "stale: run python tools/compile_plan.py"
    assert compile_plan.PLAN_FILE.exists()


def test_the_tool_refuses_nothing_silently():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "compile_plan.py"), "--help"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 2 and "usage" in out.stderr.lower()
