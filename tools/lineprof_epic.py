"""Line-level CPU profile of the EPIC kernel's play_game (developer tool, Linux with perf).

Usage: python tools/lineprof_epic.py [SCENARIO] [REPEATS]   (default: symmetric 15)

There are no hardware counters on the development VM, so this samples the instruction pointer with
`perf record -e cpu-clock`. play_game is compiled afresh with NUMBA_DEBUGINFO=1 (a throwaway
cache), called from a serial driver, and its object code is kept. Each sample's address is then
mapped to a source line with `addr2line`. Numba's line table names the calling file for inlined
helpers, so a line number below ~150 may be napsim/engine/rng.py's (mix64, shuffle); both texts
are printed. The debug build runs ~20% slower than the cached kernel, and the shares are
indicative.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHILD = "NAPSIM_LINEPROF_CHILD"


def _child(scenario: str, repeats: int, work: Path) -> None:
    """Compile the driver, save play_game's object code and load address, then play."""
    import numpy as np
    from numba import njit

    from napsim.engine import epic as E
    from napsim.engine.rng import seed_key
    from napsim.simulate import Simulation

    @njit
    def drive(run_key, n, standard, turns, first, hand0, tac0, sq_form, sq_leave, pol, ctab, deck,
              counts, best_val, best_k, best_list, nom_t, eff_t, rem_t, n_place, place_list,
              e4_only, play_val, play_key, rec_t, gcfg, fmt, cmd_sec, tac_start, units):
        n_cards = deck.shape[0]
        rs = np.empty(2, np.uint64)
        met = np.zeros((2, E.N_METRICS), np.int64)
        tot = np.zeros((2, E.N_METRICS), np.int64)
        for g in range(n):
            met[:, :] = 0
            E.play_game(rs, g, run_key, standard, turns, first, hand0, tac0, sq_form, sq_leave,
                        pol, ctab, deck, counts, best_val, best_k, best_list, nom_t, eff_t, rem_t,
                        n_place, place_list, e4_only, play_val, play_key, rec_t, gcfg,
                        np.zeros((2, 8), np.int64), np.zeros((3, turns), np.int64), False, met,
                        np.zeros((4, E.WAIT_BINS), np.int64), np.zeros((0, E.TRACE_WIDTH), np.int64),
                        np.zeros(1, np.int64), np.empty(n_cards, np.uint16),
                        np.empty(n_cards, np.uint16),
                        np.empty((2, E.MAX_HAND + n_cards), np.uint16), np.zeros(E.RACK, np.uint16),
                        np.zeros(E.RACK, np.int64), np.empty((2, E.MAX_HAND), np.uint16),
                        np.zeros(counts.shape[0], np.int64),
                        np.zeros((3, (E.MAX_HAND + n_cards) * E.RACK), np.uint16),
                        np.zeros(16, np.int64), fmt, cmd_sec, tac_start, units,
                        np.zeros((2, 4, E.N_CM), np.int64), np.zeros((2, 4), np.int64),
                        np.zeros((2, turns), np.int64))
            tot += met
        return tot

    sim = Simulation.build(scenario)
    kind, args = sim.kernel_args()
    if kind != "epic":
        sys.exit(f"lineprof_epic: scenario {scenario!r} runs the {kind} kernel, not epic")
    key = seed_key(1)
    drive(key, 10, *args)
    lib = next(iter(E.play_game.overloads.values())).library
    (work / "play_game.o").write_bytes(lib._compiled_object)
    nm = subprocess.run(["nm", "--defined-only", str(work / "play_game.o")], capture_output=True,
                        text=True, check=True).stdout
    for line in nm.splitlines():
        off, typ, name = line.split(maxsplit=2)
        if typ == "T" and name.startswith("_ZN6napsim6engine4epic9play_game"):
            base = lib.get_pointer_to_function(name) - int(off, 16)
            (work / "base.txt").write_text(hex(base))
            break
    for _ in range(repeats):  # the sampled part: rows of games as the benchmark plays them
        drive(key, 20_000, *args)


def _report(work: Path, top: int = 45) -> None:
    """Samples per source line of play_game, hottest first."""
    base = int((work / "base.txt").read_text(), 16)
    size = int(subprocess.run(["size", "-A", str(work / "play_game.o")], capture_output=True,
                              text=True, check=True).stdout.split(".ltext")[1].split()[0])
    script = subprocess.run(["perf", "script", "-i", str(work / "perf.data"), "-F", "ip"],
                            capture_output=True, text=True, check=True).stdout
    ips = Counter(int(x, 16) - base for x in script.split())
    inside = {a: n for a, n in ips.items() if 0 <= a < size}
    total = sum(ips.values())
    out = subprocess.run(["addr2line", "-a", "-j", ".ltext", "-e", str(work / "play_game.o")],
                         input="\n".join(hex(a) for a in inside), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    lines: Counter = Counter()
    for addr, loc in zip(out[0::2], out[1::2], strict=True):  # addr2line -a: address, place
        m = re.search(r":(\d+)", loc)
        lines[int(m.group(1)) if m else 0] += inside[int(addr, 16)]
    epic = (ROOT / "napsim/engine/epic.py").read_text().splitlines()
    rng = (ROOT / "napsim/engine/rng.py").read_text().splitlines()
    n_in = sum(inside.values())
    print(f"{n_in} of {total} samples in play_game ({100 * n_in / max(total, 1):.0f}%)")
    for line, n in lines.most_common(top):
        text = epic[line - 1].strip() if 0 < line <= len(epic) else "(no line)"
        if 0 < line <= len(rng) and line < 150:
            text = f"{text[:40]}  | rng.py: {rng[line - 1].strip()[:50]}"
        print(f"{100 * n / n_in:5.1f}%  {line:5d}  {text[:100]}")


def main() -> None:
    scenario = sys.argv[1] if len(sys.argv) > 1 else "symmetric"
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    if os.environ.get(CHILD):
        _child(scenario, repeats, Path(os.environ[CHILD]))
        return
    work = Path(tempfile.mkdtemp(prefix="napsim-lineprof-"))
    env = dict(os.environ, NUMBA_DEBUGINFO="1", NUMBA_CACHE_DIR=str(work / "cache"),
               NUMBA_NUM_THREADS="1", **{CHILD: str(work)})
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-o",
                    str(work / "perf.data"), sys.executable, __file__, scenario, str(repeats)],
                   env=env, check=True)
    _report(work)


if __name__ == "__main__":
    main()
