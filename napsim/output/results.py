"""Write a run's results atomically: games.parquet, summary.csv, rack_wait.csv, manifest.json,
and for the multi-player formats commanders.csv and commander_games.parquet."""

from __future__ import annotations

import json
import platform
import shutil
import tempfile
from pathlib import Path

import numba
import numpy as np
import pandas as pd

from napsim.model.errors import NapsimInputError
from napsim.model.version import __version__


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


def write_results(res, out_dir: str | Path, force: bool = False) -> Path:
    """Write into a temporary folder, then move it into place: never a half-written result."""
    out = Path(out_dir)
    if out.exists() and any(out.iterdir()) and not force:
        raise NapsimInputError(str(out), "--out", "folder already holds results", "--force")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        if res.per_game is not None:
            res.per_game_frame().to_parquet(tmp / "games.parquet", index=False)
        res.summary().to_csv(tmp / "summary.csv", index=False)
        res.rack_wait_frame().to_csv(tmp / "rack_wait.csv", index=False)
        if res.commanders is not None and res.sim.scenario.format not in ("standard", "epic1"):
            res.commander_frame().to_csv(tmp / "commanders.csv", index=False)
            if res.commander_rows is not None:
                res.commander_games_frame().to_parquet(tmp / "commander_games.parquet", index=False)
        (tmp / "manifest.json").write_text(json.dumps(manifest(res), indent=2))
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out
