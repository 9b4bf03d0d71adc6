"""The Python API (top layer, beside the command line): play one scenario (`simulate`, `trace_text`),
run a study and read its results, rerun the committed studies, play the rule readings, and the
variants commands (`compare`, `balance`, `tune`). Each of these both plays games (the study layer)
and writes or words results (the output layer), so it sits above both; `napsim/__init__.py`
exports the public names (`simulate`, `run_study`, `StudyResult`, `compare`, `balance`, `tune`).
The command line and the page of `napsim app` call these functions, so the three give the same
numbers.
"""

from __future__ import annotations

import functools
import re
import shlex
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from napsim.model.defaults import SEED, SIM_CHUNK, __version__
from napsim.model.errors import NapsimInputError, check_run
from napsim.model.policies import parse_policy_option, policy_text
from napsim.model.scenarios import (
    apply_override,
    load_scenario,
    override_text,
    parse_overrides,
    parse_scenario,
    read_toml,
    resolve_scenario_path,
    toml_text,
    what_if_notes,
)
from napsim.output import frames, variants
from napsim.output.answer import card_flow_answer, notebook_html, run_text
from napsim.output.deck_ensemble import balance_ensemble_sentence, ensemble_frame
from napsim.output.findings import deck_note
from napsim.output.findings.study import engine_findings
from napsim.output.readings import check_dest, write_readings_folder
from napsim.output.report import write_report
from napsim.output.simulated import check_results_dest, result_folder, section_chart_svg, simulate_lines
from napsim.output.tracefmt import format_trace
from napsim.output.tune import Tuned
from napsim.output.variants_report import Answer, write_variants_folder
from napsim.sim.packing import Simulation
from napsim.sim.precompile import ready_simulation
from napsim.sim.result import SimResult
from napsim.sim.runner import ONE_A_SIDE, compile_notice, kernel_compiled, kernel_for
from napsim.study.balance import Balance, find_balance
from napsim.study.deck_ensemble import (
    balance_ensemble,
    check_ensemble,
    check_one_deck,
    check_study_ensemble,
    compare_ensemble,
    run_study_ensemble,
)
from napsim.study.ladder import run_ladder
from napsim.study.readings import ReadingsSpec, is_readings_file, load_readings_spec, run_readings
from napsim.study.runloop import NoticeFn, ProgressFn, execute
from napsim.study.spec import Study, load_study
from napsim.study.store import check_out, read_meta
from napsim.study.tune import tune_policy
from napsim.study.variants import Comparison, Variant, compare_variants, variant_pair
from napsim.study.variants_file import VariantsFile, is_variants_file, load_variants_file, resolve

# --------------------------------------------------------------------------------------------
# one scenario: `napsim simulate`, `napsim trace` and the page of `napsim app`

Sets = Sequence[str] | dict  # overrides: ["sides.A.hand=7"] (as --set) or {"sides.A.hand": 7}
COMPILE_SECONDS = {"epic": 15, "lgb": 25}  # first compile, empty cache: twice the 2-core VM's (docs/speed.md)


def overrides_of(sets: Sets) -> dict:
    """{path: value} of overrides given as 'path=value' items (read as `--set` reads them) or a dict."""
    return dict(sets) if isinstance(sets, dict) else parse_overrides(list(sets))


def simulation(scenario: str | Path, sets: Sets = (), deck: str | None = None,
               policy: str = "greedy,greedy", notice: Callable[[str], None] | None = None) -> Simulation:
    """The scenario with its overrides, the deck and a policy per side, validated and packed
    (`Simulation.build`). With `notice`, the kernel is compiled (or read from numba's cache) before
    it returns, the notice told first when that takes long, so that what follows counts games only."""
    sc = load_scenario(scenario, overrides_of(sets))
    policies = parse_policy_option(policy)

    def checked() -> None:  # every input valid: say so before the first compile, if there is one
        line = compile_notice(kernel_for(sc.format, policies))
        if line:
            notice(line)
    if notice is None:
        return Simulation.build(sc, policies, deck)
    return ready_simulation(sc, policies, deck, checked)  # on both cores from an empty cache


