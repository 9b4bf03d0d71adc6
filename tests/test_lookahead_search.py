"""How the planning player spends its rollouts (rule P8, `lookahead_search`): `full` plays every
candidate lookahead_k times; `halving` races greedy's best few on the same rollouts and keeps the
better half of each round. The halving search decides among the full search's candidates, as the
full one where there is a single candidate, the same whatever threads and chunks, and with hidden
cards dealt again like the full one (tests/test_lookahead_info.py: the information property)."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from napsim.engine import layout
from napsim.model.errors import NapsimInputError
from napsim.model.policies import DEFAULTS, policy_vector
from napsim.sim.packing import Simulation

SCRIPT = Path(__file__).parent / "support" / "infoset.py"


def _legal_cases(family: str, games: int, last_ply: int) -> list[dict]:
    """infoset.py's legal mode: the halving and the full search from the same states."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    out = subprocess.run([sys.executable, str(SCRIPT), family, "legal", str(games), str(last_ply)],
                         capture_output=True, text=True, env=env, cwd=SCRIPT.parent.parent)
    assert out.returncode == 0, out.stderr[-3000:]
    return [json.loads(line) for line in out.stdout.splitlines()]


def _check_legal(cases: list[dict]) -> collections.Counter:
    assert cases and all(c["legal"] for c in cases), [c for c in cases if not c["legal"]][:5]
    # one candidate (or none to plan): nothing to search, the same decision as the full search
    assert all(c["same"] for c in cases if c["n"] <= 1)
    return collections.Counter((c["step"], c["n"] > 1) for c in cases)


def test_p8_halving_decides_among_the_candidates_and_as_full_with_one_epic():
    # rule P8: symmetric and tamames, both sides planning, plies 2, 5, 8 and 11: the card choice,
    # the Spanish spend and the Scout keep
    tally = _check_legal(_legal_cases("epic", 1, 12))
    assert tally[("choice", True)] >= 8, tally


@pytest.mark.slow  # La Grande Battles in plain Python (about a minute)
def test_p8_halving_decides_among_the_candidates_and_as_full_with_one_lgb():
    # rule P8: lgb-symmetric with and without Spanish Corps commanders, the CIC's gifts
    tally = _check_legal(_legal_cases("lgb", 1, 9))
    assert tally[("choice", True)] >= 4, tally


def test_p8_lookahead_search_names_its_two_values_and_refuses_others():
    # rule P8: full and halving by name (or 0 and 1); anything else is one line naming the parameter
    assert policy_vector("lookahead", {"lookahead_search": "full"})[layout.P_LOOKAHEAD_SEARCH] == \
        layout.SEARCH_FULL
    assert policy_vector("lookahead", {"lookahead_search": "halving"})[layout.P_LOOKAHEAD_SEARCH] == \
        layout.SEARCH_HALVING
    for value in ("fast", "2", "-1", "0.5"):
        with pytest.raises(NapsimInputError, match="lookahead_search") as err:
            policy_vector("lookahead", {"lookahead_search": value})
        assert "\n" not in str(err.value)
    with pytest.raises(NapsimInputError, match="not of 'greedy'"):
        policy_vector("greedy", {"lookahead_search": "halving"})
    assert DEFAULTS["lookahead"]["lookahead_search"] in (layout.SEARCH_FULL, layout.SEARCH_HALVING)


def _digest(sim: Simulation, games: int, chunk: int):
    r = sim.run(games, 11, chunk=chunk, per_game=True)
    return r.totals.tolist(), r.per_game.tobytes(), r.rack_wait.tolist()


def test_p8_halving_same_results_whatever_threads_and_chunks(restore_threads):
    # rule P8: the race is a function of (seed, game, ply): its rounds never depend on a block
    halving = ("lookahead", {"lookahead_k": 4, "lookahead_search": "halving"})
    sim = Simulation.build("symmetric", policies=(halving, ("greedy", {})))
    numba.set_num_threads(1)
    one = _digest(sim, 24, 24)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    assert _digest(sim, 24, 5) == one
    assert _digest(sim, 24, 7) == one
    full = ("lookahead", {"lookahead_k": 4, "lookahead_search": "full"})
    assert _digest(Simulation.build("symmetric", policies=(full, ("greedy", {}))), 24, 24) != one


def test_p8_halving_on_one_candidate_is_greedy_bit_for_bit():
    # rule P8: a halving planner that examines the greedy choice alone plays greedy's games
    greedy = _digest(Simulation.build("symmetric"), 40, 40)
    one = ("lookahead", {"lookahead_top": 1, "lookahead_search": "halving"})
    assert _digest(Simulation.build("symmetric", policies=(one, one)), 40, 40) == greedy


@pytest.mark.slow
def test_p8_halving_keeps_the_planners_gain_over_greedy():
    # rule P8: on the same games, the halving planner's effective orders a turn beat greedy's
    n = 600
    eff = slice(layout.M_EFF, layout.M_EFF + 3)
    g = Simulation.build("tamames").run(n, 2, chunk=n, per_game=True).per_game
    halving = ("lookahead", {"lookahead_search": "halving"})
    la = Simulation.build("tamames", policies=(halving, ("greedy", {}))).run(
        n, 2, chunk=n, per_game=True).per_game
    turns = la[:, 0, layout.M_TURNS]
    diff = (la[:, 0, eff].sum(1) - g[:, 0, eff].sum(1)) / turns
    assert diff.mean() - 1.96 * diff.std(ddof=1) / np.sqrt(n) > 0.0
