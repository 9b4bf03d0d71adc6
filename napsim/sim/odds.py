"""Deck-odds questions, each answered exactly and by simulation (engine.odds).

Every question returns a tidy DataFrame, one row per outcome, with columns
question, outcome, exact, simulated, ci_low, ci_high, n (games simulated), interval
(`wilson95` for probabilities, `normal95` for means).

The exact answers (the last section) are what the Monte Carlo kernels are checked against. Hands
are uniform subsets of the deck, so every deck question reduces to a multivariate hypergeometric
law. Cards are grouped by the value they contribute and the law is enumerated by a small dynamic
programme over groups with exact integer counts (`fractions.Fraction` out).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from math import comb

import numpy as np
import pandas as pd

from napsim.engine import odds as kernels
from napsim.engine.rng import seed_key
from napsim.model.cards import SECTIONS, Deck, load_deck
from napsim.model.defaults import ODDS_CHUNK
from napsim.model.errors import NapsimInputError, check_count, check_run
from napsim.model.filters import FilterMatchesNothing, card_filter, matching_cards
from napsim.sim.summary import mean_interval, wilson

RACK = 5
ROW_COLUMNS = ["question", "outcome", "exact", "simulated", "ci_low", "ci_high", "n", "interval"]


def run_chunks(kernel, args: tuple, games: int, seed: int, chunk: int = ODDS_CHUNK):
    """Sum a histogram kernel over fixed chunks of the global game range [0, games).

    Integer histograms add exactly, so the result is the same for any chunk size or thread count.
    """
    check_run(games, seed, chunk)
    key = seed_key(seed)
    total = None
    for first in range(0, games, chunk):
        n = min(chunk, games - first)
        with np.errstate(over="ignore"):  # uint64 wrap-around is intended (NUMBA_DISABLE_JIT=1)
            h = kernel(*args, key, np.int64(first), np.int64(n))
        total = h if total is None else total + h
    return total


def check_k(k: int, hand: int, where: str = "-k") -> None:
    """At least k of a hand: 1..hand (0 is always true, more than the hand never)."""
    check_count(k, where, "k", 1, hand, f"a {hand}-card hand")


def _check_hand(deck: Deck, hand: int, extra: int = 0, where: str = "--hand", lo: int = 1) -> None:
    """`hand` cards (at least `lo`), plus `extra` more, must fit the deck."""
    if hand < lo or hand + extra > deck.n_cards:
        problem = (f"{hand} is not a hand size" if hand < lo else
                   f"{hand} cards (+{extra}) do not fit a {deck.n_cards}-card deck")
        raise NapsimInputError(
            where, "hand", problem,
            f"{lo}..{deck.n_cards - extra}",
        )


def _prob_row(question: str, outcome: str, p_exact, hits: int, n: int) -> dict:
    lo, hi = wilson(hits, n)
    return dict(question=question, outcome=outcome, exact=float(p_exact), simulated=hits / n,
                ci_low=lo, ci_high=hi, n=n, interval="wilson95")


def _sim_values(deck: Deck, value: np.ndarray, hand: int, combine: int, games: int, seed: int,
                chunk: int) -> np.ndarray:
    value = np.asarray(value, np.int64)
    n_bins = int(value.max()) * hand + 1 if combine == kernels.COMBINE_SUM else 16
    args = (deck.card_types(), value, np.int64(hand), np.int64(combine), np.int64(n_bins))
    return run_chunks(_hand_kernel, args, games, seed, chunk)


def _hand_kernel(deck, value, hand, combine, n_bins, key, first, n):
    return kernels.hand_value_hist(deck, value, hand, combine, key, first, n, n_bins)


def at_least(deck: Deck, filter_expr: str, hand: int, k: int, games: int, seed: int,
             chunk: int = ODDS_CHUNK, require_match: bool = True) -> pd.DataFrame:
    """P(a hand of `hand` cards holds at least k cards matching the filter). The filter must
    match a card of the deck unless `require_match` is False (a rack that offers no card
    ordering in a section is an answer, not a typo)."""
    _check_hand(deck, hand)
    check_k(k, hand)
    check_run(games, seed, chunk)
    pick = matching_cards if require_match else card_filter
    match = pick(deck, filter_expr).astype(np.int64)
    hist = _sim_values(deck, match, hand, kernels.COMBINE_SUM, games, seed, chunk)
    p = exact_at_least(deck.counts, match, hand, k)
    q = f"P(at least {k} of {hand} cards match '{filter_expr}')"
    return pd.DataFrame([_prob_row(q, f">= {k}", p, int(hist[k:].sum()), games)], columns=ROW_COLUMNS)


def rack_offers(deck: Deck, section: str, games: int, seed: int, chunk: int = ODDS_CHUNK
                ) -> pd.DataFrame:
    """P(a fresh 5-card Courier Rack offers at least one card that can order in `section`)."""
    if section not in SECTIONS:
        raise NapsimInputError("--section", "section", f"'{section}' is not a section", "L, C, R")
    if deck.n_cards < RACK:
        raise NapsimInputError("--deck", "deck", f"'{deck.name}' has {deck.n_cards} cards, fewer than "
                               f"a {RACK}-card rack", f"a deck of {RACK} cards or more")
    df = at_least(deck, f"orders_in={section}", RACK, 1, games, seed, chunk, require_match=False)
    df["question"] = f"P(fresh {RACK}-card rack offers a card ordering in {section})"
    return df


def section_orders_value(deck: Deck, section: str, hand: int) -> np.ndarray:
    """Fixed orders each card type gives in `section`: section cards (=cmd is the hand size, E6)
    and multi-section cards; tactic cards give none here because their section is a choice."""
    c = deck.cards
    own = (c["kind"] == "section") & (c["section"] == section)
    fixed = np.where(c["equal_to_command"] == 1, hand, c[f"orders_{section.lower()}"])
    multi = c["kind"] == "multi"
    return np.where(own | multi, fixed, 0).astype(np.int64)


def orders_distribution(deck: Deck, hand: int, games: int, seed: int,
                        chunk: int = ODDS_CHUNK) -> pd.DataFrame:
    """Law of the nominal orders a hand holds for each section (section + multi-section cards)."""
    _check_hand(deck, hand)
    check_run(games, seed, chunk)
    rows = []
    for s in SECTIONS:
        value = section_orders_value(deck, s, hand)
        hist = _sim_values(deck, value, hand, kernels.COMBINE_SUM, games, seed, chunk)
        dist = hand_value_distribution(deck.counts, value, hand)
        q = f"orders in section {s} held in a {hand}-card hand"
        for v in sorted(set(dist) | set(np.flatnonzero(hist).tolist())):
            rows.append(_prob_row(q, f"= {v}", dist.get(v, 0), int(hist[v]), games))
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def section_flags(deck: Deck) -> np.ndarray:
    """Bit flags per card type: 1/2/4 for a section card of L/C/R, 8 for anything else."""
    c = deck.cards
    flags = np.full(len(c), 8, np.int64)
    for bit, s in enumerate(SECTIONS):
        flags[((c["kind"] == "section") & (c["section"] == s)).to_numpy()] = 1 << bit
    return flags


def same_section(deck: Deck, hand: int, games: int, seed: int, chunk: int = ODDS_CHUNK
                 ) -> pd.DataFrame:
    """P(hand and fresh rack are all section cards of one section): the E4 exception."""
    _check_hand(deck, hand, RACK, lo=0)  # hand 0: the fresh rack alone
    check_run(games, seed, chunk)
    flags = section_flags(deck)
    hist = _sim_values(deck, flags, hand + RACK, kernels.COMBINE_OR, games, seed, chunk)
    dist = hand_value_distribution(deck.counts, flags, hand + RACK, COMBINE_OR)
    p = sum(dist.get(f, 0) for f in (1, 2, 4))
    q = f"P(E4: {hand}-card hand and {RACK}-card rack all section cards of one section)"
    return pd.DataFrame([_prob_row(q, "yes", p, int(hist[1] + hist[2] + hist[4]), games)],
                        columns=ROW_COLUMNS)


def _first_kernel(deck, match, key, first, n):
    return kernels.first_match_hist(deck, match, key, first, n)


def first_draw(deck: Deck, filter_expr: str, games: int, seed: int, chunk: int = ODDS_CHUNK
               ) -> pd.DataFrame:
    """Expected number of draws from a fresh shuffle until a card matching the filter appears."""
    check_run(games, seed, chunk)
    match = matching_cards(deck, filter_expr).astype(np.int64)
    k = int(deck.counts[match != 0].sum())
    hist = run_chunks(_first_kernel, (deck.card_types(), match), games, seed, chunk)
    pos = np.arange(hist.size, dtype=float)
    total, total_sq = float((hist * pos).sum()), float((hist * pos * pos).sum())
    lo, hi = mean_interval(total, total_sq, games)
    q = f"draws until the first card matching '{filter_expr}' ({k} of {deck.n_cards})"
    row = dict(question=q, outcome="mean draws", exact=float(expected_first_match(deck.n_cards, k)),
               simulated=total / games, ci_low=lo, ci_high=hi, n=games, interval="normal95")
    return pd.DataFrame([row], columns=ROW_COLUMNS)


def _mulligan_kernel(deck, keep, hand, below, key, first, n):
    return kernels.mulligan_hist(deck, keep, hand, below, key, first, n)


def mulligan(deck: Deck, keep_expr: str, mulligan_below: int, target: int, games: int, seed: int,
             hand: int = 5, chunk: int = ODDS_CHUNK) -> pd.DataFrame:
    """Epic TCG opening hand with one mulligan under the rule: keep the cards matching `keep_expr`;
    when fewer than `mulligan_below` of them are held, bottom all others and draw replacements."""
    _check_hand(deck, hand, hand)
    if not 0 <= mulligan_below <= hand + 1:
        raise NapsimInputError("--mulligan-below", "mulligan_below", f"{mulligan_below} is out of range",
                               f"0..{hand + 1}")
    if not 0 <= target <= hand:
        raise NapsimInputError("--target", "target", f"{target} is out of range", f"0..{hand}")
    check_run(games, seed, chunk)
    keep = matching_cards(deck, keep_expr, "--keep").astype(np.int64)
    args = (deck.card_types(), keep, np.int64(hand), np.int64(mulligan_below))
    hist = run_chunks(_mulligan_kernel, args, games, seed, chunk)
    dist = mulligan_distribution(deck.n_cards, int(deck.counts[keep != 0].sum()), hand,
                                       mulligan_below)
    rule = f"keep '{keep_expr}', mulligan the rest when fewer than {mulligan_below} kept"
    p_hit = sum((p for (f, _), p in dist.items() if f >= target), 0)
    p_mull = sum((p for (_, s), p in dist.items() if s > 0), 0)
    mojo = sum((p * s for (_, s), p in dist.items()), 0)
    sent = np.arange(hand + 1, dtype=float)
    by_sent = hist.sum(axis=0)
    total, total_sq = float((by_sent * sent).sum()), float((by_sent * sent * sent).sum())
    lo, hi = mean_interval(total, total_sq, games)
    rows = [
        _prob_row(f"P(final hand holds >= {target} keepers) [{rule}]", f">= {target}", p_hit,
                  int(hist[target:, :].sum()), games),
        _prob_row(f"P(mulligan taken) [{rule}]", "yes", p_mull, int(hist[:, 1:].sum()), games),
        dict(question=f"Mojo spent on the mulligan [{rule}]", outcome="mean Mojo", exact=float(mojo),
             simulated=total / games, ci_low=lo, ci_high=hi, n=games, interval="normal95"),
    ]
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def deck_report(deck: Deck, hand: int, games: int, seed: int, chunk: int = ODDS_CHUNK
                ) -> pd.DataFrame:
    """The standard battery of deck-odds questions for one deck and hand size."""
    _check_hand(deck, hand)
    check_run(games, seed, chunk)
    frames = [rack_offers(deck, s, games, seed, chunk) for s in SECTIONS]
    if (deck.cards["kind"] == "section").any():
        frames.append(same_section(deck, hand, games, seed, chunk))
        for k in (1, 2):
            frames.append(at_least(deck, "kind=section&section=C", hand, k, games, seed, chunk))
    if (deck.cards["kind"] == "multi").any():
        frames.append(at_least(deck, "kind=multi", hand, 1, games, seed, chunk))
        frames.append(first_draw(deck, "kind=multi", games, seed, chunk))
    if (deck.cards["stars"] > 0).any():
        frames.append(at_least(deck, "stars>=1", hand, 1, games, seed, chunk))
    return pd.concat(frames, ignore_index=True)


def check_question(q: dict, deck: Deck, hand: int) -> bool:
    """Check one odds-study question (`[[questions]]`, validated) against a deck and hand size
    without simulating: raises on a bad filter, k, section or hand; returns False when its filter is
    well formed but matches no card of this deck (the answer is then "not applicable")."""
    ask, where = q["ask"], f"deck '{deck.name}', hand {hand}"
    if ask in ("at_least", "orders"):
        _check_hand(deck, hand, 0, where)
    elif ask == "same_section":
        _check_hand(deck, hand, RACK, where, lo=0)
    elif ask == "mulligan":
        _check_hand(deck, hand, hand, where)
        check_count(q["mulligan_below"], where, "mulligan_below", 0, hand + 1)
        check_count(q["target"], where, "target", 0, hand)
    elif ask == "rack":
        _check_hand(deck, RACK, 0, where)
        if q["section"] not in SECTIONS:
            raise NapsimInputError(where, "section", f"'{q['section']}' is not a section", "L, C, R")
    if ask == "at_least":
        check_k(q["k"], hand, where)
    expr = q.get("filter", q.get("keep"))
    if expr is None:
        return True
    try:
        matching_cards(deck, expr, where)
    except FilterMatchesNothing:
        return False
    return True


def answer_questions(questions: list, deck_ref: Deck | str, hand: int, games: int, seed: int,
                     chunk: int = ODDS_CHUNK) -> pd.DataFrame:
    """Answer every question of an odds study (`[[questions]]` tables, validated) for one deck
    and hand size; a question this deck cannot answer (e.g. a filter no card matches) gets a row
    saying so."""
    deck = deck_ref if isinstance(deck_ref, Deck) else load_deck(deck_ref)
    frames = []
    for q in questions:
        ask = q["ask"]
        try:
            if ask == "at_least":
                df = at_least(deck, q["filter"], hand, q["k"], games, seed, chunk)
            elif ask == "rack":
                df = rack_offers(deck, q["section"], games, seed, chunk)
            elif ask == "same_section":
                df = same_section(deck, hand, games, seed, chunk)
            elif ask == "first":
                df = first_draw(deck, q["filter"], games, seed, chunk)
            elif ask == "orders":
                df = orders_distribution(deck, hand, games, seed, chunk)
            else:
                df = mulligan(deck, q["keep"], q["mulligan_below"], q["target"], games, seed,
                              hand, chunk)
            df["note"] = ""
        except FilterMatchesNothing as e:  # checked at load: another deck of the study matches
            df = pd.DataFrame([dict(question=q["label"], outcome="", exact=np.nan, simulated=np.nan,
                                    ci_low=np.nan, ci_high=np.nan, n=0, interval="",
                                    note=f"not applicable: {e.problem}")])
        df.insert(0, "label", q["label"])
        frames.append(df)
    out = pd.concat(frames, ignore_index=True)
    out["deck_warning"] = deck.estimated_warning() or ""
    return out


# --------------------------------------------------------------------------------------------
# exact answers (multivariate hypergeometric enumeration)


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


def exact_at_least(counts: np.ndarray, match: np.ndarray, hand: int, k: int) -> Fraction:
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
