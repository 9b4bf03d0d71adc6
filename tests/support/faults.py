"""Helpers of the fault tests: a tiny study, the command line in this process, damaged files, a
process id that is certainly gone, a write that fails as on a full disk, a real small filesystem."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.tomlwrite import dump_toml


def tiny_study(folder: Path, games: int = 400, chunk: int = 100) -> Path:
    """A two-point engine study of `games` games in chunks of `chunk` (well under a second)."""
    study = dict(name="tiny", scenario="symmetric", policies=["greedy", "random"], games=games, seed=7,
                 chunk=chunk, main_metric="scout_turn_rate")
    p = folder / "tiny.toml"
    p.write_text(dump_toml({"study": study, "set": {"scenario.turns": 3},
                            "sweep": {"sides.*.hand": [5, 6]}}))
    return p


def napsim_main(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `napsim ARGS` run in this process (`napsim.cli.main`)."""
    from napsim.cli import main

    monkeypatch.setattr(sys, "argv", ["napsim", *args])
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def error_lines(err: str) -> list[str]:
    """The `napsim: error:` lines of a stderr (a progress bar may stand before them)."""
    return [line for line in err.splitlines() if line.startswith("napsim: error:")]


def assert_one_error(code: int, err: str, *needles: str) -> str:
    """Exit 2, exactly one error line holding every needle, no traceback; returns the line."""
    lines = error_lines(err)
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], f"{n!r} not in {lines[0]!r}"
    return lines[0]


def truncate(path: Path, keep: int = 300) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def flip_bit(path: Path, at: int) -> None:
    """Flip one bit of the byte at `at` (negative: from the end)."""
    b = bytearray(path.read_bytes())
    b[at] ^= 0x10
    path.write_bytes(bytes(b))


def dead_pid() -> int:
    """The id of a process that has ended (for temporary names of a 'killed' run)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def fail_writes_to(monkeypatch, fragment: str, err: int = errno.ENOSPC) -> None:
    """Make every file whose path holds `fragment` fail as on a full disk (at its fsync, after
    part of it is written, as a real full disk does)."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if fragment in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(err, os.strerror(err))
        real(fd)

    if not os.path.exists("/proc/self/fd"):
        pytest.skip("needs /proc to tell which file is written")
    monkeypatch.setattr(os, "fsync", fsync)


@contextlib.contextmanager
def small_tmpfs(folder: Path, size_kib: int = 1024) -> Iterator[Path]:
    """A real small filesystem (tmpfs) mounted at `folder`; skips the test where the machine does
    not allow mounting one (not root, no CAP_SYS_ADMIN, no mount command)."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(folder)],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"cannot mount a tmpfs here: {e}")
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, timeout=30)


def leave_free(folder: Path, kib: int) -> Path:
    """Fill the filesystem of `folder` until about `kib` KiB are left; returns the filler file."""
    st = os.statvfs(folder)
    filler = folder / "filler"
    filler.write_bytes(b"\0" * max(0, st.f_bavail * st.f_frsize - kib * 1024))
    return filler
