"""Simulated deck odds (numba kernels, counter-based RNG) against exact values within 4 standard
errors. The expected values come from scipy.stats or closed forms computed here from the deck
columns, never from the exact answers of napsim.sim.odds; each row's `exact` column is checked
against them too.

Fixed seeds make every test deterministic; se = sqrt(p(1-p)/n) for probabilities and
sample sd / sqrt(n) for means.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from support.laws import e4_closed_form, mvhg_sum_law

from napsim import load_deck
from napsim.engine import odds as kernels
from napsim.model.cards import SECTIONS
from napsim.sim import odds

GAMES = 1_000_000
N_SE = 4.0


def assert_prob_close(simulated: float, p: float, n: int, what: str = "") -> None:
    p = float(p)
    if p <= 0.0 or p >= 1.0:  # an impossible or certain outcome must come out exactly so
        assert simulated == p, what
        return
    se = math.sqrt(p * (1 - p) / n)
    if n * p * (1 - p) >= 10:
        assert abs(simulated - p) <= N_SE * se, f"{what}: sim {simulated} exact {p} se {se}"
        return
    # too few expected hits for the normal approximation (e.g. 0.02 expected, 1 seen): the same
    # 4-sigma level on the exact binomial tails instead
    hits = round(simulated * n)
    tail = min(stats.binom.cdf(hits, n, p), stats.binom.sf(hits - 1, n, p))
    assert tail >= stats.norm.sf(N_SE), f"{what}: {hits} of {n}, exact p {p}, tail {tail}"


def assert_row(row: pd.Series, p_expected: float, games: int) -> None:
    assert row["n"] == games
    assert row["interval"] == "wilson95"
    assert math.isclose(row["exact"], float(p_expected), rel_tol=1e-9, abs_tol=1e-15)
    assert row["ci_low"] <= row["simulated"] <= row["ci_high"]
    assert_prob_close(row["simulated"], p_expected, games, row["question"])


def _free(c: pd.DataFrame, s: str) -> pd.Series:
    """Cards placed in a section of the player's choice (rule E3), or in their own section."""
    return c["kind"].isin(["tactic", "troop", "leadership"]) & c["section"].isin(["-", s])


def orders_in_mask(c: pd.DataFrame, s: str) -> np.ndarray:
    """Rules D2/E3: the card can order units in section s."""
    sec = (c["kind"] == "section") & (c["section"] == s)
    multi = (c["kind"] == "multi") & (c[f"orders_{s.lower()}"] > 0)
    return (sec | multi | _free(c, s)).to_numpy()


# (deck, filter, pandas mask of the same cards, hand, k)
AT_LEAST = [
    ("gmt90", "kind=multi", lambda c: c["kind"] == "multi", 6, 1),
    ("gmt90", "stars>=1", lambda c: c["stars"] >= 1, 8, 2),
    ("gmt90", "kind=section&section=L|kind=multi",
     lambda c: ((c["kind"] == "section") & (c["section"] == "L")) | (c["kind"] == "multi"), 6, 3),
    ("ccn70", "kind=section&section=C", lambda c: (c["kind"] == "section") & (c["section"] == "C"),
     5, 2),
    ("ccn70", "scout=1", lambda c: c["scout"] == 1, 6, 1),
    ("ccn70", "kind=tactic", lambda c: c["kind"] == "tactic", 4, 4),
    ("cca60", "kind=troop|kind=leadership", lambda c: c["kind"].isin(["troop", "leadership"]), 5,
     1),
    ("cca60", "kind=section", lambda c: c["kind"] == "section", 4, 3),
    ("cca60", "orders_in=C", lambda c: orders_in_mask(c, "C"), 3, 2),
]


@pytest.mark.parametrize("name,expr,mask,hand,k", AT_LEAST,
                         ids=[f"{a[0]}-{a[1]}-{a[3]}-{a[4]}" for a in AT_LEAST])
def test_at_least(name, expr, mask, hand, k):
    deck = load_deck(name)
    n_match = int(deck.cards.loc[np.asarray(mask(deck.cards), bool), "count"].sum())
    p = stats.hypergeom.sf(k - 1, deck.n_cards, n_match, hand)
    df = odds.at_least(deck, expr, hand, k, GAMES, seed=11)
    assert len(df) == 1
    assert_row(df.iloc[0], p, GAMES)


