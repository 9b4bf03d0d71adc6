"""The cards a planning player has not seen, dealt again (rule P8, `lookahead_info` fair).

A planner's rollout must not know the opponent's hand. At the moment of its decision, the cards
it has not seen are the draw pile and the hidden hands (in EPIC the opposing CIC's; in La Grande
Battles the opposing CIC's and Corps commanders', and with `lookahead_corps` hidden its own Corps
commanders' too). Each rollout pools them, sorts the pool by card type and deals every hidden hand
again, the same number of cards, from it; what is left is the draw pile (kept unordered, as
napsim.engine.cardflow._draw_card draws). Sorting first makes the deal a function of which cards
are unseen and the rollout's stream only, never of where they lay: two games that differ only in
the hidden cards give the planner the same rollouts.

The turn calls `deal_unseen` (`redeal_epic` or `redeal_lgb`) at the point its stream switches
from the game's draws to the rollout's (the decision point); a code made by `redeal_code` says
where and whose. A turn given no code (None) deals nothing, and numba compiles none of the deal
into it: a real game's turn in the greedy and random kernels (napsim.engine.decisions.game_decisions),
and every turn of a planned kernel whose planning sides all play `lookahead_info` open
(`kernel_deals`; docs/speed.md measures what that saves).
"""

import numpy as np
from numba import config, types
from numba.extending import overload

from napsim.engine.jit import inlined
from napsim.engine.layout import (
    INFO_FAIR,
    KIND_LOOKAHEAD,
    P_KIND,
    P_LOOKAHEAD_INFO,
    RD_NONE,
    RD_POINT_BITS,
    RD_POINTS,
    LgbGame,
)
from napsim.engine.rng import bounded


@inlined
def redeal_code(point, hidden_side, own_corps):
    """The turn's `redeal` argument: deal the hand(s) of `hidden_side` again at `point` (layout
    RD_POST, RD_LATE, RD_AFTER), with the planner's own Corps commanders' hands too where
    `own_corps`. RD_NONE (0): no deal (the real game, `lookahead_info` open)."""
    return np.int64(point + (hidden_side << RD_POINT_BITS) + (np.int64(own_corps) << (RD_POINT_BITS + 1)))


def kernel_deals(pol: np.ndarray) -> np.bool_ | None:
    """The planned kernel's `fair` switch (layout.Plan.fair) for the policy table pol: True where a
    side plans with `lookahead_info` fair, so that the kernel compiles the deal; None where none
    does, so that numba compiles no deal into any of the kernel's turns."""
    planners = pol[:, P_KIND] == KIND_LOOKAHEAD
    return np.True_ if bool((planners & (pol[:, P_LOOKAHEAD_INFO] == INFO_FAIR)).any()) else None


def deal_code(fair, code):
    """A turn's deal code: `code` as an int64, or None in a kernel that compiles no deal (fair
    None, `kernel_deals`). Jitted, the choice is made on fair's type (`_deal_code_typed`)."""
    return None if fair is None else np.int64(code)


@overload(deal_code, jit_options={"_nrt": False, "no_cpython_wrapper": True, "no_cfunc_wrapper": True})
def _deal_code_typed(fair, code):
    """deal_code for the argument types: None for a fair of None, else the code as an int64."""
    if isinstance(fair, types.NoneType):
        return lambda fair, code: None
    return lambda fair, code: np.int64(code)


@inlined
def no_deal(fair):
    """The deal code of a turn that deals nothing: RD_NONE, or None in a kernel that compiles no
    deal (fair None, `kernel_deals`)."""
    return deal_code(fair, RD_NONE)


@inlined
def rollout_deal(fair, info_fair, point, hidden_side, own_corps):
    """The deal code of a decision's rollouts: `redeal_code`'s where the planner plays fair
    (`info_fair`), else RD_NONE; None in a kernel that compiles no deal (fair None)."""
    code = np.int64(RD_NONE)
    if info_fair:
        code = redeal_code(point, hidden_side, own_corps)
    return deal_code(fair, code)


@inlined
def redeal_at(code, point):
    """Whether the turn deals the unseen cards again at `point` (the side: redeal_side)."""
    return (code & RD_POINTS) == point


@inlined
def redeal_side(code):
    """The side whose hands are dealt again."""
    return (code >> RD_POINT_BITS) & 1


