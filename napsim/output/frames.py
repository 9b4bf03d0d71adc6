"""A run folder read back as tidy pandas frames: the summaries of every point, convergence, rack
waits, distributions, per-chunk and per-game rows, and the inputs of the charts.

`load(DIR)` reads ``study.json`` and the chunk files (stopping where the run's target error stops,
so a report and its run agree on n); the ``*_frame`` functions turn that into tidy DataFrames.
Every rate carries its Wilson 95% interval and n (its trials: turns or rack picks), every mean a
normal 95% interval from the per-game sums of squares (means per turn: a delta-method interval for
the ratio), its std and the number of games (`napsim.sim.summary`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from napsim.model.cards import load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import load_scenario
from napsim.sim.metric_table import extend_rows
from napsim.sim.summary import commander_roles, with_words
from napsim.sim.tables import KIND_NAMES
from napsim.study.store import point_chunks, read_meta

SUMMARY_COLUMNS = ["side_key", "side", "metric", "title", "unit", "kind", "value", "std", "ci_low", "ci_high",
                   "n", "games", "interval"]


@dataclass
class StudyData:
    """What a run folder holds, read back: per point the running sums and the chunk series."""

    out: Path
    meta: dict
    accs: dict = field(default_factory=dict)          # point id -> napsim.sim.sums.GameSums
    complete: dict = field(default_factory=dict)      # point id -> bool
    convergence: list = field(default_factory=list)   # rows for convergence_frame
    chunks: list = field(default_factory=list)        # (point id, k, chunk dict) without rows
    rows: dict = field(default_factory=dict)          # point id -> [per-game arrays]
    odds: dict = field(default_factory=dict)          # point id -> DataFrame

    @property
    def kind(self) -> str:
        return self.meta["spec"]["kind"]

    @property
    def sweep_paths(self) -> list[str]:
        """Swept parameter paths, with joined keys (``a+b``) split into their paths."""
        return list(sweep_values(self.meta["spec"]["sweep"]))


def sweep_values(sweep: dict) -> dict:
    """{path: values} of a sweep table; a joined key ``a+b`` with values [[x, y], ...] gives
    a: [x, ...] and b: [y, ...]."""
    out = {}
    for key, values in sweep.items():
        paths = key.split("+")
        for i, path in enumerate(paths):
            out[path] = [v[i] for v in values] if len(paths) > 1 else list(values)
    return out


def load(out: str | Path) -> StudyData:
    """Read a run folder (complete or not)."""
    out = Path(out)
    meta = read_meta(out)
    if meta["spec"]["kind"] == "odds":
        return _load_odds(StudyData(out, meta))
    rec = Recorder(out, meta)
    complete = {}
    for p in meta["points"]:
        pid = p["id"]
        rec.data.accs[pid], complete[pid] = point_chunks(
            meta, pid, out, on_chunk=lambda k, ch, acc, pid=pid: rec.add(meta, pid, k, ch, acc))
    return rec.finish(meta, complete)


def _load_odds(data: StudyData) -> StudyData:
    for p in data.meta["points"]:
        path = data.out / "points" / p["id"] / "odds.csv"
        data.complete[p["id"]] = path.is_file()
        if path.is_file():
            text = {c: str for c in ("label", "question", "outcome", "interval", "note", "deck_warning")}
            data.odds[p["id"]] = pd.read_csv(path, keep_default_na=False, na_values=[""],
                                             dtype=text).fillna({"note": "", "deck_warning": ""})
    return data


class Recorder:
    """An engine study's `StudyData` built as each point's chunks are added up in order: `load`
    reads a run folder through one, and a run fills one as it plays (`add` is the `on_chunk` of
    `napsim.study.runloop.execute`), so that its report does not read the chunk files back. Both
    walk the chunks the same way (`napsim.study.store.ChunkWalk`), so both give the same data."""

    def __init__(self, out: str | Path, meta: dict | None = None):
        self.out = Path(out)
        self.data = StudyData(self.out, meta) if meta is not None else None

    def add(self, meta: dict, pid: str, k: int, ch: dict, acc) -> None:
        """Chunk k of point `pid` added to the point's running sums `acc` (meta: study.json)."""
        if self.data is None:
            self.data = StudyData(self.out, meta)
        data = self.data
        names = next(p["side_names"] for p in meta["points"] if p["id"] == pid)
        for r in acc.summary_rows(meta["side_keys"], names, meta["spec"]["main_metric"]):
            data.convergence.append(dict(point=pid, side_key=r["side_key"], side=r["side"], chunk=k,
                                         games=acc.games, metric=r["metric"], value=r["value"],
                                         ci_low=r["ci_low"], ci_high=r["ci_high"],
                                         half_width=(r["ci_high"] - r["ci_low"]) / 2))
        # what chunk_frame reads, not the histograms: a 10-million-game run has 1000 chunks
        data.chunks.append((pid, k, {key: ch[key] for key in ("first", "n", "sums")}))
        if "rows" in ch:
            data.rows.setdefault(pid, []).append(ch["rows"])
        data.accs[pid] = acc  # the walk's running sums: every chunk added so far

    def finish(self, meta: dict, complete: dict | None = None) -> StudyData:
        """The data, with the run's final `meta` (study.json as written at its end); `complete`:
        whether each point's chunks were all there (a finished run's are)."""
        data = self.data if self.data is not None else StudyData(self.out, meta)
        data.meta = meta
        data.complete = complete if complete is not None else {p: True for p in data.accs}
        return data


