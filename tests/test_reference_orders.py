"""The reference engines' own order arithmetic (tests/reference/orders.py, written from the rules)
against the kernel's pair tables (napsim.sim.tables.pair_tables): every pair of card types of the
shipped decks, every legal placement and every command size give the same nominal, effective and
unordered units per section, on armies chosen to reach every branch (empty sections, missing
unit types, leaders only)."""

from __future__ import annotations

import numpy as np
import pytest
from reference.orders import corps_card_orders, eligible, pair_orders

from napsim.model.cards import load_deck
from napsim.model.policies import PARAMS
from napsim.sim.tables import FILT_LEADER, UNIT_FILTERS, _eligible, card_table, pair_tables
from napsim.sim.tables_lgb import SRC_CIC, SRC_OWN, eval_corps_card

CMAX = 5  # hand sizes 0-5: every way a command number enters (cmd, all, fixed caps)
# [type][section]: infantry, cavalry, artillery, leaders in L, C, R
ARMIES = {
    "line": [[4, 6, 4], [2, 1, 2], [1, 2, 1], [1, 1, 1]],
    "thin": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]],
    "leaders only right": [[2, 3, 0], [0, 0, 0], [0, 0, 0], [0, 1, 2]],
    "empty centre": [[5, 0, 2], [0, 0, 3], [2, 0, 0], [1, 0, 0]],
    "no infantry": [[0, 0, 0], [2, 1, 2], [1, 2, 1], [0, 0, 0]],
}


def _tables(deck: str, army: list, standard: bool):
    name, _, variant = deck.partition(":")
    cards = card_table(load_deck(name), dice_max=CMAX)  # cca60: its rolled cards' types too (D2)
    if variant == "no-fallback":  # no shipped deck has a typed tactic card without the mark
        cards.fallback[:] = 0
    units = np.array([army, army], np.int64)
    policies = np.zeros((2, len(PARAMS)))
    return cards, units[0], pair_tables(cards, units, CMAX, policies, standard)


@pytest.mark.parametrize("army", sorted(ARMIES))
@pytest.mark.parametrize("deck, standard", [("gmt90", False), ("ccn70", True), ("cca60", False),
                                            ("ccn70:no-fallback", True),
                                            ("gmt90:no-fallback", False)])
def test_reference_orders_equal_the_pair_tables(deck, standard, army):
    # rule S2, rule E5, rule E6, rule E7: two independent versions of the same arithmetic (rule
    # D2: cca60's rolled cards with each number of ordering dice)
    cards, units, t = _tables(deck, ARMIES[army], standard)
    n = len(cards.names)
    checked = 0
    for a in range(n):
        for b in range(n):
            for i in range(t.n_place[0, a, b]):
                p = int(t.place_list[0, a, b, i])
                for c in range(CMAX + 1):
                    got = pair_orders(cards, units, [(a, p // 3), (b, p % 3)], c, standard)
                    want = (t.nominal[0, c, a, b, p].tolist(), t.eff[0, c, a, b, p].tolist(),
                            t.rem[0, c, a, b, p].tolist())
                    assert got == want, (cards.names[a], cards.names[b], p, c)
                    checked += 1
    assert checked > 3000


def test_reference_eligible_units_equal_the_kernels():
    # rule S2: the units a tactic card may order, per unit filter (Leadership: leader + his unit)
    rng = np.random.default_rng(5)
    py_eligible = _eligible.py_func
    for _ in range(200):
        units = rng.integers(0, 4, size=(4, 6))
        for filt in range(len(UNIT_FILTERS)):
            for x in range(6):
                assert eligible(units, filt, x) == py_eligible(units, filt, x), (units, filt, x)
    assert eligible(np.array([[1], [0], [0], [3]]), FILT_LEADER, 0) == 4  # 3 leaders, 1 unit


# [type][section of six L1 L2 C1 C2 R1 R2]: full wings, a wing without infantry, empty sections
ARMIES6 = {
    "full": [[3, 2, 4, 4, 2, 3], [1, 1, 1, 0, 1, 1], [1, 0, 1, 1, 0, 1], [1, 0, 1, 0, 0, 1]],
    "gaps": [[0, 0, 2, 0, 1, 0], [2, 0, 0, 0, 0, 1], [0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0]],
    "one wing empty": [[0, 0, 3, 1, 2, 2], [0, 0, 1, 1, 0, 0], [0, 0, 0, 1, 1, 0], [0, 0, 0, 0, 1, 1]],
}


@pytest.mark.parametrize("army", sorted(ARMIES6))
@pytest.mark.parametrize("deck", ["gmt90", "gmt90:no-fallback", "cca60"])
def test_reference_corps_card_orders_equal_the_lgb_tables(deck, army):
    # rule L3, rule L4, rule L5, rule S2: two independent versions of one Corps commander's orders
    # (rule D2: cca60's rolled cards with each number of ordering dice)
    cards, _, _ = _tables(deck, ARMIES["line"], False)
    units6 = np.array(ARMIES6[army], np.int64)
    force_march = np.zeros(len(cards.names), np.int64)  # the last slot: no card
    force_march[:-1] = load_deck(deck.partition(":")[0]).cards["force_march"].to_numpy()[cards.base[:-1]]
    kernel = getattr(eval_corps_card, "py_func", eval_corps_card)
    out = np.zeros(3, np.int64)
    checked = 0
    for t in range(len(cards.names)):  # the last index is the empty slot (no card)
        for k in range(3):
            for src in (SRC_CIC, SRC_OWN):
                for opt in range(2):
                    for c in range(CMAX + 1):
                        ok = kernel(t, src, opt, c, units6, k, cards.kind, cards.sec, cards.orders,
                                    cards.eq_cmd, cards.cap, cards.filt, cards.fallback,
                                    force_march, out)
                        want = tuple(int(v) for v in out) if ok else None
                        got = corps_card_orders(cards, units6, t, src == SRC_CIC, opt, c, k,
                                                force_march)
                        assert got == want, (cards.names[t], k, src, opt, c)
                        checked += want is not None
    assert checked > 1000
