"""Exact laws computed independently of napsim (scipy, closed forms), to check napsim's answers."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction
from math import comb

from scipy import stats


def mvhg_sum_law(counts, value, hand: int) -> dict[int, float]:
    """Law of a hand's summed value: scipy.stats.multivariate_hypergeom over value groups."""
    groups: dict[int, int] = defaultdict(int)
    for c, v in zip(counts, value, strict=True):
        groups[int(v)] += int(c)
    vals, m = list(groups), [groups[v] for v in groups]
    law: dict[int, float] = defaultdict(float)
    for x in itertools.product(*[range(min(mi, hand) + 1) for mi in m]):
        if sum(x) != hand:
            continue
        p = stats.multivariate_hypergeom.pmf(x=list(x), m=m, n=hand)
        law[sum(v * xi for v, xi in zip(vals, x, strict=True))] += p
    return dict(law)


def e4_closed_form(cards, n_cards: int, n_seen: int):
    """Rule E4: P(n_seen cards are all section cards of one section) = sum_s C(n_s, h)/C(N, h)."""
    n_s = [int(cards.loc[(cards["kind"] == "section") & (cards["section"] == s), "count"].sum())
           for s in ("L", "C", "R")]
    return Fraction(sum(comb(k, n_seen) for k in n_s), comb(n_cards, n_seen))
