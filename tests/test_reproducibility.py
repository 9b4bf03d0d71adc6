"""The same seed gives the same bits whatever the thread count or chunk size, and the kernels run
(with the same results) under NUMBA_DISABLE_JIT=1 (docs/architecture.md)."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numba.core.registry
import numpy as np
import pytest
from click.testing import CliRunner
from support.cli import run_napsim
from support.threads import thread_counts

from napsim import NapsimInputError, load_deck
from napsim.cli import cli
from napsim.engine import odds as kernels
from napsim.engine.rng import seed_key
from napsim.model.filters import card_filter
from napsim.sim import odds

GAMES = 3001  # odd, so that chunks and per-thread blocks split it unevenly
CHUNKS = (1, 7, 1000, GAMES, GAMES + 5)


def _hand_sum(cards, value, hand, n_bins, key, first, n):
    return kernels.hand_value_hist(cards, value, hand, kernels.COMBINE_SUM, key, first, n, n_bins)


def _hand_or(cards, value, hand, n_bins, key, first, n):
    return kernels.hand_value_hist(cards, value, hand, kernels.COMBINE_OR, key, first, n, n_bins)


def _first(cards, match, key, first, n):
    return kernels.first_match_hist(cards, match, key, first, n)


def _mulligan(cards, keep, hand, below, key, first, n):
    return kernels.mulligan_hist(cards, keep, hand, below, key, first, n)


def _cases():
    gmt = load_deck("gmt90")
    ccn = load_deck("ccn70")
    epic = load_deck("epic-tcg-sealed30")
    multi = card_filter(gmt, "kind=multi").astype(np.int64)
    orders_c = odds.section_orders_value(gmt, "C", 6)
    return {
        "hand_value_hist-sum": (_hand_sum, (gmt.card_types(), multi, np.int64(6), np.int64(7))),
        "hand_value_hist-orders": (_hand_sum, (gmt.card_types(), orders_c, np.int64(6),
                                               np.int64(int(orders_c.max()) * 6 + 1))),
        "hand_value_hist-or": (_hand_or, (ccn.card_types(), odds.section_flags(ccn),
                                          np.int64(11), np.int64(16))),
        "first_match_hist": (_first, (ccn.card_types(),
                                      card_filter(ccn, "kind=multi").astype(np.int64))),
        "mulligan_hist": (_mulligan, (epic.card_types(),
                                      card_filter(epic, "category=early").astype(np.int64),
                                      np.int64(5), np.int64(2))),
    }


CASES = _cases()


@pytest.mark.parametrize("case", sorted(CASES))
def test_same_bits_any_chunk_and_thread_count(case, restore_threads):
    kernel, args = CASES[case]
    numba.set_num_threads(thread_counts()[-1])
    ref = odds.run_chunks(kernel, args, GAMES, seed=99)
    assert ref.sum() == GAMES
    for threads in thread_counts():
        numba.set_num_threads(threads)
        for chunk in CHUNKS:
            h = odds.run_chunks(kernel, args, GAMES, seed=99, chunk=chunk)
            assert h.dtype == ref.dtype
            assert np.array_equal(h, ref), (threads, chunk)


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_and_two_threads_large_run(case, restore_threads):
    kernel, args = CASES[case]
    hists = []
    for threads in thread_counts():
        numba.set_num_threads(threads)
        hists.append(odds.run_chunks(kernel, args, 200_003, seed=7, chunk=65_536))
    assert np.array_equal(hists[0], hists[1])


@pytest.mark.parametrize("case", sorted(CASES))
def test_game_ranges_add_up(case):
    """A game's result depends only on (seed, global game index): split ranges sum exactly."""
    kernel, args = CASES[case]
    key = seed_key(5)
    whole = kernel(*args, key, np.int64(0), np.int64(2000))
    parts = [kernel(*args, key, np.int64(a), np.int64(b - a))
             for a, b in ((0, 1), (1, 640), (640, 641), (641, 2000))]
    assert np.array_equal(whole, sum(parts))
    # single games, one call each, reproduce a block of the whole
    singles = sum(kernel(*args, key, np.int64(g), np.int64(1)) for g in range(100, 160))
    assert np.array_equal(singles, kernel(*args, key, np.int64(100), np.int64(60)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_seed_changes_results(case):
    kernel, args = CASES[case]
    a = odds.run_chunks(kernel, args, 20_000, seed=1)
    b = odds.run_chunks(kernel, args, 20_000, seed=2)
    assert a.sum() == b.sum() == 20_000
    assert not np.array_equal(a, b)


def test_odds_frames_identical_across_chunks(restore_threads):
    deck = load_deck("gmt90")
    frames = []
    for threads in thread_counts():
        numba.set_num_threads(threads)
        for chunk in (1, 13, 50_000):
            frames.append(odds.deck_report(deck, 6, 1001, seed=4, chunk=chunk))
    for f in frames[1:]:
        assert f.equals(frames[0])


def test_bad_chunk_and_seed_rejected():
    kernel, args = CASES["first_match_hist"]
    for kw in ({"chunk": 0}, {"seed": -1}, {"seed": 2**63}):
        with pytest.raises(NapsimInputError):
            odds.run_chunks(kernel, args, 10, **{"seed": 1, **kw})
    with pytest.raises(NapsimInputError):
        odds.run_chunks(kernel, args, 0, seed=1)


# ---------------------------------------------------------------------------------------------
# Whole command lines in fresh interpreters

REPORT = ("odds", "report", "--games", "2000", "--format", "csv")
MULLIGAN = ("odds", "mulligan", "--deck", "epic-tcg-sealed30", "--keep", "category=early",
            "--mulligan-below", "2", "--target", "2", "--games", "2000", "--format", "csv")
ORDERS = ("odds", "orders", "--deck", "cca60", "--hand", "5", "--games", "1500",
          "--format", "csv")


def _in_process(*args: str) -> str:
    """The jitted command's stdout, from this (already compiled) interpreter."""
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", [
    pytest.param(REPORT, id="report", marks=pytest.mark.slow),  # a fresh interpreter each,
    pytest.param(MULLIGAN, id="mulligan", marks=pytest.mark.slow),  # kernels in plain Python
    pytest.param(ORDERS, id="orders", marks=pytest.mark.slow),
])
def test_disable_jit_gives_the_same_bytes(command):
    jit = _in_process(*command)
    nojit = run_napsim(*command, env={"NUMBA_DISABLE_JIT": "1"})
    assert nojit.returncode == 0, nojit.stderr
    assert jit.count("\n") >= 4
    assert nojit.stdout == jit


def test_thread_count_and_chunk_on_the_command_line(restore_threads):
    numba.set_num_threads(thread_counts()[-1])
    many = _in_process(*REPORT[:3], "60000", "--format", "csv")
    one = run_napsim(*REPORT[:3], "60000", "--format", "csv", "--chunk", "7001",
                     env={"NUMBA_NUM_THREADS": "1"})
    assert one.returncode == 0, one.stderr
    assert one.stdout == many


@pytest.mark.slow  # a fresh interpreter, kernels in plain Python
def test_kernels_are_plain_python_without_jit():
    """The equality above means something only if NUMBA_DISABLE_JIT=1 really runs Python code."""
    code = ("import napsim.engine.odds as k, numba.core.registry as r; "
            "print([isinstance(f, r.CPUDispatcher) for f in "
            "(k.hand_value_blocks, k.first_match_blocks, k.mulligan_blocks)])")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout
    assert out.strip() == "[False, False, False]"
    assert isinstance(kernels.hand_value_blocks, numba.core.registry.CPUDispatcher)
