"""A/B timing of two versions of the EPIC kernel in one process (developer tool).

Usage: python tools/ab_epic.py A.py B.py [ROUNDS] [SCENARIO ...]
(defaults: 30 rounds, symmetric). A.py and B.py are two copies of napsim/engine/epic.py, e.g.
`git show HEAD:napsim/engine/epic.py > /tmp/A.py` and the working file. Run it pinned to one
core (`taskset -c 1`).

Each version is loaded as its own module and plays the scenario through Simulation.run, one
thread, alternating slices of 20,000 games (A B, then B A, ...). A busy spell of a shared host
then hits both alike, which separate processes minutes apart do not: on the development VM two
such runs of one version differed by up to 10%, while the paired ratio here repeats within ~1%.
Printed per scenario: best and median ns a turn of each, the ratio of the bests and the median of
the back-to-back ratios, and a digest of each version's totals, per-game rows and histograms
(equal digests: the change is bit-identical).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import time
from pathlib import Path

import numba
import numpy as np

import napsim.sim.runner as runner  # play_chunk calls runner.epic.play_chunk: swapped per version
from napsim.sim.packing import Simulation

GAMES = 20_000


def _load(path: str, name: str):
    """Import a copy of epic.py under its own module name (its own compiled kernels)."""
    spec = importlib.util.spec_from_file_location(f"napsim.engine.{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _digest(sim: Simulation) -> str:
    """A hash of everything a short run reports: equal for bit-identical kernels."""
    res = sim.run(3000, 5, chunk=3000, per_game=True)
    h = hashlib.sha1()
    for a in (res.totals, res.per_game, res.rack_wait, res.guerrilla_turns, res.tactician_turns):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:12]


def compare(mods: dict, rounds: int, scenario: str) -> str:
    """One line: the two versions' (mods["A"], mods["B"]) ns a turn on `scenario`, their ratios."""
    sim = Simulation.build(scenario)
    turns = GAMES * 2 * sim.scenario.turns
    digest = {}
    for k, mod in mods.items():
        runner.epic = mod
        sim.run(GAMES, 1, chunk=GAMES)  # compile and warm up
        digest[k] = _digest(sim)
    ns = {"A": [], "B": []}
    for r in range(rounds):
        for k in ("A", "B") if r % 2 == 0 else ("B", "A"):
            runner.epic = mods[k]
            t0 = time.perf_counter()
            sim.run(GAMES, 1, chunk=GAMES)
            ns[k].append((time.perf_counter() - t0) / turns * 1e9)
    a, b = np.array(ns["A"]), np.array(ns["B"])
    same = "bit-identical" if digest["A"] == digest["B"] else "results differ"
    return (f"{scenario}: A best {a.min():.1f} median {np.median(a):.1f} ns/turn | B best "
            f"{b.min():.1f} median {np.median(b):.1f} | B/A best {b.min() / a.min():.3f}, median "
            f"of pairs {np.median(b / a):.3f} | digests {digest['A']} {digest['B']} ({same})")


def main(argv: list[str]) -> None:
    if len(argv) < 2 or not all(Path(p).is_file() for p in argv[:2]):
        sys.exit("usage: python tools/ab_epic.py A.py B.py [ROUNDS] [SCENARIO ...]")
    rounds = int(argv[2]) if len(argv) > 2 else 30
    numba.set_num_threads(1)
    mods = {"A": _load(argv[0], "epic_ab_a"), "B": _load(argv[1], "epic_ab_b")}
    try:
        for scenario in argv[3:] or ["symmetric"]:
            print(compare(mods, rounds, scenario), flush=True)
    finally:
        runner.epic = sys.modules["napsim.engine.epic"]


if __name__ == "__main__":
    main(sys.argv[1:])