def engine_compiled(game_format: str) -> bool | None:
    """Whether the kernel of a scenario format is compiled (here or in numba's cache; None: unknown)."""
    return kernel_compiled(kernel_for(game_format))


def compile_seconds(game_format: str) -> int:
    """About how long a first compile of the format's kernel takes, from an empty cache."""
    return COMPILE_SECONDS[kernel_for(game_format)]


@dataclass
class Simulated:
    """What `simulate` returns: the run (`result`) and the folder written (`path`, or None).
    `summary` is the frame `napsim simulate` writes as summary.csv, one row per side and metric
    (value, 95% interval, n, title and unit in words); `lines()` what it prints."""

    result: SimResult
    path: Path | None = None

    @property
    def sim(self) -> Simulation:
        return self.result.sim

    @functools.cached_property
    def summary(self) -> pd.DataFrame:
        return self.result.summary()

    def summary_csv(self) -> str:
        """summary.csv as `napsim simulate --out` writes it, byte for byte."""
        return self.summary.to_csv(index=False)

    def lines(self) -> list[str]:
        """What `napsim simulate` prints: the headline, exact quantities, the rates, the deck warning."""
        game_format = self.sim.scenario.format
        lines = simulate_lines(self.summary, game_format, game_format not in ONE_A_SIDE)
        notes = [f"note: {n}" for n in what_if_notes(self.sim.scenario)]
        return lines + [w for w in [self.sim.deck.estimated_warning()] if w] + notes

    def section_chart_svg(self) -> bytes:
        """The chart of effective orders a turn by section and side (95% intervals), as SVG."""
        return section_chart_svg(self.summary, self.sim.scenario.name)

    def __repr__(self) -> str:  # a notebook's short text, not every game's sums
        return run_text(self.summary, self.sim.scenario.name, self.result.games, self.result.seed)

    def _repr_html_(self) -> str:
        return notebook_html(repr(self), self.summary, ["effective_per_turn", "nominal_per_turn"])

    def findings(self) -> list[str]:
        """The sentences a report of these games opens with (`napsim.output.findings.study`)."""
        sc = self.sim.scenario
        spec = dict(main_metric="effective_per_turn", main_side=sc.sides[0].key, sweep={},
                    metrics=["effective_per_turn", "nominal_per_turn", "wasted"])
        found = engine_findings(self.summary.assign(point="p000"), spec, [deck_note(self.sim.deck)])
        answer = card_flow_answer(self.summary)
        if answer is None:
            return [f.text + "." for f in found]
        # the answer first; not the main number restated, nor the sides' gap said a second time
        said = [f.text for f in found[1:] if not re.search(r" differ (clearly|not measurably) in ", f.text)]
        return [answer, *(t + "." for t in said)]


def simulate(scenario: str | Path | Simulation, sets: Sets = (), deck: str | None = None,
             policy: str = "greedy,greedy", games: int = 10_000, seed: int = SEED,
             chunk: int = SIM_CHUNK, out: str | Path | None = None, force: bool = False,
             per_game: bool = True, progress: Callable[[int, int], None] | None = None,
             notice: Callable[[str], None] | None = None) -> Simulated:
    """Play games [0, games) of a scenario (`sets` as `napsim simulate --set`), or of a
    `Simulation` already built: the numbers of `napsim simulate` with the same options, bit for
    bit, for any chunk size. With `out` the result folder is written as `napsim simulate --out`
    writes it (the per-game rows streamed to games.parquet unless not `per_game`; refused if it
    holds results, unless `force`); without, no per-game rows are kept. `progress(done, games)`
    after each chunk (an exception raised there stops the run); `notice` as in `simulation`."""
    check_run(games, seed, chunk)
    if out is not None:
        check_results_dest(out, force)  # refused before anything is played
    if isinstance(scenario, Simulation):
        if sets or deck is not None:
            raise NapsimInputError("simulate", "sets", "overrides or a deck given with a Simulation",
                                   "a scenario name or path, or a built Simulation alone")
        sim = scenario
    else:
        sim = simulation(scenario, sets, deck, policy, notice)
    if out is None:
        return Simulated(sim.run(games, seed, chunk, progress=progress))
    res, path = simulate_into_folder(sim, out, force, games, seed, chunk, per_game, progress, notice)
    return Simulated(res, path)


