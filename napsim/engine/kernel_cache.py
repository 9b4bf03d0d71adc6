"""Where numba caches the compiled kernels, fresh by construction: one cache folder per version of
the kernel sources (and of numba), chosen once, before any kernel is defined (by napsim.engine.jit,
which every kernel module imports first).

numba's on-disk cache checks only the file a jitted function is defined in. A kernel cached before
an edit of another file compiled into it (a phase from epic_phases.py, a helper from cardflow.py,
the pair tables of sim/tables.py) would load unchanged and play the old rules. So napsim gives
numba (its public NUMBA_CACHE_DIR setting) a folder named by a hash of every source file compiled
into the kernels: an edit of any of them, or another version of napsim, opens a new, empty folder
and the kernels compile afresh; nothing in another version's folder is ever read. The folder sits
under the user's NUMBA_CACHE_DIR when set, else under the user's cache folder (~/.cache/napsim on
Linux); where neither can be written, a fresh temporary folder (the kernels compile every run).

numba saves a cache entry in steps (read the function's index, pick the first free data file name,
write the index, then the data): two processes saving two argument types of one function at once (a
first run's second process, napsim.sim.precompile; the test run's parallel workers; two runs side by
side) could pick the same data file, and an index entry would then name the other's code. `SaveLock`
makes the saves take turns on a file lock, through numba's event API. Loads need no lock: numba
replaces each file whole, and in a folder of one version of the sources and of numba an index only
grows (a data file name, once given, always holds the code of the same argument types), so a load
finds the right code or a missing file, a miss (a compile), never another's code.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numba
from numba.core import config, event

try:
    import fcntl
except ImportError:  # not on Unix: numba's own way, without the lock
    fcntl = None

PACKAGE_DIR = Path(__file__).resolve().parents[1]
# the source files compiled into the kernels, relative to the package; the napsim modules they
# import names from join them (a constant such as model/cards.py's CAP_ALL is frozen into a kernel)
KERNEL_SOURCES = ("engine/*.py", "sim/tables.py", "sim/tables_lgb.py")
FOLDER_PREFIX = "napsim-kernels-"
FOLDER_NAME = re.compile(re.escape(FOLDER_PREFIX) + r"[0-9a-f]{16}$")
UNUSED_DAYS = 7  # another version's folder left alone this long is removed when a new one opens
_IMPORT = re.compile(r"^\s*from\s+(napsim(?:\.\w+)*)\s+import\s+(\([\w\s,]+\)|[\w ,]+)", re.M)

_folder: Path | None = None


def _module_files(package_dir: Path, module: str, names: str) -> list[Path]:
    """The files of napsim module `module` and of those of `names` that are modules in it."""
    base = package_dir.parent.joinpath(*module.split("."))
    candidates = [base.with_suffix(".py"), base / "__init__.py"]
    candidates += [base / f"{n}.py" for n in re.findall(r"\w+", names)]
    return [f for f in candidates if f.is_file()]


def kernel_source_files(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """Every file compiled into the kernels: the kernel sources and the napsim modules they import
    names from, sorted."""
    files = {f for pattern in KERNEL_SOURCES for f in package_dir.glob(pattern)}
    for f in list(files):
        for module, names in _IMPORT.findall(f.read_text(encoding="utf-8")):
            files.update(_module_files(package_dir, module, names))
    return sorted(files)


def kernel_source_hash(package_dir: Path = PACKAGE_DIR) -> str:
    """sha256 of numba's version and every file compiled into the kernels (names relative to the
    package, contents). numba's version: a folder's index files then never meet another numba,
    which would empty them and reuse their data file names (see `SaveLock`)."""
    h = hashlib.sha256(f"numba {numba.__version__}\0".encode())
    for f in kernel_source_files(package_dir):
        h.update(f.relative_to(package_dir).as_posix().encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def user_cache_root() -> Path:
    """The user's cache folder, by the platform's convention."""
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def cache_folder(environ: dict | os._Environ = os.environ, package_dir: Path = PACKAGE_DIR) -> Path:
    """The numba cache folder of these kernel sources, `napsim-kernels-` and the hash's first 16
    hex digits: under NUMBA_CACHE_DIR when set (and not itself such a folder, as a child process of
    napsim inherits it: then beside it), else under the user's cache folder."""
    base = environ.get("NUMBA_CACHE_DIR", "")
    if base and FOLDER_NAME.match(Path(base).name):
        base = str(Path(base).parent)
    root = Path(base) if base else user_cache_root() / "napsim"
    return root / (FOLDER_PREFIX + kernel_source_hash(package_dir)[:16])