def test_at_least_whole_deck_is_certain():
    deck = load_deck("cca60")
    df = odds.at_least(deck, "kind=troop", 60, 10, 20_000, seed=3)
    assert df.iloc[0]["simulated"] == 1.0
    df = odds.at_least(deck, "kind=troop", 60, 11, 20_000, seed=3)
    assert df.iloc[0]["simulated"] == 0.0


@pytest.mark.parametrize("name,section", [("gmt90", "C"), ("ccn70", "L"), ("cca60", "R"),
                                          ("cca60", "L")])
def test_rack_offers(name, section):  # rules E1 (5-card rack), E3 (tactic placed by choice)
    deck = load_deck(name)
    n_match = int(deck.counts[orders_in_mask(deck.cards, section)].sum())
    p = 1 - stats.hypergeom.pmf(0, deck.n_cards, n_match, odds.RACK)
    df = odds.rack_offers(deck, section, GAMES, seed=12)
    assert_row(df.iloc[0], p, GAMES)


@pytest.mark.parametrize("name,hand", [("gmt90", 6), ("ccn70", 5), ("cca60", 4)])
def test_orders_distribution(name, hand):  # rule E6: Assault orders = hand size
    deck = load_deck(name)
    c = deck.cards
    df = odds.orders_distribution(deck, hand, GAMES, seed=13)
    for s in SECTIONS:
        col = f"orders_{s.lower()}"
        own = (c["kind"] == "section") & (c["section"] == s)
        value = np.where(own & (c["equal_to_command"] == 1), hand,  # rule E6
                         np.where(own | (c["kind"] == "multi"), c[col], 0))
        law = mvhg_sum_law(deck.counts, value, hand)
        rows = df[df["question"].str.contains(f"section {s} ")]
        assert math.isclose(rows["simulated"].sum(), 1.0, abs_tol=1e-9)
        assert math.isclose(rows["exact"].sum(), 1.0, abs_tol=1e-9)
        seen = {int(o.split("= ")[1]): r for o, (_, r) in zip(rows["outcome"], rows.iterrows(),
                                                               strict=True)}
        assert set(seen) >= {v for v, p in law.items() if p > 0}
        if (own & (c["equal_to_command"] == 1)).any():
            assert law.get(hand, 0) > 0  # one Assault alone gives `hand` orders
        for v, r in seen.items():
            assert_row(r, law.get(v, 0.0), GAMES)


@pytest.mark.parametrize("name,hand,games", [("gmt90", 1, 4_000_000), ("ccn70", 1, 4_000_000),
                                             ("cca60", 0, 4_000_000), ("gmt90", 0, 1_000_000)])
def test_same_section(name, hand, games):  # rule E4
    deck = load_deck(name)
    p = e4_closed_form(deck.cards, deck.n_cards, hand + odds.RACK)
    assert games * p > 50  # enough hits for the test to mean something
    df = odds.same_section(deck, hand, games, seed=14)
    assert_row(df.iloc[0], p, games)


def _first_hist(deck, match, games, seed):
    def kernel(cards, m, key, first, n):
        return kernels.first_match_hist(cards, m, key, first, n)

    return odds.run_chunks(kernel, (deck.card_types(), match), games, seed)


@pytest.mark.parametrize("name,expr,mask", [
    ("gmt90", "kind=multi", lambda c: c["kind"] == "multi"),
    ("ccn70", "equal_to_command=1&kind=section",
     lambda c: (c["equal_to_command"] == 1) & (c["kind"] == "section")),
    ("cca60", "kind=troop", lambda c: c["kind"] == "troop"),
])
def test_first_draw(name, expr, mask):
    deck = load_deck(name)
    m = np.asarray(mask(deck.cards), bool)
    n_match = int(deck.counts[m].sum())
    expected = (deck.n_cards + 1) / (n_match + 1)
    games = 500_000
    df = odds.first_draw(deck, expr, games, seed=15)
    row = df.iloc[0]
    assert row["n"] == games and row["interval"] == "normal95"
    assert math.isclose(row["exact"], expected, rel_tol=1e-12)
    hist = _first_hist(deck, m.astype(np.int64), games, seed=15)
    assert hist.sum() == games and hist[0] == 0 and hist[deck.n_cards + 1] == 0
    draws = np.arange(hist.size, dtype=float)
    mean = (hist * draws).sum() / games
    sd = math.sqrt(((hist * (draws - mean) ** 2).sum()) / (games - 1))
    assert math.isclose(row["simulated"], mean, rel_tol=1e-12)
    assert row["ci_low"] < mean < row["ci_high"]
    assert abs(mean - expected) <= N_SE * sd / math.sqrt(games)
    # the whole law, position by position: scipy's negative hypergeometric
    nh = stats.nhypergeom(deck.n_cards, deck.n_cards - n_match, 1)
    for pos in range(1, deck.n_cards + 1):
        assert_prob_close(hist[pos] / games, nh.pmf(pos - 1), games, f"first draw at {pos}")


