"""The metric catalogue (napsim.model.metrics): words for every number napsim reports."""

from __future__ import annotations

import pytest

from napsim.model import metrics
from napsim.model.rulebook import rule_ids
from napsim.sim.metric_table import METRICS


def test_every_summary_metric_has_words():
    # the metric table (napsim.sim.metric_table) reads its words from the catalogue
    missing = [m for m in METRICS if not metrics.known(m)]
    assert missing == []
    assert METRICS["c1.initiative_share"].words({"c1": "Corps left wing"}).title.startswith("Corps left wing")


def test_every_catalogued_rule_id_exists_in_the_rules_reference():
    ids = set(rule_ids())
    cited = {r for name in metrics.catalogue_names() for r in metrics.describe(name).rules}
    assert cited - ids == set()
    assert len(cited) > 20


def test_titles_are_words_not_internal_names():
    for name in metrics.catalogue_names():
        info = metrics.describe(name)
        assert "_" not in info.title, name
        assert info.title != name
        assert info.unit and info.counts.endswith("."), name


def test_titles_are_unique():
    titles = [metrics.describe(n).title for n in metrics.catalogue_names()]
    assert len(titles) == len(set(titles))


def test_an_unknown_metric_is_an_error_not_a_guess():
    with pytest.raises(KeyError):
        metrics.describe("effective_per_tunr")
    with pytest.raises(metrics.NapsimInputError, match="unknown metric 'x'.*effective_per_turn"):
        metrics.require("x", "--metric", "metric")


def test_commander_metrics_take_the_format_roles():
    info = metrics.describe("c1.initiative_share", {"c1": "Corps left wing"})
    assert info.title == "Corps left wing: share of turns on initiative"
    assert not info.countable
    assert metrics.describe("cic.cards_passed").title == "CIC: cards passed a game"
    assert metrics.describe("cic.cards_passed").phrase.startswith("CIC")


def test_labels_say_whose_side():  # rule G7: Guerrilla counts sit on the Spanish row
    eff = metrics.describe("effective_per_turn")
    assert eff.label("French") == "Effective orders a turn (French)"
    assert eff.phrase == "effective orders a turn"
    denied = metrics.describe("g_denied_effective_per_turn")
    assert denied.viewpoint == metrics.OPPONENT
    assert denied.label("Spanish") == "French effective orders denied a turn (Spanish counters)"


@pytest.mark.parametrize("path,names,want", [
    ("sides.*.hand", None, "Command hand size, both sides"),
    ("sides.S.guerrilla", {"S": "Spanish"}, "Guerrilla counters at the start, Spanish"),
    ("sides.S.guerrilla", None, "Guerrilla counters at the start, side S"),
    ("sides.A.sections.L.infantry", {"A": "French"}, "Infantry units in the left section, French"),
    ("sides.S.sections.*.spanish", {"S": "Spanish"}, "Spanish units in every section, Spanish"),
    ("policy.*", None, "Policy, both sides"),
    ("policy.S.g_spend_mode", {"S": "Spanish"}, "Policy: when to spend counters, Spanish"),
    ("scenario.format+deck", None, "Game format and Command deck"),
    ("rules.initiative", None, "Rule option 'initiative'"),
    ("hand", None, "Hand size"),
    ("something.new", None, "something.new"),
])
def test_parameter_titles(path, names, want):
    assert metrics.parameter_title(path, names) == want
