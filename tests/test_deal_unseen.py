"""The deal of unseen cards at a turn's deal point (rule P8, `lookahead_info` fair), called from
Python: a real game's turn (no deal code) and a point the code does not name deal nothing; a deal
due outside a jitted turn, with numba's JIT on, is refused in words, never run on helpers that have
no entry point for Python. The deal itself is checked under NUMBA_DISABLE_JIT by
tests/test_lookahead_info.py and in every fair planned golden digest."""

from types import SimpleNamespace

import numpy as np
import pytest

from napsim.engine.layout import RD_AFTER, RD_LATE, RD_NONE, RD_POST
from napsim.engine.unseen import deal_unseen, redeal_code


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
