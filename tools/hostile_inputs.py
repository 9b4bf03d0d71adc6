"""Try napsim as a hostile user would (issue 16) and print a markdown table of the outcomes.

    python tools/hostile_inputs.py                 # the fixed catalogue + 200 generated cases a kind
    python tools/hostile_inputs.py -n 1000 --timeout 30

The catalogue of named bad inputs is `tests/support/hostile.py` and the generated cases (broken deck
CSVs, scenario TOMLs, study TOMLs, command lines) are `tests/support/hostile_gen.py`, the same ones
`tests/test_hostile_inputs.py` runs. Every case runs in this process through `napsim.cli.main` and
is counted as a clean error (exit 2, one `napsim: error:` line, nothing written), a traceback, a
hang (past --timeout), accepted (exit 0) or unclean (any other outcome). Exits 1 unless every case
is a clean error.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "tests"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from support.hostile import CATALOGUE, folder_unchanged, run_cli  # noqa: E402
from support.hostile_gen import cli_cases, deck_cases, scenario_cases, study_cases  # noqa: E402

VERDICTS = ("clean", "traceback", "hang", "accepted", "unclean")
STRATEGIES = {"deck CSV": deck_cases, "scenario TOML": scenario_cases, "study TOML": study_cases,
              "command line": cli_cases}


def run_catalogue(timeout: int, tally: dict, failures: list) -> None:
    for kind, name, setup in CATALOGUE:
        with tempfile.TemporaryDirectory() as d:
            work = Path(d)
            argv = setup(work)
            outcome = run_cli(argv, work, timeout)
            if (work / "out" / "study.json").exists():
                outcome.wrote = not folder_unchanged(work)
            _record(f"{kind} (catalogue)", name, argv, outcome, tally, failures)


def run_generated(n: int, timeout: int, tally: dict, failures: list) -> None:
    for strategy in STRATEGIES.values():
        @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(strategy())
        def one(case):
            with tempfile.TemporaryDirectory() as d:
                work = Path(d)
                argv = case.materialize(work)
                _record(case.kind, case.what, argv, run_cli(argv, work, timeout), tally, failures)

        one()


def _record(kind: str, what: str, argv: list[str], outcome, tally: dict, failures: list) -> None:
    tally[kind][outcome.verdict] += 1
    if outcome.verdict != "clean":
        failures.append((kind, what, argv, outcome))


def table(tally: dict) -> str:
    lines = ["| file kind / command | cases tried | clean errors | tracebacks | hangs (timeout) | "
             "accepted (exit 0) | other |", "|---|---:|---:|---:|---:|---:|---:|"]
    total: Counter = Counter()
    for kind in sorted(tally):
        c = tally[kind]
        total.update(c)
        lines.append(f"| {kind} | {sum(c.values())} | " + " | ".join(str(c[v]) for v in VERDICTS) + " |")
    lines.append(f"| **all** | **{sum(total.values())}** | "
                 + " | ".join(f"**{total[v]}**" for v in VERDICTS) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=200, help="generated cases per file kind (default 200)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds before a case counts as a hang")
    args = ap.parse_args(argv)
    tally: dict = defaultdict(Counter)
    failures: list = []
    run_catalogue(args.timeout, tally, failures)
    run_generated(args.n, args.timeout, tally, failures)
    print(table(tally))
    for kind, what, cmd, outcome in failures[:20]:
        print(f"\n{outcome.verdict}: {kind} [{what}]: napsim {' '.join(cmd)[:300]}")
        print("    " + (outcome.stderr.strip().splitlines() or [outcome.stdout[-200:]])[-1][:300])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
