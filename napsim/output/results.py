"""Write a run's results atomically: games.parquet, summary.csv, rack_wait.csv, manifest.json,
and for the multi-player formats commanders.csv and commander_games.parquet. The games are played
above this layer (`napsim.api.simulate_into_folder`), into the folder `result_folder` stages."""

from __future__ import annotations

import contextlib
import json
import platform
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from napsim.model.version import __version__
from napsim.output.folders import check_result_dest, staged_result_folder
from napsim.output.gamefile import GAMES_FILE, GameRowsWriter
from napsim.sim.runner import ONE_A_SIDE


def manifest(res) -> dict:
    """What a reader needs to reproduce or audit a run."""
    sim = res.sim
    return {
        "napsim": __version__, "numba": numba.__version__, "numpy": np.__version__,
        "pandas": pd.__version__, "python": platform.python_version(),
        "seed": res.seed, "games": res.games, "wall_seconds": round(res.wall_seconds, 3),
        "scenario": sim.scenario.name, "scenario_file": str(sim.scenario.path),
        "scenario_sha256": sim.scenario.sha256, "format": sim.scenario.format,
        "deck": sim.deck.name, "deck_file": str(sim.deck.path), "deck_sha256": sim.deck.sha256,
        "deck_warning": sim.deck.estimated_warning(),
        "policies": list(sim.policy_names), "policy_vectors": sim.policies.tolist(),
        "examples_note": sim.scenario.examples,
    }


# every file `napsim simulate --out` writes (--force replaces a folder of these only)
SIMULATE_FILES = ("games.parquet", "summary.csv", "rack_wait.csv", "commanders.csv",
                  "commander_games.parquet", "manifest.json")


def check_results_dest(out_dir: str | Path, force: bool) -> Path:
    """Refuse, before playing, an --out that cannot take the results (`napsim.output.folders`)."""
    return check_result_dest(out_dir, force, SIMULATE_FILES)


@contextlib.contextmanager
def result_folder(sim, out_dir: str | Path, force: bool, per_game: bool,
                  notice: Callable[[str], None] | None = None) -> Iterator[ResultFolder]:
    """A result folder written whole or not at all (`napsim.output.folders`): the caller plays the
    games into `folder.sink` (per-game rows streamed to Parquet chunk by chunk as they are played,
    so memory stays flat; None without `per_game`), then hands the result to `folder.write`."""
    with staged_result_folder(out_dir, force, SIMULATE_FILES, notice) as stage:
        sink = GameRowsWriter(stage.tmp, sim) if per_game else None
        folder = ResultFolder(stage, sink)
        with stage.writing(GAMES_FILE):
            try:
                yield folder
            finally:
                if sink is not None:
                    sink.close()
        if folder.result is None:
            raise RuntimeError("result_folder: no result written")
        stage.write(result_files(folder.result))


@dataclass
class ResultFolder:
    """Where a run writes its results: the per-game row sink, then the result (`result_folder`)."""

    stage: object
    sink: GameRowsWriter | None
    result: object = None

    @property
    def out(self) -> Path:
        """The result folder, once it is in place."""
        return self.stage.out

    def write(self, res) -> None:
        """The finished result: its files are written when the block ends."""
        self.result = res


def result_files(res) -> dict[str, Callable[[Path], None]]:
    """The files of a result folder (name -> writer); per-game rows when the result keeps them."""
    files: dict[str, Callable[[Path], None]] = {}
    if res.per_game is not None:
        files["games.parquet"] = lambda p: res.per_game_frame().to_parquet(p, index=False)
    files["summary.csv"] = lambda p: res.summary().to_csv(p, index=False)
    files["rack_wait.csv"] = lambda p: res.rack_wait_frame().to_csv(p, index=False)
    if res.commanders is not None and res.sim.scenario.format not in ONE_A_SIDE:
        files["commanders.csv"] = lambda p: res.commander_frame().to_csv(p, index=False)
        if res.commander_rows is not None:
            files["commander_games.parquet"] = lambda p: res.commander_games_frame().to_parquet(
                p, index=False)
    files["manifest.json"] = lambda p: p.write_text(json.dumps(manifest(res), indent=2))
    return files
