"""A/B timing of two versions of the engine kernels in one process (developer tool).

Usage: python tools/ab_epic.py A B [ROUNDS] [SCENARIO ...] [--games N] [--wall] [--processes P]
(defaults: 30 rounds, symmetric, 20,000 games a slice, the process's CPU time; --wall: wall
time). Run it pinned to one core
(`taskset -c 1`). --processes P: each version alone in a process of its own, P processes each (A
then B, then B then A, ...), ROUNDS slices in each; printed: each version's best ns a turn per
process (lowest, median, highest) and B/A of the medians and of the lowest. One kernel's speed can
differ from one process to the next by more than two versions differ in one process
(docs/speed.md, "EPIC 3 and 4 a side: the same work at a lower rate").

A SCENARIO may carry overrides, each +KEY=VALUE with a TOML value, e.g.
`lgb-symmetric+sides.B.french=true+sides.A.guerrilla_rule="epic"`. A and B name a version each:

- a copy of napsim/engine/epic.py, e.g. `git show HEAD:napsim/engine/epic.py > /tmp/A.py`: that
  file is loaded as its own module next to the working tree's engine (LGB scenarios then play the
  working tree's lgb.py);
- a directory holding a copy of the engine package (its *.py files), e.g.
  `mkdir /tmp/A && git archive main napsim/engine | tar -x -C /tmp/A` and then
  /tmp/A/napsim/engine;
- git:REV, e.g. git:main: the tool extracts napsim/engine at REV itself;
- `.`: the working tree's napsim/engine as imported.

A package copy is written under a directory named by its content hash (so numba's cache stays
valid between runs) with its `napsim.engine` imports renamed, and loaded as a package of its own:
its epic.py and lgb.py, and every module they import, are that version's.

Each version plays the scenario through Simulation.run, one thread, alternating slices of games
(A B, then B A, ...). A busy spell of a shared host then hits both alike, which separate processes
minutes apart do not: on the development VM two such runs of one version differed by up to 10%,
while the paired ratio here repeats within ~1%. Printed per scenario: best and median ns a turn of
each, the ratio of the bests and the median of the back-to-back ratios, and a digest of each
version's totals, per-game rows, histograms and commander metrics (equal digests: the change is
bit-identical). Versions whose LGB kernel returns its outputs in the older order (commander
metrics before the rack waits) are read in that order.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path

import numba
import numpy as np

import napsim.sim.runner as runner  # play_chunk is swapped per version
from napsim.engine import epic as worktree_epic
from napsim.engine import layout
from napsim.engine import lgb as worktree_lgb
from napsim.model.scenarios import load_scenario
from napsim.sim.metric_table import DERIVED
from napsim.sim.packing import Simulation
from napsim.sim.runner import ChunkOut

GAMES = 20_000
ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(tempfile.gettempdir()) / "napsim_ab"


class Version:
    """One version of the kernels: its EPIC and LGB modules and the order LGB returns."""

    def __init__(self, epic, lgb, lgb_old_order: bool):
        self.epic, self.lgb, self.lgb_old_order = epic, lgb, lgb_old_order
        # engines before napsim.sim.packing.solo_major read best_val as [side, cmd, a, b]
        choice = Path(epic.__file__).with_name("choice.py")
        self.solo_major = choice.is_file() and "best_val[s, c, void" in choice.read_text()
        # engines whose chunk kernels add up the per-game moments (an eighth output)
        blocks = Path(epic.__file__).with_name("blocks.py")
        self.moments = blocks.is_file() and "mom_b" in blocks.read_text()
        self.epic_params = set(inspect.signature(epic.play_chunk).parameters)

    def play_chunk(self, args, key, first, n, check, per_game) -> ChunkOut:
        """napsim.runner.play_chunk on this version's kernels. An engine from before the kernels
        added up the moments plays with its per-game rows, summed here as its napsim did."""
        kind, kargs = args
        old = not self.moments
        with np.errstate(over="ignore"):
            if kind == "lgb":
                out = self.lgb.play_chunk_lgb(key, np.int64(first), np.int64(n), *kargs, check,
                                              per_game or old)
                if self.lgb_old_order:
                    m, r, cm, cr, w, gt, tt = out
                    out = (m, r, w, gt, cm, cr, tt)
            else:
                if not self.solo_major:  # hand this older engine best_val the way it reads it
                    kargs = kargs._replace(best_val=np.ascontiguousarray(kargs.best_val.swapaxes(2, 3)))
                # fields of today's EpicArgs an older engine does not take (ca_src_t) are left out
                # (a version whose play_chunk takes *args takes every field; older names: fmt)
                if "args" not in self.epic_params:
                    kargs = [v for f, v in zip(kargs._fields, kargs, strict=True)
                             if _OLD_NAMES.get(f, f) in self.epic_params]
                out = self.epic.play_chunk(key, np.int64(first), np.int64(n), *kargs, check,
                                           per_game or old)
        m, r, w, gt, cm, cr, tt, *mom = out
        mom = mom[0] if mom else np.stack(row_moments(r))
        if cr.shape[0] != r.shape[0]:  # one player a side: no commander rows are kept
            cr = np.zeros((r.shape[0], 2, 4, cm.shape[-1]), np.int64)
        return ChunkOut(m, r, w, gt, cm, cr, tt, mom, games=n)


_OLD_NAMES = {"players_a_side": "fmt"}  # a field's name in older engines


# the kernel's metric columns each derived column sums, -1 padded (an older engine's layout may
# lack DERIVED_PARTS: napsim.sim.metric_table names them)
_DERIVED_COLS = np.array([[layout.METRIC_NAMES.index(m) for m in parts] + [-1] * (4 - len(parts))
                          for parts in DERIVED.values()], np.int64)


def row_moments(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sums, squares, products with the turns) [side, column] of per-game rows [n, 2, M], as
    napsim.sim.sums summed them before the kernels did (one jitted pass)."""
    return _row_moments(np.ascontiguousarray(rows, dtype=np.int64), _DERIVED_COLS,
                        np.int64(layout.M_TURNS))