def trace_text(scenario: str | Path | Simulation, sets: Sets = (), deck: str | None = None,
               policy: str = "greedy,greedy", seed: int = SEED, game: int = 0) -> str:
    """One game replayed from (seed, game index), turn by turn in words: what `napsim trace` prints."""
    sim = scenario if isinstance(scenario, Simulation) else simulation(scenario, sets, deck, policy)
    met, events = sim.trace(seed, game)
    return format_trace(sim, events, seed, game, met)


def scenario_toml(scenario: str | Path, sets: Sets = ()) -> str:
    """The scenario file with the overrides written into it, validated: `napsim simulate --scenario
    THAT.toml` plays what `--scenario SCENARIO --set ...` plays (comments of the file are not kept)."""
    path = resolve_scenario_path(scenario)
    doc, _ = read_toml(path)
    over = overrides_of(sets)
    for k, v in over.items():
        apply_override(doc, k, v, "--set")
    parse_scenario(doc, path)  # what cannot be loaded is not written
    if "guerrilla_pool" in doc["scenario"]:  # the pool the Guerrilla box leaves (`guerrilla_box`)
        doc["scenario"]["guerrilla_pool"] = load_scenario(path, over).guerrilla_pool
    made = " ".join(f"--set {k}={override_text(v)}" for k, v in over.items())
    return toml_text(doc, [f"Written by napsim {__version__} (napsim app) from the scenario {path.name}"
                           + (f" with {made}" if made else "") + "."])


def _cli(*parts) -> str:
    return " ".join(shlex.quote(str(p)) for p in parts)


def _flags(flag: str, sets: Sets) -> list[str]:
    return [x for k, v in overrides_of(sets).items() for x in (flag, f"{k}={override_text(v)}")]


def _deck_policy_flags(deck: str | None, policy: str) -> list[str]:
    """--deck and --policy where they differ from the defaults."""
    return (["--deck", deck] if deck else []) + (["--policy", policy] if policy != "greedy,greedy" else [])


def simulate_command(scenario: str | Path, sets: Sets = (), deck: str | None = None,
                     policy: str = "greedy,greedy", games: int = 10_000, seed: int = SEED,
                     out: str = "out/simulate") -> str:
    """The `napsim simulate` command line that plays these settings (the same numbers, bit for bit)."""
    extra = _deck_policy_flags(deck, policy)
    return _cli("napsim", "simulate", "--scenario", scenario, *_flags("--set", sets), *extra,
                "--games", games, "--seed", seed, "--out", out)


def compare_command(scenario: str | Path, a: Sets = (), b: Sets = (), scenario_b: str | None = None,
                    deck_a: str | None = None, deck_b: str | None = None, policy_a: str = "greedy,greedy",
                    policy_b: str = "greedy,greedy", games: int = 10_000, seed: int = SEED) -> str:
    """The `napsim compare` command line of these two variants (the numbers of `compare`)."""
    extra = ["--scenario-b", scenario_b] if scenario_b and scenario_b != str(scenario) else []
    greedy = "greedy,greedy"
    for flag, v, default in (("--deck-a", deck_a, None), ("--deck-b", deck_b, None),
                             ("--policy-a", policy_a, greedy), ("--policy-b", policy_b, greedy)):
        extra += [flag, v] if v != default else []
    return _cli("napsim", "compare", "--scenario", scenario, *extra, *_flags("--a", a), *_flags("--b", b),
                "--games", games, "--seed", seed)


