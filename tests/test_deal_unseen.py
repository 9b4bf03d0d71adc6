"""The deal of unseen cards at a turn's deal point (rule P8, `lookahead_info` fair), called from
Python: a real game's turn (no deal code) and a point the code does not name deal nothing; a deal
due outside a jitted turn, with numba's JIT on, is refused in words, never run on helpers that have
no entry point for Python. A planned kernel without a fair planner carries no deal code (None) into
any turn, so numba compiles no deal into it. The deal itself is checked under NUMBA_DISABLE_JIT by
tests/test_lookahead_info.py and in every fair planned golden digest."""

from types import SimpleNamespace

import numpy as np
import pytest
from numba import njit

from napsim.engine.decisions import decisions
from napsim.engine.layout import (
    INFO_FAIR,
    INFO_OPEN,
    KIND_LOOKAHEAD,
    N_POLICY,
    P_KIND,
    P_LOOKAHEAD_INFO,
    RD_AFTER,
    RD_LATE,
    RD_NONE,
    RD_POST,
)
from napsim.engine.unseen import deal_unseen, kernel_deals, no_deal, redeal_code, rollout_deal

KIND_GREEDY = 0.0


def _game():
    return SimpleNamespace(pile=np.arange(10, dtype=np.uint16), pn=np.array([10]),
                           hand=np.array([[1, 2, 3], [4, 5, 6]], dtype=np.uint16),
                           hn=np.array([3, 3]), scratch=np.zeros(16, np.int64))


def _same(a, b):
    return all(np.array_equal(getattr(a, k), getattr(b, k)) for k in ("pile", "pn", "hand", "hn"))


@pytest.mark.parametrize("point", [RD_POST, RD_LATE, RD_AFTER])
def test_a_real_games_turn_deals_nothing(point):  # rule P8
    gm, before = _game(), _game()
    rs = np.array([7, 0], dtype=np.uint64)
    assert deal_unseen(rs, None, np.int64(point), gm) is None
    assert deal_unseen(rs, np.int64(RD_NONE), np.int64(point), gm) is None
    assert _same(gm, before)


def test_a_code_deals_only_at_its_own_point():  # rule P8
    gm, before = _game(), _game()
    code = redeal_code.py_func(np.int64(RD_LATE), np.int64(1), False)  # (a jitted helper: no entry)
    rs = np.array([7, 0], dtype=np.uint64)
    for point in (RD_POST, RD_AFTER):
        deal_unseen(rs, code, np.int64(point), gm)
    assert _same(gm, before)
    with pytest.raises(TypeError, match="jitted turn"):  # numba's JIT is on in this test run
        deal_unseen(rs, code, np.int64(RD_LATE), gm)
    assert _same(gm, before)


def _pol(*sides):
    """A policy table of two sides, each (kind, lookahead_info)."""
    pol = np.zeros((2, N_POLICY))
    for s, (kind, info) in enumerate(sides):
        pol[s, P_KIND], pol[s, P_LOOKAHEAD_INFO] = kind, info
    return pol


@pytest.mark.parametrize("sides, deals", [
    (((KIND_GREEDY, INFO_FAIR), (KIND_GREEDY, INFO_FAIR)), False),  # nobody plans
    (((KIND_LOOKAHEAD, INFO_OPEN), (KIND_GREEDY, INFO_FAIR)), False),  # a clairvoyant planner
    (((KIND_LOOKAHEAD, INFO_OPEN), (KIND_LOOKAHEAD, INFO_OPEN)), False),
    (((KIND_LOOKAHEAD, INFO_FAIR), (KIND_GREEDY, INFO_OPEN)), True),
    (((KIND_LOOKAHEAD, INFO_OPEN), (KIND_LOOKAHEAD, INFO_FAIR)), True),
])
def test_a_planned_kernel_compiles_the_deal_only_where_a_side_plans_fair(sides, deals):  # rule P8
    fair = kernel_deals(_pol(*sides))
    assert (fair is not None) == deals
    assert fair is None or bool(fair)


@njit
def _codes(fair):
    return (no_deal(fair), rollout_deal(fair, True, np.int64(RD_LATE), 1, False),
            rollout_deal(fair, False, np.int64(RD_LATE), 1, False),
            decisions(-1, -1, -1, -1, -1, -1, no_deal(fair)).redeal)


def test_without_a_fair_planner_no_turn_of_the_kernel_carries_a_deal_code():  # rule P8
    """None typed all the way to the turn's Decisions: numba compiles no deal (deal_unseen); with a
    fair planner the codes are the rollout's point and side, and RD_NONE elsewhere."""
    assert _codes(None) == (None, None, None, None)
    late = redeal_code.py_func(np.int64(RD_LATE), np.int64(1), False)
    assert _codes(np.True_) == (RD_NONE, late, RD_NONE, RD_NONE)
    assert {str(sig.return_type) for sig in _codes.nopython_signatures} == {
        "UniTuple(none x 4)", "UniTuple(int64 x 4)"}
