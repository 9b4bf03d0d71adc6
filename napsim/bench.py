"""Throughput benchmarks: `python -m napsim.bench odds|all [--games N] [--threads T]`.

Each kernel is timed after a warm-up call (compilation excluded) and, in the same run, against a
straightforward reference implementation of the same question, so the printed ratio does not
depend on the machine. One JSON line per kernel goes to stdout. Tests never assert timings.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

if __name__ == "__main__":  # a fresh cache: numba does not notice edits in other files
    os.environ.setdefault("NUMBA_CACHE_DIR", tempfile.mkdtemp(prefix="napsim-bench-"))

import click
import numba
import numpy as np

import napsim
from napsim.cards import load_deck
from napsim.engine import odds as kernels
from napsim.engine.rng import seed_key

BENCHES = ("odds", "epic")


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


def bench_odds(games: int, threads: int) -> dict:
    """5-card hands from the 90-card deck, counting multi-section cards."""
    deck_obj = load_deck("gmt90")
    deck = deck_obj.card_types()
    value = (deck_obj.cards["kind"] == "multi").to_numpy(np.int64)
    key = seed_key(1)
    hand = 5
    numba.set_num_threads(threads)

    def run():
        kernels.hand_value_hist(deck, value, hand, kernels.COMBINE_SUM, key, 0, games, hand + 1)

    run()  # compile
    sec, _ = _time(run)
    ref_games = max(20_000, games // 500)
    ref_sec, _ = _time(lambda: reference_hand_counts_numpy(deck, value, hand, ref_games, 1), 0.5)
    rate = games / sec
    ref_rate = ref_games / ref_sec
    return {
        "kernel": "odds", "unit": "hands", "threads": threads,
        "per_second": round(rate), "per_second_per_core": round(rate / threads),
        "reference": "numpy argpartition (vectorised)", "reference_per_second": round(ref_rate),
        "ratio_vs_reference": round(rate / ref_rate, 1),
        "napsim": napsim.__version__, "numba": numba.__version__, "numpy": np.__version__,
    }


def bench_epic(games: int, threads: int) -> dict:
    """Greedy vs greedy on the symmetric scenario, 30 turns a side, against the pure-Python
    reference engine of tests/reference when it is importable (a source checkout)."""
    from napsim.simulate import Simulation

    numba.set_num_threads(threads)
    sim = Simulation.build("symmetric")
    n = max(2_000, games // 1000)
    sim.run(min(n, 500), 1)  # compile
    sec, _ = _time(lambda: sim.run(n, 1, chunk=n))
    turns = n * 2 * sim.scenario.turns
    rate = turns / sec
    out = {"kernel": "epic", "unit": "turns", "threads": threads, "games": n,
           "per_second": round(rate), "per_second_per_core": round(rate / threads),
           "games_per_second": round(n / sec)}
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from reference.engine import play_games  # type: ignore[import-not-found]
    except ImportError:
        out["reference"] = "unavailable (tests/reference/engine.py not found)"
    else:
        ref_games = 20
        ref_sec, _ = _time(lambda: play_games(sim, ref_games, seed=1), 0.5)
        ref_rate = ref_games * 2 * sim.scenario.turns / ref_sec
        out.update(reference="tests/reference/engine.py (pure Python)",
                   reference_per_second=round(ref_rate), ratio_vs_reference=round(rate / ref_rate, 1))
    out.update(napsim=napsim.__version__, numba=numba.__version__, numpy=np.__version__)
    return out


@click.command()
@click.argument("which", type=click.Choice((*BENCHES, "all")), default="all")
@click.option("--games", type=int, default=20_000_000, show_default=True)
@click.option("--threads", type=int, default=1, show_default=True,
              help="numba threads (1 gives the per-core figure).")
def main(which: str, games: int, threads: int) -> None:
    """Print one JSON line per benchmark."""
    todo = BENCHES if which == "all" else (which,)
    for name in todo:
        result = {"odds": bench_odds, "epic": bench_epic}[name](games, threads)
        click.echo(json.dumps(result))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
