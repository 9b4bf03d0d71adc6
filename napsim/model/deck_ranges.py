"""Plausible ranges of estimated card counts, and decks drawn inside them.

A deck file may give `count_min` and `count_max` for any row whose confidence is not `confirmed`
(blank: the row's count is fixed). Rows that share a `count_tie` label always have the same count
(e.g. the Left and Right cards of one kind, where the deck is known to be symmetric). The header
line `# kind_totals: multi=8, tactic=22` names kind subtotals that are known and must hold in every
plausible deck; the deck's total always holds.

`plausible_counts` draws decks inside those constraints: it starts every tie group at its minimum
and adds cards one by one, each to a group picked with probability proportional to the room left
in it, until every subtotal is reached (a multivariate hypergeometric draw when nothing is tied).
Draws come from one seeded generator, so the first k decks of a larger draw are the same.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from napsim.model.errors import NapsimInputError, excerpt

RANGE_COLUMNS = ("count_min", "count_max", "count_tie")
MAX_TRIES = 1000  # restarts of one deck's draw (only a tie group of two can leave an odd card over)
_TERM = re.compile(r"\s*([a-z]+)\s*=\s*([0-9]+)\s*")


def parse_range(where: str, row: dict, raw: dict[str, str], parse_int) -> None:
    """Fill row['count_min'], row['count_max'] and row['count_tie'] from the raw CSV values."""
    count = row["count"]
    for col in ("count_min", "count_max"):
        text = raw.get(col, "").strip()
        row[col] = count if not text else parse_int(where, col, text, 0, 999)
    row["count_tie"] = raw.get("count_tie", "").strip()
    lo, hi = row["count_min"], row["count_max"]
    if row["confidence"] == "confirmed" and (lo != count or hi != count or row["count_tie"]):
        field = "count_min" if lo != count else "count_max" if hi != count else "count_tie"
        raise NapsimInputError(where, field, "a confirmed count is fixed",
                               f"blank, or {count} (the count) on a confirmed row")
    if lo > count:
        raise NapsimInputError(where, "count_min", f"{lo} is above the count {count}",
                               f"integers 0-{count}")
    if hi < count:
        raise NapsimInputError(where, "count_max", f"{hi} is below the count {count}",
                               f"integers {count}-999")


def check_ties(path, cards: pd.DataFrame, lines: list[int]) -> None:
    """Rows with one `count_tie` label agree on kind, count, count_min and count_max."""
    first: dict[str, int] = {}
    for i, tie in enumerate(cards["count_tie"]):
        if not tie:
            continue
        if tie not in first:
            first[tie] = i
            continue
        j = first[tie]
        for col in ("kind", "count", "count_min", "count_max"):
            if cards[col].iloc[i] != cards[col].iloc[j]:
                raise NapsimInputError(
                    f"{path}:{lines[i]}", "count_tie",
                    f"rows tied by '{excerpt(tie)}' differ in {col} (first row on line {lines[j]})",
                    "tied rows with the same kind, count, count_min and count_max")


def parse_kind_totals(where: str, text: str, cards: pd.DataFrame) -> tuple[tuple[str, int], ...]:
    """'multi=8, tactic=22' -> (('multi', 8), ('tactic', 22)), each equal to the deck's subtotal."""
    out: dict[str, int] = {}
    allowed = "kind=N, ... with kinds of this deck, e.g. multi=8, tactic=22"
    for term in text.split(","):
        m = _TERM.fullmatch(term)
        if not m or m.group(1) not in set(cards["kind"]) or m.group(1) in out:
            raise NapsimInputError(where, "kind_totals", f"bad term '{excerpt(term.strip())}'", allowed)
        kind, n = m.group(1), int(m.group(2))
        actual = int(cards.loc[cards["kind"] == kind, "count"].sum())
        if n != actual:
            raise NapsimInputError(where, "kind_totals",
                                   f"declared {kind} total {n} but its counts sum to {actual}")
        out[kind] = n
    return tuple(out.items())


def has_ranges(cards: pd.DataFrame) -> bool:
    return bool((cards["count_min"] != cards["count_max"]).any())


def _groups(cards: pd.DataFrame, kind_totals) -> list[list[np.ndarray]]:
    """The rows in units that move together (a tie label, or one row), one list per kept subtotal."""
    kinds = dict(kind_totals)
    members = [np.flatnonzero((cards["kind"] == k).to_numpy()) for k in kinds]
    members.append(np.flatnonzero(~cards["kind"].isin(list(kinds)).to_numpy()))
    ties = cards["count_tie"].to_numpy()
    out = []
    for rows in members:
        units: dict[str, list[int]] = {}
        for r in rows:
            units.setdefault(ties[r] or f"\0{r}", []).append(int(r))
        out.append([np.array(u) for u in units.values()])
    return out


def plausible_counts(cards: pd.DataFrame, kind_totals, n: int, seed: int) -> np.ndarray:
    """n plausible count vectors (n x rows): every count inside its range, tied rows equal, the
    total and the kept kind subtotals as in the file. Reproducible from `seed`."""
    counts = cards["count"].to_numpy(np.int64)
    lo, hi = cards["count_min"].to_numpy(np.int64), cards["count_max"].to_numpy(np.int64)
    rng = np.random.default_rng(seed)
    out = np.repeat(counts[None, :], n, axis=0)
    for units in _groups(cards, kind_totals):
        if not units or all(lo[u[0]] == hi[u[0]] for u in units):
            continue
        first = np.array([u[0] for u in units])
        width = np.array([len(u) for u in units])
        target = int(sum(counts[u].sum() for u in units))
        for k in range(n):
            cur = _draw_group(rng, lo[first], hi[first], width, target)
            for u, c in zip(units, cur, strict=True):
                out[k, u] = c
    return out


def _draw_group(rng, lo: np.ndarray, hi: np.ndarray, width: np.ndarray, target: int) -> np.ndarray:
    for _ in range(MAX_TRIES):
        cur = lo.copy()
        left = target - int((lo * width).sum())
        while left > 0:
            room = (hi - cur) * (width <= left)
            if not room.any():
                break
            i = rng.choice(len(cur), p=room / room.sum())
            cur[i] += 1
            left -= int(width[i])
        if left == 0:
            return cur
    raise NapsimInputError("deck ranges", "count_tie", f"no plausible deck found in {MAX_TRIES} tries",
                           "ranges whose tied groups can reach the total")
