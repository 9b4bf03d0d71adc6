"""Exact answers that the Monte Carlo kernels are checked against.

Hands are uniform subsets of the deck, so every deck question reduces to a multivariate
hypergeometric law. Cards are grouped by the value they contribute and the law is enumerated
by a small dynamic programme over groups with exact integer counts (`fractions.Fraction` out).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from math import comb

import numpy as np

COMBINE_SUM = "sum"
COMBINE_OR = "or"


def hand_value_distribution(
    counts: np.ndarray, value: np.ndarray, hand: int, combine: str = COMBINE_SUM
) -> dict[int, Fraction]:
    """Exact law of sum (or bitwise OR) of value[type] over a uniform `hand`-card subset."""
    counts = [int(c) for c in counts]
    value = [int(v) for v in value]
    total = sum(counts)
    if not 0 <= hand <= total:
        raise ValueError(f"hand size {hand} is outside 0..{total}")
    groups: dict[int, int] = defaultdict(int)
    for c, v in zip(counts, value, strict=True):
        groups[v] += c
    # ways[(cards taken, accumulated value)] = number of card subsets
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for v, c in groups.items():
        nxt: dict[tuple[int, int], int] = defaultdict(int)
        for (taken, acc), w in ways.items():
            for t in range(0, min(c, hand - taken) + 1):
                if t == 0:
                    new = acc
                elif combine == COMBINE_SUM:
                    new = acc + t * v
                else:
                    new = acc | v
                nxt[(taken + t, new)] += w * comb(c, t)
        ways = nxt
    denom = comb(total, hand)
    out: dict[int, Fraction] = defaultdict(Fraction)
    for (taken, acc), w in ways.items():
        if taken == hand:
            out[acc] += Fraction(w, denom)
    return dict(sorted(out.items()))


def at_least(counts: np.ndarray, match: np.ndarray, hand: int, k: int) -> Fraction:
    """P(at least k of the hand's cards match), match[type] in {0, 1}."""
    dist = hand_value_distribution(counts, (np.asarray(match) != 0).astype(int), hand)
    return sum((p for v, p in dist.items() if v >= k), Fraction(0))


def first_match_distribution(n_cards: int, n_match: int) -> dict[int, Fraction]:
    """Law of the draw on which the first of n_match marked cards appears (negative hypergeom).

    Key n_cards + 1 stands for "never" (only when n_match == 0).
    """
    if n_match == 0:
        return {n_cards + 1: Fraction(1)}
    denom = comb(n_cards, n_match)
    return {
        m: Fraction(comb(n_cards - m, n_match - 1), denom)
        for m in range(1, n_cards - n_match + 2)
    }


def expected_first_match(n_cards: int, n_match: int) -> Fraction:
    """E[draw of the first marked card] = (N + 1) / (K + 1)."""
    if n_match == 0:
        raise ValueError("no card matches, so the first match never comes")
    return Fraction(n_cards + 1, n_match + 1)


def mulligan_distribution(
    n_cards: int, n_keep: int, hand: int, mulligan_below: int
) -> dict[tuple[int, int], Fraction]:
    """Exact joint law of (final keepers, cards mulliganed) for the one-mulligan rule.

    Opening hand of `hand` cards; if it holds fewer than `mulligan_below` keepers, every other
    card goes to the bottom and as many replacements are drawn from the unseen cards.
    """
    out: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    denom = comb(n_cards, hand)
    rest = n_cards - hand
    for i in range(0, min(hand, n_keep) + 1):
        p_i = Fraction(comb(n_keep, i) * comb(n_cards - n_keep, hand - i), denom)
        if p_i == 0:
            continue
        if i >= mulligan_below:
            out[(i, 0)] += p_i
            continue
        sent = hand - i
        left = n_keep - i
        d2 = comb(rest, sent)
        for j in range(0, min(sent, left) + 1):
            p_j = Fraction(comb(left, j) * comb(rest - left, sent - j), d2)
            if p_j:
                out[(i + j, sent)] += p_i * p_j
    return dict(sorted(out.items()))


def battle_dice_double(n_dice: int = 2) -> Fraction:
    """P(two battle dice show the same symbol) for the D5 die (faces 2 inf, cav, art, flag, sabre)."""
    if n_dice != 2:
        raise ValueError("only two dice are rolled for initiative")
    faces = [2, 1, 1, 1, 1]
    return sum((Fraction(f, 6) ** 2 for f in faces), Fraction(0))
