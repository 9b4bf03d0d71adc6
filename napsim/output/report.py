"""Study reports: tidy pandas summaries of a run folder, a Markdown report and a self-contained HTML page.

`load(DIR)` reads ``study.json`` and the chunk files (stopping where the run's target error stops,
so a report and its run agree on n); the ``*_frame`` functions turn that into tidy DataFrames;
`write_report` writes them as CSVs next to ``report.md`` and ``report.html`` and the charts of
`napsim.charts` (PNG and SVG files; the HTML page inlines the PNGs as base64, so it needs nothing
but itself: no network, no other file).

Every rate carries its Wilson 95% interval and n (its trials: turns or rack picks), every mean a
normal 95% interval from the per-game sums of squares (means per turn: a delta-method interval for
the ratio), its std and the number of games.
"""

from __future__ import annotations

import base64
import html
import json
import math
import platform
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from napsim.model.errors import NapsimInputError
from napsim.model.version import __version__
from napsim.study import spec as st

SUMMARY_COLUMNS = ["side_key", "side", "metric", "kind", "value", "std", "ci_low", "ci_high", "n", "games",
                   "interval"]
CSV_FLOAT = "%.10g"


@dataclass
class StudyData:
    """What a run folder holds, read back: per point the running sums and the chunk series."""

    out: Path
    meta: dict
    accs: dict = field(default_factory=dict)          # point id -> study.Acc
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
    meta = st.read_meta(out)
    data = StudyData(out, meta)
    spec = meta["spec"]
    if data.kind == "odds":
        for p in meta["points"]:
            path = out / "points" / p["id"] / "odds.csv"
            data.complete[p["id"]] = path.is_file()
            if path.is_file():
                text = {c: str for c in ("label", "question", "outcome", "interval", "note", "deck_warning")}
                data.odds[p["id"]] = pd.read_csv(path, keep_default_na=False, na_values=[""],
                                                 dtype=text).fillna({"note": "", "deck_warning": ""})
        return data
    for p in meta["points"]:
        pid = p["id"]
        names = p["side_names"]

        def on_chunk(k, ch, acc, _fresh, pid=pid, names=names):
            summ = st.engine_summary(acc, meta["side_keys"], names)
            main = summ[summ["metric"] == spec["main_metric"]]
            for r in main.itertuples():
                data.convergence.append(dict(point=pid, side_key=r.side_key, side=r.side, chunk=k,
                                             games=acc.games, metric=r.metric, value=r.value,
                                             ci_low=r.ci_low, ci_high=r.ci_high,
                                             half_width=(r.ci_high - r.ci_low) / 2))
            # what chunk_frame reads, not the histograms: a 10-million-game run has 1000 chunks
            data.chunks.append((pid, k, {key: ch[key] for key in ("first", "n", "sums")}))
            if "rows" in ch:
                data.rows.setdefault(pid, []).append(ch["rows"])

        acc, complete = st.point_chunks(meta, pid, out, on_chunk=on_chunk)
        data.accs[pid] = acc
        data.complete[pid] = complete
    return data


def _param_frame(data: StudyData) -> pd.DataFrame:
    rows = []
    for p in data.meta["points"]:
        rows.append(dict(point=p["id"], label=p["label"], **p["params"]))
    return pd.DataFrame(rows, columns=["point", "label", *data.sweep_paths])


def _with_params(data: StudyData, df: pd.DataFrame) -> pd.DataFrame:
    return _param_frame(data).merge(df, on="point", how="right")


def summary_frame(data: StudyData) -> pd.DataFrame:
    """Engine: one row per point, side and metric. Odds: one row per point, question and outcome."""
    if data.kind == "odds":
        return odds_frame(data)
    frames = []
    for p in data.meta["points"]:
        acc = data.accs[p["id"]]
        if acc.games == 0:
            continue
        df = st.engine_summary(acc, data.meta["side_keys"], p["side_names"])
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
    from napsim.sim.tables import KIND_NAMES

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
        tt = acc.extra.get("tactician_turns")
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
        x = st.extend_rows(np.concatenate(parts).astype(np.int64))
        for s, key in enumerate(data.meta["side_keys"]):
            df = pd.DataFrame(x[:, s, :], columns=columns)
            df.insert(0, "side", p["side_names"][s])
            df.insert(0, "side_key", key)
            df.insert(0, "game", np.arange(len(df)))
            df.insert(0, "point", p["id"])
            frames.append(df)
    return _with_params(data, pd.concat(frames, ignore_index=True))