def _param_frame(data: StudyData) -> pd.DataFrame:
    rows = []
    for p in data.meta["points"]:
        rows.append(dict(point=p["id"], label=p["label"], **p["params"]))
    return pd.DataFrame(rows, columns=["point", "label", *data.sweep_paths])


def _with_params(data: StudyData, df: pd.DataFrame) -> pd.DataFrame:
    return _param_frame(data).merge(df, on="point", how="right")


def point_format(data: StudyData, point: dict) -> str | None:
    """The game format a point plays (its sweep value, the study's [set] value or its scenario's);
    None when the scenario no longer loads (the words then name commanders generically)."""
    spec = data.meta["spec"]
    for where in (point["params"], spec.get("set", {})):
        if "scenario.format" in where:
            return str(where["scenario.format"])
    return _scenario_format(spec["scenario"]) if spec.get("scenario") else None


@functools.lru_cache(maxsize=16)
def _scenario_format(ref: str) -> str | None:
    try:
        return load_scenario(ref).format
    except NapsimInputError:
        return None


def summary_frame(data: StudyData) -> pd.DataFrame:
    """Engine: one row per point, side and metric, with the metric's title and unit in words.
    Odds: one row per point, question and outcome."""
    if data.kind == "odds":
        return odds_frame(data)
    frames = []
    for p in data.meta["points"]:
        acc = data.accs[p["id"]]
        if acc.games == 0:
            continue
        df = with_words(acc.summary(data.meta["side_keys"], p["side_names"]),
                        commander_roles(point_format(data, p)))
        df.insert(0, "point", p["id"])
        frames.append(df)
    if not frames:
        return pd.DataFrame(columns=["point", "label", *data.sweep_paths, *SUMMARY_COLUMNS])
    return _with_params(data, pd.concat(frames, ignore_index=True))


def odds_frame(data: StudyData) -> pd.DataFrame:
    """Odds studies: every answer, with the point's deck and hand, std and exact-in-interval."""
    frames = []
    for p in data.meta["points"]:
        df = data.odds.get(p["id"])
        if df is None:
            continue
        df = df.copy()
        deck, hand = _odds_point_inputs(data, p)
        df.insert(0, "hand", hand)
        df.insert(0, "deck", Path(str(deck)).stem if str(deck).endswith(".csv") else deck)
        df.insert(0, "point", p["id"])
        p_ = df["simulated"].where(df["interval"] == "wilson95")
        df.insert(df.columns.get_loc("ci_low"), "std", np.sqrt(p_ * (1 - p_)))
        df["exact_in_ci"] = (df["exact"] >= df["ci_low"]) & (df["exact"] <= df["ci_high"])
        frames.append(df)
    if not frames:
        return pd.DataFrame()
    out = pd.concat(frames, ignore_index=True)
    params = _param_frame(data)
    params = params.drop(columns=[c for c in ("deck", "hand") if c in params.columns])
    return params.rename(columns={"label": "point_label"}).merge(out, on="point", how="right")


