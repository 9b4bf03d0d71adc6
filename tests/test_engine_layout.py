"""The engine's named slots (napsim.engine.layout) and kernel signatures stay in step with the
Python side that packs the arrays: policies, card kinds, chunk arguments and outputs."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from napsim.engine import commanders, epic, layout, lgb
from napsim.engine.layout import CHUNK_OUTPUTS, EpicArgs, LgbArgs
from napsim.model import policies
from napsim.sim import tables
from napsim.sim.packing import Simulation
from napsim.sim.runner import ChunkOut

ENGINE = Path(layout.__file__).parent


def test_policy_slots_equal_policies_params():
    # every policy parameter has one P_ constant in the engine, at the slot napsim.policies packs
    engine = {name[2:].lower(): value for name, value in vars(layout).items()
              if name.startswith("P_") and isinstance(value, int)}
    assert engine == policies.PARAMS
    assert layout.N_POLICY == policies.N_PARAMS


def test_policy_mode_values_equal_policies():
    assert layout.KIND_RANDOM == policies.KIND_RANDOM
    assert layout.KIND_LOOKAHEAD == policies.KIND_LOOKAHEAD
    assert (layout.SPEND_ALWAYS, layout.SPEND_THRESHOLD, layout.SPEND_ASSAULT) == tuple(
        policies.SPEND_MODES[k] for k in ("always", "threshold", "assault"))
    assert (layout.GAIN_ALWAYS, layout.GAIN_NEVER, layout.GAIN_BELOW) == tuple(
        policies.GAIN_MODES[k] for k in ("always", "never", "below"))
    assert (layout.VALUE_OWN, layout.VALUE_MARGIN) == tuple(policies.VALUES[k] for k in ("own", "margin"))


def test_card_kinds_and_records_equal_tables():
    assert (layout.KIND_SECTION, layout.KIND_MULTI, layout.KIND_PLACED, layout.KIND_INERT) == (
        tables.KIND_SECTION, tables.KIND_MULTI, tables.KIND_PLACED, tables.KIND_INERT)
    assert (layout.REC_K, layout.REC_LIST, layout.REC_ORD, layout.REC_WIDTH) == (
        tables.REC_K, tables.REC_LIST, tables.REC_ORD, tables.REC_WIDTH)


def test_slots_are_distinct_within_each_group():
    # two names of one group never share a slot (offsets named "+ section" span three slots)
    groups = {
        "M_": (layout.N_METRICS, {"M_NOM": 3, "M_EFF": 3, "M_HAND_KIND": 4, "M_RACK_KIND": 4,
                                  "M_PICK_FROM": 6, "M_G_NULL_SEC": 3, "M_G_DENIED_EFF_SEC": 3}),
        "CM_": (layout.N_CM, {"CM_FACE": 5, "CM_EFF_A": 2}),
        "PL_": (layout.N_PL, {}),
        "ST_": (layout.N_ST, {"ST_HAND_N": 2, "ST_SQ_N": 2, "ST_TAC": 2, "ST_LAST_HAND": 2,
                              "ST_NOMINAL": 3, "ST_LAST_RACK": 2}),
        "LST_": (layout.N_LST, {"LST_HAND_N": 2, "LST_SQ_N": 2, "LST_LAST_HAND": 2}),
    }
    for prefix, (size, widths) in groups.items():
        taken: dict[int, str] = {}
        for name, value in vars(layout).items():
            if not name.startswith(prefix) or not isinstance(value, int):
                continue
            for slot in range(value, value + widths.get(name, 1)):
                assert slot not in taken, (name, taken.get(slot))
                assert 0 <= slot < size, name
                taken[slot] = name
    assert len(layout.METRIC_NAMES) == layout.N_METRICS and len(layout.CM_NAMES) == layout.N_CM


def test_the_slot_names_are_read_from_layout_only():
    # the schema lives in engine.layout: napsim, the tests and the tools never read a slot name
    # through a kernel module, so a kernel can move without breaking its readers
    root = ENGINE.parent.parent
    via_kernel = re.compile(r"\b(epic|lgb|commanders)\.[A-Z][A-Z0-9_]+\b|"
                            r"from napsim\.engine\.(epic|lgb|commanders) import [A-Z]")
    bad = []
    for folder in ("napsim", "tests", "tools"):
        for path in (root / folder).rglob("*.py"):
            if path.parent == ENGINE:
                continue
            for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if via_kernel.search(line):
                    bad.append(f"{path.relative_to(root)}:{no}: {line.strip()}")
    assert not bad, "\n".join(bad)
    for name in ("play_blocks", "play_chunk", "trace_game"):
        assert hasattr(epic, name)
    for name in ("play_blocks_lgb", "play_chunk_lgb", "trace_game_lgb"):
        assert hasattr(lgb, name)
    assert hasattr(commanders, "roll_initiative")


def _params(kernel) -> list[str]:
    return list(inspect.signature(getattr(kernel, "py_func", kernel)).parameters)


@pytest.mark.parametrize("kernel, fields", [(epic.play_chunk, EpicArgs._fields),
                                            (lgb.play_chunk_lgb, LgbArgs._fields)])
def test_kernel_args_follow_the_signature(kernel, fields):
    """A chunk kernel takes the fields of its tables' bundle one by one after n (picklable plain
    arrays), then check and per_game; the kernel inside takes the bundle whole."""
    params = _params(kernel)
    if params[-1] == "args":  # play_chunk(run_key, first_game, n, *args): the bundle's fields
        assert params == ["run_key", "first_game", "n", "args"]
        blocks = epic.play_blocks if kernel is epic.play_chunk else lgb.play_blocks_lgb
        assert _params(blocks)[:7] == ["b_lo", "b_hi", "nb", "run_key", "first_game", "n", "tab"]
    else:
        assert params == ["run_key", "first_game", "n", *fields, "check", "per_game"]


def test_the_lgb_chunk_reads_its_args_as_lgbargs():
    # play_chunk_lgb(run_key, first_game, n, *LgbArgs, check, per_game): one field short is
    # refused before any game is played
    fields = [np.int64(0)] * (len(LgbArgs._fields) - 1)
    with pytest.raises(TypeError, match="missing"):
        lgb.play_chunk_lgb(np.zeros(2, np.uint64), np.int64(0), np.int64(1), *fields, False, False)


def test_simulation_packs_the_kernel_args():
    for scenario, cls in (("symmetric", EpicArgs), ("lgb-symmetric", LgbArgs)):
        kind, args = Simulation.build(scenario).kernel_args()
        assert len(args) == len(cls._fields), kind
        assert cls(*args)._fields == cls._fields


def test_chunk_outputs_are_chunkout_fields():
    # then the games played, which the caller knows
    assert (*CHUNK_OUTPUTS, "games") == tuple(f.name for f in ChunkOut.__dataclass_fields__.values())


def _returned_names(path: Path, func: str) -> list[str]:
    """The variable names of the tuple a kernel returns (`x.sum(axis=0)` counts as `x`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == func)
    ret = [n for n in ast.walk(node) if isinstance(n, ast.Return)][-1].value
    out = []
    for e in ret.elts:
        while isinstance(e, ast.Call | ast.Subscript):  # x.sum(axis=0) and x[...] count as x
            e = e.func.value if isinstance(e, ast.Call) else e.value
        out.append(e.id)
    return out


