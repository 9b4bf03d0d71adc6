"""Per-game rows streamed to Parquet chunk by chunk (issue 17): `napsim simulate` keeps no rows in
memory, and the files hold exactly the rows a run kept in memory would give."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
from click.testing import CliRunner

from napsim import cli
from napsim.sim.packing import Simulation


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_sink_takes_every_chunk_in_order_and_nothing_is_kept():
    sim = Simulation.build("symmetric")
    seen = []
    res = sim.run(700, 3, chunk=300, sink=lambda first, out: seen.append((first, out.rows.shape[0])))
    assert seen == [(0, 300), (300, 300), (600, 100)]
    assert res.per_game is None and res.commander_rows is None
    kept = sim.run(700, 3, chunk=300, per_game=True)
    assert np.array_equal(res.totals, kept.totals)  # the sums do not depend on where rows go


def _simulate(tmp_path, scenario: str, games: int, chunk: int):
    out = tmp_path / scenario
    r = CliRunner().invoke(cli.cli, ["simulate", "--scenario", scenario, "--games", str(games),
                                     "--chunk", str(chunk), "--seed", "11", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_streamed_games_file_equals_the_in_memory_frame(tmp_path):
    out = _simulate(tmp_path, "symmetric", 500, 120)
    streamed = pd.read_parquet(out / "games.parquet")
    kept = Simulation.build("symmetric").run(500, 11, chunk=500, per_game=True).per_game_frame()
    pd.testing.assert_frame_equal(streamed, kept)
    assert streamed["game"].tolist()[:4] == [0, 0, 1, 1]  # game by game, the sides in order
    assert not (out / "commander_games.parquet").exists()  # one a side: no all-zero rows
    assert (out.stat().st_mode & 0o777) == 0o777 & ~_umask()  # an ordinary folder, not a private one


def test_streamed_commander_file_equals_the_in_memory_frame(tmp_path):
    out = _simulate(tmp_path, "epic3-tamames", 300, 70)
    kept = Simulation.build("epic3-tamames").run(300, 11, per_game=True)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "games.parquet"), kept.per_game_frame())
    streamed = pd.read_parquet(out / "commander_games.parquet")
    pd.testing.assert_frame_equal(streamed, kept.commander_games_frame())
    assert len(streamed) == 300 * 2 * 3  # three commanders a side
