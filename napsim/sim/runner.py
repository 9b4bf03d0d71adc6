"""Kernel calls: packed arguments -> chunks of games -> summed metric arrays.

`play_chunk` plays games [first, first + n) on the kernel that `Simulation.kernel_args()` names and
returns a `ChunkOut`, the same for every format. `play_chunks` is the one loop over it: a range of
games in calls of at most `chunk` games, in order; a run (`run_games`, behind `Simulation.run`),
a study's chunk (`napsim.study.chunks.compute_chunk`) and a variant's games
(`napsim.study.variants.PlayedGames`) all play through it and add the calls up in a `GameSums`.
`trace_game` replays one game with its event log. Integer sums make a result identical for any
chunk size or thread count.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

import numpy as np

from napsim.engine import epic, lgb, lookahead, lookahead_lgb
from napsim.engine.blocks import one_ahead
from napsim.engine.kernel_cache import saved
from napsim.engine.kernel_pick import KernelPick, pick_kernel
from napsim.engine.layout import N_CM
from napsim.engine.rng import seed_key
from napsim.model.defaults import MAX_SEED, SIM_CHUNK
from napsim.model.errors import check_count, check_run, check_seed
from napsim.model.policies import KIND_GREEDY, KINDS
from napsim.sim.result import SimResult
from napsim.sim.sums import ChunkOut, GameSums

# the chunk kernel of each kernel name (napsim.engine.kernel_pick.KERNELS, the name
# `Simulation.kernel_args()` gives): the planned one of a lookahead side (P8) is a kernel of its
# own, compiled only when a game needs it
CHUNK_KERNELS = {"epic": epic.play_chunk, "lookahead": lookahead.play_chunk_planned,
                 "lgb": lgb.play_chunk_lgb, "lookahead_lgb": lookahead_lgb.play_chunk_planned_lgb}
# the compiled entry of each chunk kernel (what numba caches on disk)
BLOCK_KERNELS = {"epic": epic.play_blocks, "lookahead": lookahead.play_blocks_planned,
                 "lgb": lgb.play_blocks_lgb, "lookahead_lgb": lookahead_lgb.play_blocks_planned_lgb}
TRACE_KERNELS = {"epic": epic.trace_game, "lookahead": lookahead.trace_game_planned,
                 "lgb": lgb.trace_game_lgb, "lookahead_lgb": lookahead_lgb.trace_game_planned_lgb}


def play_chunk(args: tuple, key, first: int, n: int, check: bool, per_game: bool) -> ChunkOut:
    """Games [first, first + n) on the kernel that `Simulation.kernel_args()` names; their
    per-game rows only when `per_game` (the kernel adds up the moments itself)."""
    kind, kargs = args
    kernel = CHUNK_KERNELS[kind]
    with np.errstate(over="ignore"):
        out = ChunkOut(*kernel(key, np.int64(first), np.int64(n), *kargs, check, per_game), games=n)
    if out.commander_rows.shape[0] != out.rows.shape[0]:  # one a side: no commander rows kept
        out.commander_rows = np.zeros((out.rows.shape[0], 2, 4, N_CM), np.int64)
    return out


def play_chunks(args: tuple, key, first: int, n: int, chunk: int, check: bool = False,
                ahead: bool = False, rows: bool = True) -> Iterator[tuple[int, ChunkOut]]:
    """(first game, `ChunkOut`) of games [first, first + n) in calls of at most `chunk` games, in
    order, each with its per-game rows unless not `rows` (an empty range is one call of no
    games). `ahead`: the next call plays while the caller handles this one
    (`napsim.engine.blocks`); the same numbers."""
    starts = range(first, first + max(n, 1), chunk)

    def play(lo: int) -> ChunkOut:
        return play_chunk(args, key, lo, min(chunk, first + n - lo), check, rows)

    if not ahead:
        for lo in starts:
            yield lo, play(lo)
        return
    with contextlib.closing(one_ahead(play, starts)) as played:
        yield from played


KERNEL_NAMES = {"epic": "EPIC", "lookahead": "EPIC lookahead (P8)", "lgb": "La Grande Battles",
                "lookahead_lgb": "La Grande Battles lookahead (P8)"}
ONE_A_SIDE = ("standard", "epic1")  # formats with one commander a side: no commander rows


def pick_for(game_format: str, policies=()) -> KernelPick:
    """`pick_kernel` for policies named, before they are packed: `policies` is (name, overrides)
    per side (an unknown name counts as greedy here; `Simulation.build` refuses it)."""
    return pick_kernel(game_format, [KINDS.get(name, KIND_GREEDY) for name, _ in policies])


def kernel_for(game_format: str, policies=()) -> str:
    """The chunk kernel that plays a scenario format: "lgb" or "epic" (EPIC and the standard game),
    "lookahead_lgb" or "lookahead" when one of `policies` ((name, overrides) per side) is
    lookahead (P8); napsim.engine.kernel_pick decides."""
    return pick_for(game_format, policies).kernel


def kernel_compiled(kind: str) -> bool:
    """Whether the chunk kernel `kind` is compiled already (in this process, or in this version's
    numba cache folder)."""
    return compiled_or_cached(BLOCK_KERNELS.get(kind, epic.play_blocks))  # the compiled part


def compiled_or_cached(fn) -> bool:
    """Whether the cached numba function `fn` is compiled in this process or saved in this version's
    numba cache folder (napsim.engine.kernel_cache)."""
    return saved(fn)


def compile_notice(kind: str) -> str | None:
    """What to tell the user before a kernel that has to be compiled first (None: nothing)."""
    if kernel_compiled(kind) is not False:
        return None
    return (f"compiling the {KERNEL_NAMES[kind]} kernel (first run after installing or upgrading "
            "only: 5 to 25 s on two cores)")


RowSink = Callable[[int, ChunkOut], None]  # sink(first game, chunk): takes a chunk's per-game rows


def run_games(sim, games: int, seed: int, chunk: int = SIM_CHUNK, per_game: bool = False,
              check: bool = False, progress: Callable[[int, int], None] | None = None,
              sink: RowSink | None = None) -> SimResult:
    """Play games [0, games) of a `Simulation` in chunks; identical results for any chunk size and
    threads. Per-game rows (`per_game`) are kept in the result, or, given a `sink`, handed to it
    chunk by chunk and not kept, so that memory stays flat however many games are played.
    One-a-side formats have no commander rows (their commander metrics are all zero)."""
    check_run(games, seed, chunk)
    multi = sim.scenario.format not in ONE_A_SIDE
    per_game = per_game and sink is None
    sums = GameSums(rows=per_game, commander_rows=per_game and multi)
    t0 = time.perf_counter()
    # the next chunk plays while this one is added up and its rows written (napsim.engine.blocks)
    # per-game rows only where they are kept or written: the kernel adds up the moments itself
    for first, out in play_chunks(sim.kernel_args(), seed_key(seed), 0, games, chunk, check, ahead=True,
                                  rows=sums.wants_rows or sink is not None):
        sums.add_chunk(out)
        if sink is not None:
            sink(first, out)
        if progress:
            progress(min(first + chunk, games), games)
    return SimResult(sim, seed, sums, time.perf_counter() - t0)


def trace_game(args: tuple, seed: int, game: int) -> tuple[np.ndarray, np.ndarray]:
    """(metrics, event log) of one game of the packed arguments `args`, replayed from (seed, game
    index)."""
    check_seed(seed)
    check_count(game, "--game", "game", 0, MAX_SEED, "a game index")
    kind, kargs = args
    with np.errstate(over="ignore"):
        return TRACE_KERNELS[kind](seed_key(seed), np.int64(game), *kargs)
