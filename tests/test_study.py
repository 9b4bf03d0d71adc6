"""Studies (issue 6): resume after a kill, common random numbers, target_error, bad study files."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import napsim
from napsim.engine import layout
from napsim.model.errors import NapsimInputError
from napsim.model.scenarios import SCENARIO_DIR
from napsim.output import frames, report
from napsim.sim.summary import wilson
from napsim.study import runloop, store
from napsim.study.spec import load_study
from tests.support.chunks import assert_same_chunks, chunk_files
from tests.support.chunks import chunk_arrays as load_arrays
from tests.support.cli import napsim_main, run_napsim

# the text of conftest's study_toml() that the bad-file cases below edit
SMALL = """
[study]
name = "{name}"
scenario = "symmetric"
policies = ["greedy", "random"]
games = {games}
seed = 7
chunk = {chunk}
main_metric = "scout_turn_rate"
{extra}
[set]
"scenario.turns" = 5
"""


def write_study(tmp_path: Path, name: str, body: str, sweep: str = "") -> Path:
    """A study file of the text `body` (and a [sweep] of the text `sweep`): the bad files and the
    odds study; every other study here is conftest's `study_toml`."""
    p = tmp_path / f"{name}.toml"
    p.write_text(body + (f"\n[sweep]\n{sweep}\n" if sweep else ""))
    return p



# ---------------------------------------------------------------------------------------------
# resume


@pytest.mark.slow  # kill and resume in subprocesses
def test_resume_after_kill_gives_identical_results(tmp_path, study_toml):
    """Kill `napsim run` (SIGKILL) once chunks are on disk, rerun the same command: the chunks and
    the summary CSV equal those of an uninterrupted run, byte for byte (no game lost or doubled)."""
    path = study_toml(games=6000, chunk=150, sweep={"sides.*.hand": [5, 8]})
    st = load_study(path)
    total_chunks = len(st.points) * len(st.chunk_ranges())
    killed = tmp_path / "killed"
    log = (tmp_path / "killed.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "napsim", "run", str(path), "--out", str(killed),
                             "--no-report"], stdout=log, stderr=log)
    deadline = time.monotonic() + 600
    try:
        while len(chunk_files(killed)) < 3:
            assert proc.poll() is None, f"run ended before it could be killed: {proc.returncode}"
            assert time.monotonic() < deadline, "no chunk written in time"
            time.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        log.close()
    on_disk = len(chunk_files(killed))
    assert 3 <= on_disk < total_chunks, "the kill must land in the middle of the run"

    r = run_napsim("run", str(path), "--out", str(killed), "--no-report")
    assert r.returncode == 0, r.stderr
    assert len(chunk_files(killed)) == total_chunks
    assert not list(killed.rglob("*.tmp")), "temporary files must not survive a resumed run"

    clean = tmp_path / "clean"
    runloop.execute(st, clean)
    assert_same_chunks(killed, clean)
    for d in (killed, clean):
        report.write_report(d, with_charts=False)
    for name in ("summary.csv", "convergence.csv", "points.csv", "rack_wait.csv"):
        assert (killed / name).read_bytes() == (clean / name).read_bytes(), name


def test_rerun_skips_chunks_on_disk_and_more_games_extend_the_run(tmp_path, study_toml):
    path = study_toml(games=900, chunk=300)
    out = tmp_path / "out"
    runloop.execute(path, out)
    first = {f: f.stat().st_mtime_ns for f in chunk_files(out)}
    played = []
    meta = runloop.execute(path, out, progress=lambda n, i, g: played.append(n))
    assert {f: f.stat().st_mtime_ns for f in chunk_files(out)} == first, "chunks were replayed"
    assert runloop.games_played_now(meta) == (900, 0)  # all from earlier chunks, none played now
    # raising `games` keeps the chunks (they cannot change) and plays only the new ones
    study_toml(games=1500, chunk=300)
    assert runloop.games_played_now(runloop.execute(path, out)) == (1500, 600)
    assert len(chunk_files(out)) == 5
    assert all(f.stat().st_mtime_ns == t for f, t in first.items())
    clean = tmp_path / "clean"
    runloop.execute(path, clean)
    assert_same_chunks(out, clean)


