"""A/B timing of a planned turn (the lookahead player, rule P8) against other commits (developer tool).

Usage: taskset -c 1 python tools/ab_planned.py REV [REV ...] [--rounds N] [--games N]
[--scenario NAME] [--info open|fair] [--search full|race|halving] [--k K] [--d D]
(defaults: 4 rounds, 200 games a slice, symmetric, open, full, k 8, d 2).

Side A plans, side B plays greedy. Each round plays every version alone in a process of its own,
one after the other (REVs built once by tools/ab_release.py, in its cache, and the working tree),
each the best of three slices after a first slice that compiles or loads the kernel. Printed: us a
turn of the planning side (all the game's work over its turns), each round, and tree / REV per
round and for the medians. A version older than an option plays as the option's reading it had:
no `lookahead_search` is full, no `lookahead_info` is open (a clairvoyant planner). One process is
not a measurement of a kernel whose speed hangs on its code's layout (docs/speed.md, "A
clairvoyant planner's kernel compiles no deal of unseen cards"): compare rounds, not one.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ab_release  # noqa: E402  (the REVs' environments)

SOLO = """
import json, sys, time, numba
from napsim.sim.packing import Simulation
numba.set_num_threads(1)
opts, scenario, n = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3])
old = {"lookahead_search": "full", "lookahead_info": "open"}  # what a version without them played
for left_out in ([], ["lookahead_search"], ["lookahead_search", "lookahead_info"]):
    if any(opts.get(k, old[k]) != old[k] for k in left_out):
        sys.exit(f"this version has no {left_out[-1]} = {opts[left_out[-1]]}")
    try:
        sim = Simulation.build(scenario, policies=(("lookahead", {k: v for k, v in opts.items()
                                                                   if k not in left_out}),
                                                   ("greedy", {})))
        break
    except Exception as e:  # an option this version lacks: try without it; else the version's words
        if "unknown policy parameter" not in str(e):
            sys.exit(str(e))
else:
    sys.exit("this version plans with none of these options")
sim.run(n, 1, chunk=n)
turns = n * sim.scenario.turns  # the planning side's turns
best = float("inf")
for _ in range(3):
    t0 = time.process_time()
    sim.run(n, 1, chunk=n)
    best = min(best, time.process_time() - t0)
print(f"{best / turns * 1e6:.2f}")
"""


def _solo(version, opts: dict, scenario: str, games: int) -> float:
    """One version's us a planned turn, in a process of its own."""
    done = subprocess.run([str(version.python), "-c", SOLO, json.dumps(opts), scenario, str(games)],
                          cwd=version.source, env=version.env(), capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        sys.exit(f"ab_planned: {version.label}: {' '.join(tail)}")
    return float(done.stdout.split()[-1])


def _options(argv: list[str]) -> tuple[list[str], dict]:
    flags = {"--rounds": "4", "--games": "200", "--scenario": "symmetric", "--info": "open",
             "--search": "full", "--k": "8", "--d": "2"}
    revs = []
    i = 0
    while i < len(argv):
        if argv[i] in flags and i + 1 < len(argv):
            flags[argv[i]] = argv[i + 1]
            i += 2
        elif argv[i].startswith("--"):
            sys.exit(f"ab_planned: unknown option {argv[i]} (allowed: {', '.join(flags)})")
        else:
            revs.append(argv[i])
            i += 1
    if not revs:
        sys.exit(__doc__.split("\n\n")[1])
    return revs, flags


def main(argv: list[str]) -> None:
    revs, f = _options(argv)
    opts = {"lookahead_k": int(f["--k"]), "lookahead_d": int(f["--d"]),
            "lookahead_search": f["--search"], "lookahead_info": f["--info"]}
    tree = ab_release.Version("working tree", Path(sys.executable), ab_release.ROOT,
                              ab_release.CACHE / "tree-planned")
    versions = [ab_release.build(r) for r in revs] + [tree]
    times = {v.label: [] for v in versions}
    for r in range(int(f["--rounds"])):
        for v in versions if r % 2 == 0 else versions[::-1]:
            times[v.label].append(_solo(v, opts, f["--scenario"], int(f["--games"])))
        print(f"round {r + 1}: " + ", ".join(f"{k} {t[-1]:.1f}" for k, t in times.items()),
              file=sys.stderr)
    title = (f"us a turn of the planning side ({f['--scenario']}, {json.dumps(opts)}), best of 3 "
             f"slices of {f['--games']} games, each version alone in its process")
    print(report(times, tree.label, title))


def report(times: dict[str, list[float]], tree: str, title: str) -> str:
    """The table: each version's us a planned turn per round, its median, and tree / version of
    the medians (below 1: the tree plans a turn in less time)."""
    rounds = max(len(t) for t in times.values())
    lines = [title, "", "| version | " + " | ".join(f"round {r + 1}" for r in range(rounds))
             + " | median | tree / version (medians) |", "|---|" + "---:|" * (rounds + 2)]
    mine = statistics.median(times[tree])
    for label, t in times.items():
        med = statistics.median(t)
        lines.append(f"| {label} | " + " | ".join(f"{x:.1f}" for x in t)
                     + f" | {med:.1f} | {mine / med:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1:])
