"""The exact answers of napsim.sim.odds against scipy.stats, closed forms and brute-force enumeration."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from support.decks import ALL_DECKS, C_AND_C_DECKS
from support.laws import e4_closed_form, mvhg_sum_law

from napsim import load_deck
from napsim.model.cards import SECTIONS
from napsim.model.filters import card_filter
from napsim.sim import odds
from napsim.sim.odds import RACK, section_flags, section_orders_value
from napsim.sim.summary import Z95, mean_interval, wilson

FILTERS = ["kind=multi", "kind=section&section=C", "kind=section", "stars>=1",
           "kind=tactic|kind=multi", "orders_in=L", "category=early|category=removal"]


def _close(a, b, tol=1e-12):
    return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(b)))


def _brute_hand_law(counts, value, hand, combine="sum"):
    """The law of sum/OR of values over every hand of physical cards, by listing all hands."""
    cards = np.repeat(np.asarray(value), np.asarray(counts))
    law: dict[int, Fraction] = defaultdict(Fraction)
    total = comb(len(cards), hand)
    for h in itertools.combinations(range(len(cards)), hand):
        acc = 0
        for i in h:
            acc = acc + int(cards[i]) if combine == "sum" else acc | int(cards[i])
        law[acc] += Fraction(1, total)
    return dict(law)


# ---------------------------------------------------------------------------------------------
# P(at least k): scipy.stats.hypergeom


@pytest.mark.parametrize("name", ALL_DECKS)
def test_at_least_matches_scipy_hypergeom(name):
    deck = load_deck(name)
    n_cards = deck.n_cards
    checked = 0
    for expr in FILTERS:
        match = card_filter(deck, expr).astype(np.int64)
        k_match = int(deck.counts[match != 0].sum())
        for hand in (1, 2, 5, 6, 8, 11):
            for k in range(0, hand + 2):
                p = odds.exact_at_least(deck.counts, match, hand, k)
                assert isinstance(p, Fraction)
                ref = stats.hypergeom.sf(k - 1, n_cards, k_match, hand)
                assert _close(p, ref, 1e-10), (expr, hand, k, float(p), ref)
                checked += 1
    assert checked > 100


def test_at_least_edges():
    counts, match = np.array([3, 7]), np.array([1, 0])
    assert odds.exact_at_least(counts, match, 4, 0) == 1
    assert odds.exact_at_least(counts, match, 4, 4) == 0
    assert odds.exact_at_least(counts, match, 10, 3) == 1
    with pytest.raises(ValueError):
        odds.exact_at_least(counts, match, 11, 1)


# ---------------------------------------------------------------------------------------------
# Sum/OR laws: sum to one, scipy multivariate_hypergeom, brute force


@pytest.mark.parametrize("name", C_AND_C_DECKS)
@pytest.mark.parametrize("hand", [3, 6])
def test_orders_law_matches_multivariate_hypergeom(name, hand):  # rule E6: Assault = hand size
    deck = load_deck(name)
    c = deck.cards
    for s in SECTIONS:
        col = f"orders_{s.lower()}"
        # independent of odds.section_orders_value: section cards of s and multi-section cards
        value = np.zeros(len(c), np.int64)
        for i, r in c.iterrows():
            if r["kind"] == "section" and r["section"] == s:
                value[i] = hand if r["equal_to_command"] else r[col]
            elif r["kind"] == "multi":
                value[i] = r[col]
        assert section_orders_value(deck, s, hand).tolist() == value.tolist()
        law = odds.hand_value_distribution(deck.counts, value, hand)
        assert sum(law.values()) == 1
        ref = mvhg_sum_law(deck.counts, value, hand)
        for v in set(law) | set(ref):
            assert _close(law.get(v, 0), ref.get(v, 0), 1e-9), (s, v)


def test_assault_orders_equal_hand_size():  # rule E6
    deck = load_deck("ccn70")
    names = deck.cards["name"].tolist()
    for hand in (1, 4, 9):
        for s, side in zip(SECTIONS, ("Left", "Center", "Right"), strict=True):
            v = section_orders_value(deck, s, hand)
            assert v[names.index(f"Assault {side}")] == hand
            # P(the hand's orders in s reach at least `hand` from Assault alone) >= P(Assault held)
            law = odds.hand_value_distribution(deck.counts, v, hand)
            p_assault = 1 - stats.hypergeom.pmf(0, deck.n_cards, 2, hand)
            assert float(sum(p for o, p in law.items() if o >= hand)) >= p_assault - 1e-12


small_decks = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 5)), min_size=1, max_size=5
                       ).filter(lambda rows: 1 <= sum(c for c, _ in rows) <= 11)


@settings(max_examples=60, deadline=None)
@given(rows=small_decks, data=st.data())
def test_hand_value_law_brute_force(rows, data):
    counts = [c for c, _ in rows]
    value = [v for _, v in rows]
    hand = data.draw(st.integers(0, sum(counts)))
    law = odds.hand_value_distribution(counts, value, hand)
    assert sum(law.values()) == 1
    assert law == {k: p for k, p in _brute_hand_law(counts, value, hand).items() if p}


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.integers(0, 4), st.sampled_from([1, 2, 4, 8])), min_size=1,
                     max_size=5).filter(lambda r: 1 <= sum(c for c, _ in r) <= 11),
       data=st.data())
def test_hand_or_law_brute_force(rows, data):
    counts = [c for c, _ in rows]
    flags = [f for _, f in rows]
    hand = data.draw(st.integers(0, sum(counts)))
    law = odds.hand_value_distribution(counts, flags, hand, odds.COMBINE_OR)
    assert sum(law.values()) == 1
    assert law == {k: p for k, p in _brute_hand_law(counts, flags, hand, "or").items() if p}


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(0, 30), min_size=1, max_size=8).filter(lambda c: sum(c) > 0),
       data=st.data())
def test_hand_value_law_sums_to_one_and_mean(counts, data):
    value = data.draw(st.lists(st.integers(0, 9), min_size=len(counts), max_size=len(counts)))
    n = sum(counts)
    hand = data.draw(st.integers(0, min(n, 12)))
    law = odds.hand_value_distribution(counts, value, hand)
    assert sum(law.values()) == 1
    # linearity: E[sum] = hand * mean value per card
    mean = sum(v * p for v, p in law.items())
    assert mean == Fraction(hand * sum(c * v for c, v in zip(counts, value, strict=True)), n)


# ---------------------------------------------------------------------------------------------
# First match: negative hypergeometric


@pytest.mark.parametrize("n_cards,n_match", [(90, 10), (70, 8), (60, 1), (60, 60), (30, 12),
                                             (5, 2)])
def test_first_match_law(n_cards, n_match):
    law = odds.first_match_distribution(n_cards, n_match)
    assert sum(law.values()) == 1
    mean = sum(m * p for m, p in law.items())
    assert mean == Fraction(n_cards + 1, n_match + 1)
    assert odds.expected_first_match(n_cards, n_match) == Fraction(n_cards + 1, n_match + 1)
    # scipy: failures (non-matching cards) before the first of the n_match "successes"
    nh = stats.nhypergeom(n_cards, n_cards - n_match, 1)
    for m in range(1, n_cards + 1):
        assert _close(law.get(m, 0), nh.pmf(m - 1), 1e-10), m
    assert _close(mean, nh.mean() + 1)


def test_first_match_brute_force_small():
    n_cards, n_match = 7, 3
    law: dict[int, Fraction] = defaultdict(Fraction)
    perms = list(itertools.permutations(range(n_cards)))
    for perm in perms:
        first = next(i + 1 for i, c in enumerate(perm) if c < n_match)
        law[first] += Fraction(1, len(perms))
    assert odds.first_match_distribution(n_cards, n_match) == dict(law)


def test_first_match_none():
    assert odds.first_match_distribution(20, 0) == {21: 1}
    with pytest.raises(ValueError):
        odds.expected_first_match(20, 0)


# ---------------------------------------------------------------------------------------------
# Epic TCG mulligan


def _brute_mulligan(n_cards, n_keep, hand, below):
    """List every opening hand and every replacement draw from the unseen cards."""
    law: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    openings = list(itertools.combinations(range(n_cards), hand))
    for h in openings:
        kept = sum(1 for c in h if c < n_keep)
        if kept >= below:
            law[(kept, 0)] += Fraction(1, len(openings))
            continue
        sent = hand - kept
        rest = [c for c in range(n_cards) if c not in h]
        draws = list(itertools.combinations(rest, sent))
        for d in draws:
            got = sum(1 for c in d if c < n_keep)
            law[(kept + got, sent)] += Fraction(1, len(openings) * len(draws))
    return dict(law)


@pytest.mark.parametrize("n_cards,n_keep,below", [(12, 4, 2), (12, 6, 3), (11, 3, 6),
                                                  (10, 0, 1), (10, 10, 5), (12, 5, 0)])
def test_mulligan_law_brute_force(n_cards, n_keep, below):
    law = odds.mulligan_distribution(n_cards, n_keep, 5, below)
    assert sum(law.values()) == 1
    assert law == {k: p for k, p in _brute_mulligan(n_cards, n_keep, 5, below).items() if p}


def test_mulligan_law_matches_two_stage_hypergeom():
    deck = load_deck("epic-tcg-sealed30")
    n_keep = int(deck.counts[card_filter(deck, "category=early") != 0].sum())
    law = odds.mulligan_distribution(30, n_keep, 5, 2)
    assert sum(law.values()) == 1
    p_mull = sum(stats.hypergeom.pmf(i, 30, n_keep, 5) for i in range(2))
    assert _close(sum(p for (_, s), p in law.items() if s > 0), p_mull)
    for i in range(2):  # mulligan from i keepers: draw 5 - i from the 25 unseen cards
        for j in range(0, 5 - i + 1):
            ref = (stats.hypergeom.pmf(i, 30, n_keep, 5)
                   * stats.hypergeom.pmf(j, 25, n_keep - i, 5 - i))
            assert _close(law.get((i + j, 5 - i), 0), ref), (i, j)


# ---------------------------------------------------------------------------------------------
# Rule E4: all hand and rack cards are section cards of one section


@pytest.mark.parametrize("name", C_AND_C_DECKS)
@pytest.mark.parametrize("hand", [0, 1, 2, 4, 6, 10])
def test_same_section_closed_form(name, hand):  # rule E4
    deck = load_deck(name)
    law = odds.hand_value_distribution(deck.counts, section_flags(deck), hand + RACK,
                                        odds.COMBINE_OR)
    assert sum(law.values()) == 1
    p = sum(law.get(f, 0) for f in (1, 2, 4))
    assert p == e4_closed_form(deck.cards, deck.n_cards, hand + RACK)


def test_dice_double():  # rule D5 die, M6.2 initiative double
    faces = ["inf", "inf", "cav", "art", "flag", "sabre"]
    pairs = list(itertools.product(faces, repeat=2))
    assert odds.battle_dice_double() == Fraction(sum(a == b for a, b in pairs), len(pairs))


# ---------------------------------------------------------------------------------------------
# Intervals


def _wilson_by_hand(k, n, z=1.959963984540054):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return centre - half, centre + half


def test_wilson_known_values():
    assert abs(Z95 - stats.norm.ppf(0.975)) < 1e-12
    # 5 of 10: the textbook interval (0.2366, 0.7634)
    lo, hi = wilson(5, 10)
    assert abs(lo - 0.236593) < 1e-6 and abs(hi - 0.763407) < 1e-6
    for k, n in [(0, 10), (1, 10), (81, 263), (999, 1000), (3, 1_000_000), (10, 10)]:
        lo, hi = wilson(k, n)
        rlo, rhi = _wilson_by_hand(k, n)
        assert abs(lo - max(rlo, 0)) < 1e-12 and abs(hi - min(rhi, 1)) < 1e-12
        assert 0 <= lo <= k / n <= hi <= 1


def test_wilson_edges_and_arrays():
    assert wilson(0, 50)[0] == 0.0
    assert wilson(50, 50)[1] == 1.0
    assert all(np.isnan(wilson(0, 0)))
    lo, hi = wilson(np.array([0, 5, 10]), np.array([10, 10, 10]))
    assert lo.shape == (3,) and np.all(lo <= hi)
    assert abs(lo[1] - _wilson_by_hand(5, 10)[0]) < 1e-12


def test_wilson_coverage():
    """The Wilson 95% interval covers the true p about 95% of the time (binomial weights)."""
    for n in (20, 100, 500):
        for p in (0.03, 0.2, 0.5, 0.9):
            k = np.arange(n + 1)
            lo, hi = wilson(k, np.full(n + 1, n))
            cover = float(stats.binom.pmf(k, n, p)[(lo <= p) & (p <= hi)].sum())
            assert 0.90 <= cover <= 0.995, (n, p, cover)


def test_mean_interval_against_sample_sd():
    rng = np.random.default_rng(5)
    x = rng.integers(1, 20, 1000).astype(float)
    lo, hi = mean_interval(x.sum(), (x * x).sum(), x.size)
    half = Z95 * x.std(ddof=1) / np.sqrt(x.size)
    assert abs(lo - (x.mean() - half)) < 1e-9 and abs(hi - (x.mean() + half)) < 1e-9
    assert all(np.isnan(mean_interval(1.0, 1.0, 1)))