@pytest.mark.parametrize("keep,mask,below,target", [
    ("category=early", lambda c: c["category"] == "early", 2, 2),
    ("kind=champion", lambda c: c["kind"] == "champion", 3, 3),
    ("category=removal|category=threat", lambda c: c["category"].isin(["removal", "threat"]), 1,
     2),
])
def test_mulligan(keep, mask, below, target):  # Epic TCG: one mulligan, 1 Mojo a card
    deck = load_deck("epic-tcg-sealed30")
    n, hand = deck.n_cards, 5
    n_keep = int(deck.counts[np.asarray(mask(deck.cards), bool)].sum())
    # two-stage hypergeometric: opening hand, then 5 - i replacements from the 25 unseen cards
    joint: dict[tuple[int, int], float] = {}
    for i in range(hand + 1):
        p_i = stats.hypergeom.pmf(i, n, n_keep, hand)
        if i >= below:
            joint[(i, 0)] = joint.get((i, 0), 0) + p_i
            continue
        for j in range(hand - i + 1):
            p_j = stats.hypergeom.pmf(j, n - hand, n_keep - i, hand - i)
            joint[(i + j, hand - i)] = joint.get((i + j, hand - i), 0) + p_i * p_j
    p_hit = sum(p for (f, _), p in joint.items() if f >= target)
    p_mull = sum(p for (_, s), p in joint.items() if s > 0)
    mojo = sum(p * s for (_, s), p in joint.items())

    games = GAMES
    df = odds.mulligan(deck, keep, below, target, games, seed=16)
    assert_row(df.iloc[0], p_hit, games)
    assert_row(df.iloc[1], p_mull, games)

    def kernel(cards, k, h, b, key, first, count):
        return kernels.mulligan_hist(cards, k, h, b, key, first, count)

    args = (deck.card_types(), np.asarray(mask(deck.cards), np.int64), np.int64(hand),
            np.int64(below))
    hist = odds.run_chunks(kernel, args, games, seed=16)
    assert hist.shape == (hand + 1, hand + 1) and hist.sum() == games
    sent = hist.sum(axis=0)
    values = np.arange(hand + 1, dtype=float)
    mean = (sent * values).sum() / games
    sd = math.sqrt((sent * (values - mean) ** 2).sum() / (games - 1))
    row = df.iloc[2]
    assert row["interval"] == "normal95"
    assert math.isclose(row["exact"], mojo, rel_tol=1e-9)
    assert math.isclose(row["simulated"], mean, rel_tol=1e-12)
    assert abs(mean - mojo) <= N_SE * sd / math.sqrt(games)
    for (f, s), p in joint.items():
        assert_prob_close(hist[f, s] / games, p, games, f"final {f}, sent {s}")
    impossible = np.ones_like(hist, bool)
    for f, s in joint:
        impossible[f, s] = False
    assert hist[impossible].sum() == 0


def test_deck_report_rows_all_close():
    """The standard battery (`napsim odds report`) agrees with its exact column on every deck."""
    for name in ("gmt90", "ccn70", "cca60"):
        deck = load_deck(name)
        df = odds.deck_report(deck, 6, 400_000, seed=17)
        assert len(df) >= 7
        for _, r in df[df["interval"] == "wilson95"].iterrows():
            assert_prob_close(r["simulated"], r["exact"], r["n"], r["question"])
        for _, r in df[df["interval"] == "normal95"].iterrows():
            half = r["ci_high"] - r["simulated"]
            assert abs(r["simulated"] - r["exact"]) <= N_SE * half / 1.959963984540054
