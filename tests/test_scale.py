"""Scale (issue 7): --threads, Dask runners (LocalCluster), a worker killed mid-run, bounded memory.

The same seed gives the same chunk arrays and the same summary CSV bytes for 1 or 2 threads, any
chunk size, and chunks played in this process or by Dask workers (docs/architecture.md). The Dask tests
(marked slow: `pytest -m slow` runs them) start one LocalCluster of 2 single-threaded worker
processes for the module.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
from click.testing import CliRunner
from support.cli import napsim_main, run_napsim
from support.studies import write_study
from support.threads import thread_counts

from napsim.cli import cli
from napsim.model.errors import NapsimInputError
from napsim.output import report
from napsim.study import backends, chunks, runloop
from napsim.study.spec import load_study

ODDS = """
[study]
name = "odds"
kind = "odds"
games = 5000
seed = 3
chunk = 1500
[sweep]
deck = ["gmt90", "cca60"]
hand = [5, 7]
[[questions]]
ask = "at_least"
filter = "kind=multi"
k = 1
[[questions]]
ask = "orders"
"""


def write(tmp_path: Path, name: str = "scale", games: int | None = 2000, chunk: int = 250,
          turns: int = 5, per_game: bool = False, **fields) -> Path:
    """The study of these tests (support/studies.py): hand 5 against 8, seed 11."""
    return write_study(tmp_path, name=name, games=games, chunk=chunk, seed=11,
                       main_metric="effective_per_turn", per_game=per_game,
                       set={"scenario.turns": turns}, sweep={"sides.*.hand": [5, 8]}, **fields)


def chunk_arrays(out: Path) -> dict:
    """{relative chunk path: {array name: array}} of a run folder."""
    res = {}
    for f in sorted((out / "points").glob("*/chunk-*.npz")):
        with np.load(f) as z:
            res[f.relative_to(out).as_posix()] = {k: z[k] for k in z.files}
    return res


def assert_same_chunks(a: Path, b: Path) -> None:
    ca, cb = chunk_arrays(a), chunk_arrays(b)
    assert list(ca) == list(cb)
    for name in ca:
        assert ca[name].keys() == cb[name].keys(), name
        for k in ca[name]:
            assert np.array_equal(ca[name][k], cb[name][k]), f"{name}: {k} differs"


def summary_bytes(out: Path) -> bytes:
    report.write_report(out, with_charts=False)
    return (out / "summary.csv").read_bytes()


# ---------------------------------------------------------------------------------------------
# --threads


def test_study_same_bits_for_threads_and_chunk_sizes(tmp_path, restore_threads):
    path = write(tmp_path, games=1999, chunk=250)
    outs = []
    for t in thread_counts():
        out = tmp_path / f"t{t}"
        runloop.execute(path, out, threads=t)
        outs.append(out)
    for out in outs[1:]:
        assert_same_chunks(outs[0], out)
    ref = summary_bytes(outs[0])
    assert b"effective_per_turn" in ref
    for chunk in (1999, 37):
        other = write(tmp_path, name=f"c{chunk}", games=1999, chunk=chunk)
        out = tmp_path / f"c{chunk}"
        runloop.execute(other, out, threads=thread_counts()[-1])
        assert summary_bytes(out) == ref, chunk


def test_chunk_played_in_parts_equals_one_kernel_call(tmp_path, monkeypatch):
    """compute_chunk bounds memory by playing KERNEL_GAMES games per kernel call: same arrays."""
    st = load_study(write(tmp_path, per_game=True))
    args = st.build(st.points[1]).kernel_args()
    whole = chunks.compute_chunk(args, st.seed, 100, 1000, True)
    monkeypatch.setattr(chunks, "KERNEL_GAMES", 77)
    parts = chunks.compute_chunk(args, st.seed, 100, 1000, True)
    assert whole.keys() == parts.keys()
    for k in whole:
        assert np.array_equal(whole[k], parts[k]), k
    assert whole["rows"].shape[0] == 1000
    no_rows = chunks.compute_chunk(args, st.seed, 100, 1000, False)
    assert "rows" not in no_rows  # per-game rows only when asked
    assert np.array_equal(no_rows["hist"], whole["hist"])


def test_simulate_and_odds_threads_give_the_same_bytes(tmp_path, restore_threads):
    runner = CliRunner()
    summaries = []
    for t, chunk in zip(list(thread_counts()) * 2, (700, 3000, 1001, 64), strict=False):
        out = tmp_path / f"sim{t}-{chunk}"
        r = runner.invoke(cli, ["simulate", "--scenario", "symmetric", "--set", "scenario.turns=4",
                                "--games", "3000", "--chunk", str(chunk), "--threads", str(t),
                                "--no-per-game", "--out", str(out)], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        summaries.append(((out / "summary.csv").read_bytes(), (out / "rack_wait.csv").read_bytes()))
    assert all(s == summaries[0] for s in summaries[1:])
    outputs = []
    for t in thread_counts():
        r = runner.invoke(cli, ["odds", "report", "--games", "30000", "--chunk", "7001", "--threads",
                                str(t), "--format", "csv"], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        outputs.append(r.stdout)
    assert all(o == outputs[0] for o in outputs[1:])


@pytest.mark.parametrize("command", [
    ("odds", "orders", "--games", "100"),
    ("simulate", "--scenario", "symmetric", "--games", "10", "--out", "{out}"),
    ("run", str(Path(__file__).resolve().parents[1] / "studies" / "courier_rack.toml"), "--out", "{out}"),
], ids=["odds", "simulate", "run"])
def test_bad_thread_count_is_one_line(tmp_path, command, monkeypatch, restore_threads):
    command = [c.format(out=tmp_path / "out") for c in command]
    too_many = numba.config.NUMBA_NUM_THREADS + 1
    for bad in ("0", str(too_many)):
        code, _, err = napsim_main(monkeypatch, *command, "--threads", bad)
        assert code == 2, err
        assert err.startswith("napsim: error: --threads") and err.count("\n") == 1, err
        assert f"1..{numba.config.NUMBA_NUM_THREADS}" in err
    assert not (tmp_path / "out").exists()


def test_runner_options_are_checked():
    with pytest.raises(NapsimInputError, match="not both"):
        backends.check_options(scheduler="tcp://127.0.0.1:8786", dask_local=2)
    with pytest.raises(NapsimInputError, match="one thread each"):
        backends.check_options(threads=1, dask_local=2)
    with pytest.raises(NapsimInputError, match="scheduler address"):
        backends.check_options(scheduler="127.0.0.1:8786")
    with pytest.raises(NapsimInputError, match="workers"):
        backends.check_options(dask_local=0)
    assert isinstance(backends.make_runner(), backends.LocalRunner)


def _stream_log(threads: int, items: list[int], stop_after: int | None = None, hold: float = 0.0):
    """Drive LocalRunner.stream over `items` with `threads` numba threads; returns (what came out,
    the log of items started (with the numba thread count they saw) and handed over). Holding an
    item, the caller waits up to `hold` seconds for the next one to start."""
    import threading

    log: list[tuple] = []
    started = {i: threading.Event() for i in items}
    caller = threading.get_ident()

    def fn(i):
        here = "caller" if threading.get_ident() == caller else "worker"
        log.append(("start", i, numba.get_num_threads(), here))
        started[i].set()
        return i * i

    out = []
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        stream = backends.LocalRunner().stream(fn, items, lambda i: (i,))
        for item, result in stream:
            nxt = items.index(item) + 1
            if hold and nxt < len(items):
                started[items[nxt]].wait(hold)
            log.append(("handed", item))
            out.append((item, result))
            if stop_after is not None and len(out) == stop_after:
                stream.close()
                break
    finally:
        numba.set_num_threads(before)
    return out, log


def test_local_stream_plays_the_next_chunk_while_the_last_is_written():
    """With 2 threads the next item starts while the caller still holds the current one (so
    writing a chunk overlaps playing the next), never two ahead; every item plays with the
    caller's numba thread count, and the results come in order, each once. The first item plays
    on the caller's thread: a first run compiles the kernel there (much slower on a worker)."""
    thread_counts()  # two numba threads, or a loud failure
    out, log = _stream_log(2, [1, 2, 3, 4], hold=10.0)
    assert out == [(1, 1), (2, 4), (3, 9), (4, 16)]
    assert log == [("start", 1, 2, "caller"), ("start", 2, 2, "worker"), ("handed", 1),
                   ("start", 3, 2, "worker"), ("handed", 2), ("start", 4, 2, "worker"), ("handed", 3),
                   ("handed", 4)]