def test_changed_study_refuses_old_chunks_unless_forced(tmp_path, monkeypatch, study_toml):
    path = study_toml()
    out = tmp_path / "out"
    runloop.execute(path, out)
    path.write_text(path.read_text().replace("seed = 7", "seed = 8"))
    code, _, err = napsim_main(monkeypatch, "run", str(path), "--out", str(out), "--no-report")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("napsim: error:")
    assert "different study" in err and "seed" in err and "--force" in err
    code, _, err = napsim_main(monkeypatch, "run", str(path), "--out", str(out), "--no-report", "--force")
    assert code == 0, err
    clean = tmp_path / "clean"
    runloop.execute(path, clean)
    assert_same_chunks(out, clean)
    # a folder of other files is refused too, and --force leaves files that are not napsim's alone
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(NapsimInputError, match="not a napsim study"):
        runloop.execute(path, other)
    runloop.execute(path, other, force=True)
    assert (other / "notes.txt").read_text() == "mine"


# ---------------------------------------------------------------------------------------------
# common random numbers and agreement with `napsim simulate`


def test_noop_sweep_gives_identical_points_and_matches_simulate(tmp_path, study_toml):
    """Two identical sweep points play the same games: identical chunks and summaries. Each equals
    `Simulation.run` for the same seed (the study adds nothing to, and loses nothing from, the
    engine's totals)."""
    path = study_toml(games=1000, chunk=400, sweep={"sides.A.hand": [6, 6]}, per_game=True)
    res = napsim.run_study(path, out=tmp_path / "out")
    pdirs = sorted((tmp_path / "out" / "points").iterdir())
    assert [p.name for p in pdirs] == ["p000", "p001"]
    for a, b in zip(sorted(pdirs[0].glob("*.npz")), sorted(pdirs[1].glob("*.npz")), strict=True):
        xa, xb = load_arrays(a), load_arrays(b)
        for k in xa:
            assert np.array_equal(xa[k], xb[k]), k
    summ = res.summary()
    cols = ["side_key", "metric", "value", "std", "ci_low", "ci_high", "n"]
    p0 = summ[summ["point"] == "p000"][cols].reset_index(drop=True)
    p1 = summ[summ["point"] == "p001"][cols].reset_index(drop=True)
    assert p0.equals(p1)

    st = load_study(path)
    sim = st.build(st.points[0])
    ref = sim.run(1000, st.seed, chunk=333, per_game=True)
    assert np.array_equal(res.data.accs["p000"].totals, ref.totals)
    assert np.array_equal(res.data.accs["p000"].rack_wait, ref.rack_wait)
    mine = summ[summ["point"] == "p000"].set_index(["side", "metric"])
    for r in ref.summary().itertuples():
        assert mine.loc[(r.side, r.metric), "value"] == pytest.approx(r.value, rel=1e-12, abs=1e-15)
        if r.kind == "rate":
            assert mine.loc[(r.side, r.metric), "ci_low"] == pytest.approx(r.ci_low, rel=1e-12, abs=1e-15)
    # per-game frame: one row per point, game and side, the same numbers as SimResult's
    frame = res.frame
    assert len(frame) == 2 * 1000 * 2
    mine_pg = frame[frame["point"] == "p000"].reset_index(drop=True)
    ref_pg = ref.per_game_frame()
    for m in layout.METRIC_NAMES:
        assert np.array_equal(np.sort(mine_pg[m].to_numpy()), np.sort(ref_pg[m].to_numpy())), m
    # mean-per-game intervals come from the per-game sums of squares
    x = ref.per_game[:, 0, layout.M_EFF]
    row = mine.loc[(ref.summary()["side"][0], "effective_L")]
    assert row["std"] == pytest.approx(x.std(ddof=1), rel=1e-9)
    half = 1.959963984540054 * x.std(ddof=1) / np.sqrt(len(x))
    assert row["ci_high"] - row["value"] == pytest.approx(half, rel=1e-9)


