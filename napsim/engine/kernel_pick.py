"""Which chunk kernel plays a scenario: the one decision that the runner (napsim.sim.runner), the
packing (`Simulation.kernel_args`), the compile plan (`compile_plan.args_key`) and a first run's
second process (napsim.sim.precompile) all read.

Four chunk kernels, in two families. EPIC 1-4 a side and the standard game play "epic" on
`EpicArgs` and the pair tables (napsim.sim.tables); La Grande Battles plays "lgb" on `LgbArgs` and
its own tables (napsim.sim.tables_lgb). Each has a planned twin, "lookahead" and "lookahead_lgb",
played when a side plays the lookahead policy (P8) and compiled only then. An EPIC kernel also
compiles a lean copy for one player a side without the Guerrilla rules (`lean_copy`, the kernel's
own test `napsim.engine.epic.specialised`), which the compile plan keys on too. Plain values in,
names out: no numba type is read here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from napsim.engine.epic import specialised
from napsim.engine.layout import KIND_LOOKAHEAD, EpicArgs

EPIC, LGB = "epic", "lgb"  # the families: the kernels' argument bundle and the table builder
# the chunk kernel of each (family, planned): the keys of napsim.sim.runner's kernel tables
KERNELS = {(EPIC, False): "epic", (EPIC, True): "lookahead",
           (LGB, False): "lgb", (LGB, True): "lookahead_lgb"}
FAMILY = {kernel: family for (family, _), kernel in KERNELS.items()}


class KernelPick(NamedTuple):
    """What a scenario's games need: the chunk kernel, its family and whether it plans."""

    kernel: str    # "epic", "lookahead", "lgb" or "lookahead_lgb" (KERNELS)
    family: str    # EPIC (EpicArgs, pair tables) or LGB (LgbArgs, La Grande Battles tables)
    planned: bool  # a side plays the lookahead policy (P8): the planned kernel


def pick_kernel(game_format: str, policy_kinds: Iterable[float] = ()) -> KernelPick:
    """The kernel that plays a scenario of `game_format` ("standard", "epic1" .. "epic4", "lgb")
    whose sides play policies of `policy_kinds` (each side's policy kind, layout P_KIND: 0
    greedy, 1 random, 2 lookahead)."""
    family = LGB if game_format == "lgb" else EPIC
    planned = any(float(k) == KIND_LOOKAHEAD for k in policy_kinds)
    return KernelPick(KERNELS[family, planned], family, planned)


def lean_copy(kernel: str, kargs: tuple) -> bool:
    """Whether `kernel` plays its lean compiled copy on the packed arguments `kargs` (an EPIC
    kernel, one player a side, no Guerrilla rules: `epic.specialised`); never in La Grande
    Battles."""
    if FAMILY[kernel] != EPIC:
        return False
    a = EpicArgs(*kargs)
    return specialised(a.players_a_side, a.gcfg, a.units, None)[0] is None
