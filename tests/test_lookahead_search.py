"""How the planning player spends its rollouts (rule P8, `lookahead_search`): `full` plays every
candidate lookahead_k times; `halving` races greedy's best few on the same rollouts and keeps the
better half of each round; `race` plays every candidate's rollouts in turn and leaves out each one
clearly behind the leader. Each search decides among the full search's candidates, as the full one
where there is a single candidate, the same whatever threads and chunks, and with hidden cards
dealt again like the full one (tests/test_lookahead_info.py: the information property)."""

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
from napsim.engine.planner import RACE_Z, race_cut
from napsim.model.errors import NapsimInputError
from napsim.model.policies import DEFAULTS, policy_vector
from napsim.sim.packing import Simulation

SCRIPT = Path(__file__).parent / "support" / "infoset.py"


def _legal_cases(family: str, games: int, last_ply: int, search: str = "halving") -> list[dict]:
    """infoset.py's legal mode: another search (halving, race) and the full one from the same
    states."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONWARNINGS="ignore")
    out = subprocess.run([sys.executable, str(SCRIPT), family, "legal", str(games), str(last_ply),
                          search],
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


def test_p8_race_decides_among_the_candidates_and_as_full_with_one_epic():
    # rule P8: the race search at the same plies and decisions as the halving one above
    tally = _check_legal(_legal_cases("epic", 1, 12, "race"))
    assert tally[("choice", True)] >= 8, tally


@pytest.mark.slow  # La Grande Battles in plain Python (about a minute)
def test_p8_race_decides_among_the_candidates_and_as_full_with_one_lgb():
    # rule P8: lgb-symmetric with and without Spanish Corps commanders, the CIC's gifts
    tally = _check_legal(_legal_cases("lgb", 1, 9, "race"))
    assert tally[("choice", True)] >= 4, tally


@pytest.mark.slow  # La Grande Battles in plain Python (about a minute)
def test_p8_halving_decides_among_the_candidates_and_as_full_with_one_lgb():
    # rule P8: lgb-symmetric with and without Spanish Corps commanders, the CIC's gifts
    tally = _check_legal(_legal_cases("lgb", 1, 9))
    assert tally[("choice", True)] >= 4, tally


def test_p8_lookahead_search_names_its_three_values_and_refuses_others():
    # rule P8: full, halving and race by name (or 0, 1 and 2); anything else is one line naming the
    # parameter
    for name, code in (("full", layout.SEARCH_FULL), ("halving", layout.SEARCH_HALVING),
                       ("race", layout.SEARCH_RACE)):
        assert policy_vector("lookahead", {"lookahead_search": name})[layout.P_LOOKAHEAD_SEARCH] == code
    for value in ("fast", "3", "-1", "0.5"):
        with pytest.raises(NapsimInputError, match="lookahead_search") as err:
            policy_vector("lookahead", {"lookahead_search": value})
        assert "\n" not in str(err.value)
    with pytest.raises(NapsimInputError, match="not of 'greedy'"):
        policy_vector("greedy", {"lookahead_search": "halving"})
    assert DEFAULTS["lookahead"]["lookahead_search"] == layout.SEARCH_RACE  # full: the reference


def _digest(sim: Simulation, games: int, chunk: int):
    r = sim.run(games, 11, chunk=chunk, per_game=True)
    return r.totals.tolist(), r.per_game.tobytes(), r.rack_wait.tolist()


@pytest.mark.parametrize("search", ["halving", "race"])
def test_p8_halving_same_results_whatever_threads_and_chunks(restore_threads, search):
    # rule P8: the halving's and the race's rounds are a function of (seed, game, ply), never of a
    # block
    other = ("lookahead", {"lookahead_k": 4, "lookahead_search": search})
    sim = Simulation.build("symmetric", policies=(other, ("greedy", {})))
    numba.set_num_threads(1)
    one = _digest(sim, 24, 24)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    assert _digest(sim, 24, 5) == one
    assert _digest(sim, 24, 7) == one
    if search == "halving":  # (the race keeps full's choice wherever the leader stays ahead)
        full = ("lookahead", {"lookahead_k": 4, "lookahead_search": "full"})
        assert _digest(Simulation.build("symmetric", policies=(full, ("greedy", {}))), 24, 24) != one


@pytest.mark.parametrize("search", ["halving", "race"])
def test_p8_halving_on_one_candidate_is_greedy_bit_for_bit(search):
    # rule P8: a halving or racing planner that examines the greedy choice alone plays greedy's games
    greedy = _digest(Simulation.build("symmetric"), 40, 40)
    one = ("lookahead", {"lookahead_top": 1, "lookahead_search": search})
    assert _digest(Simulation.build("symmetric", policies=(one, one)), 40, 40) == greedy


def _race_cut_reference(vals: np.ndarray, alive: np.ndarray) -> set[int]:
    """The race's rule written plainly: the candidates that stay after rollouts vals[:, :r]."""
    live = [m for m in range(len(alive)) if alive[m] == 1.0]
    sums = vals.sum(axis=1)
    lead = min(m for m in live if sums[m] == max(sums[k] for k in live))  # ties: the earlier
    diffs = {m: vals[m] - vals[lead] for m in live if m != lead}
    r = vals.shape[1]
    se = np.sqrt(np.mean([d.var(ddof=1) for d in diffs.values()]) / r) if diffs else 0.0
    return {lead} | {m for m, d in diffs.items() if d.mean() + RACE_Z * se >= -1e-9}


def test_p8_race_cut_keeps_what_the_plain_rule_keeps():
    # rule P8: the race's cut (planner.race_cut) against the rule written plainly, on random
    # rollout values (integers, as effective orders are: ties and equal differences included)
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(300):
        n, r = int(rng.integers(2, 9)), int(rng.integers(2, 9))
        vals = rng.integers(-3, 4, size=(n, r)).astype(float) + rng.integers(0, 3, size=(n, 1))
        alive = (rng.random(n) < 0.8).astype(float)
        alive[int(rng.integers(n))] = 1.0
        want = _race_cut_reference(vals, alive)
        cval = np.where(alive == 1.0, vals.sum(axis=1), -np.inf)
        got_alive = alive.copy()
        left = getattr(race_cut, "py_func", race_cut)(n, r, cval, vals, got_alive)
        assert {m for m in range(n) if got_alive[m] == 1.0} == want
        assert left == len(want)
        assert all(cval[m] == -np.inf for m in range(n) if got_alive[m] == 0.0)
        seen.add(len(want) < int(alive.sum()))
    assert seen == {True, False}  # some cuts left candidates out, some kept them all


@pytest.mark.slow
@pytest.mark.parametrize("search", ["halving", "race"])
def test_p8_halving_keeps_the_planners_gain_over_greedy(search):
    # rule P8: on the same games, the halving or racing planner's effective orders a turn beat
    # greedy's
    n = 600
    eff = slice(layout.M_EFF, layout.M_EFF + 3)
    g = Simulation.build("tamames").run(n, 2, chunk=n, per_game=True).per_game
    halving = ("lookahead", {"lookahead_search": search})
    la = Simulation.build("tamames", policies=(halving, ("greedy", {}))).run(
        n, 2, chunk=n, per_game=True).per_game
    turns = la[:, 0, layout.M_TURNS]
    diff = (la[:, 0, eff].sum(1) - g[:, 0, eff].sum(1)) / turns
    assert diff.mean() - 1.96 * diff.std(ddof=1) / np.sqrt(n) > 0.0
