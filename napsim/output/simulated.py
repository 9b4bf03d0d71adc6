"""What a `napsim simulate` run shows and writes (the games are played above this layer,
`napsim.api.simulate` and `napsim.api.simulate_into_folder`).

The console (`simulate_lines`): the headline first (orders a turn per side, with 95% intervals and
n), then only the rates that mean something for the format and the side, each with its Wilson
interval and n. Everything else is in summary.csv.

The result folder (`result_folder` stages it, atomically): games.parquet, summary.csv,
rack_wait.csv, manifest.json, and for the multi-player formats commanders.csv and
commander_games.parquet. The per-game rows are streamed to Parquet as they are played
(`GameRowsWriter`): one row group per chunk of games, so memory stays flat whatever the number of
games; rows come game by game (sides, then commanders, in order), the same frame
`SimResult.per_game_frame` and `commander_games_frame` give for a run kept in memory.

The chart (`section_chart_svg`): effective orders a turn by section and side, with 95% intervals,
as an SVG file a designer can take away from the page (`napsim app`); matplotlib is imported only
when it is drawn.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from napsim.engine.layout import COMMANDER_ROLES
from napsim.model.metrics import SECTION_WORDS, describe
from napsim.output.answer import answer_lines
from napsim.output.folders import check_result_dest, manifest, staged_result_folder
from napsim.sim.result import commander_rows_frame, game_rows_frame
from napsim.sim.runner import ONE_A_SIDE, ChunkOut

# rates about the Courier Rack: the standard one-card game has no rack
RACK_RATES = ("share_picks_from_5", "share_picks_from_4", "share_picks_from_3", "same_section_turn_rate")
HEADLINE = ("effective_per_turn", "nominal_per_turn", "orders_per_turn")


def _interval(r) -> str:
    if r.ci_low == r.ci_high:
        return f"{r.value:.3f} (exact: the same in every game)"
    return f"{r.value:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"


def headline(summary: pd.DataFrame, multi: bool) -> list[str]:
    """Orders a turn per side: effective, nominal and (2-4 a side) with initiative orders."""
    lines = ["Orders a turn, per side (mean, 95% interval, n = turns played):"]
    for metric in HEADLINE:
        if metric == "orders_per_turn" and not multi:
            continue
        words = describe(metric).phrase
        for r in summary[summary["metric"] == metric].itertuples():
            lines.append(f"  {r.side}: {_interval(r)} {words}, n = {int(r.n):,}")
    return lines


def _title(r) -> str:
    """A row's title in words: the summary's `title` column, else the catalogue's."""
    return getattr(r, "title", None) or describe(r.metric).row_title(r.side)


# rates whose trials and successes are the same in every game when their per-game count is:
# the Courier Rack cycle (E10) makes every side pick from 5, 4 and 3 cards equally often
COUNTED_BY = {"share_picks_from_5": "pick_from_5", "share_picks_from_4": "pick_from_4",
              "share_picks_from_3": "pick_from_3"}


def exact_rate(summary: pd.DataFrame, side: str, metric: str) -> bool:
    """Is this rate the same in every game? A rack-pick share is when none of the three per-game
    counts has any spread (then all three are a third); one that varies makes none of them exact."""
    if metric not in COUNTED_BY:
        return False
    rows = summary[(summary["side"] == side) & summary["metric"].isin(list(COUNTED_BY.values()))]
    return len(rows) == len(COUNTED_BY) and bool((rows["ci_low"] == rows["ci_high"]).all())


def meaningful_rates(summary: pd.DataFrame, game_format: str) -> pd.DataFrame:
    """The rates that mean something here: none without trials, none of the rack in the standard
    game, none a side cannot have (NaN)."""
    rates = summary[(summary["kind"] == "rate") & (summary["n"] > 0)]
    rates = rates[rates["value"].map(lambda v: not (isinstance(v, float) and math.isnan(v)))]
    if game_format == "standard":
        rates = rates[~rates["metric"].isin(RACK_RATES)]
    return rates


