"""House rules: options whose default is the rule as written, played through the card table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.enginerules import gmt_table, orders, units

from napsim.model import house_rules
from napsim.model.cards import load_deck
from napsim.model.errors import NapsimInputError
from napsim.model.house_rules import HOUSE_RULES, HouseRule, card_changes
from napsim.model.rulebook import load_options
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
from napsim.sim.tables import card_table

ROOT = Path(__file__).resolve().parents[1]
HOUSE = {"tactic_reach": "every_section"}
# four infantry in each section, nothing else: Bayonet Charge orders up to 4 infantry
INF = units(left=(4, 0, 0, 0), centre=(4, 0, 0, 0), right=(4, 0, 0, 0))


def house_table():
    return card_table(load_deck("gmt90"), card_changes(HOUSE, "epic1"))


def test_the_default_is_the_rule_as_written():
    sc = load_scenario("formats-armies")
    assert sc.rule("tactic_reach") == "one_section"
    assert card_changes(sc.rules, sc.format) == {}
    assert not gmt_table().reach.any()
    o = next(o for o in load_options() if o.name == "tactic_reach")
    assert o.house and o.default == "one_section" and "Discourses on Wargaming" in o.source


def test_every_house_rule_is_a_house_option_of_the_catalogue():
    # the card tables of napsim/model/house_rules.py and the [[option]] entries of kind "house" in
    # napsim/model/rulebook.toml (which the scenario loader reads) name the same options and values
    catalogue = {o.name: (o.default, tuple(v.name for v in o.values), o.formats)
                 for o in load_options() if o.house}
    tables = {h.option: (h.as_written, (h.as_written, h.house), h.formats) for h in HOUSE_RULES.values()}
    assert catalogue == tables and "tactic_reach" in tables


def test_as_written_a_tactic_card_orders_in_its_own_section_only():
    # rule E3: a Bayonet Charge next to a section with no infantry left to order orders nothing there
    nominal, eff, _ = orders(gmt_table(), "Bayonet Charge", None, INF, pa=0)
    assert eff == [4, 0, 0]
    # its four orders stay in the Left even where the Left has one infantry unit
    few = units(left=(1, 0, 0, 0), centre=(4, 0, 0, 0), right=(4, 0, 0, 0))
    _, eff, _ = orders(gmt_table(), "Bayonet Charge", None, few, pa=0)
    assert eff == [1, 0, 0]


def test_the_house_rule_orders_the_named_tactic_cards_in_every_section():
    # rule E3 under tactic_reach = every_section: the card's units come from its section first,
    # then from the others, as in the standard game
    few = units(left=(1, 0, 0, 0), centre=(4, 0, 0, 0), right=(4, 0, 0, 0))
    ct = house_table()
    _, eff, _ = orders(ct, "Bayonet Charge", None, few, pa=0)
    assert sum(eff) == 4 and eff[0] == 1
    assert orders(ct, "Bayonet Charge", None, few, pa=0, standard=True)[1] == eff  # as the standard game
    # a tactic card the post does not name keeps the rule as written
    _, eff, _ = orders(ct, "First Strike", None, few, pa=0)
    assert eff == orders(gmt_table(), "First Strike", None, few, pa=0)[1]
    names = {n for n, r in zip(ct.names, ct.reach, strict=True) if r}
    assert names == set(HOUSE_RULES["tactic_reach"].cards) & set(ct.names)


def test_the_house_rule_is_refused_in_la_grande_battles_and_changes_nothing_in_the_standard_game():
    with pytest.raises(NapsimInputError, match="tactic_reach.*house rule"):
        load_scenario("lgb-symmetric", {"rules.tactic_reach": "every_section"})
    runs = []
    for value in ("one_section", "every_section"):
        sc = load_scenario("formats-armies", {"scenario.format": "standard", "scenario.deck": "ccn70",
                                              "rules.tactic_reach": value})
        runs.append(Simulation.build(sc).run(200, 3).summary())
    assert runs[0].equals(runs[1])


def test_the_house_rule_gives_more_orders_a_turn_in_epic():
    # rule E3: 400 paired games of EPIC one a side; the tables alone carry the house rule
    got = []
    for value in ("one_section", "every_section"):
        sc = load_scenario("formats-armies", {"rules.tactic_reach": value})
        s = Simulation.build(sc).run(400, 5).summary()
        got.append(s[(s.metric == "effective_per_turn") & (s.side_key == "A")].iloc[0])
    assert got[1]["ci_low"] > got[0]["ci_high"]


def test_a_second_house_rule_is_a_data_change(monkeypatch):
    # a made-up house rule: Elan carries four stars in EPIC; one entry of the table, no kernel change
    extra = HouseRule("elan_stars", "three", "four", ("epic1",), "a test", {"Elan": {"stars": 4}})
    monkeypatch.setitem(house_rules.HOUSE_RULES, "elan_stars", extra)
    ct = card_table(load_deck("gmt90"), card_changes({"elan_stars": "four"}, "epic1"))
    i = ct.names.index("Elan")
    assert ct.stars[i] == 4 and gmt_table().stars[i] == 3
    others = np.arange(len(ct.names)) != i
    assert np.array_equal(ct.stars[others], gmt_table().stars[others])


def test_docs_show_house_rules_apart_with_their_source():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    house = text.split("## House rules", 1)[1].split("## Fixed readings", 1)[0]
    options = text.split("## Scenario rule options", 1)[1].split("## House rules", 1)[0]
    assert "### `tactic_reach`" in house and "Discourses on Wargaming" in house
    assert "`tactic_reach`" not in options