def chart_inputs(data: StudyData) -> dict:
    """Everything `napsim.charts.figure` draws from."""
    spec = data.meta["spec"]
    spec = dict(spec, sweep=sweep_values(spec["sweep"]))
    inp = dict(kind=data.kind, spec=spec, sweep=data.sweep_paths, side_keys=data.meta["side_keys"],
               points=data.meta["points"], summary=summary_frame(data))
    if data.kind == "engine":
        inp.update(convergence=convergence_frame(data), rack_wait=rack_wait_frame(data),
                   distribution=distribution_frame(data), tactician=tactician_frame(data))
    return inp


# --------------------------------------------------------------------------------------------
# formatting


def fmt_num(v) -> str:
    """A number for a human reader: 4 significant figures, small probabilities in e-notation."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, bool | np.bool_):
        return "yes" if v else "no"
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    v = float(v)
    if v == 0:
        return "0"
    if abs(v) < 1e-3:
        return f"{v:.3g}"
    a = abs(v)
    if a < 1:
        return f"{v:.4f}"
    if a < 100:
        return f"{v:.3f}"
    if a < 1000:
        return f"{v:.2f}"
    return f"{v:,.1f}"


def fmt_ci(lo, hi) -> str:
    if any(x is None or (isinstance(x, float) and math.isnan(x)) for x in (lo, hi)):
        return "–"
    return f"[{fmt_num(lo)}, {fmt_num(hi)}]"


def md_table(df: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table (no extra dependency)."""
    def cell(v) -> str:
        return (fmt_num(v) if not isinstance(v, str) else v).replace("|", "\\|").replace("\n", " ")

    head = "| " + " | ".join(str(c) for c in df.columns) + " |"
    sep = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def html_table(df: pd.DataFrame) -> str:
    def cell(v) -> str:
        return html.escape(fmt_num(v) if not isinstance(v, str) else v)

    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = []
    for row in df.itertuples(index=False):
        tds = "".join(f'<td class="{"t" if isinstance(v, str) else "n"}">{cell(v)}</td>' for v in row)
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _side_label(key: str, name: str) -> str:
    return f"{key} ({name})" if name and name != key else key


def main_table(data: StudyData, summ: pd.DataFrame) -> pd.DataFrame:
    """The main metric per point and side: value, 95% interval, n, games."""
    spec = data.meta["spec"]
    df = summ[summ["metric"] == spec["main_metric"]]
    out = pd.DataFrame({
        "point": df["point"], **{p: df[p].astype(str) for p in data.sweep_paths},
        "side": [_side_label(k, n) for k, n in zip(df["side_key"], df["side"], strict=True)],
        "value": df["value"], "95% interval": [fmt_ci(a, b) for a, b in zip(df["ci_low"], df["ci_high"],
                                                                           strict=True)],
        "std": df["std"], "n": df["n"].astype(int), "games": df["games"].astype(int),
    })
    return out.reset_index(drop=True)


def metrics_table(data: StudyData, summ: pd.DataFrame) -> pd.DataFrame:
    """The reported metrics, one column each ("value [low, high]"), one row per point and side."""
    metrics = data.meta["spec"]["metrics"]
    rows = []
    for (pid, key), g in summ.groupby(["point", "side_key"], sort=False):
        r = {"point": pid, **{p: str(g[p].iloc[0]) for p in data.sweep_paths},
             "side": _side_label(key, g["side"].iloc[0])}
        for m in metrics:
            x = g[g["metric"] == m]
            r[m] = "–" if x.empty else \
                f"{fmt_num(x['value'].iloc[0])} {fmt_ci(x['ci_low'].iloc[0], x['ci_high'].iloc[0])}"
        rows.append(r)
    return pd.DataFrame(rows)


def odds_exact_table(df: pd.DataFrame) -> pd.DataFrame:
    """Exact answers: one row per question, outcome and deck, one column per hand size."""
    keep = df[df["n"] > 0]
    if keep.empty:
        return keep
    wide = keep.pivot_table(index=["label", "outcome", "deck"], columns="hand", values="exact",
                            sort=False, aggfunc="first")
    wide.columns = [f"hand {c}" for c in wide.columns]
    return wide.reset_index().rename(columns={"label": "question"})


