"""Faults in a study run folder (issue 16): damaged or misplaced chunk files, a full disk, stale
temporary files. Nothing is lost and no wrong number is used: a chunk that does not check out is
named and played again, and the results equal those of an undamaged run bit for bit."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from napsim.model.errors import NapsimInputError
from napsim.output import report
from napsim.study import runloop
from napsim.study.chunks import arrays_sha256
from tests.support.chunks import assert_same_chunks, chunk_arrays, chunk_files
from tests.support.faults import (
    assert_one_error,
    dead_pid,
    fail_writes_to,
    flip_bit,
    leave_free,
    napsim_main,
    small_tmpfs,
    tiny_study,
    truncate,
)


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> tuple[Path, Path]:
    """(study file, an undamaged run folder of it with its tables)."""
    base = tmp_path_factory.mktemp("clean")
    study = tiny_study(base)
    runloop.execute(study, base / "run", notice=lambda line: None)
    report.write_report(base / "run", with_charts=False)
    return study, base / "run"


@pytest.fixture
def damaged(clean, tmp_path) -> Path:
    out = tmp_path / "run"
    shutil.copytree(clean[1], out)
    return out


def rerun(study: Path, out: Path) -> list[str]:
    """Run the study again into `out`; returns the notices it gave."""
    lines: list[str] = []
    runloop.execute(study, out, notice=lines.append)
    return lines


def assert_as_clean(out: Path, clean: Path) -> None:
    assert_same_chunks(out, clean)
    report.write_report(out, with_charts=False)
    for name in ("summary.csv", "points.csv", "convergence.csv"):
        assert (out / name).read_bytes() == (clean / name).read_bytes(), name


def edit_arrays(path: Path, key: str = "totals") -> None:
    """Change one number of a chunk and store it again with its old record (as a hand edit does)."""
    comment = zipfile.ZipFile(path).comment
    arrays = chunk_arrays(path)
    arrays[key] = arrays[key] + 1
    np.savez_compressed(path, **arrays)
    with zipfile.ZipFile(path, "a") as z:
        z.comment = comment


def flip_in_record(path: Path) -> None:
    """Flip a bit of the point id in the record ("p001" -> "p00!")."""
    flip_bit(path, path.read_bytes().rindex(b'"p001"') + 4)


def reseal(path: Path, **record) -> None:
    """Rewrite a chunk's record with other fields and a checksum that matches (a forged copy)."""
    with zipfile.ZipFile(path, "a") as z:
        rec = json.loads(z.comment)
        rec.update(record)
        rec["sha256"] = arrays_sha256(chunk_arrays(path), rec)
        z.comment = json.dumps(rec).encode()


