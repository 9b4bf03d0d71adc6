"""Faults around result folders (issue 16): `napsim simulate --out` and `napsim readings --out`.
Two runs into one folder: exactly one wins. --force replaces only a napsim result folder, and the
old result stays until the new one is complete. The folder is checked before any game is played. A
full disk leaves nothing half-written. Temporary folders of killed runs are removed."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from napsim.model.errors import NapsimInputError
from napsim.output.folders import write_result_folder
from napsim.output.simulated import SIMULATE_FILES
from napsim.sim.packing import Simulation
from tests.support.faults import assert_one_error, dead_pid, leave_free, napsim_main, small_tmpfs

GAMES = ["--scenario", "symmetric", "--games", "20", "--no-per-game"]


def simulate(monkeypatch, capsys, out: Path, *extra: str, seed: int = 1) -> tuple[int, str, str]:
    return napsim_main(monkeypatch, capsys, "simulate", *GAMES, "--seed", str(seed), "--out", str(out),
                       *extra)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def temp_folders(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f".{out.name}.napsim-*"))


def no_games(monkeypatch) -> None:
    """Any game played from here on fails the test (checks must come first)."""
    def played(*a, **k):
        raise AssertionError("games were played before the folder was checked")

    monkeypatch.setattr(Simulation, "run", played)


def full_disk_after(monkeypatch, kept: int = 10) -> None:
    """DataFrame.to_csv writes `kept` bytes and then fails as on a full disk."""
    def to_csv(self, path=None, *a, **k):
        Path(path).write_text("side,metric"[:kept])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pd.DataFrame, "to_csv", to_csv)


@pytest.mark.slow  # two racing subprocesses; the next test makes the race certain in this process
def test_two_simulate_runs_into_one_folder_exactly_one_wins(tmp_path):
    out = tmp_path / "race"
    procs = [subprocess.Popen([sys.executable, "-m", "napsim", "simulate", *GAMES, "--seed", str(seed),
                               "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for seed in (1, 2)]
    results = [(p.wait(timeout=300), *p.communicate()) for p in procs]
    codes = sorted(r[0] for r in results)
    assert codes == [0, 2], results
    (won_seed,) = [seed for seed, r in zip((1, 2), results, strict=True) if r[0] == 0]
    (lost,) = [r for r in results if r[0] == 2]
    assert_one_error(2, lost[2], "is taken")
    assert json.loads((out / "manifest.json").read_text())["seed"] == won_seed
    assert not temp_folders(out)


def test_a_folder_taken_while_playing_is_never_replaced(tmp_path):
    """The race made certain: another run completes `out` while this one writes its files."""
    out = tmp_path / "out"

    def other_run_finishes_first(p: Path) -> None:
        out.mkdir()
        (out / "manifest.json").write_text('{"napsim": "other"}')
        p.write_text("mine")

    with pytest.raises(NapsimInputError, match="is taken"):
        write_result_folder(out, False, SIMULATE_FILES, {"summary.csv": other_run_finishes_first})
    assert snapshot(out) == {"manifest.json": b'{"napsim": "other"}'}
    assert not temp_folders(out)


def test_force_replaces_only_a_napsim_result_folder(tmp_path, monkeypatch, capsys):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("years of work")
    no_games(monkeypatch)
    code, _, err = simulate(monkeypatch, capsys, foreign, "--force")
    assert_one_error(code, err, "not a napsim result folder")
    assert snapshot(foreign) == {"thesis.tex": b"years of work"}
    monkeypatch.undo()

    res = tmp_path / "res"
    assert simulate(monkeypatch, capsys, res)[0] == 0
    (res / "notes.txt").write_text("mine")
    before = snapshot(res)
    no_games(monkeypatch)
    code, _, err = simulate(monkeypatch, capsys, res, "--force")
    assert_one_error(code, err, str(res / "notes.txt"), "not a file napsim writes")
    assert snapshot(res) == before


def test_force_keeps_the_old_result_until_the_new_one_is_complete(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    assert simulate(monkeypatch, capsys, out, seed=1)[0] == 0
    before = snapshot(out)
    with monkeypatch.context() as m:
        full_disk_after(m)
        code, _, err = simulate(m, capsys, out, "--force", seed=2)
    assert_one_error(code, err, str(out / "summary.csv"), "No space left on device")
    assert snapshot(out) == before and not temp_folders(out)
    code, _, err = simulate(monkeypatch, capsys, out, "--force", seed=2)
    assert code == 0, err
    assert json.loads((out / "manifest.json").read_text())["seed"] == 2
    assert sorted(os.listdir(tmp_path)) == ["out"], "nothing left beside the result"


def test_disk_full_leaves_no_half_written_result(tmp_path, monkeypatch, capsys):
    out = tmp_path / "new"
    full_disk_after(monkeypatch)
    code, _, err = simulate(monkeypatch, capsys, out)
    line = assert_one_error(code, err, str(out / "summary.csv"), "No space left on device")
    assert "nothing was written" in line
    assert not out.exists() and not temp_folders(out)


def test_simulate_checks_the_folder_before_playing(tmp_path, monkeypatch, capsys):
    full = tmp_path / "full"
    assert simulate(monkeypatch, capsys, full)[0] == 0
    no_games(monkeypatch)
    code, _, err = simulate(monkeypatch, capsys, full)
    assert_one_error(code, err, "is taken", "--force")
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    code, _, err = simulate(monkeypatch, capsys, blocker / "out")
    assert_one_error(code, err, "is a file, not a folder")
    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == locked else real(p, mode))
    code, _, err = simulate(monkeypatch, capsys, locked / "out")
    assert_one_error(code, err, "not writable")
    assert not (locked / "out").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders: chmod proves nothing")
def test_read_only_folder_is_refused_before_playing(tmp_path, monkeypatch, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        no_games(monkeypatch)
        code, _, err = simulate(monkeypatch, capsys, ro / "out")
        assert_one_error(code, err, "not writable")
    finally:
        ro.chmod(0o700)


def test_temporary_folders_of_a_killed_run_are_removed(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    pid = dead_pid()
    stale = [tmp_path / f".out.napsim-{pid}-x1y2", tmp_path / f".out.napsim-old-{pid}-z3"]
    live = tmp_path / f".out.napsim-{os.getpid()}-busy"  # a run still writing: left alone
    for d in (*stale, live):
        d.mkdir()
        (d / "summary.csv").write_text("half")
    code, _, err = simulate(monkeypatch, capsys, out)
    assert code == 0, err
    assert "removed 2 temporary folder(s) of a killed run" in err
    assert not any(d.exists() for d in stale) and live.exists()
    assert (out / "summary.csv").read_text() != "half"


READINGS = '[readings]\nname = "r"\ngames = 10\nseed = 1\n[options]\ninitiative = ["epic4-symmetric"]\n'


def test_readings_out_is_checked_before_playing(tmp_path, monkeypatch, capsys):
    spec = tmp_path / "r.toml"
    spec.write_text(READINGS)

    def played(*a, **k):
        raise AssertionError("readings were played before the folder was checked")

    monkeypatch.setattr("napsim.api.run_readings", played)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "thesis.tex").write_text("x")
    for args, needle in ([str(taken)], "is taken"), ([str(taken), "--force"], "not a napsim result"), (
            [str(tmp_path / "r.toml" / "out")], "is a file, not a folder"):
        code, _, err = napsim_main(monkeypatch, capsys, "readings", str(spec), "--out", *args)
        assert_one_error(code, err, needle)
    assert snapshot(taken) == {"thesis.tex": b"x"}


def test_full_real_filesystem_leaves_no_half_written_result(tmp_path, monkeypatch, capsys):
    """A real small tmpfs with 16 KiB left: games.parquet does not fit (skipped where no tmpfs can
    be mounted)."""
    with small_tmpfs(tmp_path / "disk") as disk:
        filler = leave_free(disk, 16)
        out = disk / "out"
        code, _, err = napsim_main(monkeypatch, capsys, "simulate", "--scenario", "symmetric", "--games",
                                   "20", "--out", str(out))
        assert_one_error(code, err, str(out), "No space left on device", "nothing was written")
        assert sorted(os.listdir(disk)) == ["filler"]
        filler.unlink()
        code, _, err = napsim_main(monkeypatch, capsys, "simulate", "--scenario", "symmetric", "--games",
                                   "20", "--out", str(out))
        assert code == 0, err
        assert {"games.parquet", "summary.csv", "manifest.json"} <= set(os.listdir(out))
