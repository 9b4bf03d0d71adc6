"""A Corps commander's choices in La Grande Battles (docs/rules.md L5, P6): his best own card, how
a card plays for him (a Counter-Attack mirrored) and the option a card is played with. The CIC's
gifts are napsim.engine.lgb_gifts. They read the tables of napsim.sim.tables_lgb (best_t[side,
corps, source, command, card], val_t and bopt_t the same with the option)."""

import numpy as np

from napsim.engine.jit import inlined
from napsim.engine.layout import (
    C_COUNTER,
    C_FS,
)
from napsim.engine.rng import bounded

NEG_HALF = -5.0e8  # a table score below this marks an illegal card or option


@inlined
def _own_best(s, k, chand, cn, ctab, mirror, void, best, cmax):
    """(score, hand slot, card as it plays) of the best card in Corps commander k's own hand (the
    first of equal scores); (-1e18, -1, void) if empty. mirror: what a Counter-Attack plays as.
    Without branches in the loop (which card is best is random from turn to turn)."""
    b = -1.0e18
    slot = -1
    rb = void
    c = min(cn[s, k], cmax)
    for i in range(cn[s, k]):
        r = _plays_as(chand[s, k, i], mirror, void, ctab)
        v = best[s, k, 1, c, r]
        up = v > b + 1e-9
        b = v if up else b
        slot = i if up else slot
        rb = r if up else rb
    return b, slot, rb


@inlined
def _plays_as(t, mirror, void, ctab):
    """cardflow._resolve without branches: mirror is what a Counter-Attack plays as this turn
    (ctab[opp_last, C_MIRROR], void when the opponent has played no hand card)."""
    r = mirror if ctab[t, C_COUNTER] == 1 else t
    return void if ctab[t, C_FS] == 1 else r


@inlined
def _pick_opt(rs, is_random, s, k, src, c, r, val, bopt):
    """The option a card is played with: the best (greedy) or a uniform legal one (random)."""
    if not is_random:
        return bopt[s, k, src, c, r]
    if val[s, k, src, c, r, 1] > NEG_HALF and val[s, k, src, c, r, 0] > NEG_HALF:
        return bounded(rs, np.int64(2))
    return 0 if val[s, k, src, c, r, 0] > NEG_HALF else 1