def balance_command(scenario: str | Path, vary: str, equalize: str | None, sets: Sets = (),
                    deck: str | None = None, policy: str = "greedy,greedy", games: int = 10_000,
                    seed: int = SEED, deck_ensemble: int | None = None, target: float | None = None,
                    side: str | None = None) -> str:
    """The `napsim balance` command line of this search (the numbers of `balance`): --equalize, or
    --target and --side."""
    extra = _deck_policy_flags(deck, policy)
    extra += ["--deck-ensemble", deck_ensemble] if deck_ensemble else []
    goal = ["--equalize", equalize] if equalize else ["--target", f"{target:g}", "--side", side]
    return _cli("napsim", "balance", "--scenario", scenario, "--vary", vary, *goal,
                *_flags("--set", sets), *extra, "--games", games, "--seed", seed)


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

    def report(self, dest: str | Path | None = None, png: bool = False) -> Path:
        """Write report.md / report.html / CSVs / charts (SVG; PNG too with `png`) into `dest`
        (default: the run folder)."""
        return write_report(self.out, dest, png=png, data=self.data)

    def __repr__(self) -> str:
        return f"StudyResult({self.meta['spec']['name']!r}, {len(self.meta['points'])} points, {self.out})"

    def _repr_html_(self) -> str:
        """The study's name, description and its main metric at every point (a notebook's view)."""
        spec = self.meta["spec"]
        text = f"Study {spec['name']}: {spec.get('description', '')}".strip().rstrip(":")
        return notebook_html(text, self.summary(), [spec["main_metric"]] if spec.get("main_metric") else None)


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
              deck_ensemble: int | None = None, notice: NoticeFn | None = None,
              png: bool = False) -> StudyResult:
    """Run (or resume) a study and return its `StudyResult`. Without `out` the results go to
    ``out/<study name>`` under the current folder, so a second call resumes instead of rerunning.
    `threads`, `runner` and `notice` as in `napsim.study.runloop.execute` (e.g.
    ``runner=napsim.study.backends.DaskRunner(...)``). `deck_ensemble` (N; default: the study's
    `deck_ensemble`): then each point's games on N plausible decks, for the main metric's spread
    across decks (`napsim.study.deck_ensemble`; the report gains its table). `report`: write
    report.md and report.html into the run folder (`StudyResult.report`), its charts as SVG, and
    as PNG too with `png`."""
    st = path if isinstance(path, Study) else load_study(path)
    out = Path(out) if out is not None else Path("out") / st.name
    n_decks = check_study_run(st, out, force, target_error, deck_ensemble)
    recorder = frames.Recorder(out)  # the report reads no chunk file back
    try:
        execute(st, out, force=force, target_error=target_error, progress=progress, threads=threads,
                runner=runner, notice=notice, on_chunk=recorder.add if st.kind == "engine" else None)
    except OSError as e:  # disk full...: every chunk file on disk is complete
        raise NapsimInputError(e.filename or str(out), None, f"cannot write: {e.strerror or e}; the "
                               "chunks written so far are kept: rerun `napsim run` to resume") from None
    if n_decks is not None:
        run_study_ensemble(st, out, n_decks, notice)
    res = StudyResult(out)
    if st.kind == "engine":
        res.data = recorder.finish(res.meta)
    if report:
        res.report(png=png)
    return res


# --------------------------------------------------------------------------------------------
# a run of `napsim simulate` into a result folder