def test_local_stream_stops_and_plays_serially_when_asked():
    """Closing the stream starts nothing more (the item already started is dropped); with one
    thread (--threads 1) every item plays only when the caller asks for it."""
    thread_counts()  # two numba threads, or a loud failure
    out, log = _stream_log(2, [1, 2, 3, 4, 5], stop_after=2)
    assert out == [(1, 1), (2, 4)]
    assert [e[1] for e in log if e[0] == "start"] == [1, 2, 3]
    out, log = _stream_log(1, [1, 2, 3])
    assert out == [(1, 1), (2, 4), (3, 9)]
    assert log == [("start", 1, 1, "caller"), ("handed", 1), ("start", 2, 1, "caller"), ("handed", 2),
                   ("start", 3, 1, "caller"), ("handed", 3)]
    assert list(backends.LocalRunner().stream(lambda i: i, [], lambda i: (i,))) == []


# ---------------------------------------------------------------------------------------------
# Dask


@pytest.fixture(scope="module")
def dask_cluster():
    pytest.importorskip("distributed")
    runner = backends.DaskRunner(local_workers=2)
    yield runner
    runner.close()


@pytest.mark.slow  # Dask
def test_dask_local_cluster_equals_the_local_run(tmp_path, dask_cluster):
    path = write(tmp_path, games=2000, chunk=250, per_game=True)
    local, remote = tmp_path / "local", tmp_path / "dask"
    runloop.execute(path, local, threads=1)
    seen = []
    meta = runloop.execute(path, remote, runner=dask_cluster, progress=lambda *a: seen.append(a))
    assert_same_chunks(local, remote)
    assert summary_bytes(remote) == summary_bytes(local)
    assert sum(a[0] for a in seen) == 2 * 2000  # every game reported once
    assert all(s["games"] == 2000 and s["done"] for s in meta["status"].values())
    # the workers ran single-threaded numba, in processes of their own
    info = dask_cluster.client.run(lambda: (os.getpid(), os.environ.get("NUMBA_NUM_THREADS")))
    assert len(info) == 2 and all(env == "1" for _, env in info.values())
    assert os.getpid() not in {pid for pid, _ in info.values()}
    # resume on a cluster: nothing is played twice, the files stay as they are
    before = {f: f.stat().st_mtime_ns for f in remote.glob("points/*/chunk-*.npz")}
    runloop.execute(path, remote, runner=dask_cluster)
    assert before == {f: f.stat().st_mtime_ns for f in remote.glob("points/*/chunk-*.npz")}


