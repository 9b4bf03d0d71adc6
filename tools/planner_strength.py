"""How strong and how costly a planning player is, against greedy play on the same games.

    python tools/planner_strength.py symmetric A 2000 "lookahead" "lookahead:lookahead_search=full"

For each planner given (`lookahead:...` as on the command line), on `scenario` with that planner for
`side` and greedy play for the other: its side's effective orders a turn minus greedy play's on the
same games (paired, 95% interval), the other side's change, and the seconds of play on one thread.
One JSON line each; the first line is greedy against greedy (the reference). Used for the planner's
search (docs/speed.md): a cheaper search must keep its gain inside the full search's interval.
"""

from __future__ import annotations

import json
import sys
import time

import numba
import numpy as np

from napsim.engine.layout import METRIC_NAMES
from napsim.model.policies import parse_policy_option
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation

M = {name: i for i, name in enumerate(METRIC_NAMES)}
EFF = [M[f"effective_{s}"] for s in "LCR"]
TURNS = M["turns"]


def per_turn(rows: np.ndarray) -> np.ndarray:
    """[game, side] effective orders a turn."""
    return rows[:, :, EFF].sum(axis=2) / np.maximum(rows[:, :, TURNS], 1)


def play(scenario: str, side: int, policy: str, games: int, seed: int) -> tuple[np.ndarray, float]:
    ((name, params),) = parse_policy_option(policy, "policy")
    pols = [("greedy", {}), ("greedy", {})]
    pols[side] = (name, params)
    sim = Simulation.build(load_scenario(scenario), tuple(pols))
    sim.run(1, seed + 1, chunk=1)  # compiled before the clock starts
    t = time.perf_counter()
    out = sim.run(games, seed, per_game=True)
    return per_turn(out.per_game), time.perf_counter() - t


def main() -> None:
    scenario, side_key, games, *planners = sys.argv[1:]
    games = int(games)
    numba.set_num_threads(1)
    sides = [s.key for s in load_scenario(scenario).sides]
    side = sides.index(side_key)
    ref, secs = play(scenario, side, "greedy", games, 1)
    print(json.dumps({"policy": "greedy", "seconds": round(secs, 2)}), flush=True)
    for policy in planners:
        got, secs = play(scenario, side, policy, games, 1)
        line = {"policy": policy, "seconds": round(secs, 2), "games": games}
        for who, s in (("own", side), ("other", 1 - side)):
            d = got[:, s] - ref[:, s]
            h = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
            line[f"{who}_gain"] = [round(float(d.mean()), 4), round(float(d.mean() - h), 4),
                                   round(float(d.mean() + h), 4)]
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
