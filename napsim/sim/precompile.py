"""A first run's compile on both cores: the chunk kernel here, its later helpers and the table
builders in a second process (a compile shortcut: napsim.engine.jit.COMPILE_SHORTCUTS).

A first run from an empty numba cache compiles two things in turn: the jitted builder of the
scenario's tables (`napsim.sim.tables._build`, `napsim.sim.tables_lgb._build_lgb`: 1.9 s on the
2-core VM) and then the chunk kernel that plays the games on those tables (11 s). numba compiles
one function at a time in a process, but the kernel needs only the tables' types, not their
values: so this process compiles the kernel on empty tables of the right shapes (`dry`, playing
no game), while a second Python process compiles, into numba's on-disk cache, first the cached
helpers the kernel's compile reaches last (`napsim.engine.compile_plan`: the EPIC turn's later
phases), then the table builder. This process loads each from the cache when it needs it.

The second process is a help, never a dependency: where it cannot start, fails or is slow, this
process compiles the builder itself, and the tables and the games are the same either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable

from napsim.engine.compile_plan import args_key, compile_planned, load_plan
from napsim.engine.jit import COMPILE_SHORTCUTS
from napsim.engine.kernel_pick import EPIC, LGB
from napsim.model.cards import Deck
from napsim.model.scenarios import Scenario
from napsim.sim.packing import Simulation
from napsim.sim.runner import compiled_or_cached, kernel_compiled, pick_for
from napsim.sim.tables import _build
from napsim.sim.tables_lgb import _build_lgb

# the scenario whose tables the second process builds, per builder (a kernel family,
# napsim.engine.kernel_pick): any scenario of the family compiles the builder for the same
# argument types
BUILDER_SCENARIO = {EPIC: "symmetric", LGB: "lgb-symmetric"}
HELPER_WAIT_S = 120  # a helper still compiling after this long is left to finish on its own


def builder_compiled(builder: str) -> bool:
    """Whether the table builder of a kernel family (EPIC or LGB) is compiled (here or in this
    version's numba cache folder)."""
    return compiled_or_cached(_build_lgb if builder == LGB else _build)


def spare_cores() -> int:
    """CPUs this process may use beyond its own."""
    try:
        return len(os.sched_getaffinity(0)) - 1
    except AttributeError:  # not on Linux
        return (os.cpu_count() or 1) - 1


def helper_command(builder: str, key: str = "") -> list[str]:
    """The second process's command line (`build_tables` of this module; not `python -m`, which would
    import the module twice: the package imports it first)."""
    return [sys.executable, "-c", "import sys; from napsim.sim.precompile import build_tables; "
            "sys.exit(build_tables(sys.argv[1:]))", builder, key]


def start_helper(builder: str, key: str = "") -> subprocess.Popen | None:
    """Start a second process that compiles the plan of the kernel `key` (compile_plan.args_key)
    and the table builder into numba's cache; None where there is nothing to gain (nothing to
    compile there, one core), the compile shortcuts are off (napsim.engine.jit) or it cannot
    start."""
    if not COMPILE_SHORTCUTS or spare_cores() < 1 or (
            builder_compiled(builder) and not load_plan().get(key)):
        return None
    try:
        return subprocess.Popen(helper_command(builder, key),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def ready_simulation(sc: Scenario, policies, deck: Deck | str | None,
                     checked: Callable[[], None] | None = None) -> Simulation:
    """`Simulation.build(sc, policies, deck, checked)` with its kernel compiled (or loaded from
    numba's cache) and warmed up. From an empty cache the kernel compiles here on empty tables
    while a second process compiles the table builder (see the module text); the Simulation
    returned is the same either way."""
    pick = pick_for(sc.format, policies)
    if not kernel_compiled(pick.kernel):
        dry = Simulation.build(sc, policies, deck, checked, dry=True)
        checked = None  # said once
        helper = start_helper(pick.family, args_key(*dry.kernel_args()))
        dry.compile_kernel()
        if helper is not None:
            try:
                helper.communicate(timeout=HELPER_WAIT_S)  # no pipes: waits for it
            except subprocess.TimeoutExpired:
                pass  # the tables' builder compiles here, as without the helper
    sim = Simulation.build(sc, policies, deck, checked)
    sim.warm_up()
    return sim


def build_tables(argv: list[str]) -> int:
    """The second process: compile a kernel's plan (by its key, "" for none), then one table
    builder ("epic" or "lgb"), into numba's cache."""
    if len(argv) not in (1, 2) or argv[0] not in BUILDER_SCENARIO:
        print(f"usage: napsim.sim.precompile.build_tables([{' | '.join(map(repr, BUILDER_SCENARIO))}"
              ", kernel key])",
              file=sys.stderr)
        return 2
    if argv[1:]:
        compile_planned(argv[1])
    Simulation.build(BUILDER_SCENARIO[argv[0]])
    return 0