@inlined
def _count_row(counts, row, n):
    for i in range(n):
        counts[row[i]] += 1


@inlined
def _sorted_pool(counts, pile):
    """The counted cards written into the pile, sorted by type; returns how many."""
    n = 0
    for t in range(counts.shape[0]):
        for _ in range(counts[t]):
            pile[n] = t
            n += 1
    return n


@inlined
def _deal_row(rs, pile, n, row, k):
    """k cards into row from the first n of the pile, each a uniformly random one of those left;
    returns the cards left."""
    for i in range(k):
        j = bounded(rs, n)
        n -= 1
        row[i] = pile[j]
        pile[j] = pile[n]
    return n


@inlined
def redeal_epic(rs, code, pile, pn, hand, hn, counts):
    """EPIC and the standard game: the hidden CIC's hand dealt again, the same size, from the
    draw pile and that hand (module text). counts: a scratch of one slot per card type."""
    h = redeal_side(code)
    counts[:] = 0
    _count_row(counts, pile, pn[0])
    _count_row(counts, hand[h], hn[h])
    n = _sorted_pool(counts, pile)
    _deal_row(rs, pile, n, hand[h], hn[h])


@inlined
def redeal_lgb(rs, code, pile, pn, hand, hn, chand, cn, counts):
    """La Grande Battles: the hidden side's CIC and Corps commanders' hands (and, where the code
    says so, the planner's own Corps commanders') dealt again, each the same size, from the draw
    pile and those hands (module text). counts: a scratch of one slot per card type."""
    h = redeal_side(code)
    sides = 2 if code >> (RD_POINT_BITS + 1) else 1  # the hidden side, then the planner's Corps
    counts[:] = 0
    _count_row(counts, pile, pn[0])
    _count_row(counts, hand[h], hn[h])
    for x in range(sides):
        s = (h + x) % 2
        for kc in range(3):
            _count_row(counts, chand[s, kc], cn[s, kc])
    n = _sorted_pool(counts, pile)
    n = _deal_row(rs, pile, n, hand[h], hn[h])
    for x in range(sides):
        s = (h + x) % 2
        for kc in range(3):
            n = _deal_row(rs, pile, n, chand[s, kc], cn[s, kc])


def deal_unseen(rs, code, point, gm):
    """At a turn's deal point `point` (RD_*), a fair planner's rollout deals the unseen cards of
    game gm (layout.EpicGame or LgbGame) again from stream rs where `code` says so; code None (a
    real game's turn) deals nothing. In jitted code numba compiles `_deal_unseen_typed`; here the
    same in Python (numba's JIT turned off: the reference engines, the information-set test)."""
    if code is None or not getattr(redeal_at, "py_func", redeal_at)(code, point):
        return
    if not config.DISABLE_JIT:  # the deal's helpers have no entry point for Python
        raise TypeError("deal_unseen deals only inside a jitted turn or with numba's JIT off")
    if isinstance(gm, LgbGame):  # JIT off: the helpers are plain functions
        redeal_lgb(rs, code, gm.pile, gm.pn, gm.hand, gm.hn, gm.chand, gm.cn, gm.scratch)
    else:
        redeal_epic(rs, code, gm.pile, gm.pn, gm.hand, gm.hn, gm.scratch)


@overload(deal_unseen, jit_options={"_nrt": False, "no_cpython_wrapper": True, "no_cfunc_wrapper": True})
def _deal_unseen_typed(rs, code, point, gm):
    """deal_unseen for the argument types: nothing for a code of None (so a real game's kernel
    compiles no deal), else the format's deal (by the game's bundle)."""
    if isinstance(code, types.NoneType):
        return lambda rs, code, point, gm: None
    if getattr(gm, "instance_class", None) is LgbGame:
        def deal_lgb(rs, code, point, gm):
            if redeal_at(code, point):
                redeal_lgb(rs, code, gm.pile, gm.pn, gm.hand, gm.hn, gm.chand, gm.cn, gm.scratch)
        return deal_lgb

    def deal_epic(rs, code, point, gm):
        if redeal_at(code, point):
            redeal_epic(rs, code, gm.pile, gm.pn, gm.hand, gm.hn, gm.scratch)
    return deal_epic
