"""One decision of which chunk kernel plays a scenario (napsim.engine.kernel_pick): for every
scenario file napsim ships and every policy kind, the runner's compile notice (`kernel_for`), the
packed arguments (`Simulation.kernel_args`), the kernel `play_chunk` and `trace_game` call, the
compile plan's key (`args_key`) and the table builder a first run's second process compiles
(`ready_simulation`) all name the kernel this test expects from the scenario's format alone."""

from __future__ import annotations

import pytest

from napsim.engine import kernel_pick
from napsim.engine.compile_plan import args_key
from napsim.engine.layout import EpicArgs, LgbArgs
from napsim.model.policies import KINDS
from napsim.model.scenarios import GAME_FORMATS, builtin_scenarios, load_scenario
from napsim.sim import precompile, runner
from napsim.sim.packing import Simulation

# the kernel each (format is La Grande Battles, a side plans) needs, written out here
EXPECTED = {(False, False): "epic", (False, True): "lookahead", (True, False): "lgb",
            (True, True): "lookahead_lgb"}
ARGS = {"epic": EpicArgs, "lookahead": EpicArgs, "lgb": LgbArgs, "lookahead_lgb": LgbArgs}
BUILDER = {"epic": "epic", "lookahead": "epic", "lgb": "lgb", "lookahead_lgb": "lgb"}
# every shipped scenario file, and the one built for all formats in each of them
SCENARIOS = [(name, None) for name in builtin_scenarios()] + [
    ("formats-armies", {"scenario.format": f}) for f in GAME_FORMATS]
POLICIES = {kind: ((kind, {}), ("greedy", {})) for kind in KINDS}


class Played(Exception):
    """Raised by a stand-in kernel: which kernel the runner called."""


def _stand_ins(monkeypatch, table: str) -> None:
    def kernel(name):
        def call(*args):
            raise Played(name)
        return call
    monkeypatch.setattr(runner, table, {k: kernel(k) for k in getattr(runner, table)})


def _played(call) -> str:
    with pytest.raises(Played) as got:
        call()
    return got.value.args[0]


def test_the_four_kernels_are_the_runners():
    assert set(kernel_pick.KERNELS.values()) == set(runner.CHUNK_KERNELS) == set(runner.TRACE_KERNELS) \
        == set(runner.BLOCK_KERNELS) == set(runner.KERNEL_NAMES) == set(EXPECTED.values())


@pytest.mark.parametrize("name, changes", SCENARIOS)
@pytest.mark.parametrize("kind", list(POLICIES))
def test_every_scenario_and_policy_kind_plays_the_kernel_its_format_needs(monkeypatch, name, changes,
                                                                          kind):
    sc = load_scenario(name, changes)
    policies = POLICIES[kind]
    want = EXPECTED[sc.format == "lgb", kind == "lookahead"]
    assert runner.kernel_for(sc.format, policies) == want  # what the compile notice names
    sim = Simulation.build(sc, policies, dry=True)
    got, kargs = sim.kernel_args()
    assert got == want and sim.kernel_pick().kernel == want
    assert isinstance(kargs, ARGS[want])
    _stand_ins(monkeypatch, "CHUNK_KERNELS")
    _stand_ins(monkeypatch, "TRACE_KERNELS")
    assert _played(lambda: sim.compile_kernel()) == want  # play_chunk
    assert _played(lambda: sim.trace(0, 0)) == want       # trace_game
    # the compile plan keys on this kernel, and on its lean copy (EPIC one a side, no Guerrillas)
    lean = sc.format in ("standard", "epic1") and all(s.guerrilla_rule == "off" for s in sc.sides)
    assert kernel_pick.lean_copy(want, kargs) is lean
    others = [k for k in EXPECTED.values() if k != want and ARGS[k] is ARGS[want]]
    assert all(args_key(k, kargs) != args_key(want, kargs) for k in others)


@pytest.mark.parametrize("name, changes", [("symmetric", None), ("tamames", None),
                                           ("lgb-symmetric", None)])
@pytest.mark.parametrize("kind", ["greedy", "lookahead"])
def test_a_first_run_compiles_the_picked_kernel_and_its_tables_builder(monkeypatch, name, changes, kind):
    sc = load_scenario(name, changes)
    want = EXPECTED[sc.format == "lgb", kind == "lookahead"]
    helpers, compiled = [], []
    build = Simulation.build.__func__
    monkeypatch.setattr(Simulation, "build",
                        classmethod(lambda cls, *a, **k: build(cls, *a, **dict(k, dry=True))))
    monkeypatch.setattr(precompile, "kernel_compiled", lambda kernel: compiled.append(kernel) and False)
    monkeypatch.setattr(precompile, "start_helper", lambda builder, key: helpers.append((builder, key)))
    monkeypatch.setattr(Simulation, "compile_kernel", lambda self: compiled.append(self.kernel_args()[0]))
    monkeypatch.setattr(Simulation, "warm_up", lambda self: None)
    sim = precompile.ready_simulation(sc, POLICIES[kind], None)
    assert compiled == [want, want]
    assert helpers == [(BUILDER[want], args_key(*sim.kernel_args()))]
    assert sim.kernel_args()[0] == want


def test_pick_kernel_reads_each_sides_policy_kind():
    assert kernel_pick.pick_kernel("epic3", [0.0, 2.0]) == ("lookahead", "epic", True)
    assert kernel_pick.pick_kernel("lgb", [1.0, 0.0]) == ("lgb", "lgb", False)
    assert kernel_pick.pick_kernel("standard") == ("epic", "epic", False)