@pytest.mark.slow  # Dask
def test_dask_target_error_stops_where_the_local_run_stops(tmp_path, dask_cluster):
    path = write(tmp_path, chunk=200, games=None, target_error=0.05, max_games=20000)
    local, remote = tmp_path / "local", tmp_path / "dask"
    a = runloop.execute(path, local, threads=1)
    b = runloop.execute(path, remote, runner=dask_cluster)
    assert {k: v["games"] for k, v in a["status"].items()} == {k: v["games"] for k, v in b["status"].items()}
    assert all(v["games"] < 20000 for v in a["status"].values())
    assert summary_bytes(remote) == summary_bytes(local)


@pytest.mark.slow  # Dask
def test_dask_odds_study_equals_the_local_run(tmp_path, dask_cluster):
    path = tmp_path / "odds.toml"
    path.write_text(ODDS)
    local, remote = tmp_path / "local", tmp_path / "dask"
    runloop.execute(path, local)
    runloop.execute(path, remote, runner=dask_cluster)
    files = sorted(p.relative_to(local) for p in local.glob("points/*/odds.csv"))
    assert len(files) == 4
    assert files == sorted(p.relative_to(remote) for p in remote.glob("points/*/odds.csv"))
    for f in files:
        assert (local / f).read_bytes() == (remote / f).read_bytes()