def simulate_into_folder(sim, out_dir: str | Path, force: bool, games: int, seed: int, chunk: int,
                         per_game: bool, progress=None, notice: Callable[[str], None] | None = None):
    """Play the games of a `Simulation` and write its result folder whole or not at all
    (`napsim.output.simulated.result_folder`), the per-game rows streamed to Parquet chunk by chunk
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
# the committed studies, readings and variants files (`napsim regen`)


def study_files(studies_dir: str | Path, names: Sequence[str] = ()) -> list[Path]:
    """The study files to regenerate: all of `studies_dir`, or the ones named."""
    folder = Path(studies_dir)
    files = sorted(folder.glob("*.toml"))
    if not files:
        raise NapsimInputError(str(folder), None, "no study files (*.toml) here",
                               hint="run from the repository root, or pass --studies")
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
    a variants file (``studies/tamames_balance.toml``) ``results/<its name>`` (`write_variants`).
    """
    for f in study_files(studies_dir, names):
        if is_variants_file(f):  # variants answers: tune, ladder, balance, compare; no chunk files to resume
            t0 = time.perf_counter()
            spec = load_variants_file(f)
            dest = write_variants(spec, Path(results_dir) / spec.name, force=True)
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
        # PNG too: the README shows committed charts as PNG
        dest = write_report(work, Path(results_dir) / st.name, raw_tables=False, png=True)
        yield f"{f}: {len(st.points)} point(s) in {time.perf_counter() - t0:.1f} s -> {dest}"


# --------------------------------------------------------------------------------------------
# variants: compare two variants, find the balancing setting