def odds_check_table(df: pd.DataFrame) -> pd.DataFrame:
    """Simulation against exact, per question: answers inside their 95% interval, worst deviation."""
    keep = df[df["n"] > 0].copy()
    if keep.empty:
        return keep
    half = (keep["ci_high"] - keep["ci_low"]) / 2
    keep["dev"] = (keep["simulated"] - keep["exact"]).abs() / half.where(half > 0)
    rows = []
    for lab, g in keep.groupby("label", sort=False):
        rows.append({"question": lab, "answers": len(g),
                     "exact inside 95% interval": int(g["exact_in_ci"].sum()),
                     "worst |simulated - exact| / half-width": float(g["dev"].max()),
                     "simulated hands per answer": int(g["n"].max())})
    return pd.DataFrame(rows)


def odds_table(df: pd.DataFrame) -> pd.DataFrame:
    keep = df[df["n"] > 0] if "n" in df else df
    return pd.DataFrame({
        "question": keep["label"], "deck": keep["deck"], "hand": keep["hand"].astype(int),
        "outcome": keep["outcome"], "exact": keep["exact"], "simulated": keep["simulated"],
        "95% interval": [fmt_ci(a, b) for a, b in zip(keep["ci_low"], keep["ci_high"], strict=True)],
        "n": keep["n"].astype(int), "exact in interval": keep["exact_in_ci"],
    }).reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# the report


@dataclass
class Section:
    title: str
    text: str = ""
    table: pd.DataFrame | None = None
    charts: list = field(default_factory=list)  # charts.Chart


def _setup_rows(data: StudyData) -> list[tuple[str, str]]:
    spec, meta = data.meta["spec"], data.meta
    rows = []
    if data.kind == "engine":
        rows.append(("scenario", str(spec["scenario"])))
        rows.append(("deck", str(spec["deck"] or "the scenario's")))
        rows.append(("policies", ", ".join(
            f"{k}: {n}" + ("" if not o else " (" + ", ".join(f"{a}={b}" for a, b in o.items()) + ")")
            for k, (n, o) in zip(meta["side_keys"], spec["policies"], strict=True))))
    else:
        for key in ("deck", "hand"):
            if key not in spec["sweep"]:
                rows.append((key, str(spec["set"].get(key, spec[key]))))
    if spec["set"]:
        rows.append(("fixed values", ", ".join(f"{k} = {v}" for k, v in spec["set"].items())))
    if spec["sweep"]:
        rows.append(("sweep", "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in spec["sweep"].items())
                     + f" ({len(meta['points'])} points)"))
    run = meta["run"]
    if run.get("target_error") is not None:
        rows.append(("games per point", f"until the 95% half-width of {spec['main_metric']} "
                     f"(side {spec['main_side']}) is below {run['target_error']}, at most {run['cap']:,}"))
    else:
        rows.append(("games per point", f"{run['cap']:,}"))
    crn = "every point plays the same games" if data.kind == "engine" else "every point deals the same hands"
    rows.append(("seed", f"{spec['seed']} (common random numbers: {crn})"))
    rows.append(("chunk", f"{spec['chunk']:,} games"))
    rows.append(("study hash", meta["identity_sha256"][:16]))
    rows.append(("napsim", meta.get("napsim", __version__)))
    return rows


def _warnings(data: StudyData) -> list[str]:
    from napsim.model.cards import load_deck

    out = []
    incomplete = [p for p, ok in data.complete.items() if not ok]
    if incomplete:
        out.append(f"incomplete run: points {', '.join(incomplete)} have not finished; numbers are "
                   "partial (rerun `napsim run` with the same arguments to finish)")
    decks = set()
    if data.kind == "odds":
        for df in data.odds.values():
            decks.update(w for w in df["deck_warning"] if w)
        return out + sorted(decks)
    spec = data.meta["spec"]
    refs = {spec["deck"]} | set(sweep_values(spec["sweep"]).get("deck", [])) | ({spec["set"]["deck"]}
                                                                    if "deck" in spec["set"] else set())
    if None in refs:
        from napsim.model.scenarios import load_scenario

        refs.discard(None)
        try:
            refs.add(load_scenario(spec["scenario"]).deck)
        except NapsimInputError:
            pass
    for ref in sorted(map(str, refs)):
        try:
            w = load_deck(ref).estimated_warning()
        except NapsimInputError:
            w = None
        if w:
            decks.add(w)
    return out + sorted(decks)