@numba.njit(cache=True, nogil=True)
def _row_moments(rows, derived, turns_col):
    n, n_sides, m = rows.shape
    c = m + derived.shape[0]
    sums = np.zeros((n_sides, c), np.int64)
    sumsq = np.zeros((n_sides, c), np.int64)
    sumxt = np.zeros((n_sides, c), np.int64)
    for g in range(n):
        for s in range(n_sides):
            t = rows[g, s, turns_col]
            for k in range(c):
                if k < m:
                    v = rows[g, s, k]
                else:
                    v = 0
                    for j in derived[k - m]:
                        if j >= 0:
                            v += rows[g, s, j]
                sums[s, k] += v
                sumsq[s, k] += v * v
                sumxt[s, k] += v * t
    return sums, sumsq, sumxt


def _new_order(package_dir: Path) -> bool:
    """True when the package's chunk kernels return napsim.engine.layout.CHUNK_OUTPUTS."""
    # CHUNK_OUTPUTS was engine/kernel_args.py's until it joined layout.py
    layout = (package_dir / "layout.py").read_text()
    return (package_dir / "kernel_args.py").is_file() or "CHUNK_OUTPUTS" in layout


def _load_file(path: str, name: str) -> Version:
    """A copy of epic.py, loaded under its own module name (its own compiled kernels)."""
    spec = importlib.util.spec_from_file_location(f"napsim.engine.{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return Version(module, worktree_lgb, not _new_order(Path(worktree_lgb.__file__).parent))


def _git_engine(rev: str) -> dict[str, bytes]:
    """napsim/engine/*.py at a git revision."""
    raw = subprocess.run(["git", "archive", rev, "napsim/engine"], cwd=ROOT, check=True,
                         capture_output=True).stdout
    files = {}
    with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".py") and m.name.count("/") == 2:
                files[Path(m.name).name] = tar.extractfile(m).read()
    return files


def _load_package(files: dict[str, bytes], tag: str) -> Version:
    """A copy of the engine package, imports renamed, loaded as a package of its own."""
    digest = hashlib.sha1(b"".join(k.encode() + v for k, v in sorted(files.items()))).hexdigest()[:12]
    name = f"napsim_ab_{tag}_{digest}"
    pkg = CACHE / name / name
    pkg.mkdir(parents=True, exist_ok=True)
    for fname, data in files.items():
        text = data.decode()
        text = re.sub(r"\bfrom napsim\.engine import\b", f"from {name} import", text)
        text = re.sub(r"\bnapsim\.engine\.", f"{name}.", text)
        target = pkg / fname
        if not target.is_file() or target.read_text() != text:
            target.write_text(text)
    (pkg / "__init__.py").touch()
    sys.path.insert(0, str(pkg.parent))
    epic = importlib.import_module(f"{name}.epic")
    lgb = importlib.import_module(f"{name}.lgb")
    return Version(epic, lgb, not _new_order(pkg))


def load(spec: str, tag: str) -> Version:
    """The version a command-line argument names (see the module doc)."""
    if spec == ".":
        return Version(worktree_epic, worktree_lgb,
                       not _new_order(Path(worktree_lgb.__file__).parent))
    if spec.startswith("git:"):
        return _load_package(_git_engine(spec[4:]), tag)
    path = Path(spec)
    if path.is_dir():
        return _load_package({p.name: p.read_bytes() for p in path.glob("*.py")}, tag)
    if path.is_file():
        return _load_file(spec, f"epic_ab_{tag}")
    sys.exit(f"ab_epic: {spec} is neither a file, a directory, git:REV nor '.'")


def _use(version: Version) -> None:
    runner.play_chunk = version.play_chunk


