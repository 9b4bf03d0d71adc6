"""Kernel calls: packed arguments -> chunks of games -> summed metric arrays.

`play_chunk` plays games [first, first + n) on the kernel that `Simulation.kernel_args()` names and
returns a `ChunkOut`, the same for every format. `run_games` is the run loop of `Simulation.run`:
games [0, n) in fixed chunks, summed into a `SimResult`; `trace_game` replays one game with its
event log. Integer sums make a result identical for any chunk size or thread count.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from napsim.engine import epic, lgb
from napsim.engine.commanders import N_CM
from napsim.engine.rng import seed_key
from napsim.model.defaults import MAX_SEED, SIM_CHUNK
from napsim.model.validate import check_count, check_games, check_seed
from napsim.sim.result import SimResult


@dataclass
class ChunkOut:
    """What one kernel call returns, the same for every format."""

    totals: np.ndarray            # [side, metric]
    rows: np.ndarray              # [games or 0, side, metric]
    rack_wait: np.ndarray         # [kind, wait]
    guerrilla_turns: np.ndarray   # [offered/spent/nullified, turn]
    commander_totals: np.ndarray  # [side, commander, CM]
    commander_rows: np.ndarray    # [games or 0, side, commander, CM]
    tactician_turns: np.ndarray   # [side, turn]: Tactician cards held at the start of its turns


def play_chunk(args: tuple, key, first: int, n: int, check: bool, per_game: bool) -> ChunkOut:
    """Games [first, first + n) on the kernel that `Simulation.kernel_args()` names."""
    kind, kargs = args
    with np.errstate(over="ignore"):
        if kind == "lgb":
            m, r, cm, cr, w, gt, tt = lgb.play_chunk_lgb(key, np.int64(first), np.int64(n), *kargs,
                                                          check, per_game)
            return ChunkOut(m, r, w, gt, cm, cr, tt)
        m, r, w, gt, cm_, cr, tt = epic.play_chunk(key, np.int64(first), np.int64(n), *kargs, check,
                                                   per_game)
    if cr.shape[0] != r.shape[0]:  # one player a side: no commander rows are kept
        cr = np.zeros((r.shape[0], 2, 4, N_CM), np.int64)
    return ChunkOut(m, r, w, gt, cm_, cr, tt)


def check_run(games: int, seed: int, chunk: int) -> None:
    """The arguments of a run, checked before anything is played (games 1..MAX_GAMES, a 63-bit
    seed, a positive chunk)."""
    check_games(games)
    check_seed(seed)
    check_count(chunk, "--chunk", "chunk", 1, 10**9)


def run_games(sim, games: int, seed: int, chunk: int = SIM_CHUNK, per_game: bool = False,
              check: bool = False, progress: Callable[[int, int], None] | None = None) -> SimResult:
    """Play games [0, games) of a `Simulation` in chunks; identical results for any chunk size and
    threads."""
    check_run(games, seed, chunk)
    key = seed_key(seed)
    args = sim.kernel_args()
    turns = sim.scenario.turns
    totals = np.zeros((2, epic.N_METRICS), np.int64)
    waits = np.zeros((4, epic.WAIT_BINS), np.int64)
    g_turns = np.zeros((3, turns), np.int64)
    cmet = np.zeros((2, 4, N_CM), np.int64)
    tac_turns = np.zeros((2, turns), np.int64)
    rows = []
    crows = []
    t0 = time.perf_counter()
    for first in range(0, games, chunk):
        n = min(chunk, games - first)
        out = play_chunk(args, key, first, n, check, per_game)
        totals += out.totals
        waits += out.rack_wait
        g_turns += out.guerrilla_turns
        cmet += out.commander_totals
        tac_turns += out.tactician_turns
        if per_game:
            rows.append(out.rows)
            crows.append(out.commander_rows)
        if progress:
            progress(first + n, games)
    wall = time.perf_counter() - t0
    per = np.concatenate(rows) if per_game else None
    cper = np.concatenate(crows) if per_game else None
    return SimResult(sim, games, seed, totals, per, waits, wall, g_turns, cmet, cper, tac_turns)


def trace_game(args: tuple, seed: int, game: int) -> tuple[np.ndarray, np.ndarray]:
    """(metrics, event log) of one game of the packed arguments `args`, replayed from (seed, game
    index)."""
    check_seed(seed)
    check_count(game, "--game", "game", 0, MAX_SEED, "a game index")
    kind, kargs = args
    with np.errstate(over="ignore"):
        if kind == "lgb":
            return lgb.trace_game_lgb(seed_key(seed), np.int64(game), *kargs)
        return epic.trace_game(seed_key(seed), np.int64(game), *kargs)