METHOD_ENGINE = (
    "Every sweep point plays the same games: game g draws its random numbers from a counter-based "
    "stream keyed on (seed, g), so the points differ only by their settings (common random numbers), "
    "and a difference between two points is much more precise than either point alone. Means per game "
    "carry a normal 95% interval from the per-game sums of squares (std is the game-to-game standard "
    "deviation); means per turn are ratios of sums and carry a delta-method interval over games. Rates "
    "(shares of turns or of rack picks) carry a Wilson 95% interval whose n counts turns or picks; "
    "trials inside one game are not independent, so read those intervals as slightly optimistic and "
    "prefer the per-game intervals where both exist. Results are stored chunk by chunk; a resumed run "
    "gives exactly the numbers of an uninterrupted one."
)
METHOD_ODDS = (
    "Each row is answered exactly (multivariate hypergeometric enumeration) and by simulation with the "
    "same seed at every point; simulated probabilities carry a Wilson 95% interval, means a normal 95% "
    "interval, and n is the number of simulated hands. 'exact in interval' checks the simulator "
    "against the exact value (about 1 row in 20 may say no by chance)."
)


def build_sections(data: StudyData, with_charts: bool = True,
                   raw_tables: bool = True) -> tuple[list[Section], dict]:
    """The report's sections (tables and charts) and the frames to write as CSV."""
    from napsim.output import charts

    inputs = chart_inputs(data)
    summ = inputs["summary"]
    frames = {"summary.csv": summ, "points.csv": points_frame(data)}
    sections = []
    made = charts.all_charts(inputs) if with_charts else []
    by_name = {c.name: c for c in made}
    if data.kind == "engine":
        spec = data.meta["spec"]
        frames["convergence.csv"] = inputs["convergence"]
        frames["rack_wait_summary.csv"] = rack_wait_summary(data)
        if raw_tables:  # histograms: the charts' data, bulky next to the summaries
            frames["rack_wait.csv"] = rack_wait_frame(data)
            frames["distribution.csv"] = inputs["distribution"]
        if not summ.empty:
            sections.append(Section(f"Main result: {spec['main_metric']}",
                                    charts=[c for c in (by_name.get("main"),) if c],
                                    table=main_table(data, summ)))
            sections.append(Section("Reported metrics", "Value and 95% interval per point and side. "
                                    "Every metric, with std and n, is in summary.csv.",
                                    table=metrics_table(data, summ)))
        if len(made) > 1:
            sections.append(Section("Charts", charts=[c for c in made if c.name != "main"]))
        rw = frames["rack_wait_summary.csv"]
        if not rw.empty:
            sections.append(Section("Courier Rack waiting times", "Cards taken from the rack, by the "
                                    "turns they waited on it (as counted by the engine).",
                                    table=rw.drop(columns=["label"])))
        sections.append(Section("Method", METHOD_ENGINE))
    else:
        if not summ.empty:
            sections.append(Section("Exact answers", "Exact values by question, deck and hand size; "
                                    "simulated values with their 95% intervals and n are in summary.csv.",
                                    table=odds_exact_table(summ)))
            sections.append(Section("Simulation against exact", "The numba simulator checked against "
                                    "the exact answers. About 1 answer in 20 falls outside its 95% "
                                    "interval by chance; with common random numbers the answers at "
                                    "different hand sizes share their deals, so their deviations are "
                                    "correlated.", table=odds_check_table(summ)))
            skipped = summ[summ["n"] == 0]
            if not skipped.empty:
                sections.append(Section("Not applicable", table=skipped[["label", "deck", "hand", "note"]]))
        if made:
            sections.append(Section("Charts", charts=made))
        sections.append(Section("Method", METHOD_ODDS))
    sections.append(Section("Points", table=points_frame(data).drop(columns=["label"])))
    return sections, frames


CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;border-bottom:2px solid #345;padding-bottom:.2em}h2{font-size:1.25em;margin-top:1.6em;
color:#234}table{border-collapse:collapse;margin:.6em 0;font-size:.86em}th,td{border:1px solid #ccd;
padding:.25em .55em}th{background:#eef1f5;text-align:left}td.n{text-align:right;font-variant-numeric:
tabular-nums}tr:nth-child(even) td{background:#fafbfc}figure{margin:1em 0}figure img{max-width:100%;
height:auto;border:1px solid #e3e6ea}figcaption{font-size:.85em;color:#555}.warn{background:#fff4e0;
border-left:4px solid #e0a030;padding:.4em .8em;margin:.6em 0}.setup th{width:11em}.note{color:#555;
font-size:.9em}
"""


def render_markdown(data: StudyData, sections: list[Section], files: list[str]) -> str:
    spec = data.meta["spec"]
    lines = [f"# Study: {spec['name']}", ""]
    if spec["description"]:
        lines += [spec["description"], ""]
    lines += [md_table(pd.DataFrame(_setup_rows(data), columns=["setting", "value"])), ""]
    for w in _warnings(data):
        lines += [f"> **{w}**", ""]
    for s in sections:
        lines += [f"## {s.title}", ""]
        if s.text:
            lines += [s.text, ""]
        for c in s.charts:
            lines += [f"![{c.title}](charts/{c.name}.png)", "", f"*{c.caption}* "
                      f"([SVG](charts/{c.name}.svg))", ""]
        if s.table is not None and not s.table.empty:
            lines += [md_table(s.table), ""]
    files = [f if f != "summary.csv" else "summary.csv (every metric)" for f in files]
    files += ["charts/ (PNG and SVG)", "report.html (this report, self-contained)", "manifest.json"]
    lines += ["Files: " + ", ".join(files) + ".", ""]
    return "\n".join(lines)


def render_html(data: StudyData, sections: list[Section]) -> str:
    spec = data.meta["spec"]
    e = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>napsim study: {e(spec['name'])}</title>", f"<style>{CSS}</style></head><body>",
             f"<h1>Study: {e(spec['name'])}</h1>"]
    if spec["description"]:
        parts.append(f"<p>{e(spec['description'])}</p>")
    setup = "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in _setup_rows(data))
    parts.append(f'<table class="setup"><tbody>{setup}</tbody></table>')
    for w in _warnings(data):
        parts.append(f'<p class="warn">{e(w)}</p>')
    for s in sections:
        parts.append(f"<h2>{e(s.title)}</h2>")
        if s.text:
            parts.append(f"<p>{e(s.text)}</p>")
        for c in s.charts:
            b64 = base64.b64encode(c.png).decode("ascii")
            parts.append(f'<figure id="chart-{e(c.name)}"><img class="chart" alt="{e(c.title)}" '
                         f'src="data:image/png;base64,{b64}"><figcaption>{e(c.caption)}</figcaption></figure>')
        if s.table is not None and not s.table.empty:
            parts.append(html_table(s.table))
    parts.append(f'<p class="note">napsim {e(__version__)} · study hash '
                 f'{e(data.meta["identity_sha256"][:16])}</p></body></html>')
    return "\n".join(parts) + "\n"


def manifest(data: StudyData) -> dict:
    import matplotlib
    import numba

    meta = data.meta
    return {
        "napsim": __version__, "numba": numba.__version__, "numpy": np.__version__,
        "pandas": pd.__version__, "matplotlib": matplotlib.__version__,
        "python": platform.python_version(), "study": meta["spec"]["name"],
        "study_file": meta["study_file"], "study_sha256": meta["study_sha256"],
        "identity_sha256": meta["identity_sha256"], "code_sha256": meta["identity"]["code"],
        "seed": meta["spec"]["seed"], "points": {p["id"]: p["label"] for p in meta["points"]},
        "games": {p: (data.accs[p].games if data.kind == "engine" else meta["spec"]["games"])
                  for p in data.complete},
        "complete": all(data.complete.values()),
    }


def write_report(out: str | Path, dest: str | Path | None = None, with_charts: bool = True,
                 data: StudyData | None = None, raw_tables: bool = True) -> Path:
    """Write report.md, report.html, the CSVs and charts/ for the run folder `out` into `dest`
    (default: `out` itself); `with_charts=False` skips the charts (tables only, much faster),
    `raw_tables=False` the histogram CSVs (distribution.csv, rack_wait.csv)."""
    from napsim.output import charts

    data = data or load(out)
    dest = Path(dest) if dest is not None else Path(out)
    (dest / "charts").mkdir(parents=True, exist_ok=True)
    sections, frames = build_sections(data, with_charts, raw_tables)
    for s in sections:
        for c in s.charts:
            charts.write_chart(c, dest / "charts")
    for name, df in frames.items():
        if name != "points.csv" and data.kind == "engine":
            df = df.drop(columns=["label"], errors="ignore")  # the point id and parameters say it
        st.atomic_write_bytes(dest / name, df.to_csv(index=False, float_format=CSV_FLOAT).encode())
    st.atomic_write_bytes(dest / "manifest.json",
                          (json.dumps(manifest(data), indent=1, default=str) + "\n").encode())
    st.atomic_write_bytes(dest / "report.md", render_markdown(data, sections, list(frames)).encode())
    st.atomic_write_bytes(dest / "report.html", render_html(data, sections).encode())
    return dest
