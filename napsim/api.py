"""The Python API (top layer, beside the command line): run a study and read its results, rerun the
flagship studies, play the rule readings. Each of these both plays games (the study layer) and
writes reports (the output layer), so it sits above both; `napsim/__init__.py` exports the public
names (`run_study`, `StudyResult`).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pandas as pd

from napsim.model.defaults import SEED, SIM_CHUNK
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import parse_overrides
from napsim.output import decisions, frames
from napsim.output.design_report import Answer, write_design_folder
from napsim.output.ensemble_text import balance_ensemble_sentence, ensemble_frame
from napsim.output.readings import check_dest, write_readings_folder
from napsim.output.report import write_report
from napsim.output.results import result_folder
from napsim.study import ensemble
from napsim.study.balance import Balance, find_balance
from napsim.study.design import DesignSpec, is_design_file, load_design_spec
from napsim.study.readings import ReadingsSpec, is_readings_file, load_readings_spec, run_readings
from napsim.study.runloop import NoticeFn, ProgressFn, execute
from napsim.study.spec import Study, load_study
from napsim.study.storage import check_out, read_meta
from napsim.study.study_ensemble import check_study_ensemble, run_study_ensemble
from napsim.study.variants import Comparison, Variant, compare_variants, variants

# --------------------------------------------------------------------------------------------
# studies


class StudyResult:
    """A finished (or partial) study folder, for notebooks: frames, summaries and charts.

    `frame` is the per-game frame (one row per point, game and side) when the study keeps per-game
    rows, else the per-chunk frame (one row per point, chunk and side with each metric's sum over
    the chunk's games); odds studies give their answers, one row per point and outcome.
    """

    def __init__(self, out: str | Path):
        self.out = Path(out)
        self.meta = read_meta(self.out)  # study.json; the chunks are read when first asked for

    @functools.cached_property
    def data(self) -> frames.StudyData:
        """The run folder read back (`napsim.output.frames.load`)."""
        return frames.load(self.out)

    @property
    def frame(self) -> pd.DataFrame:
        if self.data.kind == "odds":
            return frames.odds_frame(self.data)
        if self.meta["spec"]["per_game"]:
            return frames.per_game_frame(self.data)
        return frames.chunk_frame(self.data)

    def summary(self, metrics: list[str] | None = None) -> pd.DataFrame:
        """Tidy summary: one row per point, side and metric (value, std, 95% interval, n)."""
        df = frames.summary_frame(self.data)
        if metrics is not None:
            df = df[df["metric"].isin(metrics) if "metric" in df else df["label"].isin(metrics)]
        return df.reset_index(drop=True)

    def plot(self, kind: str = "main", metric: str | None = None, ax=None):
        """A matplotlib Figure: kind = main | sweep | convergence | distribution | rack_wait |
        heatmap (engine) or odds (odds studies); `metric` picks the metric where it applies."""
        from napsim.output import charts  # lazy: matplotlib is heavy, and only plots need it

        return charts.figure(frames.chart_inputs(self.data), kind, metric=metric, ax=ax)

    def report(self, dest: str | Path | None = None) -> Path:
        """Write report.md / report.html / CSVs / charts into `dest` (default: the run folder)."""
        return write_report(self.out, dest)

    def __repr__(self) -> str:
        return f"StudyResult({self.meta['spec']['name']!r}, {len(self.meta['points'])} points, {self.out})"


def check_study_run(st: Study, out: str | Path, force: bool = False, target_error: float | None = None,
                    deck_ensemble: int | None = None) -> int | None:
    """Refuse, before anything is played, a run `run_study` would refuse on the way: a bad target
    error, deck ensemble or output folder. Returns the plausible decks to play (None: none)."""
    st.check_target_error(target_error)
    n_decks = deck_ensemble if deck_ensemble is not None else st.deck_ensemble
    check_study_ensemble(st, n_decks)
    check_out(st, out, force)
    return n_decks


def run_study(path: str | Path | Study, out: str | Path | None = None, force: bool = False,
              target_error: float | None = None, progress: ProgressFn | None = None,
              report: bool = False, threads: int | None = None, runner=None,
              deck_ensemble: int | None = None, notice: NoticeFn | None = None) -> StudyResult:
    """Run (or resume) a study and return its `StudyResult`. Without `out` the results go to
    ``out/<study name>`` under the current folder, so a second call resumes instead of rerunning.
    `threads`, `runner` and `notice` as in `napsim.study.runloop.execute` (e.g.
    ``runner=napsim.study.backends.DaskRunner(...)``). `deck_ensemble` (N; default: the study's
    `deck_ensemble`): then each point's games on N plausible decks, for the main metric's spread
    across decks (`napsim.study.study_ensemble`; the report gains its table). `report`: write
    report.md and report.html into the run folder (`StudyResult.report`)."""
    st = path if isinstance(path, Study) else load_study(path)
    out = Path(out) if out is not None else Path("out") / st.name
    n_decks = check_study_run(st, out, force, target_error, deck_ensemble)
    try:
        execute(st, out, force=force, target_error=target_error, progress=progress, threads=threads,
                runner=runner, notice=notice)
    except OSError as e:  # disk full...: every chunk file on disk is complete
        raise NapsimInputError(e.filename or str(out), None, f"cannot write: {e.strerror or e}; the "
                               "chunks written so far are kept: rerun `napsim run` to resume") from None
    if n_decks is not None:
        run_study_ensemble(st, out, n_decks, notice)
    res = StudyResult(out)
    if report:
        res.report()
    return res


# --------------------------------------------------------------------------------------------
# a run of `napsim simulate` into a result folder


def simulate_into_folder(sim, out_dir: str | Path, force: bool, games: int, seed: int, chunk: int,
                         per_game: bool, progress=None, notice: Callable[[str], None] | None = None):
    """Play the games of a `Simulation` and write its result folder whole or not at all
    (`napsim.output.results.result_folder`), the per-game rows streamed to Parquet chunk by chunk
    as they are played (memory stays flat). Returns (result, folder)."""
    with result_folder(sim, out_dir, force, per_game, notice) as folder:
        folder.write(sim.run(games, seed, chunk, progress=progress, sink=folder.sink))
    return folder.result, folder.out


# --------------------------------------------------------------------------------------------
# rule readings


def write_readings(spec: ReadingsSpec, dest: str | Path, games: int | None = None,
                   force: bool = False, progress: Callable[[str], None] | None = None) -> Path:
    """Run the readings (`napsim.study.readings`) and write readings.csv, report.md and
    manifest.json into dest, atomically (`napsim.output.readings`)."""
    out = check_dest(dest, force)
    t0 = time.perf_counter()
    rows: list[dict] = []
    for line, part in run_readings(spec, games):
        rows += part
        if progress:
            progress(line)
    return write_readings_folder(spec, pd.DataFrame(rows), out, games, time.perf_counter() - t0, force)


# --------------------------------------------------------------------------------------------
# the flagship studies (`napsim regen`)


def study_files(studies_dir: str | Path, names: Sequence[str] = ()) -> list[Path]:
    """The study files to regenerate: all of `studies_dir`, or the ones named."""
    folder = Path(studies_dir)
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise NapsimInputError(str(folder), None, "no study files (*.toml) here",
                               "run from the repository root, or pass --studies")
    if names:
        known = {f.stem: f for f in files}
        for n in names:
            if n not in known:
                raise NapsimInputError(str(folder), "name", f"no study named {n!r}", ", ".join(known))
        files = [known[n] for n in names]
    return files


def regenerate(names: Sequence[str] = (), studies_dir: str | Path = "studies",
               results_dir: str | Path = "results", work_dir: str | Path = "out/studies",
               force: bool = False) -> Iterator[str]:
    """Run every study (resuming) and write its report into results/<name>; yields progress lines.

    Each ``studies/<name>.toml`` runs into ``out/studies/<name>`` (chunk files: resumable, not
    committed) and its report (summaries, charts, report.md, report.html, manifest.json; neither
    chunks nor the raw histogram CSVs) is written to ``results/<name>/``, committed as an example of
    what a study produces. A readings file (``studies/readings.toml``) writes ``results/readings``,
    a design file (``studies/tamames_balance.toml``) ``results/<its name>`` (`write_design`).
    """
    for f in study_files(studies_dir, names):
        if is_design_file(f):  # design answers: balance and compare, no chunk files to resume
            t0 = time.perf_counter()
            spec = load_design_spec(f)
            dest = write_design(spec, Path(results_dir) / spec.name, force=True)
            yield f"{f}: {len(spec.entries)} answer(s) in {time.perf_counter() - t0:.1f} s -> {dest}"
            continue
        if is_readings_file(f):  # rule readings: paired runs, no chunk files to resume
            t0 = time.perf_counter()
            spec = load_readings_spec(f)
            dest = write_readings(spec, Path(results_dir) / spec.name, force=True)
            yield f"{f}: {len(spec.cases)} case(s) in {time.perf_counter() - t0:.1f} s -> {dest}"
            continue
        st = load_study(f)
        t0 = time.perf_counter()
        work = Path(work_dir) / st.name
        execute(st, work, force=force)
        if st.deck_ensemble is not None:
            run_study_ensemble(st, work, st.deck_ensemble)
        dest = write_report(work, Path(results_dir) / st.name, raw_tables=False)
        yield f"{f}: {len(st.points)} point(s) in {time.perf_counter() - t0:.1f} s -> {dest}"


# --------------------------------------------------------------------------------------------
# design questions: compare two variants, find the balancing setting


def compare_run(scenario: str, a: Sequence[str] | dict = (), b: Sequence[str] | dict = (),
                scenario_b: str | None = None, deck: str | None = None, deck_a: str | None = None,
                deck_b: str | None = None, policy: str = "greedy,greedy", policy_a: str | None = None,
                policy_b: str | None = None, metrics: Sequence[str] = (), games: int = 10_000,
                seed: int = SEED, chunk: int = SIM_CHUNK, target_error: float | None = None,
                chart: str | Path | None = None, progress=None) -> Comparison:
    """`compare`, returning the `Comparison` (frame, variants, games played) behind the frame."""
    chart_path = decisions.check_chart_path(chart)
    va, vb = variants(scenario, a, b, scenario_b, deck, deck_a, deck_b, policy, policy_a, policy_b)
    cmp = compare_variants(va, vb, metrics, games, seed, chunk, target_error, progress)
    if chart_path is not None:
        from napsim.output import decision_charts  # lazy: matplotlib is heavy, and only charts need it

        decision_charts.write_chart(decision_charts.compare_figure(cmp), chart_path, "compare")
    return cmp


def compare(scenario: str, a: Sequence[str] | dict = (), b: Sequence[str] | dict = (), **options
            ) -> pd.DataFrame:
    """Two variants of one question played on the same games (same seed and game indices): a tidy
    frame with one row per metric and side: A, B, the difference B - A with its paired 95% interval
    (ci_low, ci_high, half_width) and n, the unpaired half-width, the relative change and a sentence.

    `a` and `b` are overrides of the scenario (``{"sides.S.guerrilla": 3}`` or
    ``["sides.S.guerrilla=3"]``; paths as in a study's [set], ``policy.<side>.<param>`` and ``deck``
    included); options: scenario_b, deck, deck_a, deck_b, policy, policy_a, policy_b, metrics,
    games, seed, chunk, target_error (on the first metric's difference, at most `games`), chart
    (a .png or .svg path) and deck_ensemble (N: the same games on N plausible decks drawn inside the
    deck's count ranges, seeded by `seed`, adding per row how many decks give B - A each sign, its
    range and spread across decks, and a sentence; A and B must play one deck)."""
    n_decks = options.pop("deck_ensemble", None)
    if n_decks is not None:  # checked before anything is played
        ensemble.check_ensemble(n_decks)
        ensemble.check_one_deck(*variants(scenario, a, b, *(options.get(k) for k in _VARIANT_KEYS)))
    cmp = compare_run(scenario, a, b, **options)
    if n_decks is None:
        df = decisions.with_sentences(cmp)
    else:
        ens = ensemble.compare_ensemble(cmp, n_decks, cmp.seed, options.get("chunk", SIM_CHUNK))
        df = ensemble_frame(cmp, ens)
    df.attrs.update(games=cmp.games, seed=cmp.seed, target_reached=cmp.target_reached)
    return df


_VARIANT_KEYS = ("scenario_b", "deck", "deck_a", "deck_b")


def balance(scenario: str, vary: str, metric: str = "effective_per_turn",
            equalize: Sequence[str] | str | None = None, target: float | None = None,
            side: str | None = None, sets: Sequence[str] | dict = (), deck: str | None = None,
            policy: str = "greedy,greedy", games: int = 10_000, seed: int = SEED,
            chunk: int = SIM_CHUNK, chart: str | Path | None = None, progress=None,
            target_error: float | None = None, deck_ensemble: int | None = None) -> Balance:
    """The setting of one parameter (``vary="sides.S.guerrilla=0..9"``) at which `metric` is equal
    for the two sides (``equalize="F,S"``) or reaches `target` for `side`. Every setting plays the
    same games. The result has `.crossing` (value, low, high of its 95% interval), `.bracket` (the
    settings either side), `.frame()` (every setting played) and `.sentence`.

    `target_error`: play more games (the same ones extended) until the crossing's 95% half-width
    is at most this, `games` at most (`.stopped` says 'target' or 'cap'). `deck_ensemble` (N): the
    same search, with the same games, on N plausible decks drawn inside the deck's count ranges
    (seeded by `seed`): `.ensemble.frame` has one row per deck, `.ensemble_sentence` the range of
    the crossings; a deck without a crossing in the range (the file's included) is counted, not an
    error (`.crossed` False)."""
    chart_path = decisions.check_chart_path(chart)
    if deck_ensemble is not None:
        ensemble.check_ensemble(deck_ensemble)
    if isinstance(equalize, str):
        equalize = [k.strip() for k in equalize.split(",")]
    overrides = tuple((sets if isinstance(sets, dict) else parse_overrides(sets)).items())
    res = find_balance(Variant(scenario, overrides, deck, policy), vary, metric, equalize, target,
                       side, games, seed, chunk, progress, target_error,
                       no_crossing_ok=deck_ensemble is not None)
    res.sentence = decisions.balance_sentence(res)
    if deck_ensemble is not None:
        res.ensemble = ensemble.balance_ensemble(res, deck_ensemble, seed, progress)
        res.ensemble_sentence = balance_ensemble_sentence(res, res.ensemble)
    if chart_path is not None:
        from napsim.output import decision_charts  # lazy: matplotlib is heavy, and only charts need it

        decision_charts.write_chart(decision_charts.balance_figure(res), chart_path, "balance")
    return res


def write_design(spec: DesignSpec, dest: str | Path, force: bool = False,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Answer every entry of a design file (`napsim.study.design`) and write its report folder
    (`napsim.output.design_report`): report.md, <name>.json and <name>.png per entry, manifest.json."""
    t0 = time.perf_counter()
    answers = []
    for e in spec.entries:
        if progress:
            progress(f"{e.kind} {e.name}: {e.command()}")
        if e.kind == "balance":
            res = balance(**e.options, progress=progress)
            answers.append(Answer(e, res, warnings=tuple(w for w in [res.deck_warning] if w)))
            continue
        opts = dict(e.options)
        n_decks = opts.pop("deck_ensemble", None)
        if n_decks is not None:
            ensemble.check_ensemble(n_decks)
        cmp = compare_run(**opts)
        ens = (ensemble.compare_ensemble(cmp, n_decks, cmp.seed, opts.get("chunk", SIM_CHUNK))
               if n_decks is not None else None)
        warnings = tuple(w for w in dict.fromkeys(s.deck.estimated_warning() for s in cmp.sims) if w)
        answers.append(Answer(e, cmp, ens, warnings))
    return write_design_folder(spec, answers, dest, time.perf_counter() - t0, force)
