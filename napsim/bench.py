"""Throughput benchmarks: `python -m napsim.bench odds|epic|guerrilla|formats|lookahead|cold|study|app|all`.

Each kernel is timed after a warm-up call (compilation excluded) and, in the same run, against a
straightforward reference implementation of the same question, so the printed ratio does not
depend on the machine: a vectorised numpy version for the odds kernel (here), and for the engine
kernels the pure-Python engines of a source checkout's ``tests/reference``, when
``--reference tests/reference`` names that folder (an installed napsim has no tests). One JSON line
per kernel goes to stdout, a progress line per stage to stderr. Tests never assert timings;
docs/speed.md has the measurements.

What a user waits for, end to end (`cold`, `study`): `cold` times the first result of each format
from an empty numba cache, as a fresh install sees it (a new process: import, compile, play,
write); `study` times the README's main study with a warm cache: its games, and everything else
(start-up, report, charts), and plays the same points on the bare kernel (one call per point) so
that the study path's overhead shows as a ratio.

How long the page of `napsim app` makes a designer wait (`app`): fifty scripted setting changes
(each one a setting not seen before, across EPIC 1 and 3 a side and La Grande Battles), warm (the
kernels compiled first): for each, the time from the change to the first numbers (the first batch
played and its summary and findings ready to draw) and to the full count (20,000 games by
default), through the page's own path (`napsim.app.jobs.answer` on a `KernelWorker`); then the
same changes once more through Streamlit's AppTest, the whole page script rerun to the full count.
p50 and p95 of each.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__":  # a fresh cache: numba does not notice edits in other files
    os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="napsim-bench-"))

import click
import numba
import numpy as np

from napsim import api
from napsim.app import jobs
from napsim.app.jobs import Settings
from napsim.app.worker import KernelWorker
from napsim.engine import odds as kernels
from napsim.engine.rng import seed_key
from napsim.model.cards import load_deck
from napsim.model.defaults import SEED, __version__
from napsim.model.policies import PARAMS, SEARCHES, policy_vector
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.study.spec import load_study


def reference_hand_counts_numpy(deck: np.ndarray, value: np.ndarray, hand: int, games: int,
                                seed: int) -> np.ndarray:
    """Vectorised numpy version of `hand_value_hist`: one random sort key per card, argsort."""
    rng = np.random.default_rng(seed)
    hist = np.zeros(int(value.max()) * hand + 1, np.int64)
    step = 20_000
    for lo in range(0, games, step):
        n = min(step, games - lo)
        hands = np.argpartition(rng.random((n, deck.size)), hand, axis=1)[:, :hand]
        sums = value[deck[hands]].sum(axis=1)
        hist += np.bincount(sums, minlength=hist.size)
    return hist


def _time(fn, min_seconds: float = 1.0) -> tuple[float, int]:
    """(seconds per call, calls) of fn, repeated until at least min_seconds have passed."""
    calls, start = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / calls, calls


def _versions() -> dict:
    return {"napsim": __version__, "numba": numba.__version__, "numpy": np.__version__}


REPEATS = 7  # timed slices per thread count; the best counts (a busy host only slows a slice down)
SLICE_SECONDS = 0.5
REF_REPEATS = 3  # timed slices of the pure-Python reference engine; the best counts


def _rates(run, work: float, threads: int, repeats: int = REPEATS) -> dict:
    """Work per second with 1 thread and with `threads` threads: the best of `repeats` timed slices
    (at least SLICE_SECONDS each), the thread counts interleaved in alternating order so that a
    busy spell of the host (other processes, a shared CPU) hits both alike. `out["pairs"]` is the
    median speed-up of the back-to-back pairs, a second estimate that drift does not bias."""
    counts = sorted({1, threads})
    for t in counts:
        numba.set_num_threads(t)
        run()  # warm-up (compilation, thread pool)
    out = dict.fromkeys(counts, 0.0)
    ratios = []
    for i in range(repeats):
        pair = {}
        for t in counts if i % 2 == 0 else counts[::-1]:
            numba.set_num_threads(t)
            sec, _ = _time(run, SLICE_SECONDS)
            pair[t] = work / sec
            out[t] = max(out[t], pair[t])
        ratios.append(pair[threads] / pair[1])
    numba.set_num_threads(1)
    out["pairs"] = float(np.median(ratios))
    return out


def bench_odds(games: int, threads: int, reference: Path | None = None) -> dict:
    """5-card hands from the 90-card deck, counting multi-section cards."""
    deck_obj = load_deck("gmt90")
    deck = deck_obj.card_types()
    value = (deck_obj.cards["kind"] == "multi").to_numpy(np.int64)
    key = seed_key(1)
    hand = 5

    def run():
        kernels.hand_value_hist(deck, value, hand, kernels.COMBINE_SUM, key, 0, games, hand + 1)

    rates = _rates(run, games, threads)
    ref_games = max(20_000, games // 500)
    ref_sec, _ = _time(lambda: reference_hand_counts_numpy(deck, value, hand, ref_games, 1), 0.5)
    ref_rate = ref_games / ref_sec
    return {
        "kernel": "odds", "unit": "hands", "threads": threads,
        "per_second_per_core": round(rates[1]), "per_second": round(rates[threads]),
        f"speedup_1_to_{threads}_threads": round(rates[threads] / rates[1], 2),
        "speedup_median_of_pairs": round(rates["pairs"], 2), "timing": f"best of {REPEATS}",
        "reference": "numpy argpartition (vectorised)", "reference_per_second": round(ref_rate),
        "ratio_vs_reference": round(rates[1] / ref_rate, 1), **_versions(),
    }


REFERENCE_PACKAGE = "napsim_bench_reference"  # the name the reference package is loaded under


def _reference(game_format: str, folder: Path | None):
    """(play_games(sim, n, seed), source) of the pure-Python engine for a format from the reference
    package `folder` (a source checkout's tests/reference), or (None, why not)."""
    if folder is None:
        return None, "not timed (pass --reference tests/reference from a source checkout)"
    init = Path(folder) / "__init__.py"
    if not init.is_file():
        return None, f"unavailable ({folder} is not the reference package: no __init__.py)"
    if REFERENCE_PACKAGE not in sys.modules:  # the package from its folder; sys.path is left alone
        spec = importlib.util.spec_from_file_location(REFERENCE_PACKAGE, init,
                                                      submodule_search_locations=[str(folder)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[REFERENCE_PACKAGE] = package
        spec.loader.exec_module(package)
    name = "lgb" if game_format == "lgb" else "engine"
    module = importlib.import_module(f"{REFERENCE_PACKAGE}.{name}")
    play = module.play_games_lgb if game_format == "lgb" else module.play_games
    return play, f"{Path(folder) / name}.py (pure Python)"


def _bench_engine(kernel: str, scenario, games: int, threads: int, reference: Path | None) -> dict:
    """Greedy vs greedy games of one scenario; the per-core figure is from one thread, and the
    ratio compares it with the pure-Python engine of the reference package (`--reference`)."""
    sim = Simulation.build(scenario)
    if not isinstance(scenario, str):
        scenario = f"{scenario.name} ({scenario.format})"
    # one kernel call of n games: play_chunk splits it into min(n, 64) blocks, so with n in the
    # thousands every thread gets many blocks of hundreds of games (a fair 1 -> N comparison)
    n = max(4_000, games // 1000)
    turns = n * 2 * sim.scenario.turns
    rates = _rates(lambda: sim.run(n, 1, chunk=n), turns, threads)
    out = {"kernel": kernel, "scenario": scenario, "unit": "turns", "threads": threads,
           "games": n, "turns_per_second_per_core": round(rates[1]),
           "games_per_second_per_core": round(rates[1] / (2 * sim.scenario.turns)),
           "turns_per_second": round(rates[threads]),
           f"speedup_1_to_{threads}_threads": round(rates[threads] / rates[1], 2),
           "speedup_median_of_pairs": round(rates["pairs"], 2), "timing": f"best of {REPEATS}"}
    play_games, source = _reference(sim.scenario.format, reference)
    if play_games is None:
        out["reference"] = source
    else:
        ref_games = 20
        # best of REF_REPEATS slices, as the kernel's figure is a best of slices: a busy host
        # slowing only the reference would otherwise inflate the ratio
        slices = [ref_games * 2 * sim.scenario.turns
                  / _time(lambda: play_games(sim, ref_games, seed=1), 0.5)[0]
                  for _ in range(REF_REPEATS)]
        ref_rate = max(slices)
        # the slowest slice too: a pure-Python rate swings with the host far more than the
        # kernel's does (seen: 3,300 to 6,600 turns/s on one VM in one day), and so does the ratio
        out.update(reference=source,
                   reference_timing=f"best of {REF_REPEATS}",
                   reference_per_second=round(ref_rate),
                   reference_slowest_slice_per_second=round(min(slices)),
                   ratio_vs_reference=round(rates[1] / ref_rate, 1))
    out.update(_versions())
    return out


def bench_epic(games: int, threads: int, reference: Path | None = None) -> dict:
    """EPIC one a side, symmetric armies, 30 turns a side."""
    return _bench_engine("epic", "symmetric", games, threads, reference)


def bench_guerrilla(games: int, threads: int, reference: Path | None = None) -> dict:
    """Tamames with the EPIC guerrilla rules on (G4-G6)."""
    return _bench_engine("guerrilla", "tamames", games, threads, reference)


def bench_lookahead(games: int, threads: int, reference: Path | None = None) -> list[dict]:
    """The lookahead policy (P8, default K and D) for side A against greedy, beside greedy against
    greedy, on the symmetric armies of EPIC and of La Grande Battles, one line each: turns per
    second on one core (both sides' turns) and the ratio, i.e. what a turn of planning costs; the
    three searches (`lookahead_search` full, halving and race, timed in alternation) and full's cost
    over each other's;
    and the planner that sees every hand (`lookahead_info` open) beside the default (fair), whose
    rollouts deal the unseen cards again."""
    return [_bench_lookahead("lookahead", "symmetric", 200, games, threads),
            _bench_lookahead("lookahead-lgb", "lgb-symmetric", 40, games, threads)]


def _bench_lookahead(kernel: str, scenario: str, planned_games: int, games: int,
                     threads: int) -> dict:
    out = {"kernel": kernel, "scenario": scenario, "unit": "turns", "threads": threads}
    greedy = ("greedy", {})
    open_hands = ("lookahead", {"lookahead_info": "open"})  # P8: the planner that sees every hand
    for name, n, pols in (("greedy", max(4_000, games // 1000), (greedy, greedy)),
                          ("lookahead", planned_games, (("lookahead", {}), greedy)),
                          ("lookahead_open", planned_games, (open_hands, greedy))):
        sim = Simulation.build(scenario, policies=pols)
        turns = n * 2 * sim.scenario.turns
        rates = _rates(lambda sim=sim, n=n: sim.run(n, 1, chunk=n), turns, threads, repeats=3)
        out[f"{name}_games"] = n
        out[f"{name}_turns_per_second_per_core"] = round(rates[1])
        out[f"{name}_turns_per_second"] = round(rates[threads])
    defaults = policy_vector("lookahead")
    out["lookahead_k"] = int(defaults[PARAMS["lookahead_k"]])
    out["lookahead_d"] = int(defaults[PARAMS["lookahead_d"]])
    out["lookahead_search"] = next(k for k, v in SEARCHES.items()
                                   if v == defaults[PARAMS["lookahead_search"]])
    out["greedy_over_lookahead"] = round(out["greedy_turns_per_second_per_core"]
                                         / out["lookahead_turns_per_second_per_core"], 1)
    # the planned turns are side A's, half of all: their cost beside a greedy turn's
    out["us_per_planned_turn"] = round(2e6 / out["lookahead_turns_per_second_per_core"], 1)
    out["us_per_planned_turn_open"] = round(2e6 / out["lookahead_open_turns_per_second_per_core"], 1)
    out["fair_over_open_cost"] = round(out["lookahead_open_turns_per_second_per_core"]
                                       / out["lookahead_turns_per_second_per_core"], 3)
    out.update(_searches(scenario, planned_games))
    out["timing"] = "best of 3"
    out.update(_versions())
    return out


def _searches(scenario: str, planned_games: int) -> dict:
    """The cost of a planned turn with each search (P8 `lookahead_search`), one core, the three
    timed in alternation (best of 5 slices each), so that a busy spell of the host hits all alike;
    the halving search plays 5 times the full one's games, the race twice."""
    runs = {}
    for search, n in (("full", planned_games), ("halving", 5 * planned_games),
                      ("race", 2 * planned_games)):
        sim = Simulation.build(scenario, policies=(("lookahead", {"lookahead_search": search}),
                                                   ("greedy", {})))
        runs[search] = (lambda sim=sim, n=n: sim.run(n, 1, chunk=n), n * 2 * sim.scenario.turns)
    numba.set_num_threads(1)
    best = dict.fromkeys(runs, 0.0)
    for run, _ in runs.values():
        run()  # warm-up (compilation)
    for i in range(5):
        for search in (list(runs) if i % 2 == 0 else list(runs)[::-1]):
            run, turns = runs[search]
            sec, _ = _time(run, SLICE_SECONDS)
            best[search] = max(best[search], turns / sec)
    out = {f"us_per_planned_turn_{search}": round(2e6 / rate, 1) for search, rate in best.items()}
    out["full_over_halving_cost"] = round(best["halving"] / best["full"], 1)
    out["full_over_race_cost"] = round(best["race"] / best["full"], 1)
    return out


def bench_formats(games: int, threads: int, reference: Path | None = None) -> list[dict]:
    """EPIC 2, 3 and 4 a side and La Grande Battles on the formats study's armies, one line each."""
    out = []
    for game_format in ("epic2", "epic3", "epic4", "lgb"):
        sc = load_scenario("formats-armies", overrides={"scenario.format": game_format})
        out.append(_bench_engine(f"formats-{game_format}", sc, games, threads, reference))
    return out


# --------------------------------------------------------------------------------------------
# what a user waits for: `cold` and `study`


COLD_TARGET_SECONDS = 15.0   # the first result of a format from an empty cache
STUDY_TARGET_SECONDS = 5.0   # the README study end to end, cache warm
STUDY_FILE = Path("studies/courier_rack.toml")  # the README's main command, from a source checkout

# the first result of each format, as a user asks for it on a fresh install
COLD_COMMANDS = {
    "epic1": ["simulate", "--scenario", "symmetric", "--games", "1000", "--no-per-game"],
    "epic3": ["simulate", "--scenario", "epic3-tamames", "--games", "1000", "--no-per-game"],
    "lgb": ["simulate", "--scenario", "lgb-symmetric", "--games", "1000", "--no-per-game"],
    "odds": ["odds", "report", "--games", "100000"],
}


def say(text: str) -> None:
    """One progress line on stderr (stdout carries only the JSON results)."""
    print(f"bench: {text}", file=sys.stderr, flush=True)


def _napsim(args: list[str], cache_dir: str, timeout: float = 900) -> float:
    """Seconds for `python -m napsim ARGS` in a new process with numba's cache in `cache_dir`."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "napsim", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise RuntimeError(f"napsim {' '.join(args)} failed: {' '.join(tail)}")
    return seconds


def bench_cold(formats: tuple[str, ...] = tuple(COLD_COMMANDS)) -> list[dict]:
    """For each format: seconds from an empty numba cache to the first result, then the same
    command again with the cache that run left (what every later run pays)."""
    out = []
    for game_format in formats:
        with tempfile.TemporaryDirectory(prefix="napsim-cold-") as tmp:
            args = list(COLD_COMMANDS[game_format])
            if args[0] == "simulate":
                args += ["--out", str(Path(tmp) / "out")]
            say(f"cold start of {game_format}: {' '.join(args[:3])} ... with an empty numba cache")
            cold = _napsim(args, str(Path(tmp) / "cache"))
            if args[0] == "simulate":
                args += ["--force"]
            warm = _napsim(args, str(Path(tmp) / "cache"))
            say(f"cold start of {game_format}: {cold:.1f} s (then {warm:.1f} s with the cache)")
        out.append({"bench": "cold_start", "format": game_format, "command": "napsim " + " ".join(
            COLD_COMMANDS[game_format]), "seconds_empty_cache": round(cold, 1),
            "seconds_warm_cache": round(warm, 1), "target_seconds": COLD_TARGET_SECONDS,
            "meets_target": cold <= COLD_TARGET_SECONDS, "napsim": __version__,
            "numba": numba.__version__})
    return out


def _bare_kernel_seconds(study_file: Path) -> tuple[float, int]:
    """(seconds, turns) for the study's points on the bare kernel: one call of all of a point's
    games each, after a warm-up call; the tables are built outside the timing."""
    st = load_study(study_file)
    seconds, turns = 0.0, 0
    # the thread count the timed `napsim run` had (a new process: numba's default), whatever an
    # earlier benchmark of `bench all` left set in this one
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for p in st.points:
        sc, dk, policies = st.load_point(p)
        sim = Simulation.build(sc, policies, dk)
        sim.run(100, st.seed, chunk=100)  # compiled and warm
        t0 = time.perf_counter()
        sim.run(st.games, st.seed, chunk=st.games)
        seconds += time.perf_counter() - t0
        turns += st.games * 2 * sc.turns
    return seconds, turns


def bench_study(study_file: Path = STUDY_FILE) -> list[dict]:
    """The README study end to end with a warm cache, against the bare kernel on its points."""
    if not study_file.is_file():
        say(f"study: skipped ({study_file} not found; run from a source checkout)")
        return [{"bench": "study_end_to_end", "skipped": f"{study_file} not found"}]
    cache = os.environ.get("NUMBA_CACHE_DIR") or tempfile.mkdtemp(prefix="napsim-bench-")
    with tempfile.TemporaryDirectory(prefix="napsim-study-") as tmp:
        say(f"study: {study_file} once to fill the cache")
        _napsim(["run", str(study_file), "--out", str(Path(tmp) / "warm-up")], cache)
        say(f"study: {study_file} again into a new folder, timed (games, report and charts)")
        out = Path(tmp) / "timed"
        total = _napsim(["run", str(study_file), "--out", str(out)], cache)
        games_seconds = json.loads((out / "study.json").read_text(encoding="utf-8"))["wall_seconds"]
    say("study: the same points on the bare kernel")
    bare, turns = _bare_kernel_seconds(study_file)
    study_rate, bare_rate = turns / games_seconds, turns / bare
    say(f"study: {total:.1f} s end to end, {games_seconds:.1f} s of games "
        f"({study_rate / bare_rate:.0%} of the bare kernel's rate)")
    return [{"bench": "study_end_to_end", "study": str(study_file), "seconds_total": round(total, 1),
             "seconds_games": round(games_seconds, 2),
             "seconds_other": round(total - games_seconds, 1),
             "turns": turns, "study_turns_per_second": round(study_rate),
             "bare_kernel_turns_per_second": round(bare_rate),
             "study_rate_vs_bare_kernel": round(study_rate / bare_rate, 3),
             "threads": numba.get_num_threads(), "target_seconds": STUDY_TARGET_SECONDS,
             "meets_target": total <= STUDY_TARGET_SECONDS, "napsim": __version__}]


# --------------------------------------------------------------------------------------------
# the page of `napsim app`: `app`


APP_SCENARIOS = ("talavera-epic", "tamames", "symmetric", "epic3-tamames", "lgb-symmetric")


def app_changes(n: int) -> list[Settings]:
    """n different settings: a scenario and one side's hand size, then the other's."""
    out = []
    for i in range(n):
        name = APP_SCENARIOS[i % len(APP_SCENARIOS)]
        sc = load_scenario(name)
        a, b = (s.key for s in sc.sides)
        out.append(Settings(name, ((f"sides.{a}.hand", 4 + (i // len(APP_SCENARIOS)) % 7),
                                   (f"sides.{b}.hand", 5 + (i // 35) % 3))))
    return out


def _pct(xs: list[float]) -> dict:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    return {"p50": round(statistics.median(xs), 3), "p95": round(p95, 3), "max": round(xs[-1], 3)}


def bench_worker(settings: list[Settings], games: int) -> tuple[dict, dict]:
    """(time to first numbers, time to the full count) over the changes, through the page's jobs."""
    w = KernelWorker("bench-app")
    first, full = [], []
    try:
        for s in settings:
            t0 = time.perf_counter()
            job = w.submit(("bench", "answer"), jobs.answer, s, games, SEED)
            while job.partial is None and not job.wait(0.002):
                pass
            quick = job.partial or job.result()
            quick.summary  # noqa: B018 - what the page draws first: the summary and its findings
            quick.findings()
            first.append(time.perf_counter() - t0)
            run = job.result()
            run.findings()
            full.append(time.perf_counter() - t0)
    finally:
        w.close()
    return _pct(first), _pct(full)


def bench_page(settings: list[Settings], games: int) -> dict:
    """The whole page script rerun to the full count (Streamlit's AppTest), per change."""
    from streamlit.testing.v1 import AppTest  # lazy: Streamlit is the optional app extra

    page = str(Path(__file__).parent / "app" / "page.py")
    times = []
    at = AppTest.from_file(page, default_timeout=300)
    at.session_state["games"] = games
    for s in settings:
        at.session_state["scenario"] = s.scenario
        for path, value in s.overrides:
            at.session_state[f"{s.scenario}|{path}"] = value
        jobs.ANSWERS.put((s, games, SEED), None)  # not from the cache: played again
        t0 = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t0)
        assert not at.exception and at.metric, at.exception
    return _pct(times)


def bench_app(n: int = 50, games: int = jobs.GAMES) -> dict:
    """p50/p95 (seconds) of time to first numbers and to the full count over n setting changes."""
    settings = app_changes(n)
    for name in dict.fromkeys(s.scenario for s in settings):  # warm: compile (or load) each format
        api.simulate(name, games=1, seed=0)
    first, full = bench_worker(settings, games)
    out = {"bench": "app", "changes": n, "games": games, "first_batch": jobs.QUICK_GAMES,
           "first_numbers_s": first, "full_count_s": full}
    try:
        out["page_rerun_full_s"] = bench_page(app_changes(n), games)
    except ImportError:
        out["page_rerun_full_s"] = "streamlit not installed"
    return out


# --------------------------------------------------------------------------------------------
# the command


BENCHES = {"odds": bench_odds, "epic": bench_epic, "guerrilla": bench_guerrilla,
           "formats": bench_formats, "lookahead": bench_lookahead, "cold": lambda *_: bench_cold(),
           "study": lambda *_: bench_study(), "app": lambda *_: bench_app()}
STAGES = {  # what each stage does, said on stderr as it starts
    "odds": "the deck-odds kernel against vectorised numpy (about 20 s)",
    "epic": "EPIC one a side, 1 and N threads (a few minutes, compiling first)",
    "guerrilla": "Tamames with the Guerrilla rules (about a minute)",
    "formats": "EPIC 2-4 a side and La Grande Battles (a few minutes)",
    "lookahead": "the lookahead policy beside greedy on the symmetric armies, EPIC and La Grande "
                 "Battles (a few minutes, compiling first)",
    "cold": "the first result of each format from an empty numba cache (a few minutes)",
    "study": "the README study end to end with a warm cache (a few minutes, compiling first)",
    "app": "napsim app: 50 setting changes to first numbers and full count, warm (a few minutes, "
           "compiling first)",
}


@click.command()
@click.argument("which", type=click.Choice((*BENCHES, "all")), default="all")
@click.option("--games", type=int, default=20_000_000, show_default=True,
              help="Hands for the odds kernel; engine kernels play games/1000 games.")
@click.option("--threads", type=int, default=2, show_default=True,
              help="Thread count compared with 1 thread (the per-core figures use 1).")
@click.option("--reference", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="The reference package of a source checkout (tests/reference): time the engine "
                   "kernels against its pure-Python engines too.")
def main(which: str, games: int, threads: int, reference: Path | None) -> None:
    """Print one JSON line per benchmark."""
    todo = list(BENCHES) if which == "all" else [which]
    for name in todo:
        say(f"{name}: {STAGES[name]} ...")
        result = BENCHES[name](games, threads, reference)
        for line in result if isinstance(result, list) else [result]:
            click.echo(json.dumps(line))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
