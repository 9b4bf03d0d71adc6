"""ns a turn of the EPIC kernel alone, one core (developer tool, issue 28).

Usage (in the source folder of the napsim to time, with its own Python and numba cache):
    python tools/kernel_turn_ns.py LABEL [r672]
`play_chunk` of 20,000 games, best of 5, per-game rows off and on, for EPIC 1 (symmetric) and
EPIC 2-4 (formats-armies). Works on the sim layer of 672fd31 (napsim.simulate) and of today
(napsim.sim); `r672` sets the rule options to the readings 672fd31 played (today's tree only).
To time a past revision: `python -c "import sys; sys.path.insert(0, 'tools'); import ab_release
as a; a.build('REV')"`, then run this file with ~/.cache/napsim-ab/SHA/venv/bin/python from
~/.cache/napsim-ab/SHA/src with NUMBA_CACHE_DIR=~/.cache/napsim-ab/SHA/numba and PYTHONPATH empty.
"""

import sys
import time

import numba

try:
    from napsim.model.scenarios import load_scenario
    from napsim.sim.packing import Simulation
    try:
        from napsim.sim.runner import play_chunk
    except ImportError:
        from napsim.sim.packing import play_chunk
except ImportError:  # 672fd31's layout
    from napsim.scenarios import load_scenario
    from napsim.simulate import Simulation, play_chunk
from napsim.engine.rng import seed_key

R672 = {"rules.initiative": "no_card_no_orders", "rules.same_section_receiver": "one_commander",
        "rules.cic_keeps": "both", "rules.elan_order": "draw_first",
        "rules.counter_attack_copies": "hand", "rules.counter_attack_section": "any",
        "rules.spent_counters": "all_return"}
FORMATS = [("symmetric", "epic1"), ("formats-armies", "epic2"), ("formats-armies", "epic3"),
           ("formats-armies", "epic4")]


def main(label: str, readings: dict) -> None:
    numba.set_num_threads(1)
    out = []
    for name, game_format in FORMATS:
        ov = ({} if name == "symmetric" else {"scenario.format": game_format}) | readings
        sim = Simulation.build(load_scenario(name, overrides=ov))
        args, key, n = sim.kernel_args(), seed_key(1), 20_000
        turns = n * 2 * sim.scenario.turns
        for per_game in (False, True):
            play_chunk(args, key, 0, n, False, per_game)  # compile, warm up
            best = float("inf")
            for _ in range(5):
                t0 = time.process_time()
                play_chunk(args, key, 0, n, False, per_game)
                best = min(best, time.process_time() - t0)
            out.append(f"{game_format} rows {'on' if per_game else 'off'}: {best / turns * 1e9:.1f} ns/turn")
    print(label, " | ".join(out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "napsim", R672 if "r672" in sys.argv[2:] else {})