def simulate_lines(summary: pd.DataFrame, game_format: str, multi: bool) -> list[str]:
    """The console report of a run: headline, the answer (which side gets more, and that this is
    card flow, not the chance of winning), exact quantities, then the rates (Wilson 95% intervals,
    n trials)."""
    rates = meaningful_rates(summary, game_format)
    exact = rates.apply(lambda r: exact_rate(summary, r["side"], r["metric"]), axis=1) if len(rates) else []
    lines = [*headline(summary, multi)]
    answer = answer_lines(summary)
    if answer:
        lines += ["", *answer]
    if len(rates) and exact.any():
        lines += ["", "Exact (the same in every game by the rack's 5-4-3 cycle, rule E9.6, so no interval):"]
        lines += [f"  {r.side}: {_title(r)} = {r.value:.4f}" for r in rates[exact].itertuples()]
        rates = rates[~exact]
    return [*lines, "", "Rates, per side (Wilson 95% interval, n = trials; per-game means with their "
            "intervals: summary.csv):", *rate_table(rates), *rack_pick_notes(summary)]


def rack_pick_notes(summary: pd.DataFrame) -> list[str]:
    """Why a side's rack picks (the n of its rack-pick shares) are fewer than its turns, where
    they are: a turn that took no card from a rack of 3 to 5 cards (rule E9.6 makes those a third
    each otherwise)."""
    out = []
    for _key, g in summary.groupby("side_key", sort=False):
        by = g.set_index("metric")
        if "share_picks_from_5" not in by.index or "turns" not in by.index:
            continue
        picks, games = int(by.at["share_picks_from_5", "n"]), int(by.at["turns", "games"])
        turns = round(float(by.at["turns", "value"]) * games)
        if picks == 0 or picks >= turns:
            continue
        small = sum(round(float(by.at[f"pick_from_{k}", "value"]) * games) for k in range(3)
                    if f"pick_from_{k}" in by.index)
        none = turns - picks - small
        why = [f"{small:,} took a card from a rack of fewer than 3 cards"] if small else []
        why += [f"{none:,} took no card from the rack (as when no legal pair exists and the hand card "
                "is played alone, rule E2)"] if none > 0 else []
        out.append(f"  {g['side'].iloc[0]}: n = {picks:,} picks from a rack of 3-5 cards, not {turns:,} "
                   f"(one a turn); of the other {turns - picks:,} turns, {' and '.join(why)}.")
    return ["", "Rack picks (the n of the rack-pick shares above):", *out] if out else []


def rate_table(rates: pd.DataFrame) -> list[str]:
    """The rates as a plain table: side, what the rate counts (in words), value, interval, n."""
    rows = [("side", "rate", "value", "95% interval", "n")]
    rows += [(r.side, _title(r), f"{r.value:.4f}", f"[{r.ci_low:.4f}, {r.ci_high:.4f}]", f"{int(r.n):,}")
             for r in rates.itertuples()]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    out = []
    for row in rows:
        left = [c.ljust(w) for c, w in zip(row[:2], widths[:2], strict=True)]
        right = [c.rjust(w) for c, w in zip(row[2:], widths[2:], strict=True)]
        out.append(("  " + "  ".join([*left, *right])).rstrip())
    return out


