"""What a user waits for, end to end: `python -m napsim.bench cold|study` (part of `bench all`).

`cold` times the first result of each format from an empty numba cache, as a fresh install sees it
(a new process: import, compile, play, write). `study` times the README's main study with a warm
cache: its games, and everything else (start-up, report, charts), and plays the same points on the
bare kernel (one call per point) so that the study path's overhead shows as a ratio. Every stage
says on stderr what it is doing; the results are JSON lines on stdout. Tests never assert timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

from napsim.model.version import __version__
from napsim.sim.packing import Simulation
from napsim.study.spec import load_study

COLD_TARGET_SECONDS = 15.0   # issue 17: the first result of a format from an empty cache
STUDY_TARGET_SECONDS = 5.0   # issue 17: the README study end to end, cache warm
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
    for fmt in formats:
        with tempfile.TemporaryDirectory(prefix="napsim-cold-") as tmp:
            args = list(COLD_COMMANDS[fmt])
            if args[0] == "simulate":
                args += ["--out", str(Path(tmp) / "out")]
            say(f"cold start of {fmt}: {' '.join(args[:3])} ... with an empty numba cache")
            cold = _napsim(args, str(Path(tmp) / "cache"))
            if args[0] == "simulate":
                args += ["--force"]
            warm = _napsim(args, str(Path(tmp) / "cache"))
            say(f"cold start of {fmt}: {cold:.1f} s (then {warm:.1f} s with the cache)")
        out.append({"bench": "cold_start", "format": fmt, "command": "napsim " + " ".join(
            COLD_COMMANDS[fmt]), "seconds_empty_cache": round(cold, 1),
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
