"""Compile the kernels a test run plays into numba's on-disk cache, one process per group, all at
once, while pytest-xdist's workers start (tests/conftest.py). A worker that needs a kernel waits
for them and then loads it instead of compiling its own copy: no kernel is compiled twice.

Run as a script, `python tests/support/warmup.py GROUP`: it plays a few games of each scenario
and policy of GROUP, and a trace, through the Python API, so that the kernels are compiled for
exactly the argument types the tests pass. A group the tests no longer need costs time only; a
kernel missing from every group is compiled by the first worker that plays it, as before.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

LOOKAHEAD = ("lookahead", {"lookahead_k": 2})
GREEDY = ("greedy", {})
# group -> (slow only, (scenario, policy of side A) pairs); side B plays greedy. "slow": only for a run of the
# tests marked slow, whose planned kernels the default run never compiles.
GROUPS: dict[str, tuple[bool, tuple[tuple[str, tuple[str, dict]], ...]]] = {
    "EPIC": (False, (("tamames", GREEDY), ("symmetric", GREEDY))),
    "La Grande Battles": (False, (("lgb-symmetric", GREEDY),)),
    "EPIC lookahead, one a side": (False, (("symmetric", LOOKAHEAD),)),
    "EPIC lookahead, commanders": (True, (("tamames", LOOKAHEAD),)),
    "La Grande Battles lookahead": (True, (("lgb-symmetric", LOOKAHEAD),)),
}


def groups_for(slow: bool) -> list[str]:
    """The groups a run needs: the default run's, and with the slow tests their planned kernels."""
    return [name for name, (only_slow, _) in GROUPS.items() if slow or not only_slow]


def compile_group(name: str) -> None:
    """Play a few games and a trace of each pair of the group: every kernel they use compiles."""
    from napsim.sim.packing import Simulation

    for scenario, policy in GROUPS[name][1]:
        sim = Simulation.build(scenario, policies=(policy, GREEDY))
        sim.run(4, 1, chunk=4, per_game=True)
        sim.trace(1, 0)


class WarmUp:
    """The groups of a run compiling in parallel processes; a thread waits for them and then
    creates the file `done`. The workers meanwhile start, collect and play their tests; one that
    needs a kernel before then waits for the warm-up instead of compiling a copy of its own
    (`wait_before_compiling`)."""

    def __init__(self, slow: bool, done: Path):
        self.names = groups_for(slow)
        self.done = done
        self.failures: list[str] = []
        self.seconds = 0.0
        self._t0 = time.perf_counter()
        self._procs = {name: subprocess.Popen([sys.executable, __file__, name],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                              text=True, env=os.environ.copy())
                       for name in self.names}
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        for name, proc in self._procs.items():
            _, err = proc.communicate()
            if proc.returncode:
                last = (err.strip().splitlines() or ["(no message)"])[-1]
                self.failures.append(f"warm-up of the {name} kernels failed (the tests compiled "
                                     f"them): {last}")
        self.seconds = time.perf_counter() - self._t0
        self.done.write_text("done\n")

    def summary(self) -> list[str]:
        """What the warm-up did, for the end of the run."""
        self._thread.join(timeout=1)
        return [f"kernels compiled or loaded before the tests played them: {', '.join(self.names)} "
                f"({self.seconds:.0f} s, in parallel)", *self.failures]


def wait_for(done: Path, limit: float = 1800.0) -> None:
    """Wait until the warm-up's file `done` exists (at most `limit` seconds: then the worker goes
    on and compiles what it needs itself)."""
    t0 = time.perf_counter()
    while not done.exists() and time.perf_counter() - t0 < limit:
        time.sleep(0.2)


def wait_before_compiling(done: Path) -> None:
    """Make every numba kernel of the napsim modules loaded so far wait for the warm-up before it
    compiles (numba then finds it in its cache, if the warm-up compiled it). Called again while
    the warm-up runs, for the modules loaded since; a kernel that is compiled is not touched."""
    from numba.core.dispatcher import Dispatcher

    for name, module in list(sys.modules.items()):
        if not name.startswith("napsim.") or module is None:
            continue
        for kernel in list(vars(module).values()):
            if isinstance(kernel, Dispatcher) and not getattr(kernel.compile, "waits", False):
                kernel.compile = _waiting(kernel.compile, done)


def _waiting(compile_, done: Path):
    def compile(sig):
        wait_for(done)
        return compile_(sig)

    compile.waits = True
    return compile


if __name__ == "__main__":
    compile_group(sys.argv[1])
