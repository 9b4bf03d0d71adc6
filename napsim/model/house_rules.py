"""House rules: changes players make to the rules as written, each a scenario `[rules]` option
whose default is the rule as written (docs/rules.md, "House rules").

A house rule is data: its option (the name, the value as written first, the house value second)
and its table, the card types it changes and how, as new values of the packed card table's
columns (`napsim.sim.tables.CardTable`). `card_changes` gives the changes in force for a
scenario's `[rules]`; `napsim.sim.tables.card_table` applies them when it packs a deck, so the
kernels play a house rule without a line of their own. A second house rule is one more entry of
`HOUSE_RULES` (and its `[[option]]` in `model/rulebook.toml`, kind "house"), not a kernel change.

Columns a house rule may set: `reach` (1: the card orders in every section, as a tactic card does
in the standard game; 0: the format's own rule), and the card file's integer marks that the card
table holds (`stars`, `tactician_draw`, `scout`, `elan`, `first_strike`, `fallback`).
"""

from __future__ import annotations

from dataclasses import dataclass

CARD_COLUMNS = ("reach", "stars", "tactician_draw", "scout", "elan", "first_strike", "fallback")


@dataclass(frozen=True)
class HouseRule:
    """One house rule: its `[rules]` option, the formats it changes, where it comes from, and its
    table {card name: {column: value}} (cards a deck lacks are left out)."""

    option: str
    as_written: str
    house: str
    formats: tuple[str, ...]
    source: str
    cards: dict[str, dict[str, int]]


EVERY_SECTION = {"reach": 1}

HOUSE_RULES: dict[str, HouseRule] = {
    "tactic_reach": HouseRule(
        option="tactic_reach", as_written="one_section", house="every_section",
        formats=("epic1", "epic2", "epic3", "epic4"),
        source=('a player\'s post on C&C:N EPIC (blog "Discourses on Wargaming", June 2017, '
                '"C&C cards")'),
        cards={name: EVERY_SECTION for name in (
            "Bayonet Charge", "Bombard", "Cavalry Charge", "Elan", "Fire and Hold", "Leadership",
            "La Grande Manoeuvre", "Rally")}),
}

HOUSE_OPTIONS: dict[str, tuple[str, str]] = {h.option: (h.as_written, h.house) for h in HOUSE_RULES.values()}


def card_changes(rules: dict[str, str], game_format: str) -> dict[str, dict[str, int]]:
    """{card name: {column: value}} of the house rules in force in these `[rules]` and format."""
    out: dict[str, dict[str, int]] = {}
    for h in HOUSE_RULES.values():
        if rules.get(h.option) == h.house and game_format in h.formats:
            for name, cols in h.cards.items():
                out.setdefault(name, {}).update(cols)
    return out


for _h in HOUSE_RULES.values():  # a table names only the columns the card table can take
    assert all(c in CARD_COLUMNS for cols in _h.cards.values() for c in cols), _h.option
