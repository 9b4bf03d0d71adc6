"""The run loop: every point of a study, chunk by chunk, into a run folder (`execute`).

One path for every runner (`napsim.study.backends`): the chunks a point still needs are handed to
`runner.stream`, which yields each chunk's arrays as it is played (`LocalRunner`: here, in order,
the next chunk playing while the loop writes this one; `DaskRunner`: on a cluster, in any order),
and the loop writes each chunk file as it arrives and walks the point's chunks in order, adding
them up. The chunks, and so every number, are the same whichever runner plays them.

Common random numbers: every sweep point plays the same global game indices [0, n) with the same
seed, so game g meets the same random stream at every point and differences between points are not
drowned in game-to-game noise.

`target_error` stops a point at the first chunk boundary where the half-width of the main metric's
95% interval (Wilson for a rate, normal for a mean) is below the target. The rule reads only the
chunks in order, and the report walks them the same way (one `napsim.study.store.ChunkWalk`),
so a resumed run, a Dask run and the report all stop at the same n. With a target the runner is
stopped at that boundary (chunks a cluster has in flight may land beyond it: they are stored and
harmless).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from napsim.model.cards import load_deck
from napsim.model.errors import NapsimInputError
from napsim.sim.precompile import ready_simulation
from napsim.sim.runner import compile_notice, kernel_for
from napsim.sim.sums import GameSums
from napsim.study.backends import LocalRunner, engine_job, run_chunk, run_odds_point, threads_set
from napsim.study.chunks import chunk_record, read_record
from napsim.study.spec import Point, Study, load_study
from napsim.study.store import (
    ChunkWalk,
    atomic_write_bytes,
    chunk_path,
    clean_stale_temp,
    locked,
    point_dir,
    prepare_dir,
    write_chunk,
    write_meta,
)

ProgressFn = Callable[[int, int, int], None]  # (games advanced, point index, games in point)
NoticeFn = Callable[[str], None]  # one line for the user (a damaged chunk, stale files removed)
ChunkFn = Callable[[dict, str, int, dict, GameSums], None]  # (meta, point id, k, arrays, running sums)


def _stderr(line: str) -> None:
    print(f"napsim: {line}", file=sys.stderr, flush=True)


def execute(study: Study | str | Path, out: str | Path, force: bool = False,
            target_error: float | None = None, progress: ProgressFn | None = None,
            threads: int | None = None, runner=None, notice: NoticeFn | None = None,
            on_chunk: ChunkFn | None = None) -> dict:
    """Run (or resume) every point of a study into `out`; returns the study.json record.

    A damaged chunk file on disk (truncated, bit-flipped, copied from elsewhere, edited:
    `napsim.study.chunks`) is played again; `notice` gets one line saying which (default: a
    line on stderr), and one for temporary files of a killed run that were removed.

    `threads`: numba threads of this process for the run (None: numba's setting). `runner`: a
    `napsim.study.backends` runner (`DaskRunner` sends the chunks to a Dask cluster); None plays
    here (`LocalRunner`). The chunks, and so every number, are the same whichever runs them.

    `on_chunk(meta, point id, k, arrays, running sums)` (engine studies) is called for each chunk
    of each point as the walk adds it up, in order, as reading the folder back would give them
    (`napsim.output.frames.Recorder` builds a report's data from it, so that the chunk files are
    not read again).
    """
    st = study if isinstance(study, Study) else load_study(study)
    with threads_set(threads):
        return _execute(st, Path(out), force, target_error, progress, runner or LocalRunner(),
                        notice or _stderr, on_chunk)


def _execute(st: Study, out: Path, force: bool, target_error: float | None,
             progress: ProgressFn | None, runner, notice: NoticeFn,
             on_chunk: ChunkFn | None = None) -> dict:
    if target_error is not None:
        if st.kind == "odds":
            raise NapsimInputError("--target-error", "target_error", "odds studies run a fixed number "
                                   "of games", "leave it out")
        if not 0 < target_error <= 0.5:
            raise NapsimInputError("--target-error", "target_error", f"{target_error} is out of range",
                                   "numbers in (0, 0.5]")
    with locked(out):
        meta = prepare_dir(st, out, force, target_error)
        t0 = time.perf_counter()
        stale = clean_stale_temp(out) + clean_stale_temp(out / "charts")
        for p in st.points:
            pdir = point_dir(out, p.id)
            pdir.mkdir(parents=True, exist_ok=True)
            stale += clean_stale_temp(pdir)
        if stale:
            notice(f"removed {len(stale)} temporary file(s) of a killed run (never complete), e.g. "
                   f"{stale[0].relative_to(out)}")
        if st.kind == "engine":
            for i, p in enumerate(st.points):
                t1 = time.perf_counter()
                following = st.points[i + 1] if i + 1 < len(st.points) else None
                games, chunks, played = run_engine_point(runner, st, meta, p, out, progress, notice,
                                                         following, on_chunk)
                _done(meta, out, p, games, chunks, time.perf_counter() - t1, played)
        else:
            run_odds_points(runner, st, meta, out, progress)
        meta["wall_seconds"] = round(time.perf_counter() - t0, 3)
        write_meta(out, meta)
    return meta


def _done(meta: dict, out: Path, p: Point, games: int, chunks: int, seconds: float,
          played: int | None = None) -> None:
    """Record a finished point in study.json: its games, and how many of them this run played
    (the others came from chunks of earlier runs)."""
    meta["status"][p.id] = dict(games=games, chunks=chunks, done=True, wall_seconds=round(seconds, 3),
                                played_now=games if played is None else played)
    write_meta(out, meta)


def games_played_now(meta: dict) -> tuple[int, int]:
    """(games in the results, games this run played): the rest came from earlier runs' chunks."""
    status = meta["status"].values()
    return sum(s["games"] for s in status), sum(s.get("played_now", s["games"]) for s in status)


def warm_up(st: Study, notice: NoticeFn) -> None:
    """Compile (or load from numba's cache) the kernels of an engine study's first point here,
    saying so when it has to compile, so that the progress bar's ETA counts games only."""
    if st.kind != "engine":
        return
    sc, dk, policies = st.load_point(st.points[0])

    def checked() -> None:  # the point's inputs valid: say so before the first compile, if any
        line = compile_notice(kernel_for(sc.format, policies))
        if line:
            notice(line)
    ready_simulation(sc, policies, dk, checked)  # on both cores from an empty cache


def point_job(st: Study, meta: dict, p: Point) -> dict:
    """The plain-data job a point's chunks are played from (`napsim.study.backends.run_chunk`)."""
    sc, dk, policies = st.load_point(p)
    return engine_job(f"{meta['identity_sha256']}/{p.id}", sc, dk, policies, st.seed, st.per_game)


def damaged_line(path: Path, problem: str) -> str:
    return f"{path.parent.name}/{path.name}: {problem}: recomputing it"


def stored_chunks(meta: dict, point_id: str, pdir: Path, ranges: list, notice: NoticeFn) -> set[int]:
    """The chunks of a point on disk whose record is this chunk's (the arrays and checksum are
    checked when the walk reads them); says which files are there but belong elsewhere."""
    stored = set()
    for k, first, n in ranges:
        path = chunk_path(pdir, k)
        rec, problem = read_record(path, chunk_record(meta, point_id, k, first, n))
        if problem:
            notice(damaged_line(path, problem))
        elif rec is not None:
            stored.add(k)
    return stored


def run_engine_point(runner, st: Study, meta: dict, p: Point, out: Path, progress: ProgressFn | None,
                     notice: NoticeFn, following: Point | None = None,
                     on_chunk: ChunkFn | None = None) -> tuple[int, int, int]:
    """Play a point's missing chunks on `runner`, writing each chunk file (atomically) as its
    result arrives, and add the chunks up in order. Without a target error every missing chunk
    up to the cap is played; with one, the runner is stopped at the chunk boundary where the walk
    (`napsim.study.store.ChunkWalk`, the report's too) stops. A runner that can (`LocalRunner`)
    builds the tables of the point `following` while this one plays; `on_chunk` (see `execute`)
    is given the chunks as the walk adds them. Returns (games, chunks) counted and the games
    played now."""
    cap = meta["run"]["cap"]
    pdir = point_dir(out, p.id)
    ordered = meta["run"]["target_error"] is not None
    reported: set[int] = set()
    done = [0]  # games reported so far (the progress bar's position in this point)

    def report(k: int, n: int) -> None:
        if k not in reported:
            reported.add(k)
            done[0] += n
            if progress:
                progress(n, p.index, done[0])

    played = 0

    def damaged(path: Path, problem: str) -> None:  # played again below
        notice(damaged_line(path, problem))

    def added(k: int, ch: dict, sums) -> None:
        report(k, int(ch["n"]))
        if on_chunk is not None:
            on_chunk(meta, p.id, k, ch, sums)

    walk = ChunkWalk(meta, p.id, out, on_chunk=added, damaged=damaged)
    walk.stored = stored_chunks(meta, p.id, pdir, walk.ranges, notice)
    job = None
    while not walk.advance() and not walk.complete:
        todo = [r for r in walk.ranges[walk.next:] if r[0] not in walk.stored]
        if job is None:
            job = point_job(st, meta, p)
            if following is not None and hasattr(runner, "prepare"):
                runner.prepare(job, lambda: point_job(st, meta, following))
        stream = runner.stream(run_chunk, todo, _chunk_args(job), tag=f"napsim-{p.id}")
        try:
            for (k, first, n), ch in stream:
                write_chunk(chunk_path(pdir, k), ch, chunk_record(meta, p.id, k, first, n))
                walk.stored.add(k)
                played += int(ch["n"])
                if not ordered:  # counted as it arrives; the walk adds it up in order
                    report(k, int(ch["n"]))
                if walk.advance(k, ch):
                    break
        finally:
            stream.close()
    done_games = walk.sums.games
    if progress and done_games < cap:
        progress(cap - done_games, p.index, done_games)  # stopped early: the rest is not needed
    return done_games, walk.sums.chunks, min(played, done_games)


def _chunk_args(job: dict) -> Callable[[tuple], tuple]:
    """The arguments of `run_chunk` for a chunk range (k, first, games)."""
    return lambda r: (job, r[1], r[2])


def run_odds_points(runner, st: Study, meta: dict, out: Path, progress: ProgressFn | None) -> None:
    """Answer the odds points without an odds.csv on `runner`, one task per point (the validated
    deck travels with the task), writing each file as it arrives; then record every point."""
    todo = [p for p in st.points if not (point_dir(out, p.id) / "odds.csv").is_file()]

    def args_of(p: Point) -> tuple:
        deck, hand = st.odds_inputs(p)
        return (st.questions, load_deck(deck), hand, st.games, st.seed, st.chunk)

    t1 = time.perf_counter()
    for p, data in runner.stream(run_odds_point, todo, args_of, tag="napsim-odds"):
        atomic_write_bytes(point_dir(out, p.id) / "odds.csv", data)
        if progress:
            progress(st.games, p.index, st.games)
        _done(meta, out, p, st.games, 1, time.perf_counter() - t1)
        t1 = time.perf_counter()
    for p in st.points:
        if p not in todo:  # answered by an earlier run
            if progress:
                progress(st.games, p.index, st.games)
            _done(meta, out, p, st.games, 1, 0.0)
    meta["status"] = {p.id: meta["status"][p.id] for p in st.points}  # in point order