def section_figure(summary: pd.DataFrame, title: str):
    """Bars of effective orders a turn per section, one colour per side, the 95% interval as an
    error bar; `summary` is `napsim.simulate(...).summary`."""
    import matplotlib  # lazy: matplotlib is heavy, and only the chart needs it
    from matplotlib.figure import Figure

    from napsim.output.chartkit import RC, palette

    sections = ("L", "C", "R")
    rows = summary[summary["metric"].isin([f"effective_per_turn_{s}" for s in sections])]
    sides = list(dict.fromkeys(rows["side"]))
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(6.4, 3.8), layout="constrained")
        ax = fig.subplots()
        width = 0.8 / max(len(sides), 1)
        for i, (side, colour) in enumerate(zip(sides, palette(len(sides)), strict=True)):
            d = rows[rows["side"] == side].set_index("metric")
            d = d.reindex([f"effective_per_turn_{s}" for s in sections])
            x = np.arange(len(sections)) + (i - (len(sides) - 1) / 2) * width
            err = np.vstack([d["value"] - d["ci_low"], d["ci_high"] - d["value"]])
            ax.bar(x, d["value"], width * 0.95, color=colour, label=side,
                   yerr=np.nan_to_num(err), capsize=3, ecolor="0.25")
        ax.set_xticks(np.arange(len(sections)), [SECTION_WORDS.get(s, s) for s in sections])
        ax.set_ylabel("effective orders a turn")
        ax.set_title(f"{title}\neffective orders a turn by section (95% intervals)")
        ax.legend(frameon=False, title="side")
        ax.grid(axis="y", alpha=0.3)
    return fig


def section_chart_svg(summary: pd.DataFrame, title: str) -> bytes:
    """The SVG bytes of `section_figure` (deterministic: the same games give the same file)."""
    from napsim.output.chartkit import render  # lazy: matplotlib is heavy, and only the chart needs it

    return render(section_figure(summary, title), "sections", title, "").svg


def simulate_manifest(res) -> dict:
    """What a reader needs to reproduce or audit a run."""
    sim = res.sim
    return manifest({
        "seed": res.seed, "games": res.games, "wall_seconds": round(res.wall_seconds, 3),
        "scenario": sim.scenario.name, "scenario_file": str(sim.scenario.path),
        "scenario_sha256": sim.scenario.sha256, "format": sim.scenario.format,
        "deck": sim.deck.name, "deck_file": str(sim.deck.path), "deck_sha256": sim.deck.sha256,
        "deck_warning": sim.deck.estimated_warning(),
        "policies": list(sim.policy_names), "policy_vectors": sim.policies.tolist(),
        "examples_note": sim.scenario.examples,
    }, ("numba", "numpy", "pandas"))


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
    files["manifest.json"] = lambda p: p.write_text(json.dumps(simulate_manifest(res), indent=2))
    return files


if TYPE_CHECKING:
    import pyarrow.parquet as pq

GAMES_FILE = "games.parquet"
COMMANDER_GAMES_FILE = "commander_games.parquet"


class GameRowsWriter:
    """Writes the per-game rows of each chunk into `folder` as it arrives (a `Simulation.run` sink).
    Chunks must come in game order; `close()` finishes the files."""

    def __init__(self, folder: Path, sim):
        self.folder = Path(folder)
        self.sides = [s.name for s in sim.scenario.sides]
        game_format = sim.scenario.format
        self.commanders = 0 if game_format in ONE_A_SIDE else len(COMMANDER_ROLES.get(game_format, ("CIC",)))
        self._games: pq.ParquetWriter | None = None
        self._cmd: pq.ParquetWriter | None = None

    def __call__(self, first: int, out: ChunkOut) -> None:
        import pyarrow.parquet as pq  # lazy: 0.4 s to import, and only a run that keeps games needs it

        games = pa.Table.from_pandas(game_rows_frame(out.rows, first, self.sides), preserve_index=False)
        if self._games is None:
            self._games = pq.ParquetWriter(self.folder / GAMES_FILE, games.schema)
        self._games.write_table(games)
        if self.commanders:
            cmd = pa.Table.from_pandas(commander_rows_frame(out.commander_rows, first, self.sides,
                                                            self.commanders), preserve_index=False)
            if self._cmd is None:
                self._cmd = pq.ParquetWriter(self.folder / COMMANDER_GAMES_FILE, cmd.schema)
            self._cmd.write_table(cmd)

    def close(self) -> None:
        for w in (self._games, self._cmd):
            if w is not None:
                w.close()
        self._games = self._cmd = None
