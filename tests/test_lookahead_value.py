"""The lookahead's value and its planned Guerrilla spend (rules P8, P4): the two readings of what a
rollout counts (`lookahead_value`: own orders, or own less the opponent's), the spend decision of
a planning Spanish side in tamames, its replay and its errors. The tamames games run on the planned
kernel with the Guerrilla and commander code (about 20 s to compile), which only the slow run
compiles (tests/support/warmup.py): they are marked slow."""

from __future__ import annotations

import numpy as np
import pytest
from support.cli import napsim_main
from support.tracetools import CODE, SIDE, C, E, M

from napsim.engine import layout
from napsim.model.errors import NapsimInputError
from napsim.model.policies import policy_vector
from napsim.sim.packing import Simulation
from napsim.sim.summary import estimate, paired_difference

FRENCH, SPANISH = 0, 1  # tamames: the French move first
NEVER = {"g_spend_mode": "threshold", "g_threshold": "99"}  # P4: greedy never spends


def _planner(value: str, **extra) -> Simulation:
    params = {"lookahead_k": "4", "lookahead_d": "1", "lookahead_value": value, **extra}
    return Simulation.build("tamames", policies=(("greedy", {}), ("lookahead", params)))


def _spent(per_game: np.ndarray) -> float:
    """Counters the Spanish spent a French turn."""
    return per_game[:, SPANISH, M["g_spent"]].sum() / per_game[:, FRENCH, M["turns"]].sum()


@pytest.mark.slow
def test_p8_p4_the_planner_spends_where_the_margin_pays_and_own_does_not():
    # rules P8, P4: greedy with g_threshold 99 never spends (P4), nor do the rollouts, which play
    # it. A counter spent then takes the French card's orders off this turn (5 times in 6) and
    # costs nothing later: under `margin` the planner spends on French cards that order something;
    # under `own` it counts only what the French card does to the Spanish orders by the cards (the
    # card a Counter-Attack copies, the draws), mostly nothing, ties go to greedy's keep, and it
    # spends a third as often.
    n, seed = 40, 3
    greedy = Simulation.build("tamames", policies=(("greedy", {}), ("greedy", NEVER)))
    assert _spent(greedy.run(n, seed, chunk=n, per_game=True).per_game) == 0
    margin = _planner("margin", **NEVER)
    own = _planner("own", **NEVER)
    spent_margin = _spent(margin.run(n, seed, chunk=n, per_game=True).per_game)
    spent_own = _spent(own.run(n, seed, chunk=n, per_game=True).per_game)
    assert spent_margin > 0.1
    assert spent_own < spent_margin / 2
    # every counter the margin planner spends is spent on a French card that orders something
    attempts = 0
    for g in range(4):
        _, ev = margin.trace(seed, g)
        rows = ev[(ev[:, CODE] == layout.EV_G_ATTEMPT) & (ev[:, SIDE] == SPANISH)]
        spent = rows[rows[:, E] != layout.G_OUT_DECLINED]
        attempts += len(spent)
        assert (spent[:, C] > 0).all()
    assert attempts > 0


@pytest.mark.slow
def test_p8_p4_a_planning_spanish_side_nullifies_more_french_orders_under_margin():
    # rules P8, P4: tamames, the Spanish planning (their counters spent as P4's greedy rule offers
    # them: at every chance), the French greedy, the same games under both readings: under
    # `margin` the planner counts the French orders a counter takes away, under `own` it does not
    # (issue 30's skill study: planning Spanish under `own` nullified fewer French cards than
    # greedy ones). The paired interval of the French effective orders they deny a French turn.
    n, seed = 80, 5
    runs = {v: _planner(v).run(n, seed, chunk=n, per_game=True).per_game for v in ("own", "margin")}
    denied = {v: estimate(r[:, SPANISH, M["g_denied_effective"]].astype(float),
                          r[:, FRENCH, M["turns"]].astype(float)) for v, r in runs.items()}
    d = paired_difference(denied["own"], denied["margin"])
    assert d["n"] == n and d["ci_low"] > 0.0, d
    french = {v: estimate(r[:, FRENCH, M["effective_L"]:M["effective_R"] + 1].sum(1).astype(float),
                          r[:, FRENCH, M["turns"]].astype(float)) for v, r in runs.items()}
    assert paired_difference(french["own"], french["margin"])["ci_high"] < 0.0  # the French get fewer


@pytest.mark.slow
def test_p8_p4_a_trace_replays_a_planned_spend():
    # rule P8: a game with planned spend decisions is a function of (seed, game index): the trace
    # plays it again, its metrics those of the run's game
    sim = _planner("margin", **NEVER)
    r = sim.run(3, 9, chunk=3, per_game=True)
    met, ev = sim.trace(9, 2)
    assert (r.per_game[2] == met).all()
    assert met[SPANISH, M["g_spent"]] > 0  # spent where greedy never spends: planned
    assert met[SPANISH, M["invariant_violations"]] == 0 == met[FRENCH, M["invariant_violations"]]


@pytest.mark.parametrize(("value", "needle"), [("both", "'both' is not a mode"), ("2", "is not a mode"),
                                               ("-1", "is not a mode")])
def test_p8_bad_values_of_the_value_reading_are_one_line_errors(value, needle, monkeypatch, tmp_path):
    # rule P8: lookahead_value is own or margin (or 0, 1); anything else names the field and the
    # allowed values, one line, exit 2
    with pytest.raises(NapsimInputError, match="lookahead_value") as e:
        policy_vector("lookahead", {"lookahead_value": value})
    assert needle in str(e.value) and "own" in str(e.value) and "margin" in str(e.value)
    code, out, err = napsim_main(monkeypatch, "simulate", "--scenario", "tamames", "--games", "1",
                                 "--policy", f"greedy,lookahead:lookahead_value={value}",
                                 "--out", str(tmp_path / "run"))
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("napsim: error:") and "lookahead_value" in line and "margin" in line, line
    with pytest.raises(NapsimInputError, match="not of 'greedy'"):
        policy_vector("greedy", {"lookahead_value": "own"})


def test_p8_the_value_readings_pack_by_name_and_margin_is_the_default():
    # rule P8: the names and the numbers pack alike; the default reading is margin (the rule text
    # says why)
    vec = policy_vector("lookahead")
    assert vec[layout.P_LOOKAHEAD_VALUE] == layout.VALUE_MARGIN
    for name, number in (("own", "0"), ("margin", "1")):
        a = policy_vector("lookahead", {"lookahead_value": name})
        assert (a == policy_vector("lookahead", {"lookahead_value": number})).all()
    own = policy_vector("lookahead", {"lookahead_value": "own"})
    assert own[layout.P_LOOKAHEAD_VALUE] == layout.VALUE_OWN