def _odds_point_inputs(data: StudyData, p: dict):
    spec = data.meta["spec"]
    deck, hand = spec["deck"], spec["hand"]
    for k, v in [*spec["set"].items(), *p["params"].items()]:
        if k == "deck":
            deck = v
        else:
            hand = v
    return deck, hand


def points_frame(data: StudyData) -> pd.DataFrame:
    """One row per point: its parameters, games played and whether it is complete."""
    df = _param_frame(data)
    if data.kind == "engine":
        df["games"] = [data.accs[p].games for p in df["point"]]
        df["chunks"] = [data.accs[p].chunks for p in df["point"]]
    else:
        df["games"] = [data.meta["spec"]["games"] if data.complete[p] else 0 for p in df["point"]]
    df["complete"] = [data.complete[p] for p in df["point"]]
    return df


def convergence_frame(data: StudyData) -> pd.DataFrame:
    """The main metric after every chunk: running estimate and 95% interval against games."""
    cols = ["point", "side_key", "side", "chunk", "games", "metric", "value", "ci_low", "ci_high",
            "half_width"]
    return _with_params(data, pd.DataFrame(data.convergence, columns=cols))


def rack_wait_frame(data: StudyData) -> pd.DataFrame:
    """Cards taken from the Courier Rack by the turns they waited there, per point and card kind."""

    rows = []
    for pid, acc in data.accs.items():
        if acc.rack_wait is None:
            continue
        for k, kind in enumerate(KIND_NAMES):
            for w in np.flatnonzero(acc.rack_wait[k]):
                rows.append(dict(point=pid, kind=kind, wait_turns=int(w), cards=int(acc.rack_wait[k, w])))
    return _with_params(data, pd.DataFrame(rows, columns=["point", "kind", "wait_turns", "cards"]))


def tactician_frame(data: StudyData) -> pd.DataFrame:
    """Mean Tactician cards a side holds at the start of its turn t, per point, side and turn
    (from the kernel's per-turn sums; summed over the commanders of the side)."""
    rows = []
    for pid, acc in data.accs.items():
        tt = acc.tactician_turns
        if tt is None or acc.games == 0:
            continue
        for s, key in enumerate(data.meta["side_keys"]):
            for t in range(tt.shape[1]):
                rows.append(dict(point=pid, side_key=key, turn=t + 1, held=tt[s, t] / acc.games))
    return pd.DataFrame(rows, columns=["point", "side_key", "turn", "held"])


def rack_wait_summary(data: StudyData) -> pd.DataFrame:
    """Per point and card kind: cards taken, mean and std of the wait, share taken without waiting."""
    df = rack_wait_frame(data)
    if df.empty:
        return df
    rows = []
    for (pid, kind), g in df.groupby(["point", "kind"], sort=False):
        n = int(g["cards"].sum())
        w = g["wait_turns"].to_numpy(float)
        c = g["cards"].to_numpy(float)
        mean = float((w * c).sum() / n)
        var = float((c * (w - mean) ** 2).sum() / max(n - 1, 1))
        rows.append(dict(point=pid, kind=kind, cards=n, mean_wait=mean, std_wait=math.sqrt(var),
                         share_no_wait=float(c[w == 0].sum() / n)))
    return _with_params(data, pd.DataFrame(rows))


def distribution_frame(data: StudyData) -> pd.DataFrame:
    """Per-game distributions of the study's `distribution` metrics: games per value."""
    columns = data.meta["columns"]
    rows = []
    for pid, acc in data.accs.items():
        if acc.hist is None:
            continue
        p = next(x for x in data.meta["points"] if x["id"] == pid)
        for metric in data.meta["spec"]["distribution"]:
            c = columns.index(metric)
            for s, key in enumerate(data.meta["side_keys"]):
                h = acc.hist[s, c]
                for v in np.flatnonzero(h):
                    rows.append(dict(point=pid, side_key=key, side=p["side_names"][s], metric=metric,
                                     value=int(v), games=int(h[v]), share=h[v] / acc.games))
    cols = ["point", "side_key", "side", "metric", "value", "games", "share"]
    return _with_params(data, pd.DataFrame(rows, columns=cols))


