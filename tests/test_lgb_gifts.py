"""The CIC's gift choice on integer records (napsim.engine.lgb_gifts._greedy_int) against the float
search it replaces (rule L2, P6): the same hand slot, rack slot, receivers and score, bit for bit, on
random turns of lgb-symmetric under policies whose scores tie, nearly tie and round.

Slow: its test kernel compiles the engine's two gift searches once more (about 10 s of CPU, a
tenth of the default run's compile). The default run checks the integer search's choices through
the La Grande Battles kernel against the pure-Python reference engine, which searches floats and
must replay the kernel's games event for event (tests/test_reference_exact.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from support.lgbtools import sim_for

from napsim.engine import jit, layout
from napsim.engine.lgb_gifts import _cic_gifts, gift_records, gift_table
from napsim.engine.lgb_phases import _own_alternatives

N_STATES = 40_000

pytestmark = pytest.mark.slow


@njit(cache=True)
def _choices(ctab, best_t, pol, hands, n_hs, racks, n_rs, chands, cns, opp, sides, cmds, cap):
    """(float search, integer search) of each random turn: [state, 2, 5] with the score x 1e3."""
    void = ctab.shape[0] - 1
    cmax = best_t.shape[3] - 1
    gift_t = gift_table(best_t)
    grec = gift_records(best_t, pol)
    out = np.zeros((hands.shape[0], 2, 5), np.float64)
    hand = np.zeros((2, cap), np.int64)
    chand = np.zeros((2, 3, cap), np.int64)
    cn = np.zeros((2, 3), np.int64)
    rs = np.zeros(2, np.uint64)
    pl = np.zeros((layout.N_PL, 3), np.float64)
    gsc = np.zeros((layout.N_GSC, cap, 3), np.float64)
    res = np.zeros((layout.N_GR, cap), np.int64)
    for k in range(hands.shape[0]):
        s = sides[k]
        hand[s, :] = hands[k]
        chand[s] = chands[k]
        cn[s] = cns[k]
        _own_alternatives(s, pol[s, layout.P_CORPS_OWN_MIN], opp[k], void, cmax, ctab, chand, cn,
                          best_t, grec, pl, res)
        for way in range(2):
            rs[0] = np.uint64(k * 7919 + 1)
            rs[1] = np.uint64(0)
            hi, rj, ka, kb, score = _cic_gifts(
                rs, s, cmds[k], np.bool_(False), np.bool_(False),
                (hand, n_hs[k], racks[k], n_rs[k], pl, gsc, res), opp[k], void, ctab, gift_t,
                pol[s, layout.P_CORPS_SWAP_MARGIN], grec, np.bool_(way == 1))
            out[k, way, 0] = hi
            out[k, way, 1] = rj
            out[k, way, 2] = ka
            out[k, way, 3] = kb
            out[k, way, 4] = score
    return out


def _turns(sim, rng: np.random.Generator, n: int):
    """n random turns: hands, racks and Corps hands drawn from the deck's card types (First Strike
    and Counter-Attack included), any command, any last card of the opponent (void too)."""
    _, a = sim.kernel_args()
    void = a.ctab.shape[0] - 1
    cmax = a.best_t.shape[3] - 1
    cap = layout.MAX_HAND + a.deck.shape[0]
    kinds = np.unique(a.deck)
    hands = np.zeros((n, cap), np.int64)
    racks = np.zeros((n, layout.RACK), np.int64)
    chands = np.zeros((n, 3, cap), np.int64)
    n_hs = rng.integers(0, 9, n)
    n_rs = rng.integers(0, layout.RACK + 1, n)
    cns = rng.integers(0, 5, (n, 3))
    # few kinds a turn: duplicates, and so exact ties, are common
    pool = rng.choice(kinds, (n, 6))
    hands[:, :8] = np.take_along_axis(pool, rng.integers(0, 6, (n, 8)), 1)
    racks[:] = np.take_along_axis(pool, rng.integers(0, 6, (n, layout.RACK)), 1)
    chands[:, :, :4] = np.take_along_axis(pool, rng.integers(0, 6, (n, 12)), 1).reshape(n, 3, 4)
    opp = np.where(rng.random(n) < 0.2, void, rng.choice(kinds, n))
    sides = rng.integers(0, 2, n)
    cmds = rng.integers(0, cmax + 1, n)
    return (a.ctab, a.best_t, a.pol, hands, n_hs, racks, n_rs, chands, cns, opp, sides, cmds, cap)


jit.check_cache_folder(globals())  # _choices compiles the engine: cached with this version's kernels


POLICIES = {
    "greedy": (),
    "tenths that round": (("march_bonus", 0.1), ("tactician_bonus", 0.2), ("scout_bonus", 0.3),
                          ("corps_swap_margin", 0.7), ("corps_own_min", 0.3)),
    "no margin": (("corps_swap_margin", 0.0), ("corps_own_min", 0.0)),
    "negative margin": (("corps_swap_margin", -0.5),),
    "hundredths": (("w_l", 1.25), ("w_r", 0.75), ("march_bonus", 0.33), ("march_prob", 0.5)),
}


@pytest.mark.parametrize("name", POLICIES)
def test_integer_gift_search_equals_the_float_search(name):
    # rule L2, rule P6: every choice and its score the same bit for bit
    sim = sim_for(None, ("greedy", POLICIES[name]))
    args = _turns(sim, np.random.default_rng(sorted(POLICIES).index(name)), N_STATES)
    ok = gift_records(args[1], args[2])[0, 0, 0, layout.GI_OK]
    assert ok == 1, "these scores are multiples of a power of ten: the integer search plays"
    out = _choices(*args)
    bad = np.flatnonzero((out[:, 0] != out[:, 1]).any(axis=1))
    assert bad.size == 0, f"{bad.size} of {N_STATES} turns differ, first {out[bad[0]]}"
    assert (out[:, 0, 0] == -2).mean() < 0.2  # most turns give a hand card


def test_scores_without_a_power_of_ten_keep_the_float_search():
    sim = sim_for(None, ("greedy", (("march_bonus", 1 / 3),)))
    _, a = sim.kernel_args()
    assert gift_records(a.best_t, a.pol)[0, 0, 0, layout.GI_OK] == 0