@pytest.mark.slow  # Dask
def test_worker_killed_mid_run_loses_no_chunk(tmp_path, dask_cluster):
    """SIGKILL a worker that is playing chunks once the first chunk is in: the scheduler (or the
    runner's resubmission) plays its chunks again elsewhere, and every chunk and summary number
    equals the uninterrupted local run."""
    path = write(tmp_path, name="kill", games=6000, chunk=200, turns=12)
    local, remote = tmp_path / "local", tmp_path / "dask"
    runloop.execute(path, local, threads=1)
    client = dask_cluster.client
    client.wait_for_workers(2, timeout=60)
    killed = {}

    def progress(advance, point_index, games):
        if killed:
            return
        busy = {w: keys for w, keys in client.processing().items() if keys}
        if not busy:  # between two submissions (a busy host): kill at a later chunk
            return
        victim = max(busy, key=lambda w: len(busy[w]))
        pid = client.run(os.getpid, workers=[victim])[victim]
        killed.update(worker=victim, pid=pid, chunks=len(busy[victim]))
        os.kill(pid, signal.SIGKILL)

    runloop.execute(path, remote, runner=dask_cluster, progress=progress)
    assert killed and killed["chunks"] >= 1
    with pytest.raises(ProcessLookupError):
        os.kill(killed["pid"], 0)
    assert_same_chunks(local, remote)
    assert summary_bytes(remote) == summary_bytes(local)
    client.wait_for_workers(2, timeout=60)  # the nanny restarts the worker for the next tests


@pytest.mark.slow  # Dask
def test_run_command_with_scheduler_address(tmp_path, dask_cluster):
    """`napsim run --scheduler tcp://HOST:PORT` from another process, on the running cluster."""
    path = write(tmp_path, games=600, chunk=200, turns=3)
    r = run_napsim("run", str(path), "--out", str(tmp_path / "out"), "--scheduler", dask_cluster.address,
                   "--no-report", timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"running on dask scheduler {dask_cluster.address}" in r.stderr
    runloop.execute(path, tmp_path / "local")
    assert_same_chunks(tmp_path / "local", tmp_path / "out")


@pytest.mark.slow  # Dask
def test_unreachable_scheduler_is_one_line():
    pytest.importorskip("distributed")
    with pytest.raises(NapsimInputError, match="cannot reach tcp://127.0.0.1:9"):
        backends.DaskRunner(scheduler="tcp://127.0.0.1:9", timeout=2)


@pytest.mark.slow  # Dask
def test_run_command_with_dask_local(tmp_path):
    pytest.importorskip("distributed")
    path = write(tmp_path, games=600, chunk=200, turns=3)
    r = run_napsim("run", str(path), "--out", str(tmp_path / "out"), "--dask-local", "2", "--no-report",
                   timeout=300)
    assert r.returncode == 0, r.stderr
    assert "running on dask LocalCluster" in r.stderr and "2 worker(s)" in r.stderr
    assert len(chunk_arrays(tmp_path / "out")) == 2 * 3
    runloop.execute(path, tmp_path / "local")
    assert_same_chunks(tmp_path / "local", tmp_path / "out")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
