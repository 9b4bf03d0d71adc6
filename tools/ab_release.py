"""Side-by-side benchmark of a past release against the working tree (developer tool, issue 28).

Usage: python tools/ab_release.py REV [--rounds N] [--only formats,epic,cold,study]
                                      [--games G] [--json FILE]

This host's speed drifts up to 3x from day to day, so a figure measured last week says nothing
about today's code. The tool builds REV once in a virtual environment of its own (cached by commit
under ~/.cache/napsim-ab/), then alternates `python -m napsim.bench CMD` between REV and the
working tree (REV first in even rounds, the tree first in odd ones), so that a busy spell of the
host hits both alike, and prints the ratio of the two per benchmark line: of their medians over
the rounds, and of their best rounds, with each version's range (every round is a process of its
own, and a kernel's speed can differ from one process to the next: docs/speed.md).

Where REV's bench lacks a command (672fd31 has no `cold` and no `study`), both versions are timed
the same way through their CLI instead: `cold` is the first `napsim simulate --scenario symmetric
--games 1000 --no-per-game` from an empty numba cache, `study` a warm `napsim run
studies/courier_rack.toml` (one untimed run fills the cache first).

The working tree is the napsim that this Python imports; run the tool from the repository's own
virtual environment (`pip install -e .`). Each version keeps one numba cache of its own across
rounds, so only `cold` compiles in the timing.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("NAPSIM_AB_CACHE", Path.home() / ".cache" / "napsim-ab"))
COMMANDS = ("formats", "epic", "cold", "study")
COLD_ARGS = ["simulate", "--scenario", "symmetric", "--games", "1000", "--no-per-game"]
STUDY_FILE = "studies/courier_rack.toml"

# (field, True where more is better) of each kind of bench line: the ratio column is tree / REV
FIELDS = {
    "engine": [("turns_per_second_per_core", True), ("speedup_1_to_2_threads", True)],
    "odds": [("per_second_per_core", True)],
    "cold_start": [("seconds_empty_cache", False)],
    "study_end_to_end": [("seconds_total", False), ("seconds_games", False)],
}


class Version:
    """One napsim to time: its Python, its source folder (the bench's working directory) and a
    numba cache folder of its own."""

    def __init__(self, label: str, python: Path, source: Path, cache: Path):
        self.label, self.python, self.source, self.cache = label, python, source, cache
        self.cache.mkdir(parents=True, exist_ok=True)
        self._commands: set[str] | None = None

    def env(self, cache: Path | None = None) -> dict:
        return dict(os.environ, NUMBA_CACHE_DIR=str(cache or self.cache), PYTHONPATH="")

    def bench_commands(self) -> set[str]:
        """The commands this version's `python -m napsim.bench` knows (read from its --help)."""
        if self._commands is None:
            done = subprocess.run([str(self.python), "-m", "napsim.bench", "--help"], cwd=self.source,
                                  env=self.env(), capture_output=True, text=True)
            text = done.stdout.replace("\n", " ")
            self._commands = {c for c in COMMANDS if f"{c}|" in text or f"|{c}" in text}
        return self._commands


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        sys.exit(f"ab_release: {' '.join(map(str, cmd[:4]))} ... failed: {' | '.join(tail)}")
    return done


def build(rev: str) -> Version:
    """REV's source and virtual environment, built once per commit."""
    sha = run(["git", "rev-parse", f"{rev}^{{commit}}"], cwd=ROOT).stdout.strip()
    home = CACHE / sha[:12]
    src, venv = home / "src", home / "venv"
    if not (home / "ready").is_file():
        print(f"ab_release: building {rev} ({sha[:12]}) in {home} (once) ...", file=sys.stderr)
        src.mkdir(parents=True, exist_ok=True)
        archive = subprocess.Popen(["git", "archive", sha], cwd=ROOT, stdout=subprocess.PIPE)
        run(["tar", "-x", "-C", str(src)], stdin=archive.stdout)
        archive.wait()
        run([sys.executable, "-m", "venv", str(venv)])
        run([str(venv / "bin" / "pip"), "install", "-q", "-e", str(src)])
        (home / "ready").write_text(sha + "\n", encoding="utf-8")
    same_scipy(venv)
    return Version(f"{rev} ({sha[:7]})", venv / "bin" / "python", src, home / "numba")


def same_scipy(venv: Path) -> None:
    """Give REV's environment scipy when this one has it (the repository's venv has the test
    extras): numba imports scipy.linalg, looking for a BLAS, the first time it loads a cached
    kernel, 0.08-0.09 s a process that the `study` and `cold` lines would otherwise count for the
    tree alone."""
    if importlib.util.find_spec("scipy") is None:
        return
    python = str(venv / "bin" / "python")
    if subprocess.run([python, "-c", "import scipy"], capture_output=True).returncode != 0:
        import scipy

        run([str(venv / "bin" / "pip"), "install", "-q", f"scipy=={scipy.__version__}"])


def working_tree() -> Version:
    """The napsim this Python imports, which must be this repository's working tree."""
    done = run([sys.executable, "-c", "import napsim, sys; sys.stdout.write(napsim.__file__)"], cwd=ROOT)
    if not Path(done.stdout).resolve().is_relative_to(ROOT):
        sys.exit(f"ab_release: this Python imports napsim from {done.stdout}, not from {ROOT}; "
                 "activate the repository's virtual environment (pip install -e .)")
    cache = Path(tempfile.mkdtemp(prefix="napsim-ab-tree-"))
    return Version("working tree", Path(sys.executable), ROOT, cache)


def bench_lines(v: Version, command: str, games: int) -> list[dict]:
    """The JSON lines of `python -m napsim.bench COMMAND` for version v."""
    done = run([str(v.python), "-m", "napsim.bench", command, "--games", str(games)], cwd=v.source,
               env=v.env())
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def cli_seconds(v: Version, args: list[str], cache: Path) -> float:
    t0 = time.perf_counter()
    run([str(v.python), "-m", "napsim", *args], cwd=v.source, env=v.env(cache))
    return time.perf_counter() - t0


def cli_lines(v: Version, command: str) -> list[dict]:
    """`cold` or `study` timed through the CLI, for a version whose bench lacks it (and for the
    version it is compared with, so that both are measured alike)."""
    with tempfile.TemporaryDirectory(prefix="napsim-ab-") as tmp:
        if command == "cold":
            sec = cli_seconds(v, [*COLD_ARGS, "--out", f"{tmp}/out"], Path(tmp) / "cache")
            return [{"bench": "cold_start", "format": "epic1", "seconds_empty_cache": round(sec, 1),
                     "how": "CLI"}]
        cli_seconds(v, ["run", STUDY_FILE, "--out", f"{tmp}/warm"], v.cache)
        sec = cli_seconds(v, ["run", STUDY_FILE, "--out", f"{tmp}/timed"], v.cache)
        return [{"bench": "study_end_to_end", "seconds_total": round(sec, 1), "how": "CLI"}]


def line_key(line: dict) -> tuple[str, str]:
    """(kind of line for FIELDS, a name saying which benchmark it is)."""
    if "bench" in line:
        return line["bench"], f"{line['bench']} {line.get('format', '')}".strip()
    kind = "odds" if line.get("kernel") == "odds" else "engine"
    return kind, line["kernel"]


def measure(versions: list[Version], commands: list[str], rounds: int, games: int) -> dict:
    """{name: {field: {label: [values per round]}}}, each command alternating between versions."""
    table: dict = {}
    for r in range(rounds):
        for command in commands:
            via_cli = command in ("cold", "study") and not all(
                command in v.bench_commands() for v in versions)
            for v in versions if r % 2 == 0 else versions[::-1]:
                print(f"ab_release: round {r + 1}/{rounds}, {command}, {v.label}"
                      f"{' (through the CLI)' if via_cli else ''} ...", file=sys.stderr, flush=True)
                lines = cli_lines(v, command) if via_cli else bench_lines(v, command, games)
                for line in lines:
                    kind, name = line_key(line)
                    for field, _ in FIELDS.get(kind, []):
                        if field in line:
                            table.setdefault(name, {}).setdefault(field, {}).setdefault(
                                v.label, []).append(line[field])
    return table


def report(table: dict, base: Version, tree: Version) -> str:
    """A markdown table: each version's median over the rounds with its range, the ratio tree / REV
    of the medians and of the best rounds. Every round is a process of its own, and one kernel's
    speed can differ from process to process (docs/speed.md, "EPIC 3 and 4 a side: the same work
    at a lower rate"): the range shows it, and the best rounds compare the code at its best."""
    better = {f: up for fields in FIELDS.values() for f, up in fields}
    rows = [f"| benchmark | measure | {base.label} | {tree.label} | ratio tree / REV | "
            "ratio of the best rounds | better |",
            "|---|---|---:|---:|---:|---:|---|"]
    for name, fields in table.items():
        for field, values in fields.items():
            a, b = values.get(base.label), values.get(tree.label)
            if not a or not b:
                continue
            ma, mb = statistics.median(a), statistics.median(b)
            pick = max if better[field] else min
            ba, bb = pick(a), pick(b)
            rows.append(f"| {name} | {field} | {_spread(ma, a)} | {_spread(mb, b)} | "
                        f"{_ratio(mb, ma)} | {_ratio(bb, ba)} | "
                        f"{'higher' if better[field] else 'lower'} |")
    return "\n".join(rows)


def _spread(median: float, values: list[float]) -> str:
    """A version's median, with its lowest and highest round where there are several."""
    if len(values) < 2:
        return f"{median:,.6g}"
    return f"{median:,.6g} ({min(values):,.4g}-{max(values):,.4g})"


def _ratio(b: float, a: float) -> str:
    """b / a to three places (nan where a is 0)."""
    return f"{b / a:.3f}" if a else "nan"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rev", help="the commit to compare with, e.g. 672fd31 or main")
    p.add_argument("--rounds", type=int, default=2, help="alternations of each command (default 2)")
    p.add_argument("--only", default=",".join(COMMANDS),
                   help=f"comma-separated commands out of {', '.join(COMMANDS)}")
    p.add_argument("--games", type=int, default=20_000_000, help="passed to the bench (its --games)")
    p.add_argument("--json", type=Path, help="also write the raw values per round here")
    a = p.parse_args()
    commands = [c.strip() for c in a.only.split(",") if c.strip()]
    unknown = sorted(set(commands) - set(COMMANDS))
    if unknown or a.rounds < 1:
        sys.exit(f"ab_release: --only takes {', '.join(COMMANDS)} (got {', '.join(unknown)}); "
                 "--rounds must be at least 1")
    base, tree = build(a.rev), working_tree()
    table = measure([base, tree], commands, a.rounds, a.games)
    if a.json:
        a.json.write_text(json.dumps(table, indent=1), encoding="utf-8")
    print(report(table, base, tree))


if __name__ == "__main__":
    main()
