"""The test suite's wall time against an earlier revision's, side by side (developer tool, issue 27).

Usage: python tools/suite_times.py OLD [NEW] [--rounds N] [--json FILE]

This host's speed drifts up to 3x from day to day, so the suite's time means something only beside
another suite timed minutes apart on the same host. The tool exports OLD and NEW (default: HEAD)
with `git archive` into fresh folders, gives each a virtual environment of its own with
`pip install -e ".[test]"` (as CI does; built once per commit, cached under ~/.cache/napsim-ab/),
then alternates, round by round (OLD first in even rounds, NEW first in odd ones), on an empty
numba cache each time:

- OLD's `python -m pytest -q` (its whole suite, before the split into a default and a slow run);
- NEW's `python -m pytest -q` (the README's test command: the default run);
- NEW's `python -m pytest -q -m slow -n auto` (the slow run, as .ci/run runs it after the default
  one, in the same numba cache).

It prints each run's wall time, CPU time (all its processes; a steadier figure than the wall on a
busy host) and test count, the default run's share of OLD's suite and the two
runs of CI together against OLD's suite.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_release import CACHE, ROOT, run  # noqa: E402

SLOW = ["-m", "slow", "-n", "auto"]  # as .ci/run runs the slow tests


def build(rev: str) -> tuple[str, Path, Path]:
    """(label, python, source) of REV, exported and installed with its test extra once per commit."""
    sha = run(["git", "rev-parse", f"{rev}^{{commit}}"], cwd=ROOT).stdout.strip()
    home = CACHE / f"{sha[:12]}-test"
    src, venv = home / "src", home / "venv"
    if not (home / "ready").is_file():
        print(f"suite_times: building {rev} ({sha[:12]}) with its test extra in {home} (once) ...",
              file=sys.stderr)
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(["git", "archive", sha], cwd=ROOT, stdout=subprocess.PIPE)
        run(["tar", "-x", "-C", str(src)], stdin=archive.stdout)
        archive.wait()
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(venv / "bin" / "pip"), "install", "-q", "-e", f"{src}[test]"])
        (home / "ready").write_text(sha + "\n", encoding="utf-8")
    return f"{rev} ({sha[:7]})", venv / "bin" / "python", src


def pytest_run(python: Path, source: Path, args: list[str], cache: Path) -> dict:
    """Wall seconds and the outcome counts of one pytest run in `source` on numba cache `cache`."""
    env = {"PATH": f"{python.parent}:/usr/bin:/bin", "HOME": str(Path.home()),
           "NUMBA_CACHE_DIR": str(cache)}
    t0, r0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=source, env=env, capture_output=True, text=True)
    wall, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)  # the run's processes, all cores
    last = (done.stdout.strip().splitlines() or [""])[-1]
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|deselected|error)", last)}
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "rc": done.returncode, "summary": last,
            **counts}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default="HEAD")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    old_label, old_py, old_src = build(a.old)
    new_label, new_py, new_src = build(a.new)
    runs = {"old": [("whole suite", old_py, old_src, [])],
            "new": [("default run", new_py, new_src, []), ("slow run", new_py, new_src, SLOW)]}
    labels = {"old": old_label, "new": new_label}
    rows = []
    for r in range(a.rounds):
        for which in (("old", "new") if r % 2 == 0 else ("new", "old")):
            with tempfile.TemporaryDirectory(prefix="napsim-suite-") as tmp:
                for name, python, source, args in runs[which]:  # the new runs share one cache, as in CI
                    row = {"round": r, "run": f"{labels[which]}: {name}",
                           **pytest_run(python, source, args, Path(tmp) / "numba")}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    old = statistics.median(x["wall_s"] for x in rows if x["run"].endswith("whole suite"))
    default = statistics.median(x["wall_s"] for x in rows if x["run"].endswith("default run"))
    slow = statistics.median(x["wall_s"] for x in rows if x["run"].endswith("slow run"))
    print(f"default run / {old_label}'s whole suite: {default:.1f} / {old:.1f} s = {default / old:.3f} "
          f"(target <= 0.333)")
    print(f"CI's two runs together / the whole suite: {default + slow:.1f} / {old:.1f} s = "
          f"{(default + slow) / old:.3f} (target <= 1)")
    cpu = {k: statistics.median(x["cpu_s"] for x in rows if x["run"].endswith(k))
           for k in ("whole suite", "default run", "slow run")}
    print(f"CPU: whole suite {cpu['whole suite']:.0f} s, default run {cpu['default run']:.0f} s "
          f"({cpu['default run'] / cpu['whole suite']:.3f}), slow run {cpu['slow run']:.0f} s")
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
