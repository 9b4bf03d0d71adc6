"""Card filters for odds questions: `kind=section&section=L | kind=multi`, `stars>=1`, `orders_in=C`.

Clauses separated by `|` are OR-ed; terms inside a clause joined by `&` are AND-ed. A term is
`field OP value` with OP one of = != >= <= > <; `=` and `!=` take comma-separated alternatives.
Fields are the deck columns plus `orders_in` (the card can order units in that section: a
section card of it, a multi-section card with orders there, or a card placed where the player
chooses: tactic, troop, leadership without a section).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from napsim.model.cards import ALL_COLUMNS, CONFIDENCE, KINDS, SECTIONS, UNIT_FILTERS, Deck
from napsim.model.errors import NapsimInputError, excerpt

_TERM = re.compile(r"^\s*([a-z_]+)\s*(!=|>=|<=|=|>|<)\s*(.+?)\s*$")
DERIVED = ("orders_in",)
FIELDS = tuple(c for c in ALL_COLUMNS if c not in ("source",)) + DERIVED
_NUMERIC = {
    "count", "orders_l", "orders_c", "orders_r", "equal_to_command", "cap", "stars",
    "tactician_draw", "scout", "elan", "first_strike", "counter_attack", "force_march",
    "take_command",
}
# fields whose values come from a fixed list: a value outside it is a typo, not a question
_CHOICES = {"kind": KINDS, "section": ("-", *SECTIONS), "unit_filter": UNIT_FILTERS,
            "confidence": CONFIDENCE}
_NUMERIC_LIMIT = 10**6


class FilterMatchesNothing(NapsimInputError):
    """A well-formed filter that no card of this deck matches."""


def matching_cards(deck: Deck, expr: str, where: str = "--filter") -> np.ndarray:
    """`card_filter`, refusing a filter that no card of the deck matches (every odds question
    about a filter asks this first: an answer of 0 would hide a typo)."""
    mask = card_filter(deck, expr, where)
    if not mask.any() or int(deck.counts[mask].sum()) == 0:
        raise FilterMatchesNothing(where, "filter", f"no card in deck '{deck.name}' matches "
                                   f"'{excerpt(expr)}'", "a filter that matches at least one card")
    return mask


def orders_in(cards: pd.DataFrame, section: str) -> np.ndarray:
    """Boolean per card type: can this card order units in `section`?"""
    col = f"orders_{section.lower()}"
    sec = (cards["kind"] == "section") & (cards["section"] == section)
    multi = (cards["kind"] == "multi") & (cards[col] > 0)
    free = cards["kind"].isin(["tactic", "troop", "leadership"]) & (cards["section"].isin(["-", section]))
    return (sec | multi | free).to_numpy()


def card_filter(deck: Deck, expr: str, where: str = "--filter") -> np.ndarray:
    """Boolean mask over the deck's card types for a filter expression."""
    cards = deck.cards
    if not expr.strip():
        raise NapsimInputError(where, "filter", "empty filter", "field=value terms joined by & and |")
    mask = np.zeros(len(cards), bool)
    for clause in expr.split("|"):
        part = np.ones(len(cards), bool)
        for term in clause.split("&"):
            part &= _term_mask(cards, term, where)
        mask |= part
    return mask


def _term_mask(cards: pd.DataFrame, term: str, where: str) -> np.ndarray:
    m = _TERM.match(term)
    if not m:
        raise NapsimInputError(
            where, "filter", f"cannot read term '{excerpt(term.strip())}'", "field=value, field>=n, ..."
        )
    field, op, value = m.groups()
    if field not in FIELDS:
        raise NapsimInputError(where, "filter", f"unknown field '{excerpt(field)}'", ", ".join(FIELDS))
    if field == "orders_in":
        if op not in ("=", "!=") or any(v.strip() not in SECTIONS for v in value.split(",")):
            raise NapsimInputError(where, "filter", f"bad term '{excerpt(term.strip())}'", "orders_in=L|C|R")
        hit = np.zeros(len(cards), bool)
        for v in value.split(","):
            hit |= orders_in(cards, v.strip())
        return hit if op == "=" else ~hit
    col = cards[field]
    if field in _NUMERIC:
        try:
            values = [int(v) for v in value.split(",")]
        except ValueError:
            values = []
        if not values or any(abs(v) > _NUMERIC_LIMIT for v in values):
            raise NapsimInputError(
                where, "filter", f"'{excerpt(value)}' is not an integer for '{field}'",
                f"integers -{_NUMERIC_LIMIT:,}..{_NUMERIC_LIMIT:,}",
            )
        if op in ("=", "!="):
            hit = col.isin(values).to_numpy()
            return hit if op == "=" else ~hit
        if len(values) != 1:
            raise NapsimInputError(where, "filter", f"'{op}' takes one value", "one integer")
        v = values[0]
        return {">=": col >= v, "<=": col <= v, ">": col > v, "<": col < v}[op].to_numpy()
    if op not in ("=", "!="):
        raise NapsimInputError(where, "filter", f"'{op}' needs a numeric field", "= or !=")
    values = [v.strip() for v in value.split(",")]
    for v in values:
        if field in _CHOICES and v not in _CHOICES[field]:
            raise NapsimInputError(where, "filter", f"'{excerpt(v)}' is not a value of '{field}'",
                                   ", ".join(_CHOICES[field]))
    hit = col.isin(values).to_numpy()
    return hit if op == "=" else ~hit
