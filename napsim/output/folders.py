"""Result folders (`napsim simulate --out`, `napsim readings --out`, a variants file's report):
checked before any game is played, written whole or not at all, claimed by exactly one run,
replaced only when napsim wrote them; `manifest`, the versions every manifest.json records.

`check_result_dest` refuses, before playing: a path under a file or in a folder that is not
writable; a folder that holds anything, unless --force; with --force, a folder that is not a napsim
result folder (no napsim manifest.json) or holds a file napsim does not write there (it is named).

`write_result_folder` writes every file into a sibling temporary folder
``.<name>.napsim-<pid>-<random>`` and then moves it into place with one rename, which fails when
the destination has meanwhile become a non-empty folder: of two runs into the same --out exactly
one wins, the other stops with "is taken" and replaces nothing. With --force the old folder is
moved aside only once the new one is complete, then removed. A write that fails (disk full...)
removes the temporary folder and names the file. Temporary folders of killed runs (their process
is gone) are removed by the next write in the same place.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import json
import os
import platform
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from napsim.model.defaults import __version__
from napsim.model.errors import NapsimInputError
from napsim.study.store import check_writable, pid_alive

Writer = Callable[[Path], None]  # writes one file at the path it is given
Notice = Callable[[str], None]
TAG = ".napsim-"  # in the names of the temporary folders: .<name>.napsim-<pid>-<random>


def manifest(fields: dict, libraries: Sequence[str] = ()) -> dict:
    """What a result folder's manifest.json records: napsim's version; the versions of `libraries`
    (the packages its numbers or charts come from, imported here if not yet) and Python's, when
    any is named; then `fields`."""
    out = {"napsim": __version__}
    if libraries:
        out.update({name: importlib.import_module(name).__version__ for name in libraries})
        out["python"] = platform.python_version()
    return {**out, **fields}


def is_napsim_manifest(path: Path) -> bool:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and "napsim" in doc


def check_replaceable(out: Path, own: tuple[str, ...]) -> None:
    """May --force replace `out`? Only a napsim result folder holding nothing but napsim's files."""
    names = sorted(p.name for p in out.iterdir())
    if "manifest.json" not in names or not is_napsim_manifest(out / "manifest.json"):
        raise NapsimInputError(str(out), "--force", "is not a napsim result folder (no napsim "
                               "manifest.json), so --force does not replace it",
                               hint="choose another --out, or remove the folder yourself")
    foreign = [n for n in names if n not in own]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise NapsimInputError(str(out / foreign[0]), "--force", f"is not a file napsim writes here{more}; "
                               "--force replaces only a folder of napsim's own files",
                               hint="move it away, or choose another --out")


def check_result_dest(dest: str | Path, force: bool, own: tuple[str, ...]) -> Path:
    """The destination folder, refused (before any game is played) when it cannot be written, or
    holds anything and not `force`, or `force` may not replace it (`check_replaceable`)."""
    out = Path(dest)
    if out.exists() and not out.is_dir():
        raise NapsimInputError(str(out), "--out", "is a file, not a folder", "a folder")
    check_writable(out.parent, str(out), "--out")
    if out.is_dir():
        if any(out.iterdir()):
            if not force:
                raise taken(out)
            check_replaceable(out, own)
    return out


def taken(out: Path) -> NapsimInputError:
    """Why a folder that is not empty is refused as --out, truly: napsim's results (--force replaces
    them), a run folder of `napsim run` (its `.lock`), or files of the user's own (never touched)."""
    names = sorted(p.name for p in out.iterdir())
    if "manifest.json" in names and is_napsim_manifest(out / "manifest.json"):
        return NapsimInputError(str(out), "--out", "is taken: it already holds napsim results",
                                hint="--force replaces them, or choose another --out")
    if ".lock" in names or "study.json" in names:
        return NapsimInputError(str(out), "--out", "is taken: it is a run folder of `napsim run` (it holds "
                                "napsim's own lock file .lock), not a result folder of this command",
                                hint="choose another --out")
    more = f" and {len(names) - 1} more" if len(names) > 1 else ""
    return NapsimInputError(str(out), "--out", f"is taken: it holds files napsim did not write "
                            f"({names[0]}{more}); "
                            "napsim writes its results into a new or empty folder and never touches "
                            "files of yours", hint="choose another --out")


