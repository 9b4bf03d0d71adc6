"""A first run's compile on both cores (napsim.sim.precompile): the kernel compiled on empty
tables of the real tables' types, the table builder in a second process."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from napsim.engine.compile_plan import args_key, load_plan
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import load_scenario
from napsim.sim import precompile
from napsim.sim.packing import Simulation
from napsim.sim.runner import kernel_compiled

CASES = [("symmetric", ("greedy", "greedy")), ("tamames", ("greedy", "random")),
         ("formats-armies", ("greedy", "greedy")), ("lgb-symmetric", ("greedy", "greedy")),
         ("symmetric", ("lookahead", "greedy")), ("lgb-symmetric", ("greedy", "lookahead"))]


def _policies(names):
    return tuple((n, {}) for n in names)


def _types(sim: Simulation) -> tuple:
    kind, args = sim.kernel_args()
    return kind, tuple(numba.typeof(a) for a in args)


@pytest.mark.parametrize(("scenario", "names"), CASES, ids=[f"{s}-{'-'.join(n)}" for s, n in CASES])
def test_dry_tables_give_the_kernel_the_real_argument_types_and_nothing_else(scenario, names):
    sc = load_scenario(scenario)
    real = Simulation.build(sc, _policies(names))
    dry = Simulation.build(sc, _policies(names), dry=True)
    assert _types(dry) == _types(real)  # the same compiled kernel serves both
    tables = dry.lgb if sc.format == "lgb" else dry.tables
    built = [tables.nom, tables.eff] if sc.format == "lgb" else [tables.best_val, tables.nominal]
    assert all(not a.any() for a in built)  # empty: the builder never ran
    real_t = real.lgb if sc.format == "lgb" else real.tables
    assert any(a.any() for a in ([real_t.nom] if sc.format == "lgb" else [real_t.best_val]))


def test_compile_plays_no_game_on_dry_tables():
    dry = Simulation.build(load_scenario("formats-armies"), dry=True)
    dry.compile_kernel()  # zero games: nothing reads the empty tables
    assert kernel_compiled("epic") is True


def _cold(monkeypatch, started: list):
    """ready_simulation as from an empty numba cache, the second process recorded, not run."""
    monkeypatch.setattr(precompile, "kernel_compiled", lambda kind: False)
    monkeypatch.setattr(precompile, "builder_compiled", lambda builder: False)
    monkeypatch.setattr(precompile, "spare_cores", lambda: 1)

    class Helper:
        def __init__(self, argv, **kwargs):
            started.append(argv)

        def communicate(self, timeout):
            return None, None
    monkeypatch.setattr(precompile.subprocess, "Popen", Helper)


@pytest.mark.parametrize("scenario", ["symmetric", "lgb-symmetric"])
def test_a_cold_first_run_starts_the_builder_once_and_builds_the_same_simulation(monkeypatch, scenario):
    started, said = [], []
    _cold(monkeypatch, started)
    sc = load_scenario(scenario)
    sim = precompile.ready_simulation(sc, _policies(("greedy", "random")), None,
                                      lambda: said.append("notice"))
    builder = "lgb" if sc.format == "lgb" else "epic"
    dry = Simulation.build(sc, _policies(("greedy", "random")), dry=True)
    key = args_key(*dry.kernel_args())
    assert load_plan()[key]  # the shipped plan covers the shipped scenarios' kernels
    assert started == [precompile.helper_command(builder, key)]
    assert said == ["notice"]  # told once, before the compile
    plain = Simulation.build(sc, _policies(("greedy", "random")))
    for got, want in zip(sim.kernel_args()[1], plain.kernel_args()[1], strict=True):
        assert np.array_equal(np.asarray(got), np.asarray(want))


def test_a_bad_input_starts_nothing_and_says_nothing(monkeypatch):
    started, said = [], []
    _cold(monkeypatch, started)
    with pytest.raises(NapsimInputError):
        precompile.ready_simulation(load_scenario("symmetric"), _policies(("greedy",)), None,
                                    lambda: said.append("notice"))
    assert started == [] and said == []


def test_no_second_process_on_one_core_or_with_nothing_to_compile(monkeypatch):
    key = next(iter(load_plan()))
    monkeypatch.setattr(precompile, "builder_compiled", lambda builder: False)
    monkeypatch.setattr(precompile, "spare_cores", lambda: 0)
    assert precompile.start_helper("epic", key) is None
    monkeypatch.setattr(precompile, "spare_cores", lambda: 1)
    monkeypatch.setattr(precompile, "builder_compiled", lambda builder: True)
    assert precompile.start_helper("epic", "no such kernel") is None


def test_no_second_process_with_the_compile_shortcuts_off(monkeypatch):
    key = next(iter(load_plan()))
    monkeypatch.setattr(precompile, "builder_compiled", lambda builder: False)
    monkeypatch.setattr(precompile, "spare_cores", lambda: 1)
    monkeypatch.setattr(precompile, "COMPILE_SHORTCUTS", False)
    assert precompile.start_helper("epic", key) is None  # the kernel's process compiles it all


def test_the_second_process_builds_a_format_s_tables_and_refuses_anything_else():
    ok = subprocess.run(precompile.helper_command("epic"),
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(precompile.helper_command("odds"),
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.strip().startswith("usage:")
    assert len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.slow  # a first run from an empty numba cache: about 7 s on two cores
def test_a_first_run_on_two_processes_gives_the_games_of_a_warm_run(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    script = ("import sys, napsim.api as api, napsim.engine.epic_phases as ph\n"
              "said = []\n"
              "sim = api.simulation('symmetric', notice=said.append)\n"
              "res = api.simulate(sim, games=300, seed=7)\n"
              "print(len(said), res.summary.to_csv(index=False))\n"
              "print('helper loaded' if ph._take_cards.stats.cache_hits else 'helper compiled here')\n")
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                           timeout=600) for _ in range(2)]  # cold, then warm from that cache
    for run in runs:
        assert run.returncode == 0, run.stderr
    cold, warm = (r.stdout.splitlines() for r in runs)
    assert cold[0].startswith("1 ") and warm[0].startswith("0 ")  # one notice, when compiling
    assert cold[1:-1] == warm[1:-1] and len(cold) > 3  # the same games, whoever compiled what
    # the second process wrote the plan's helpers into the cache (loaded here, or compiled twice)
    assert list((tmp_path / "cache").rglob("epic_phases._take_cards*.nbi"))