def test_both_kernels_return_the_outputs_in_one_order():
    epic_names = _returned_names(ENGINE / "epic.py", "chunk_on")
    assert epic_names == ["mom", "rows", "wait_b", "gturn_b", "cmet_b", "crows", "tturn_b", "mom"]
    assert _returned_names(ENGINE / "lgb.py", "chunk_on_lgb") == epic_names


def _jitted_callees(fn, seen: dict) -> dict:
    """Every jitted function that fn's Python code calls by a global name, recursively."""
    from numba.core.registry import CPUDispatcher
    py = getattr(fn, "py_func", fn)
    for name in py.__code__.co_names:
        obj = py.__globals__.get(name)
        if isinstance(obj, CPUDispatcher) and name not in seen:
            seen[name] = obj
            _jitted_callees(obj, seen)
    return seen


def test_helpers_python_runs_keep_an_entry_point():
    """The rule tests (tests/support/enginerules.py) run eval_pair and the La Grande Battles
    reference engine eval_corps_card as Python functions, which call the pair-table helpers from
    Python; so do the tests that deal through _draw_card. A helper compiled
    without numba's CPython wrapper (napsim.engine.jit.inlined) would crash the interpreter there,
    not raise: each must be jit.inlined_py or a plain cached kernel."""
    from napsim.engine import jit
    from napsim.sim import tables_lgb

    assert jit.inlined(lambda x: x).targetoptions["no_cpython_wrapper"]  # the check means something
    assert not jit.inlined_py(lambda x: x).targetoptions.get("no_cpython_wrapper")
    seen = _jitted_callees(tables.eval_pair, {})
    seen = _jitted_callees(tables_lgb.eval_corps_card, seen)
    assert {"_eligible", "_split"} <= set(seen)
    called_from_python = [tables.eval_pair, tables_lgb.eval_corps_card, *seen.values(),
                          epic._draw_card, epic._elan_reshuffle]
    no_entry = [getattr(f, "__name__", f) for f in called_from_python
                if f.targetoptions.get("no_cpython_wrapper")]
    assert no_entry == []


def test_the_lean_kernel_plays_one_a_side_as_the_full_one(monkeypatch):
    """EPIC one a side without Guerrillas plays a kernel compiled without the commander layer and
    the Guerrilla phase (epic.specialised); the full kernel plays its games bit for bit alike."""
    from napsim.engine.rng import seed_key
    from napsim.sim.runner import play_chunk

    args = Simulation.build("symmetric").kernel_args()
    a = args[1]
    assert epic.specialised(a.players_a_side, a.gcfg, a.units, a.units) == (None, None)
    tam = Simulation.build("tamames").kernel_args()[1]
    assert epic.specialised(tam.players_a_side, tam.gcfg, tam.units, tam.gcfg)[0] is tam.units
    lean = play_chunk(args, seed_key(3), 0, 200, True, True)
    monkeypatch.setattr(epic, "specialised", lambda players_a_side, gcfg, units, gturn_b: (units, gturn_b))
    full = play_chunk(args, seed_key(3), 0, 200, True, True)
    for k in ("moments", "rows", "rack_wait", "guerrilla_turns", "commander_totals", "tactician_turns"):
        assert np.array_equal(getattr(lean, k), getattr(full, k)), k
    assert lean.totals[:, layout.M_VIOLATIONS].sum() == 0
