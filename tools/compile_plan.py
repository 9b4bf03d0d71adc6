"""Write napsim/engine/compile_plan.json from real compiles (developer tool, issue 28).

Usage: python tools/compile_plan.py [--check]
For every shipped scenario (greedy on both sides) and for the lookahead policy on symmetric and
lgb-symmetric, the kernel's argument types (`compile_plan.args_key`); for each distinct key, a
fresh interpreter with an empty numba cache compiles the kernel on dry tables and records the
cached helpers its compile reaches (`compile_plan.Recorder`). Run it after changing the arguments
of a helper decorated `inlined_cached` (a stale plan costs a first run time, never a wrong game);
`--check` only compares, and exits 1 when the file is not current.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = [(p.stem, "greedy,greedy") for p in sorted((ROOT / "napsim/data/scenarios").glob("*.toml"))] + [
    ("symmetric", "lookahead,greedy"), ("lgb-symmetric", "lookahead,greedy")]

CHILD = """
import json, sys
from numba.core import event
from napsim.api import parse_policy_option
from napsim.engine.compile_plan import Recorder, args_key
from napsim.model.scenarios import load_scenario
from napsim.sim.packing import Simulation
sim = Simulation.build(load_scenario(sys.argv[1]), parse_policy_option(sys.argv[2]), dry=True)
kind, kargs = sim.kernel_args()
if sys.argv[3] == "key":
    print(json.dumps(args_key(kind, kargs)))
else:
    rec = Recorder()
    event.register("numba:compile", rec)
    sim.compile_kernel()
    print(json.dumps(rec.entries))
"""


def _child(scenario: str, policy: str, what: str, cache: str):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", CHILD, scenario, policy, what], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def build_plan() -> dict:
    """{"kernels": {key: entries}} for every case (a compile per distinct key)."""
    kernels: dict[str, list] = {}
    with tempfile.TemporaryDirectory(prefix="napsim-plan-") as tmp:
        for i, (scenario, policy) in enumerate(CASES):
            key = _child(scenario, policy, "key", f"{tmp}/keys")
            if key in kernels:
                continue
            print(f"compile_plan: {scenario} {policy} -> {key}", file=sys.stderr)
            kernels[key] = _child(scenario, policy, "record", f"{tmp}/c{i}")
    return {"about": "written by tools/compile_plan.py; see napsim/engine/compile_plan.py",
            "kernels": dict(sorted(kernels.items()))}


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print("usage: python tools/compile_plan.py [--check]", file=sys.stderr)
        return 2
    from napsim.engine.compile_plan import PLAN_FILE
    text = json.dumps(build_plan(), indent=1) + "\n"
    if argv[:1] == ["--check"]:
        current = PLAN_FILE.read_text() if PLAN_FILE.exists() else ""
        print("current" if current == text else "stale: run python tools/compile_plan.py")
        return 0 if current == text else 1
    PLAN_FILE.write_text(text)
    print(f"wrote {PLAN_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
