"""Compile the kernels a test run plays into numba's on-disk cache, one process per chain of
groups, the chains at once, while pytest-xdist's workers start (tests/conftest.py). A worker that
needs a kernel waits for its group and then loads it instead of compiling its own copy: no kernel
is compiled twice.

A chain compiles its groups one after another in one process, so that a later group reuses the
helpers an earlier one compiled (numba keeps them in memory, not on disk): the planned EPIC kernel
after the EPIC kernels took 30 s of CPU instead of 38 s in a process of its own.

Run as a script, `python tests/support/warmup.py GROUP [GROUP ...]`: for each GROUP in turn it
plays a few games of each scenario and policy, and a trace, through the Python API, so that the
kernels are compiled for exactly the argument types the tests pass, and then prints the group's
name. A group the tests no longer need costs time only; a kernel missing from every group is
compiled by the first worker that plays it, as before.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
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
# the groups that share one process, in order: each format's planned kernels after its plain ones
CHAINS = (("EPIC", "EPIC lookahead, one a side", "EPIC lookahead, commanders"),
          ("La Grande Battles", "La Grande Battles lookahead"))


def groups_for(slow: bool) -> list[str]:
    """The groups a run needs: the default run's, and with the slow tests their planned kernels."""
    return [name for name, (only_slow, _) in GROUPS.items() if slow or not only_slow]


def chains_of(names: list[str]) -> list[list[str]]:
    """`names` in their chains (CHAINS order), one list per process; a group of no chain alone."""
    chained = [[n for n in chain if n in names] for chain in CHAINS]
    alone = [[n] for n in names if not any(n in chain for chain in CHAINS)]
    return [c for c in chained + alone if c]


def group_file(done: Path, name: str) -> Path:
    """The file the warm-up creates beside `done` when group `name` has compiled."""
    return done.with_name("".join(c if c.isalnum() else "-" for c in name) + ".done")


def groups_of(module: str, names: list[str]) -> list[str]:
    """The groups among `names` that compile the kernels of napsim module `module` (none: a kernel
    no group compiles, such as the odds kernels, compiles at once)."""
    if module.startswith("napsim.engine.lookahead_lgb"):
        return [n for n in names if n.startswith("La Grande Battles lookahead")]
    if module.startswith("napsim.engine.lookahead"):
        return [n for n in names if n.startswith("EPIC lookahead")]
    if module.startswith(("napsim.engine.lgb", "napsim.sim.tables_lgb")):
        return [n for n in names if n == "La Grande Battles"]
    if module.startswith(("napsim.engine.", "napsim.sim.tables")) and module != "napsim.engine.odds":
        return [n for n in names if n == "EPIC"]
    return []


def compile_group(name: str) -> None:
    """Play a few games and a trace of each pair of the group: every kernel they use compiles."""
    from napsim.sim.packing import Simulation

    for scenario, policy in GROUPS[name][1]:
        sim = Simulation.build(scenario, policies=(policy, GREEDY))
        sim.run(4, 1, chunk=4, per_game=True)
        sim.trace(1, 0)


class WarmUp:
    """The groups of a run compiling in parallel processes, a chain of groups each; a thread per
    process creates a group's file as the group is done, and at the end the file `done`. The
    workers meanwhile start, collect and play their tests; one that needs a kernel before then
    waits for its group instead of compiling a copy of its own (`wait_before_compiling`)."""

    def __init__(self, slow: bool, done: Path):
        self.names = groups_for(slow)
        self.done = done
        self.failures: list[str] = []
        self.seconds = 0.0
        self._t0 = time.perf_counter()
        # stderr to a file: a pipe read only at the end could fill and stop the process
        self._procs = []
        for chain in chains_of(self.names):
            err = tempfile.TemporaryFile("w+")
            self._procs.append((chain, err, subprocess.Popen(
                [sys.executable, __file__, *chain], stdout=subprocess.PIPE, stderr=err, text=True,
                env=os.environ.copy())))
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self) -> None:
        groups = [threading.Thread(target=self._wait_chain, args=job, daemon=True)
                  for job in self._procs]
        for thread in groups:
            thread.start()
        for thread in groups:
            thread.join()
        self.seconds = time.perf_counter() - self._t0
        self.done.write_text("done\n")

    def _wait_chain(self, chain: list[str], stderr, proc: subprocess.Popen) -> None:
        """Follow one chain's process: each group's file, which tells the workers that wait for
        that group alone, is created when the process names the group (or ends)."""
        left = list(chain)
        for line in proc.stdout:
            if line.strip() in left:
                left.remove(line.strip())
                group_file(self.done, line.strip()).write_text("done\n")
        proc.wait()
        stderr.seek(0)
        err = stderr.read()
        stderr.close()
        if proc.returncode or left:
            last = (err.strip().splitlines() or ["(no message)"])[-1]
            self.failures.append(f"warm-up of the {', '.join(left)} kernels failed (the tests "
                                 f"compiled them): {last}")
        for name in left:
            group_file(self.done, name).write_text("done\n")

    def summary(self) -> list[str]:
        """What the warm-up did, for the end of the run."""
        self._thread.join(timeout=1)
        chains = "; ".join(" then ".join(c) for c, _, _ in self._procs)
        return [f"kernels compiled or loaded before the tests played them: {chains} "
                f"({self.seconds:.0f} s, the chains in parallel)", *self.failures]


def wait_for(done: Path, limit: float = 1800.0) -> None:
    """Wait until the warm-up's file `done` (or a group's file) exists (at most `limit` seconds:
    then the worker goes on and compiles what it needs itself)."""
    t0 = time.perf_counter()
    while not done.exists() and time.perf_counter() - t0 < limit:
        time.sleep(0.2)


def wait_before_compiling(done: Path, names: list[str]) -> None:
    """Make every numba kernel of the napsim modules loaded so far wait, before it compiles, for
    the warm-up's groups (`names`) that compile it (numba then finds it in its cache): a test of
    the EPIC kernel starts once the EPIC group is done, while La Grande Battles' still compiles.
    Called again while the warm-up runs, for the modules loaded since; a kernel that is compiled
    is not touched."""
    from numba.core.dispatcher import Dispatcher

    for name, module in list(sys.modules.items()):
        if not name.startswith("napsim.") or module is None:
            continue
        files = [group_file(done, g) for g in groups_of(name, names)]
        for kernel in list(vars(module).values()):
            if (files and isinstance(kernel, Dispatcher) and kernel.py_func.__module__ == name
                    and not getattr(kernel.compile, "waits", False)):
                kernel.compile = _waiting(kernel.compile, files)


def _waiting(compile_, files: list[Path]):
    def compile(sig):
        for file in files:
            wait_for(file)
        return compile_(sig)

    compile.waits = True
    return compile


if __name__ == "__main__":
    for group in sys.argv[1:]:
        compile_group(group)
        print(group, flush=True)