DAMAGE = {
    "truncated": (lambda out: truncate(out / "points/p000/chunk-00001.npz"),
                  "p000/chunk-00001.npz", "not a readable chunk file"),
    "bit flipped in the arrays": (lambda out: flip_bit(out / "points/p001/chunk-00002.npz", 200),
                                  "p001/chunk-00002.npz", "damaged arrays"),
    "bit flipped in the record": (lambda out: flip_in_record(out / "points/p001/chunk-00003.npz"),
                                  "p001/chunk-00003.npz", "point p00!, not p001"),
    "copied from another point": (lambda out: shutil.copy(out / "points/p001/chunk-00002.npz",
                                                          out / "points/p000/chunk-00002.npz"),
                                  "p000/chunk-00002.npz", "point p001, not p000"),
    "copied from another chunk": (lambda out: shutil.copy(out / "points/p000/chunk-00000.npz",
                                                          out / "points/p000/chunk-00003.npz"),
                                  "p000/chunk-00003.npz", "chunk 0, not 3"),
    "edited": (lambda out: edit_arrays(out / "points/p000/chunk-00002.npz"),
               "p000/chunk-00002.npz", "checksum mismatch"),
    "forged record of another seed": (lambda out: reseal(out / "points/p000/chunk-00001.npz", seed=8),
                                      "p000/chunk-00001.npz", "seed 8, not 7"),
    "no record (older napsim)": (lambda out: np.savez_compressed(
        out / "points/p001/chunk-00000.npz", **chunk_arrays(out / "points/p001/chunk-00000.npz")),
        "p001/chunk-00000.npz", "no chunk record"),
    "empty file": (lambda out: (out / "points/p000/chunk-00000.npz").write_bytes(b""),
                   "p000/chunk-00000.npz", "not a readable chunk file"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damaged_chunk_is_named_and_recomputed_with_the_same_numbers(clean, damaged, case):
    damage, where, why = DAMAGE[case]
    damage(damaged)
    with pytest.raises(NapsimInputError) as e:  # the report never uses it, and says what to do
        report.write_report(damaged, with_charts=False)
    assert where in str(e.value) and why in str(e.value) and "`napsim run`" in str(e.value)
    notices = rerun(clean[0], damaged)
    assert len(notices) == 1 and where in notices[0] and why in notices[0], notices
    assert notices[0].endswith("recomputing it")
    assert_as_clean(damaged, clean[1])
    assert rerun(clean[0], damaged) == []  # once recomputed, it checks out


def test_damaged_chunk_from_the_command_line(clean, damaged, monkeypatch, capsys):
    """`napsim report` on a damaged folder: one error line naming the chunk, exit 2, no traceback;
    `napsim run` says which chunk it recomputes and ends with the undamaged numbers."""
    truncate(damaged / "points/p001/chunk-00001.npz", keep=0)
    flip_bit(damaged / "points/p000/chunk-00002.npz", 120)
    code, _, err = napsim_main(monkeypatch, capsys, "report", str(damaged), "--no-charts")
    assert_one_error(code, err, "chunk-00002.npz", "damaged chunk", "`napsim run`", "recompute")
    code, _, err = napsim_main(monkeypatch, capsys, "run", str(clean[0]), "--out", str(damaged),
                               "--no-report")
    assert code == 0, err
    told = [line for line in err.splitlines() if "recomputing it" in line]
    assert len(told) == 2 and "p000/chunk-00002.npz" in told[0] and "p001/chunk-00001.npz" in told[1]
    assert_as_clean(damaged, clean[1])


def test_chunk_records_its_study_point_range_and_checksum(clean):
    path = clean[1] / "points/p001/chunk-00002.npz"
    rec = json.loads(zipfile.ZipFile(path).comment)
    study = json.loads((clean[1] / "study.json").read_text())
    assert rec["study"] == study["identity_sha256"] and rec["seed"] == 7
    assert (rec["point"], rec["chunk"], rec["first"], rec["n"]) == ("p001", 2, 200, 100)
    assert rec["sha256"] == arrays_sha256(chunk_arrays(path), rec)
    # the arrays are those a chunk always held (nothing added among them)
    assert set(chunk_arrays(path)) == {"format", "first", "n", "totals", "sums", "sumsq", "sumxt",
                                       "hist", "rack_wait", "guerrilla_turns", "commander_totals",
                                       "tactician_turns"}


def test_disk_full_while_writing_a_chunk_keeps_the_folder_resumable(clean, tmp_path, monkeypatch,
                                                                     capsys):
    out = tmp_path / "run"
    fail_writes_to(monkeypatch, "chunk-00002.npz")
    code, _, err = napsim_main(monkeypatch, capsys, "run", str(clean[0]), "--out", str(out), "--no-report")
    assert_one_error(code, err, "chunk-00002.npz", "No space left on device", "rerun")
    assert not list(out.rglob("*.tmp")), "a failed write leaves no temporary file"
    assert [f.name for f in chunk_files(out)] == ["chunk-00000.npz", "chunk-00001.npz"]
    monkeypatch.undo()
    assert rerun(clean[0], out) == []
    assert_as_clean(out, clean[1])


def test_disk_full_while_writing_the_report_leaves_no_half_report(clean, damaged, monkeypatch):
    for name in ("report.md", "report.html"):
        (damaged / name).unlink()
    fail_writes_to(monkeypatch, "report.html")
    with pytest.raises(OSError, match="No space left") as e:
        report.write_report(damaged, with_charts=False)
    assert e.value.filename == str(damaged / "report.html")
    assert not (damaged / "report.md").exists(), "report.md without report.html"
    assert not list(damaged.rglob("*.tmp"))


def test_stale_temporary_files_of_a_killed_run_are_removed_and_never_read(clean, damaged):
    pid = dead_pid()
    (damaged / "points/p000/chunk-00003.npz").unlink()
    # a complete-looking chunk under a temporary name: must not be taken for chunk 3
    stale = [damaged / f"points/p000/.chunk-00003.npz.{pid}.tmp", damaged / f".study.json.{pid}.tmp",
             damaged / f"charts/.main.png.{pid}.tmp"]
    (damaged / "charts").mkdir(exist_ok=True)
    shutil.copy(damaged / "points/p001/chunk-00003.npz", stale[0])
    for p in stale[1:]:
        p.write_bytes(b"half")
    live = damaged / f"points/p001/.chunk-00001.npz.{os.getpid()}.tmp"  # a live run's: kept
    live.write_bytes(b"in progress")
    notices = rerun(clean[0], damaged)
    assert len(notices) == 1 and "removed 3 temporary file(s) of a killed run" in notices[0], notices
    assert not any(p.exists() for p in stale) and live.exists()
    live.unlink()
    assert_as_clean(damaged, clean[1])


def test_run_folder_that_cannot_be_written_is_refused_before_playing(clean, tmp_path, monkeypatch,
                                                                      capsys):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    code, _, err = napsim_main(monkeypatch, capsys, "run", str(clean[0]), "--out", str(blocker / "run"))
    assert_one_error(code, err, "is a file, not a folder")
    locked = tmp_path / "locked"
    locked.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == locked else real(p, mode))
    code, _, err = napsim_main(monkeypatch, capsys, "run", str(clean[0]), "--out", str(locked / "run"))
    assert_one_error(code, err, "not writable")
    assert not (locked / "run").exists()


def test_full_real_filesystem_keeps_the_run_folder_resumable(clean, tmp_path, monkeypatch, capsys):
    """A real small tmpfs with 20 KiB left: the run stops with one line naming the file it could
    not write, and once there is room again the same command ends with the undamaged numbers
    (skipped where no tmpfs can be mounted)."""
    with small_tmpfs(tmp_path / "disk") as disk:
        filler = leave_free(disk, 20)
        out = disk / "run"
        args = ("run", str(clean[0]), "--out", str(out), "--no-report")
        code, _, err = napsim_main(monkeypatch, capsys, *args)
        assert_one_error(code, err, str(out), "No space left on device", "rerun")
        assert not list(out.rglob("*.tmp"))
        assert len(chunk_files(out)) < 8
        filler.unlink()
        code, _, err = napsim_main(monkeypatch, capsys, *args)
        assert code == 0, err
        assert "recomputing" not in err
        assert_as_clean(out, clean[1])
