"""Honest progress (issue 17): a kernel that must be compiled is announced before it is, and the
progress bar starts after it, so its ETA counts games only."""

from __future__ import annotations

from click.testing import CliRunner

from napsim import cli
from napsim.sim import runner
from napsim.sim.packing import Simulation


def test_a_compiled_kernel_needs_no_notice():
    Simulation.build("symmetric").warm_up()
    assert runner.kernel_compiled("epic") is True
    assert runner.compile_notice("epic") is None


def test_an_uncompiled_kernel_is_announced_before_the_games(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "kernel_compiled", lambda kind: False)
    line = runner.compile_notice("lgb")
    assert line.startswith("compiling the La Grande Battles kernel (first run")
    warmed = []
    monkeypatch.setattr(Simulation, "warm_up", lambda self: warmed.append(self.scenario.name))
    result = CliRunner().invoke(cli.cli, ["simulate", "--scenario", "symmetric", "--games", "20",
                                          "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "napsim: compiling the EPIC kernel (first run after installing" in result.output
    assert warmed == ["symmetric"]  # compiled before the progress bar started
    assert result.output.index("compiling") < result.output.index("games")


def test_kernel_for_each_format():
    assert runner.kernel_for("lgb") == "lgb"
    assert {runner.kernel_for(f) for f in ("standard", "epic1", "epic2", "epic3", "epic4")} == {"epic"}
