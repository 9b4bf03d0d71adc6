"""What a caller decides in a turn instead of the policies (the planning player, rule P8): the
Decisions bundle of napsim.engine.layout, built with int64 fields whatever the caller's integers."""

import numpy as np

from napsim.engine.jit import inlined
from napsim.engine.layout import G_POLICY, K_POLICY, Decisions
from napsim.engine.unseen import deal_code

CHOOSE = -1  # Decisions.hand: the policy makes the card choice


@inlined
def decisions(hand, rack, place, place_b, spend, keep, redeal):
    """A Decisions of int64 values (one compiled turn whatever integers the caller holds); a deal
    code of None stays None (no deal compiled into the turn, napsim.engine.unseen)."""
    return Decisions(np.int64(hand), np.int64(rack), np.int64(place), np.int64(place_b),
                     np.int64(spend), np.int64(keep), deal_code(redeal, redeal))


@inlined
def policy_decisions(redeal):
    """The Decisions that leave every decision of a turn to the policies, as a rollout's turn
    after its decision's: the deal code `redeal` (RD_NONE, or None where the kernel compiles no
    deal)."""
    return decisions(CHOOSE, -1, -1, -1, G_POLICY, K_POLICY, redeal)


@inlined
def game_decisions():
    """The Decisions of a real game's turn in the greedy and random kernels: every decision the
    policies', no deal code (None: numba compiles no deal of unseen cards into the turn)."""
    return Decisions(np.int64(CHOOSE), np.int64(-1), np.int64(-1), np.int64(-1), np.int64(G_POLICY),
                     np.int64(K_POLICY), None)