def test_common_random_numbers_share_game_seeds(tmp_path, study_toml):
    """Different settings, same games: the per-game draws are positively correlated across points,
    so the difference between points is much tighter than independent runs would give."""
    path = study_toml(games=1500, chunk=1500, per_game=True, sweep={"policy.A.march_prob": [1.0, 0.9]})
    res = napsim.run_study(path, out=tmp_path / "out")
    f = res.frame
    a = f[(f["point"] == "p000") & (f["side_key"] == "B")]["effective_total"].to_numpy()
    b = f[(f["point"] == "p001") & (f["side_key"] == "B")]["effective_total"].to_numpy()
    assert np.corrcoef(a, b)[0, 1] > 0.5


# ---------------------------------------------------------------------------------------------
# target error


def _half_widths(out: Path, point: str, side: int = 0) -> tuple[list[int], list[float]]:
    """Running Wilson half-width of scout_turn_rate (scout turns / turns), read from the chunks."""
    k = n = games = 0
    gs, hws = [], []
    for f in sorted((out / "points" / point).glob("chunk-*.npz")):
        z = load_arrays(f)
        k += int(z["totals"][side, layout.M_SCOUT])
        n += int(z["totals"][side, layout.M_TURNS])
        games += int(z["n"])
        lo, hi = wilson(k, n)
        gs.append(games)
        hws.append((hi - lo) / 2)
    return gs, hws


def test_target_error_stops_at_the_first_chunk_boundary_below_it(tmp_path, monkeypatch, study_toml):
    path = study_toml(games=6000, chunk=500)
    full = tmp_path / "full"
    runloop.execute(path, full)
    gs, hws = _half_widths(full, "p000")
    target = (hws[3] + hws[4]) / 2
    expected = next(g for g, h in zip(gs, hws, strict=True) if h < target)
    assert gs[0] < expected < gs[-1]

    out = tmp_path / "target"
    code, _, err = napsim_main(monkeypatch, "run", str(path), "--out", str(out), "--target-error",
                               repr(target), "--no-report")
    assert code == 0, err
    meta = store.read_meta(out)
    assert meta["status"]["p000"]["games"] == expected
    assert len(chunk_files(out)) == expected // 500
    # the same target in the study file (target_error + max_games) stops at the same n
    p2 = study_toml(name="t2", games=None, chunk=500, target_error=target, max_games=6000)
    res = napsim.run_study(p2, out=tmp_path / "target2")
    assert res.data.accs["p000"].games == expected
    # the report agrees, and the half-width it shows is below the target
    summ = res.summary(["scout_turn_rate"])
    row = summ[summ["side_key"] == "A"].iloc[0]
    assert row["games"] == expected and (row["ci_high"] - row["ci_low"]) / 2 < target
    # a rerun (resume) stops at the same n
    runloop.execute(p2, tmp_path / "target2")
    assert store.read_meta(tmp_path / "target2")["status"]["p000"]["games"] == expected


# ---------------------------------------------------------------------------------------------
# bad study files


BAD = [
    ("unknown sweep path", SMALL, '"sides.A.hnd" = [4, 5]',
     ["[sweep]", "sides.A.hnd", "unknown parameter path", "sides.<A|B|*>.<hand|"]),
    ("unknown policy path", SMALL, '"policy.A.w_x" = [1, 2]', ["policy.A.w_x", "policy.<A|B|*>.<w_l|"]),
    ("sweep not a list", SMALL, '"sides.*.hand" = 5', ["sides.*.hand", "not a non-empty list"]),
    ("empty sweep list", SMALL, '"sides.*.hand" = []', ["not a non-empty list"]),
    ("hand too large at a point", SMALL, '"sides.*.hand" = [6, 40]', ["point p001", "hand"]),
    ("bad policy name at a point", SMALL, '"policy.B" = ["greedy", "smart"]', ["point p001", "smart"]),
    ("unknown study key", SMALL.replace("seed = 7", "sede = 7"), "", ["[study]", "sede", "unknown key"]),
    ("games and target_error", SMALL.replace("seed = 7", "seed = 7\ntarget_error = 0.01"), "",
     ["target_error", "either games or target_error"]),
    ("target_error without max_games",
     SMALL.replace("games = {games}", "target_error = 0.01"), "", ["max_games", "cap"]),
    ("bad main metric", SMALL.replace('"scout_turn_rate"', '"scout_rate"'), "",
     ["main_metric", "scout_rate", "scout_turn_rate"]),
    ("bad main side", SMALL.replace('main_metric = "scout_turn_rate"', 'main_side = "Z"'), "",
     ["main_side", "'Z'"]),
    ("bad policy entry", SMALL.replace('["greedy", "random"]', '["greedy"]'), "", ["policies"]),
    ("negative games", SMALL.replace("games = {games}", "games = -5"), "", ["games", "out of range"]),
    ("not TOML", "[study\nname=", "", ["not valid TOML"]),
    ("unknown scenario", SMALL.replace('"symmetric"', '"nowhere"'), "", ["unknown scenario name"]),
    ("odds question", '[study]\nname = "o"\nkind = "odds"\ngames = 100\n[[questions]]\nask = "guess"\n', "",
     ["ask", "'guess'", "at_least"]),
    ("odds target error", '[study]\nname = "o"\nkind = "odds"\ngames = 100\ntarget_error = 0.1\n'
     '[[questions]]\nask = "same_section"\n', "", ["target_error", "unknown key"]),
    ("odds sweep path", '[study]\nname = "o"\nkind = "odds"\ngames = 100\n[[questions]]\n'
     'ask = "same_section"\n[sweep]\n"sides.*.hand" = [4]\n', "", ["unknown parameter path", "deck, hand"]),
]


