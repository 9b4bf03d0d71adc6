"""Deck ensembles: the same question answered on N plausible decks
(`--deck-ensemble N` on simulate, compare, balance and run).

A deck file may give plausible ranges for its estimated counts (napsim.model.deck_ranges).
`compare_ensemble` replays a comparison on each of N decks drawn inside those ranges, with the
same games (same seed and game indices) as the file's deck, and returns one row per deck, metric
and side; `ensemble_summary` condenses those rows to the spread across decks, the Monte Carlo
half-width beside it and how many decks agree on the sign of B - A. A deck without ranges gives N
copies of itself, so its spread is exactly zero. `simulate_ensemble` plays `napsim simulate`'s
games on each deck. `balance_ensemble` searches the balancing setting on each plausible deck (the
same games), `balance_summary` gives the crossings' range and spread and counts the decks without a
crossing in the range.

A study's main metric on plausible decks (`napsim run --deck-ensemble N`, a study's
`deck_ensemble = N`, `run_study_ensemble`): after the study has run, every point plays its games
again (the same seed and game indices [0, n), n the games the point holds) on N plausible decks of
its deck (`Deck.plausible`, seeded by the study's seed), keeping only the main metric. The rows go
to ``deck_ensemble.csv`` in the run folder, beside the chunks, which stay exactly as they were: the
study's identity and its chunk files do not depend on the ensemble. ``deck_ensemble.json`` records
what the rows answer (the study's identity hash, N, the deck seed, the metric and each point's
games); a later run with the same record reuses the file, any other plays it again. A report shows
the rows only while that record matches its run folder (`load_study_ensemble`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from napsim.model.cards import Deck, load_deck
from napsim.model.defaults import MAX_DECK_ENSEMBLE
from napsim.model.errors import NapsimInputError
from napsim.sim.packing import Simulation
from napsim.study.balance import Balance, find_balance
from napsim.study.spec import Study
from napsim.study.store import atomic_write_files, locked, read_meta
from napsim.study.variants import Comparison, PlayedGames, Variant, compare_frame, default_metrics


def check_ensemble(n: int) -> None:
    if not 1 <= n <= MAX_DECK_ENSEMBLE:
        raise NapsimInputError("--deck-ensemble", "deck-ensemble", f"{n} is out of range",
                               f"1..{MAX_DECK_ENSEMBLE} plausible decks")


@dataclass
class DeckEnsemble:
    """One row per plausible deck, metric and side (`frame`), and how the decks were drawn."""

    deck: Deck          # the file's deck
    n: int
    seed: int           # of the deck draw
    games: int          # per deck and variant: the same games as the file's deck played
    frame: pd.DataFrame

    def summary(self) -> pd.DataFrame:
        return ensemble_summary(self.frame, self.n)


def compare_ensemble(cmp: Comparison, n: int, seed: int, chunk: int) -> DeckEnsemble:
    """Replay `cmp` (its games, seed and metrics) on n plausible decks of its one deck."""
    check_ensemble(n)
    check_one_deck(cmp.a, cmp.b)
    deck_a = cmp.sims[0].deck
    metrics = list(dict.fromkeys(cmp.frame["metric"]))
    inputs = [v.inputs() for v in (cmp.a, cmp.b)]
    frames = []
    for k, dk in enumerate(deck_a.plausible(n, seed)):
        played = []
        for sc, _, policies in inputs:
            p = PlayedGames(Simulation.build(sc, policies, dk), cmp.seed, chunk)
            p.play_to(cmp.games)
            played.append(p)
        f = compare_frame(played, metrics)
        f.insert(0, "deck_index", k)
        frames.append(f)
    return DeckEnsemble(deck_a, n, seed, cmp.games, pd.concat(frames, ignore_index=True))


ENSEMBLE_COLUMNS = ["metric", "side_key", "side", "decks", "negative", "positive", "zero",
                    "clear_negative", "clear_positive", "ensemble_min", "ensemble_max", "ensemble_sd",
                    "mc_half_width"]


def ensemble_summary(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    """Per metric and side: how many decks have B - A negative, positive or zero, its range and
    standard deviation across decks, and the largest Monte Carlo half-width of one deck; `clear_*`
    count the decks whose paired 95% interval lies wholly below or above 0."""
    rows = []
    for (metric, key), g in frame.groupby(["metric", "side_key"], sort=False):
        d = g["difference"].to_numpy(float)
        ok = d[np.isfinite(d)]
        rows.append(dict(
            metric=metric, side_key=key, side=g["side"].iloc[0], decks=n,
            negative=int((ok < 0).sum()), positive=int((ok > 0).sum()), zero=int((ok == 0).sum()),
            clear_negative=int((g["ci_high"] < 0).sum()), clear_positive=int((g["ci_low"] > 0).sum()),
            ensemble_min=float(ok.min()) if ok.size else np.nan,
            ensemble_max=float(ok.max()) if ok.size else np.nan,
            ensemble_sd=float(ok.std(ddof=1)) if ok.size > 1 else 0.0,
            mc_half_width=float(g["half_width"].max())))
    return pd.DataFrame(rows, columns=ENSEMBLE_COLUMNS)


def check_one_deck(a: Variant, b: Variant) -> None:
    """A deck ensemble varies one deck: A and B must play the same deck file."""
    decks = []
    for v in (a, b):
        sc, deck, _ = v.inputs()
        decks.append(load_deck(deck or sc.deck))
    if decks[0].sha256 != decks[1].sha256:
        raise NapsimInputError("--deck-ensemble", "deck-ensemble",
                               f"A and B play different decks ({decks[0].name}, {decks[1].name})",
                               "one deck for both variants")


SIMULATE_COLUMNS = ["side", "metric", "value", "ci_low", "ci_high", "decks", "ensemble_min",
                    "ensemble_max", "ensemble_sd", "mc_half_width"]


def simulate_ensemble(sim: Simulation, policies, n: int, seed: int, games: int, game_seed: int,
                      chunk: int) -> DeckEnsemble:
    """`napsim simulate`'s games (`game_seed`) on the file's deck (deck_index -1) and on n plausible
    decks: one row per deck, side and metric (those `napsim compare` reports by default), with
    the value and its 95% half-width."""
    check_ensemble(n)
    metrics = default_metrics([sim])
    rows = []
    for k, dk in enumerate([sim.deck, *sim.deck.plausible(n, seed)]):
        played = PlayedGames(sim if k == 0 else Simulation.build(sim.scenario, policies, dk),
                             game_seed, chunk)
        played.play_to(games)
        for m in metrics:
            for side, e in zip(sim.scenario.sides, played.estimates(m), strict=True):
                if e is not None:
                    rows.append(dict(deck_index=k - 1, side=side.name, metric=m, value=e.value,
                                     half_width=e.half_width))
    return DeckEnsemble(sim.deck, n, seed, games, pd.DataFrame(rows))


def simulate_summary(ens: DeckEnsemble) -> pd.DataFrame:
    """Per side and metric: the file deck's value and 95% interval, the range and standard deviation
    across the plausible decks, and the largest Monte Carlo half-width of one deck."""
    rows = []
    for (side, metric), g in ens.frame.groupby(["side", "metric"], sort=False):
        if metric.startswith("g_") and not g["value"].any():  # a side without the Guerrilla rule
            continue
        base = g[g["deck_index"] < 0].iloc[0]
        v = g.loc[g["deck_index"] >= 0, "value"].to_numpy(float)
        rows.append(dict(side=side, metric=metric, value=base["value"],
                         ci_low=base["value"] - base["half_width"],
                         ci_high=base["value"] + base["half_width"], decks=ens.n,
                         ensemble_min=float(v.min()), ensemble_max=float(v.max()),
                         ensemble_sd=float(v.std(ddof=1)) if len(v) > 1 else 0.0,
                         mc_half_width=float(g["half_width"].max())))
    return pd.DataFrame(rows, columns=SIMULATE_COLUMNS)


# --------------------------------------------------------------------------------------------
# napsim balance --deck-ensemble

BALANCE_COLUMNS = ["deck_index", "crossed", "crossing", "ci_low", "ci_high", "half_width", "below", "above",
                   "difference_at_low", "difference_at_high", "settings", "games"]


def balance_row(b: Balance, deck_index: int) -> dict:
    """One deck's answer: its crossing and interval (nan without one), the bracket, and the
    difference at both ends of the range."""
    lo, hi = (b.setting(v).f.value for v in (b.vary.low, b.vary.high))
    return dict(deck_index=deck_index, crossed=b.crossed, crossing=b.crossing[0], ci_low=b.crossing[1],
                ci_high=b.crossing[2], half_width=b.half_width, below=b.bracket[0], above=b.bracket[1],
                difference_at_low=lo, difference_at_high=hi, settings=len(b.settings), games=b.games)


def balance_ensemble(res: Balance, n: int, seed: int, progress=None) -> DeckEnsemble:
    """The search of `res` (its parameter, range, metric, games and seed) replayed on n plausible
    decks of its deck: one row per deck (`balance_row`), the file's deck first as deck_index -1.
    A deck without a crossing in the range is a row with `crossed` False, not an error."""
    check_ensemble(n)
    equalize = [res.side_keys[s] for s in res.sides] if len(res.sides) == 2 else None
    side = res.side_keys[res.sides[0]] if equalize is None else None
    rows = [balance_row(res, -1)]
    for k, dk in enumerate(res.deck.plausible(n, seed)):
        b = find_balance(res.base, res.vary, res.metric, equalize, res.target, side, res.games, res.seed,
                         res.chunk, deck=dk, every_setting=False)
        rows.append(balance_row(b, k))
        if progress:
            progress(f"plausible deck {k + 1} of {n}: " + (f"crossing {b.crossing[0]:.4g}" if b.crossed
                                                          else "no crossing in the range"))
    return DeckEnsemble(res.deck, n, seed, res.games, pd.DataFrame(rows, columns=BALANCE_COLUMNS))


def balance_summary(ens: DeckEnsemble) -> dict:
    """Across the plausible decks (not the file's): how many cross, the crossings' range and
    standard deviation, the largest Monte Carlo half-width of one deck's crossing, and the decks
    without a crossing whose difference stays above (or below) 0 over the whole range."""
    d = ens.frame[ens.frame["deck_index"] >= 0]
    c = d[d["crossed"]]
    x = c["crossing"].to_numpy(float)
    none = d[~d["crossed"]]
    return dict(decks=ens.n, crossed=len(c), no_crossing=len(none),
                no_crossing_above=int((none["difference_at_low"] >= 0).sum()),
                no_crossing_below=int((none["difference_at_low"] < 0).sum()),
                crossing_min=float(x.min()) if x.size else np.nan,
                crossing_max=float(x.max()) if x.size else np.nan,
                crossing_sd=float(x.std(ddof=1)) if x.size > 1 else (0.0 if x.size else np.nan),
                mc_half_width=float(c["half_width"].max()) if x.size else np.nan,
                difference_at_low_min=float(d["difference_at_low"].min()),
                difference_at_low_max=float(d["difference_at_low"].max()),
                difference_at_high_min=float(d["difference_at_high"].min()),
                difference_at_high_max=float(d["difference_at_high"].max()),
                deck_seed=ens.seed, games=ens.games)


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
                                   hint="run the study to the end first")
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