def clean_stale(out: Path) -> list[Path]:
    """Remove the temporary folders of killed runs beside `out` (never read as results)."""
    removed = []
    prefix = f".{out.name}{TAG}"
    for p in sorted(out.parent.glob(f"{glob_escape(prefix)}*")):
        pid = p.name[len(prefix):].removeprefix("old-").partition("-")[0]
        if p.is_dir() and pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def write_result_folder(dest: str | Path, force: bool, own: tuple[str, ...], files: dict[str, Writer],
                        notice: Notice | None = None) -> Path:
    """Write `files` (name -> writer) as the folder `dest`, atomically (see the module docstring)."""
    with staged_result_folder(dest, force, own, notice) as stage:
        stage.write(files)
    return stage.out


class _Stage:
    """A result folder being written: files go into `tmp`; `out` is where it will be."""

    def __init__(self, out: Path, tmp: Path):
        self.out, self.tmp = out, tmp

    def write(self, files: dict[str, Writer]) -> None:
        """Write each file with its writer; a failure names the file (nothing reaches `out`)."""
        for name, write in files.items():
            with self.writing(name):
                write(self.tmp / name)

    @contextlib.contextmanager
    def writing(self, name: str):
        """Turn an OSError while writing file `name` into one line naming it."""
        try:
            yield self.tmp / name
        except OSError as e:
            raise NapsimInputError(str(self.out / name), None, f"cannot write: {e.strerror or e}; "
                                   f"nothing was written to {self.out}") from None


@contextlib.contextmanager
def staged_result_folder(dest: str | Path, force: bool, own: tuple[str, ...],
                         notice: Notice | None = None):
    """A `_Stage` to write a result folder into, file by file (per-game rows stream into it while
    the games are played); moved into place when the block ends, removed if it raises."""
    out = check_result_dest(dest, force, own)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise NapsimInputError(str(out), "--out", f"cannot create its folder: {e.strerror or e}") from None
    stale = clean_stale(out)
    if stale and notice:
        notice(f"removed {len(stale)} temporary folder(s) of a killed run: {stale[0].name}")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}{TAG}{os.getpid()}-", dir=out.parent))
    tmp.chmod(0o777 & ~_umask())  # mkdtemp makes it private; the result folder is an ordinary one
    try:
        yield _Stage(out, tmp)
        _install(tmp, out, force, own, notice)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _install(tmp: Path, out: Path, force: bool, own: tuple[str, ...], notice: Notice | None) -> None:
    """Move the complete folder `tmp` to `out`: one rename onto a missing or empty folder; with
    `force` the old folder is moved aside first and removed once the new one is in place."""
    taken = NapsimInputError(str(out), "--out", "is taken: another run wrote results there while "
                             "this one played; nothing was replaced", hint="choose another --out, or --force")
    try:
        os.rename(tmp, out)  # fails when out is a non-empty folder: someone else was first
        return
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
            raise
        if not force or e.errno == errno.ENOTDIR:
            raise taken from None
    check_replaceable(out, own)
    aside = Path(tempfile.mkdtemp(prefix=f".{out.name}{TAG}old-{os.getpid()}-", dir=out.parent))
    os.rename(out, aside / "old")
    try:
        os.rename(tmp, out)
    except OSError:
        with contextlib.suppress(OSError):
            os.rename(aside / "old", out)
        raise taken from None
    for name in own:
        p = aside / "old" / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
    try:
        (aside / "old").rmdir()
        aside.rmdir()
    except OSError:  # a file appeared in the old folder meanwhile: keep it
        if notice:
            notice(f"kept {aside / 'old'}: it holds files napsim did not write")