def compare_run(scenario: str, a: Sequence[str] | dict = (), b: Sequence[str] | dict = (),
                scenario_b: str | None = None, deck: str | None = None, deck_a: str | None = None,
                deck_b: str | None = None, policy: str = "greedy,greedy", policy_a: str | None = None,
                policy_b: str | None = None, metrics: Sequence[str] = (), games: int = 10_000,
                seed: int = SEED, chunk: int = SIM_CHUNK, target_error: float | None = None,
                chart: str | Path | None = None, progress=None) -> Comparison:
    """`compare`, returning the `Comparison` (frame, variants, games played) behind the frame."""
    chart_path = variants.check_chart_path(chart)
    va, vb = variant_pair(scenario, a, b, scenario_b, deck, deck_a, deck_b, policy, policy_a, policy_b)
    cmp = compare_variants(va, vb, metrics, games, seed, chunk, target_error, progress)
    if chart_path is not None:
        from napsim.output.chartkit import write_chart  # lazy: matplotlib is heavy, and only charts need it

        write_chart(variants.compare_figure(cmp), chart_path, "compare")
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
    range and spread across decks, and a sentence; A and B must play one deck). `attrs["gap"]`:
    the main metric's gap between the sides in A and B and its paired change; `attrs["answer"]`:
    that change and each side's own, in words (what a comparison leads with)."""
    n_decks = options.pop("deck_ensemble", None)
    if n_decks is not None:  # checked before anything is played
        check_ensemble(n_decks)
        check_one_deck(*variant_pair(scenario, a, b, *(options.get(k) for k in _VARIANT_KEYS)))
    cmp = compare_run(scenario, a, b, **options)
    if n_decks is None:
        df = variants.with_sentences(cmp)
    else:
        ens = compare_ensemble(cmp, n_decks, cmp.seed, options.get("chunk", SIM_CHUNK))
        df = ensemble_frame(cmp, ens)
    df.attrs.update(games=cmp.games, seed=cmp.seed, target_reached=cmp.target_reached, gap=cmp.gap,
                    answer=[t for t in (variants.gap_sentence(cmp.gap), variants.sides_sentence(df)) if t])
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
    the crossings; a deck without a crossing in the range (the file's included) is counted. No
    setting in the range that evens the sides is an answer, not an error: `.crossed` False, and a
    short integer range played at every setting."""
    chart_path = variants.check_chart_path(chart)
    if deck_ensemble is not None:
        check_ensemble(deck_ensemble)
    if isinstance(equalize, str):
        equalize = [k.strip() for k in equalize.split(",")]
    overrides = tuple((sets if isinstance(sets, dict) else parse_overrides(sets)).items())
    res = find_balance(Variant(scenario, overrides, deck, policy), vary, metric, equalize, target,
                       side, games, seed, chunk, progress, target_error)
    res.sentence = variants.balance_sentence(res)
    if deck_ensemble is not None:
        res.ensemble = balance_ensemble(res, deck_ensemble, seed, progress)
        res.ensemble_sentence = balance_ensemble_sentence(res, res.ensemble)
    if chart_path is not None:
        from napsim.output.chartkit import write_chart  # lazy: matplotlib is heavy, and only charts need it

        write_chart(variants.balance_figure(res), chart_path, "balance")
    return res


def write_variants(spec: VariantsFile, dest: str | Path, force: bool = False,
                   progress: Callable[[str], None] | None = None) -> Path:
    """Answer every entry of a variants file (`napsim.study.variants_file`), in order: a tune's answer
    played by the later entries that name it ('@name'), a balance's move from the balance it is
    `against`; write its report folder (`napsim.output.variants_report`): report.md, <name>.json
    and <name>.png per entry (a tune has no chart), manifest.json."""
    t0 = time.perf_counter()
    answers: list[Answer] = []
    tuned: dict[str, str] = {}  # a tune entry's answer, its side's policy text ('@name')
    for e in spec.entries:
        e = resolve(e, tuned)
        if progress:
            progress(f"{e.kind} {e.name}: {e.command()}")
        if e.kind in ("tune", "ladder"):
            answers.append(_tune_or_ladder(e, tuned, progress))
            continue
        if e.kind == "balance":
            o = {k: v for k, v in e.options.items() if k != "against"}
            res = balance(**o, progress=progress)
            ref = next((a.result for a in answers if a.entry.name == e.options.get("against")), None)
            answers.append(Answer(e, res, warnings=tuple(w for w in [res.deck_warning] if w), against=ref))
            continue
        opts = dict(e.options)
        n_decks = opts.pop("deck_ensemble", None)
        if n_decks is not None:
            check_ensemble(n_decks)
        cmp = compare_run(**opts)
        ens = (compare_ensemble(cmp, n_decks, cmp.seed, opts.get("chunk", SIM_CHUNK))
               if n_decks is not None else None)
        warnings = tuple(w for w in dict.fromkeys(s.deck.estimated_warning() for s in cmp.sims) if w)
        answers.append(Answer(e, cmp, ens, warnings))
    return write_variants_folder(spec, answers, dest, time.perf_counter() - t0, force)


def _tune_or_ladder(e, tuned: dict[str, str], progress) -> Answer:
    """A variants file's tune entry (its answer kept for the entries after it) or ladder entry."""
    o = dict(e.options)
    if e.kind == "ladder":
        lad = run_ladder(**o, progress=progress)
        return Answer(e, lad, warnings=tuple(w for w in [lad.deck_warning] if w))
    knobs = o.pop("knob")
    res = tune(knobs=[knobs] if isinstance(knobs, str) else knobs, **o, progress=progress)
    r = res.race  # the default kept: the side's own parameters only, not the knobs' defaults spelled out
    tuned[e.name] = policy_text(r.policy_name, r.best_table() if r.significant else r.table)
    return Answer(e, res)


def tune(scenario: str, side: str, knobs: Sequence[str] | str, metric: str = "effective_per_turn",
         of: str = "own", goal: str | None = None, policy: str = "greedy,greedy", deck: str | None = None,
         sets: Sets = (), games: int = 20_000, seed: int = SEED, chunk: int = SIM_CHUNK,
         rounds: int = 5, max_candidates: int = 64, progress: Callable[[str], None] | None = None) -> Tuned:
    """Race the knobs of `side`'s policy (``knobs=["g_spend_mode=always,threshold",
    "g_threshold=2:5:1"]``: values, or lo:hi:step) on the same games for the setting that raises
    `metric` on its own row (`of="own"`) or lowers it on the opponent's (`of="opponent"`; `goal`
    "max" or "min" overrides), the default policy always a candidate (docs/tune.md). The result has
    `.best`, `.versus_default` (paired, Bonferroni-corrected interval), `.frame()`, `.policy_toml()`
    (the [policy.<side>] table to paste into the scenario) and `.text(table_format)`."""
    return Tuned(tune_policy(scenario, side, [knobs] if isinstance(knobs, str) else list(knobs), metric,
                             of, goal, policy, deck, sets, games, seed, chunk, rounds, max_candidates,
                             progress))