def _writable(folder: Path) -> bool:
    """Whether `folder` exists (made now if need be) and a file can be written in it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
        return True
    except OSError:
        return False


def prune_unused(folder: Path, days: float = UNUSED_DAYS) -> list[Path]:
    """Remove the folders of other kernel sources beside `folder` unused for `days`; those removed."""
    cutoff = time.time() - days * 86400
    gone = []
    for other in folder.parent.glob(FOLDER_PREFIX + "*"):
        try:
            if other != folder and FOLDER_NAME.match(other.name) and other.stat().st_mtime < cutoff:
                shutil.rmtree(other, ignore_errors=True)
                gone.append(other)
        except OSError:
            continue
    return gone


def usable_folder(folder: Path) -> Path:
    """`folder`, made if need be, when files can be written there; else a fresh private temporary
    folder (the kernels then compile every run: slower, never stale)."""
    new = not folder.exists()
    if not _writable(folder):
        return Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
    if new:
        prune_unused(folder)
    else:
        try:
            os.utime(folder)  # in use: its age says when it was last used
        except OSError:
            pass
    return folder


def use_cache_folder() -> Path:
    """Point numba's cache at this version's folder (once a process; the folder). Sets
    NUMBA_CACHE_DIR (numba's public setting, which child processes inherit) and has numba reread
    its settings; installs the save lock."""
    global _folder
    if _folder is None:
        folder = usable_folder(cache_folder())
        os.environ["NUMBA_CACHE_DIR"] = str(folder)
        config.reload_config()  # numba rereads its settings: the folder holds from here on
        lock = SaveLock(folder)
        event.register("numba:compile", lock)
        event.register("numba:compiler_lock", lock)
        _folder = folder
    return _folder


def _inside(path, folder: Path) -> bool:
    return path is not None and Path(path).resolve().is_relative_to(folder.resolve())


def has_own_cache(fn) -> bool:
    """Whether a numba function keeps a cache on disk (False when numba does not say)."""
    return getattr(getattr(fn, "stats", None), "cache_path", None) is not None


def check_cache_folder(namespace: dict) -> int:
    """Check that every cached numba function in `namespace` keeps its cache in this version's
    folder (numba fixes a function's cache place when it is defined); how many were checked. A
    cache elsewhere (NUMBA_CACHE_DIR changed after napsim chose the folder, the folder unwritable
    when a kernel was defined) would be checked by numba against its defining file only: a
    RuntimeError, never a kernel that may be stale."""
    folder = use_cache_folder()
    checked = 0
    for name, fn in list(namespace.items()):
        path = getattr(getattr(fn, "stats", None), "cache_path", None)
        if path is None:
            continue
        if _inside(path, folder):
            checked += 1
            continue
        raise RuntimeError(f"napsim: numba caches the kernel {name} in {path}, not in napsim's "
                           f"kernel cache folder {folder}: set NUMBA_CACHE_DIR before napsim is "
                           "imported and leave it unchanged")
    return checked


def _marker(folder: Path, fn) -> Path:
    py = getattr(fn, "py_func", None)
    return folder / "saved" / f"{getattr(py, '__module__', '?')}.{getattr(py, '__qualname__', '?')}"


def saved(fn) -> bool:
    """Whether the cached numba function `fn` is compiled in this process or was saved into this
    version's cache folder (by any process; a marker `SaveLock` writes after numba's save)."""
    return bool(fn.signatures) or (_folder is not None and _marker(_folder, fn).exists())


class SaveLock(event.Listener):
    """Listens to numba's compiles: from the end of a compile (numba saves the result right after)
    to the release of numba's compiler lock around it, this process holds an exclusive lock on
    `save.lock` in the cache folder; then marks the function saved. The lock of a compile nested
    in another's typing is released at its own end, so two processes never wait on each other."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.lock_path = folder / "save.lock"
        self._local = threading.local()

    def _state(self):
        st = self._local
        if not hasattr(st, "depth"):
            st.depth, st.fd, st.hold, st.fn = 0, None, 0, None
        return st

    def on_start(self, event) -> None:
        if event.kind == "numba:compiler_lock":
            self._state().depth += 1

    def on_end(self, event) -> None:
        st = self._state()
        if event.kind == "numba:compile":
            if st.fn is None:  # (numba's `is_failed` is not to be trusted: 0.68 inverts it)
                st.fd, st.hold, st.fn = self._acquire(), st.depth, event.data["dispatcher"]
            return
        st.depth = max(0, st.depth - 1)
        if st.fn is not None and st.depth < st.hold:
            self._release(st)

    def _acquire(self) -> int:
        if fcntl is None:
            return -1
        try:
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:  # a read-only folder: numba saves nothing there either
            return -1
        fcntl.flock(fd, fcntl.LOCK_EX)
        return fd

    def _release(self, st) -> None:
        try:
            path = getattr(getattr(st.fn, "stats", None), "cache_path", None)
            if st.fn.signatures and _inside(path, self.folder):  # compiled, so saved here
                marker = _marker(self.folder, st.fn)
                marker.parent.mkdir(exist_ok=True)
                marker.touch()
        except OSError:
            pass
        finally:
            if st.fd is not None and st.fd >= 0:
                os.close(st.fd)  # closing releases the lock
            st.fd, st.hold, st.fn = None, 0, None
