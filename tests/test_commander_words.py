"""Commanders named by what they command: a sub-commander by his section (his CIC holds another),
a Corps commander by his; commanders.csv without counts no commander ever had."""

from __future__ import annotations

import napsim
from napsim.sim.summary import commander_roles


def test_sub_commanders_are_named_by_their_sections():
    assert commander_roles("epic3", 1) == {"cic": "CIC (centre section)",
                                           "c1": "sub-commander of the left section",
                                           "c2": "sub-commander of the right section"}
    assert commander_roles("epic3", 0)["c1"] == "sub-commander of the centre section"
    assert commander_roles("epic4")["c3"] == "Corps commander of the right section"
    assert commander_roles("lgb")["c1"] == "Corps left wing"


def test_summary_trace_and_commanders_csv_use_the_names_and_drop_silent_columns():
    run = napsim.simulate("epic3-tamames", {"sides.S.cic_section": "L"}, games=200)
    frame = run.result.commander_frame()
    spanish = frame[frame["side"] == "Spanish"]["role"].tolist()
    assert spanish == ["CIC (left section)", "sub-commander of the centre section",
                       "sub-commander of the right section"]
    assert "sub-commander 1" not in " ".join(frame["role"])
    numbers = frame.drop(columns=["side", "commander", "role", "games"])
    assert numbers.any().all(), [c for c in numbers if not numbers[c].any()]
    assert "card_effective_first_half" not in frame.columns
    titles = run.summary.loc[run.summary["metric"] == "c1.cards_received", "title"].tolist()
    assert titles == ["Sub-commander of the left section: cards received from the CIC a game",
                      "Sub-commander of the centre section: cards received from the CIC a game"]
    text = napsim.api.trace_text("epic3-tamames", seed=1, game=0)
    assert "sub-commander of the" in text and "sub-commander 1" not in text
