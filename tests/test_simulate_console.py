"""What `napsim simulate` prints and writes for a designer (issue 19): the headline first, every
per-game mean with its interval and n, exact quantities without an interval, and only the rates
that mean something for the format and the side."""

from __future__ import annotations

import pandas as pd
from click.testing import CliRunner

from napsim import cli
from napsim.sim.packing import Simulation


def _simulate(tmp_path, *args: str) -> tuple[str, pd.DataFrame]:
    out = tmp_path / "run"
    r = CliRunner().invoke(cli.cli, ["simulate", "--games", "400", "--seed", "3", "--no-per-game",
                                     "--out", str(out), *args])
    assert r.exit_code == 0, r.output
    return r.output, pd.read_csv(out / "summary.csv")


def test_every_mean_has_an_interval_and_n(tmp_path):
    _, summary = _simulate(tmp_path, "--scenario", "tamames")
    is_mean = summary["kind"].isin(["mean_per_game", "mean_per_turn"])
    means = summary[is_mean & (summary["interval"] != "none")]
    assert len(means) > 100
    assert means[["ci_low", "ci_high", "n"]].notna().all().all()
    assert ((means["ci_low"] <= means["value"]) & (means["value"] <= means["ci_high"])).all()
    # the same numbers a study gives for the same games (one place turns sums into intervals)
    res = Simulation.build("tamames").run(400, 3)
    pd.testing.assert_frame_equal(summary, res.summary(), check_dtype=False)


def test_the_headline_comes_first_and_exact_rates_have_no_interval(tmp_path):
    text, _ = _simulate(tmp_path, "--scenario", "tamames")
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("Orders a turn"))
    assert "effective orders a turn" in lines[first + 1] and "[" in lines[first + 1]
    assert "Exact (the same in every game" in text
    exact = text.split("Exact (")[1].split("Rates, per side")[0]
    assert "French: Share of rack picks from 5 cards = 0.3333" in exact  # the rack cycle (E10)
    rates = text.split("Rates, per side")[1]
    assert "Share of rack picks" not in rates and "NaN" not in text and "nan" not in rates
    assert "Spanish  Share of French turns with a card nullified (Spanish counters)" in rates  # G7


def test_the_standard_game_prints_no_rack_rates(tmp_path):
    text, _ = _simulate(tmp_path, "--scenario", "symmetric", "--set", "scenario.format=standard",
                        "--deck", "ccn70")
    assert "Share of rack picks" not in text and "same-section pair" not in text
    assert "effective orders a turn" in text
