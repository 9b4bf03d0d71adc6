"""What the planning player knows (rule P8, `lookahead_info`): a fair planner decides from its own
cards, the public table and the history; the opponent's hand is dealt again in every rollout.

The property itself, not only outcomes: tests/support/infoset.py asks the planner for each decision
it makes at several plies twice, from a game and from a copy that differs only in the opponent's
hidden cards (one card of a hidden hand swapped with one of another type in the draw pile: the same
unseen cards, the same history). A fair planner must decide the same every time, for the card
choice, the Spanish spend and the Scout keep, in EPIC and La Grande Battles; an open one (which sees
the real hand) does not always. It runs the planned kernel's own functions in plain Python
(NUMBA_DISABLE_JIT=1), so it needs no compile.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from napsim import NapsimInputError
from napsim.engine.layout import (
    CORPS_HIDDEN,
    CORPS_KNOWN,
    INFO_FAIR,
    INFO_OPEN,
    P_LOOKAHEAD_CORPS,
    P_LOOKAHEAD_INFO,
)
from napsim.model.policies import policy_vector

SCRIPT = Path(__file__).parent / "support" / "infoset.py"


def _cases(family: str, info: str, games: int, last_ply: int = 20, search: str = "full") -> list[dict]:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    out = subprocess.run([sys.executable, str(SCRIPT), family, info, str(games), str(last_ply), search],
                         capture_output=True, text=True, env=env, cwd=SCRIPT.parent.parent)
    assert out.returncode == 0, out.stderr[-3000:]
    return [json.loads(line) for line in out.stdout.splitlines()]


def _tally(cases: list[dict]) -> collections.Counter:
    """(step, decided the same) -> cases, over the decisions that had two candidates or more."""
    return collections.Counter((c["step"], c["same"]) for c in cases if c["live"])


def test_p8_fair_epic_card_choice_ignores_the_opponents_hidden_cards():
    # rule P8: one game of symmetric and tamames, plies 2, 5 and 8: the card choice from states
    # that differ only in the opponent's hidden cards
    tally = _tally(_cases("epic", "fair", 1, 9))
    assert tally[("choice", True)] >= 20
    assert sum(n for (_, same), n in tally.items() if not same) == 0, tally


def test_p8_fair_halving_search_ignores_the_opponents_hidden_cards_too():
    # rule P8: the halving search (screen and race) on fair rollouts: one game of symmetric and
    # tamames, plies 2, 5 and 8, every decision it plans
    tally = _tally(_cases("epic", "fair", 1, 9, "halving"))
    assert tally[("choice", True)] >= 20
    assert sum(n for (_, same), n in tally.items() if not same) == 0, tally


def test_p8_fair_race_search_ignores_the_opponents_hidden_cards_too():
    # rule P8: the race search on fair rollouts: one game of symmetric and tamames, plies 2, 5 and
    # 8, every decision it plans
    tally = _tally(_cases("epic", "fair", 1, 9, "race"))
    assert tally[("choice", True)] >= 20
    assert sum(n for (_, same), n in tally.items() if not same) == 0, tally


@pytest.mark.slow  # one game of each in plain Python
def test_p8_fair_halving_search_ignores_hidden_cards_in_la_grande_battles():
    # rule P8: the CIC's gifts, the Spanish spend and the Scout keep on the halving search
    tally = _tally(_cases("lgb", "fair", 1, 12, "halving"))
    assert tally[("choice", True)] >= 10
    assert sum(n for (_, same), n in tally.items() if not same) == 0, tally


@pytest.mark.slow  # two games of each, every third ply to 20, in plain Python (about a minute)
@pytest.mark.parametrize("family", ["epic", "lgb"])
def test_p8_fair_decisions_ignore_the_opponents_hidden_cards_open_ones_do_not(family):
    # rule P8: fair decides the same from states that differ only in hidden cards, for every
    # decision it plans (card choice or gifts, the Spanish spend, the Scout keep); open, which
    # sees the real hand, decides otherwise in some of the same situations
    fair = _tally(_cases(family, "fair", 2))
    assert sum(n for (_, same), n in fair.items() if not same) == 0, fair
    assert fair[("choice", True)] >= 60
    spend_or_keep = {"epic": ("spend", "keep"), "lgb": ("spend", "keep")}[family]
    for step in spend_or_keep:
        assert fair[(step, True)] >= 3, (step, fair)
    opened = _tally(_cases(family, "open", 2))
    assert opened[("choice", False)] >= 1, opened


@pytest.mark.parametrize("value", ["maybe", "2", "-1"])
def test_p8_lookahead_info_and_corps_refuse_other_values(value):
    # rule P8: the two readings are named; anything else is one line naming the parameter
    for param in ("lookahead_info", "lookahead_corps"):
        with pytest.raises(NapsimInputError, match=param):
            policy_vector("lookahead", {param: value})


def test_p8_fair_and_known_are_the_defaults_open_and_hidden_the_options():
    # rule P8: fair is the default, open the upper bound kept as an option; in La Grande Battles a
    # CIC knows his Corps commanders' hands unless lookahead_corps is hidden
    default = policy_vector("lookahead")
    assert default[P_LOOKAHEAD_INFO] == INFO_FAIR and default[P_LOOKAHEAD_CORPS] == CORPS_KNOWN
    other = policy_vector("lookahead", {"lookahead_info": "open", "lookahead_corps": "hidden"})
    assert other[P_LOOKAHEAD_INFO] == INFO_OPEN and other[P_LOOKAHEAD_CORPS] == CORPS_HIDDEN