@pytest.mark.parametrize("case,template,sweep,needles", BAD, ids=[b[0] for b in BAD])
def test_bad_study_files_give_one_line_errors(tmp_path, capsys, monkeypatch, case, template, sweep, needles):
    body = template.format(name="bad", games=100, chunk=50, extra="") if "{name}" in template else template
    path = write_study(tmp_path, "bad", body=body, sweep=sweep)
    from napsim.cli import main

    monkeypatch.setattr(sys, "argv", ["napsim", "run", str(path), "--out", str(tmp_path / "out")])
    with pytest.raises(SystemExit) as e:
        main()
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("napsim: error:") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, f"{needle!r} not in {err!r}"
    assert not (tmp_path / "out" / "points").exists(), "nothing may run before the study is valid"


def test_bad_study_from_the_real_command_line(tmp_path, monkeypatch, study_toml):
    # the first in a fresh interpreter (the real console entry point), the others in this process
    path = study_toml(sweep={"scenario.turnz": [5]})
    r = run_napsim("run", str(path), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    assert r.stderr.startswith("napsim: error:") and r.stderr.count("\n") == 1
    assert "scenario.turnz" in r.stderr and "scenario.<format|deck|turns|first" in r.stderr
    code, _, err = napsim_main(monkeypatch, "run", str(tmp_path / "missing.toml"), "--out",
                               str(tmp_path / "out"))
    assert code == 2 and "study file not found" in err
    code, _, err = napsim_main(monkeypatch, "report", str(tmp_path / "nothing-here"))
    assert code == 2 and "not a napsim run folder" in err
    code, _, err = napsim_main(monkeypatch, "run", str(path), "--out", str(tmp_path / "o2"),
                               "--target-error", "2")
    assert code == 2 and err.count("\n") == 1


# ---------------------------------------------------------------------------------------------
# odds studies and paths


def test_odds_study_answers_match_napsim_odds(tmp_path):
    from napsim.model.cards import load_deck
    from napsim.sim import odds

    body = """
[study]
name = "odds"
kind = "odds"
games = 20000
seed = 3
chunk = 7000
[sweep]
deck = ["gmt90", "cca60"]
hand = [5, 7]
[[questions]]
ask = "at_least"
filter = "kind=multi"
k = 1
label = "multi in hand"
[[questions]]
ask = "first"
filter = "stars>=1"
label = "first starred card"
"""
    path = write_study(tmp_path, "odds", body=body)
    res = napsim.run_study(path, out=tmp_path / "out")
    s = res.summary()
    assert len(s[s["label"] == "multi in hand"]) == 4
    row = s[(s["label"] == "multi in hand") & (s["deck"] == "cca60") & (s["hand"] == 7)].iloc[0]
    ref = odds.at_least(load_deck("cca60"), "kind=multi", 7, 1, 20000, 3, 7000).iloc[0]
    assert row["simulated"] == ref["simulated"] and row["exact"] == pytest.approx(ref["exact"])
    # cca60 has no starred cards: that answer is marked not applicable instead of failing the run
    na = s[(s["label"] == "first starred card") & (s["deck"] == "cca60")]
    assert (na["n"] == 0).all() and na["note"].str.contains("not applicable").all()
    assert len(res.frame) == len(s)


def test_symmetric_sweep_paths_and_relative_files(tmp_path):
    scen = tmp_path / "my.toml"
    scen.write_text((SCENARIO_DIR / "symmetric.toml").read_text())
    body = SMALL.format(name="rel", games=10, chunk=10, extra="").replace('"symmetric"', '"my.toml"')
    path = write_study(tmp_path, "rel", body=body,
                       sweep='"sides.*.sections.*.cavalry" = [0, 3]\n"policy.*.w_c" = [1.0, 2.5]')
    st = load_study(path)
    assert len(st.points) == 4
    over, deck, pols = st.point_inputs(st.points[3])
    assert over["sides.A.sections.R.cavalry"] == 3 and over["sides.B.sections.L.cavalry"] == 3
    assert pols == [("greedy", {"w_c": 2.5}), ("random", {"w_c": 2.5})]
    sc, _, _ = st.load_point(st.points[3])
    assert all(sec.cavalry == 3 for side in sc.sides for sec in side.sections)
    assert sc.path == scen


def test_a_resumed_run_says_what_it_played_now(tmp_path, monkeypatch, study_toml):
    # issue 17: a resume reports the games it took from earlier chunks, not a rate it never had
    path = study_toml(games=600, chunk=300)
    out = tmp_path / "out"
    code, stdout, err = napsim_main(monkeypatch, "run", str(path), "--out", str(out), "--no-report")
    assert code == 0, err
    assert "600 games in" in stdout
    code, stdout, err = napsim_main(monkeypatch, "run", str(path), "--out", str(out), "--no-report")
    assert code == 0, err
    assert "600 games: 600 from earlier chunks, 0 played now" in stdout



def _same_data(recorded, read) -> None:
    """Two `napsim.output.frames.StudyData` of one run folder hold the same numbers."""
    assert recorded.meta == read.meta and recorded.complete == read.complete
    assert recorded.convergence == read.convergence
    assert [(p, k) for p, k, _ in recorded.chunks] == [(p, k) for p, k, _ in read.chunks]
    for (_, _, a), (_, _, b) in zip(recorded.chunks, read.chunks, strict=True):
        assert int(a["first"]) == int(b["first"]) and int(a["n"]) == int(b["n"])
        np.testing.assert_array_equal(a["sums"], b["sums"])
    for pid, acc in read.accs.items():
        assert recorded.accs[pid].games == acc.games and recorded.accs[pid].chunks == acc.chunks
        for name, arr in acc.arrays().items():
            np.testing.assert_array_equal(recorded.accs[pid].arrays()[name], arr, err_msg=name)


def test_a_run_hands_its_report_the_data_that_reading_its_folder_gives(tmp_path, study_toml):
    """`run_study` records the chunks as the run adds them up, and the report is written from that
    record instead of reading the chunk files back: fresh, resumed (some chunks from disk) and
    stopped by a target error, the record equals what `frames.load` reads from the folder."""
    path = study_toml(games=900, chunk=300, sweep={"sides.*.hand": [5, 8]})
    out = tmp_path / "out"
    res = napsim.run_study(path, out)
    assert "data" in vars(res), "the run's record, not the folder read back"
    _same_data(res.data, frames.load(out))
    study_toml(games=1500, chunk=300, sweep={"sides.*.hand": [5, 8]})  # 3 chunks a point on disk, 2 new
    res = napsim.run_study(path, out)
    assert runloop.games_played_now(res.meta) == (3000, 1200)
    _same_data(res.data, frames.load(out))
    stopped = tmp_path / "stopped"
    res = napsim.run_study(path, stopped, target_error=0.03)
    assert res.data.accs and all(a.games < 1500 for a in res.data.accs.values()), "no early stop"
    _same_data(res.data, frames.load(stopped))