def _digest(sim: Simulation) -> str:
    """A hash of everything a short run reports: equal for bit-identical kernels."""
    res = sim.run(3000, 5, chunk=3000, per_game=True)
    h = hashlib.sha1()
    for a in (res.totals, res.per_game, res.rack_wait, res.guerrilla_turns, res.tactician_turns,
              res.commanders, res.commander_rows):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:12]


def _scenario(text: str):
    """A scenario name with optional +KEY=VALUE overrides (TOML values)."""
    name, *items = text.split("+")
    overrides = {}
    for item in items:
        key, _, value = item.partition("=")
        overrides[key] = tomllib.loads(f"v = {value}")["v"]
    return load_scenario(name, overrides)


def compare(versions: dict, rounds: int, scenario: str, games: int, clock=time.process_time) -> str:
    """One line: the two versions' ns a turn on `scenario`, their ratios and digests."""
    sim = Simulation.build(_scenario(scenario))
    turns = games * 2 * sim.scenario.turns
    digest = {}
    for k, version in versions.items():
        _use(version)
        sim.run(games, 1, chunk=games)  # compile and warm up
        digest[k] = _digest(sim)
    ns = {"A": [], "B": []}
    for r in range(rounds):
        for k in ("A", "B") if r % 2 == 0 else ("B", "A"):
            _use(versions[k])
            ns[k].append(_slice_ns(sim, games, turns, clock))
    a, b = np.array(ns["A"]), np.array(ns["B"])
    same = "bit-identical" if digest["A"] == digest["B"] else "results differ"
    return (f"{scenario}: A best {a.min():.1f} median {np.median(a):.1f} ns/turn | B best "
            f"{b.min():.1f} median {np.median(b):.1f} | B/A best {b.min() / a.min():.3f}, median "
            f"of pairs {np.median(b / a):.3f} | digests {digest['A']} {digest['B']} ({same})")


def solo(spec: str, rounds: int, scenario: str, games: int, clock=time.process_time) -> float:
    """The best ns a turn of one version alone in this process (`rounds` slices of `games`)."""
    version = load(spec, "a")
    sim = Simulation.build(_scenario(scenario))
    turns = games * 2 * sim.scenario.turns
    _use(version)
    sim.run(games, 1, chunk=games)  # compile and warm up
    return min(_slice_ns(sim, games, turns, clock) for _ in range(rounds))


def _slice_ns(sim: Simulation, games: int, turns: int, clock) -> float:
    """ns a turn of one slice of `games` games (the version in use, one chunk)."""
    t0 = clock()
    sim.run(games, 1, chunk=games)
    return (clock() - t0) / turns * 1e9


def processes(specs: list[str], n: int, rounds: int, scenario: str, games: int, wall: bool) -> str:
    """One line: each version timed alone in n processes of its own (solo), alternating."""
    best: dict[str, list[float]] = {"A": [], "B": []}
    for p in range(n):
        for k in ("A", "B") if p % 2 == 0 else ("B", "A"):
            spec = specs[0 if k == "A" else 1]
            cmd = [sys.executable, __file__, "--solo", spec, str(rounds), scenario, "--games",
                   str(games)] + (["--wall"] if wall else [])
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            best[k].append(float(out.split()[-1]))
    a, b = np.array(best["A"]), np.array(best["B"])
    return (f"{scenario}: {n} processes each, best ns/turn per process: A {a.min():.1f} / "
            f"{np.median(a):.1f} / {a.max():.1f} (lowest / median / highest) | B {b.min():.1f} / "
            f"{np.median(b):.1f} / {b.max():.1f} | B/A medians {np.median(b) / np.median(a):.3f}, "
            f"lowest {b.min() / a.min():.3f}")


def main(argv: list[str]) -> None:
    games = GAMES
    clock = time.process_time  # CPU time: the other jobs of a busy host do not count
    if "--wall" in argv:
        clock = time.perf_counter
        argv = [a for a in argv if a != "--wall"]
    if "--games" in argv:
        i = argv.index("--games")
        games = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    n_processes = 0
    if "--processes" in argv:
        i = argv.index("--processes")
        n_processes = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    numba.set_num_threads(1)
    if argv and argv[0] == "--solo":  # one version, in a process started by --processes
        print(f"{solo(argv[1], int(argv[2]), argv[3], games, clock):.3f}")
        return
    if len(argv) < 2:
        sys.exit("usage: python tools/ab_epic.py A B [ROUNDS] [SCENARIO ...] [--games N] [--wall] "
                 "[--processes P]")
    rounds = int(argv[2]) if len(argv) > 2 else 30
    if n_processes:
        for scenario in argv[3:] or ["symmetric"]:
            print(processes(argv[:2], n_processes, rounds, scenario, games, clock is time.perf_counter),
                  flush=True)
        return
    original = runner.play_chunk
    versions = {"A": load(argv[0], "a"), "B": load(argv[1], "b")}
    try:
        for scenario in argv[3:] or ["symmetric"]:
            print(compare(versions, rounds, scenario, games, clock), flush=True)
    finally:
        runner.play_chunk = original


if __name__ == "__main__":
    main(sys.argv[1:])
