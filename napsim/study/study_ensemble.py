"""A study's main metric on plausible decks (`napsim run --deck-ensemble N`, a study's
`deck_ensemble = N`): how much the unknown card counts move each point's answer.

After the study has run, every point plays its games again (the same seed and game indices
[0, n), n the games the point holds) on N plausible decks of its deck (`Deck.plausible`, seeded by
the study's seed), keeping only the main metric. The rows go to ``deck_ensemble.csv`` in the run
folder, beside the chunks, which stay exactly as they were: the study's identity and its chunk
files do not depend on the ensemble. ``deck_ensemble.json`` records what the rows answer (the
study's identity hash, N, the deck seed, the metric and each point's games); a later run with the
same record reuses the file, any other plays it again. A report shows the rows only while that
record matches its run folder (`load_study_ensemble`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from napsim.model.errors import NapsimInputError
from napsim.sim.packing import Simulation
from napsim.study.ensemble import check_ensemble
from napsim.study.spec import Study
from napsim.study.storage import atomic_write_files, locked, read_meta
from napsim.study.variants import PlayedGames

ENSEMBLE_CSV = "deck_ensemble.csv"
ENSEMBLE_JSON = "deck_ensemble.json"
COLUMNS = ["point", "side_key", "metric", "deck_index", "value", "half_width", "games"]


def check_study_ensemble(st: Study, n: int | None) -> None:
    """Refused before anything runs: N out of range, or a study that is not an engine study."""
    if n is None:
        return
    check_ensemble(n)
    if st.kind != "engine":
        raise NapsimInputError("--deck-ensemble", "deck-ensemble", "odds studies answer exactly, per deck",
                               "leave it out, or an engine study")


def ensemble_record(st: Study, meta: dict, n: int) -> dict:
    """What the rows of deck_ensemble.csv answer; equal records, equal rows."""
    return dict(identity_sha256=meta["identity_sha256"], decks=n, deck_seed=st.seed, metric=st.main_metric,
                side_key=st.main_side, games={p.id: int(meta["status"][p.id]["games"]) for p in st.points})


def run_study_ensemble(st: Study, out: str | Path, n: int,
                       progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Play every (complete) point of the study in `out` on n plausible decks; write (or reuse)
    deck_ensemble.csv and deck_ensemble.json. One row per point and deck."""
    check_study_ensemble(st, n)
    out = Path(out)
    with locked(out):
        meta = read_meta(out)
        missing = [p.id for p in st.points if not meta["status"].get(p.id, {}).get("done")]
        if missing:
            raise NapsimInputError(str(out), "deck-ensemble", f"point {missing[0]} has not finished",
                                   "run the study to the end first")
        record = ensemble_record(st, meta, n)
        old = _read_record(out)
        if old == record and (out / ENSEMBLE_CSV).is_file():
            return pd.read_csv(out / ENSEMBLE_CSV)
        side = st.side_keys.index(st.main_side)
        rows = []
        for p in st.points:
            sc, dk, policies = st.load_point(p)
            games = record["games"][p.id]
            for k, deck in enumerate(dk.plausible(n, st.seed)):
                played = PlayedGames(Simulation.build(sc, policies, deck), st.seed, st.chunk,
                                     metrics=[st.main_metric])
                played.play_to(games)
                e = played.estimates(st.main_metric)[side]
                rows.append(dict(point=p.id, side_key=st.main_side, metric=st.main_metric, deck_index=k,
                                 value=e.value if e is not None else math.nan,
                                 half_width=e.half_width if e is not None else math.nan, games=games))
            if progress:
                progress(f"deck ensemble: point {p.index + 1}/{len(st.points)} on {n} plausible decks")
        df = pd.DataFrame(rows, columns=COLUMNS)
        atomic_write_files({out / ENSEMBLE_CSV: df.to_csv(index=False, float_format="%.10g").encode(),
                            out / ENSEMBLE_JSON: (json.dumps(record, indent=1) + "\n").encode()})
    return df


def _read_record(out: Path) -> dict | None:
    try:
        return json.loads((out / ENSEMBLE_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def load_study_ensemble(out: str | Path, meta: dict) -> tuple[pd.DataFrame, dict] | None:
    """The ensemble rows of a run folder and their record, or None when there are none or they
    answer another run (another identity, or points that have played more games since)."""
    out = Path(out)
    record = _read_record(out)
    if not isinstance(record, dict) or record.get("identity_sha256") != meta.get("identity_sha256"):
        return None
    status = meta.get("status", {})
    games = record.get("games")
    if not isinstance(games, dict) or any(status.get(pid, {}).get("games") != g for pid, g in games.items()):
        return None
    try:
        df = pd.read_csv(out / ENSEMBLE_CSV)
    except (OSError, ValueError):
        return None
    if list(df.columns) != COLUMNS:
        return None
    return df, record