def chunk_frame(data: StudyData) -> pd.DataFrame:
    """One row per point, chunk and side: the chunk's games and each metric summed over them."""
    columns = data.meta["columns"]
    rows = []
    for pid, k, ch in data.chunks:
        p = next(x for x in data.meta["points"] if x["id"] == pid)
        for s, key in enumerate(data.meta["side_keys"]):
            r = dict(point=pid, chunk=k, first_game=int(ch["first"]), games=int(ch["n"]), side_key=key,
                     side=p["side_names"][s])
            r.update({c: int(v) for c, v in zip(columns, ch["sums"][s], strict=True)})
            rows.append(r)
    return _with_params(data, pd.DataFrame(rows))


def per_game_frame(data: StudyData) -> pd.DataFrame:
    """One row per point, game and side with every per-game metric (studies with per_game = true)."""
    if not data.meta["spec"]["per_game"]:
        raise ValueError("this study keeps no per-game rows: set per_game = true in [study]")
    columns = data.meta["columns"]
    frames = []
    for p in data.meta["points"]:
        parts = data.rows.get(p["id"])
        if not parts:
            continue
        x = extend_rows(np.concatenate(parts).astype(np.int64))
        for s, key in enumerate(data.meta["side_keys"]):
            df = pd.DataFrame(x[:, s, :], columns=columns)
            df.insert(0, "side", p["side_names"][s])
            df.insert(0, "side_key", key)
            df.insert(0, "game", np.arange(len(df)))
            df.insert(0, "point", p["id"])
            frames.append(df)
    return _with_params(data, pd.concat(frames, ignore_index=True))


def study_decks(data: StudyData) -> list:
    """The decks an engine study plays (`napsim.model.cards.Deck`), by name or path; unreadable
    ones left out (the run itself has refused them already)."""
    spec = data.meta["spec"]
    refs = {spec["deck"]} | set(sweep_values(spec["sweep"]).get("deck", [])) | ({spec["set"]["deck"]}
                                                                    if "deck" in spec["set"] else set())
    if None in refs:
        refs.discard(None)
        try:
            refs.add(load_scenario(spec["scenario"]).deck)
        except (NapsimInputError, TypeError):
            pass
    out = []
    for ref in sorted(map(str, refs)):
        try:
            out.append(load_deck(ref))
        except NapsimInputError:
            pass
    return out


def deck_warnings(data: StudyData) -> list[str]:
    """The warnings of the decks a study's results depend on (estimated card counts), sorted."""
    if data.kind == "odds":
        return sorted({w for df in data.odds.values() for w in df["deck_warning"] if w})
    return sorted({w for w in (d.estimated_warning() for d in study_decks(data)) if w})


def summary_cells(summ: pd.DataFrame, columns: tuple[str, ...]) -> dict[tuple, tuple]:
    """{(point, side_key, metric): its `columns`} of a summary frame's first row per key, found in
    one pass (filtering the frame once per cell costs a scan of its string columns each time)."""
    keys = ("point", "side_key", "metric")
    cells: dict[tuple, tuple] = {}
    for row in zip(*(summ[c].tolist() for c in (*keys, *columns)), strict=True):
        cells.setdefault(row[:3], row[3:])
    return cells


def chart_inputs(data: StudyData) -> dict:
    """Everything `napsim.output.charts.figure` draws from."""
    spec = data.meta["spec"]
    spec = dict(spec, sweep=sweep_values(spec["sweep"]))
    inp = dict(kind=data.kind, spec=spec, sweep=data.sweep_paths, side_keys=data.meta["side_keys"],
               points=data.meta["points"], summary=summary_frame(data), deck_warnings=deck_warnings(data))
    if data.kind == "engine":
        inp.update(convergence=convergence_frame(data), rack_wait=rack_wait_frame(data),
                   distribution=distribution_frame(data), tactician=tactician_frame(data))
    return inp
