"""Where the EPIC kernel's games (play_blocks) spend their time (developer tool, Linux).

Usage: python tools/lineprof_epic.py [--mode lines|blocks|callgrind] [SCENARIO] [REPEATS]
(defaults: lines, symmetric, 15 rows of 20,000 games; callgrind plays REPEATS x 100 games)

There are no hardware counters on the development VM, so the two perf modes sample the instruction
pointer with `perf record -e cpu-clock`. play_blocks is compiled afresh (a throwaway cache), called
on one block of games on this thread, and its object code is kept.

- lines: a NUMBA_DEBUGINFO=1 build; each sample's address is mapped to a source line with
  `addr2line`. Numba's line table names the calling file for inlined helpers, so a line number
  below ~150 may be napsim/engine/rng.py's (mix64, bounded); both texts are printed. Caveat: the
  debug build calls numba's `max`/`min` overloads out of line (the release build inlines them),
  which inflates loops that use them, the choice scan most; it runs ~20% slower overall.
- blocks: the release build as the benchmark runs it; samples per 64-byte block of machine code,
  the hottest blocks printed with their disassembly (`objdump`). No line numbers, exact code.
- callgrind: the release build under `valgrind --tool=callgrind`, counting only the driver's
  games: exact instructions and (simulated) branch mispredictions per turn, the heaviest runs of
  straight code with their disassembly. Deterministic, so it compares two versions without the
  host's timing noise; ~5 min. Measured caveat: 12% fewer instructions a turn once made no
  difference in time, so time the change too.
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
CALLGRIND = "NAPSIM_LINEPROF_CALLGRIND"  # set: the child counts its games under callgrind
MODES = ("lines", "blocks", "callgrind")


def _child(scenario: str, repeats: int, work: Path) -> None:
    """Compile the games, save play_blocks' object code and load address, then play."""
    import numpy as np

    from napsim.engine import epic as E
    from napsim.engine.blocks import block_moments
    from napsim.engine.layout import EpicArgs
    from napsim.engine.rng import seed_key
    from napsim.sim.packing import Simulation

    def drive(run_key, n, *args):
        """Games [0, n) on play_blocks, one block of all of them, on this thread."""
        e = EpicArgs(*args)
        z = np.zeros
        units, gturn_b = E.specialised(e.players_a_side, e.gcfg, e.units,
                                       z((1, 3, e.turns), np.int64))
        out = (block_moments(1), z((0, 2, E.N_METRICS), np.int64), z((1, 4, E.WAIT_BINS), np.int64),
               z((1, 2, 4, E.N_CM), np.int64), z((0, 2, 4, E.N_CM), np.int64),
               z((1, 2, e.turns), np.int64), z((0, E.TRACE_WIDTH), np.int64), z(1, np.int64))
        E.play_blocks(0, 1, 1, run_key, np.int64(0), np.int64(n), e, units, gturn_b, False, False,
                      out, E.game_state(e.deck, e.counts))

    sim = Simulation.build(scenario)
    kind, args = sim.kernel_args()
    if kind != "epic":
        sys.exit(f"lineprof_epic: scenario {scenario!r} runs the {kind} kernel, not epic")
    key = seed_key(1)
    drive(key, 10, *args)
    lib = next(iter(E.play_blocks.overloads.values())).library
    if lib._compiled_object is not None:  # None when loaded from the cache (callgrind's run)
        (work / "play_blocks.o").write_bytes(lib._compiled_object)
    nm = subprocess.run(["nm", "--defined-only", str(work / "play_blocks.o")], capture_output=True,
                        text=True, check=True).stdout
    for line in nm.splitlines():
        off, typ, name = line.split(maxsplit=2)
        if typ == "T" and name.startswith("_ZN6napsim6engine4epic11play_blocks"):
            base = lib.get_pointer_to_function(name) - int(off, 16)
            (work / "base.txt").write_text(hex(base))
            break
    if os.environ.get(CALLGRIND):  # instrument the games only, not imports and compilation
        subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True,
                       check=True)
        drive(key, repeats * 100, *args)
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True,
                       check=True)
        (work / "turns.txt").write_text(str(repeats * 100 * 2 * sim.scenario.turns))
        return
    for _ in range(repeats):  # the sampled part: rows of games as the benchmark plays them
        drive(key, 20_000, *args)


def _report(work: Path, top: int = 45) -> None:
    """Samples per source line of play_blocks, hottest first."""
    base = int((work / "base.txt").read_text(), 16)
    size = int(subprocess.run(["size", "-A", str(work / "play_blocks.o")], capture_output=True,
                              text=True, check=True).stdout.split(".ltext")[1].split()[0])
    script = subprocess.run(["perf", "script", "-i", str(work / "perf.data"), "-F", "ip"],
                            capture_output=True, text=True, check=True).stdout
    ips = Counter(int(x, 16) - base for x in script.split())
    inside = {a: n for a, n in ips.items() if 0 <= a < size}
    total = sum(ips.values())
    out = subprocess.run(["addr2line", "-a", "-j", ".ltext", "-e", str(work / "play_blocks.o")],
                         input="\n".join(hex(a) for a in inside), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    lines: Counter = Counter()
    for addr, loc in zip(out[0::2], out[1::2], strict=True):  # addr2line -a: address, place
        m = re.search(r":(\d+)", loc)
        lines[int(m.group(1)) if m else 0] += inside[int(addr, 16)]
    epic = (ROOT / "napsim/engine/epic.py").read_text().splitlines()
    rng = (ROOT / "napsim/engine/rng.py").read_text().splitlines()
    n_in = sum(inside.values())
    print(f"{n_in} of {total} samples in play_blocks ({100 * n_in / max(total, 1):.0f}%)")
    for line, n in lines.most_common(top):
        text = epic[line - 1].strip() if 0 < line <= len(epic) else "(no line)"
        if 0 < line <= len(rng) and line < 150:
            text = f"{text[:40]}  | rng.py: {rng[line - 1].strip()[:50]}"
        print(f"{100 * n / n_in:5.1f}%  {line:5d}  {text[:100]}")


def _disassembly(work: Path) -> dict[int, str]:
    """play_blocks.o's instructions by offset (symbol names dropped: they are kilobytes long)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".ltext",
                          str(work / "play_blocks.o")], capture_output=True, text=True,
                         check=True).stdout
    code = {}
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if m:
            code[int(m.group(1), 16)] = re.sub(r"<_ZN[^>]*>", "", m.group(2)).strip()[:70]
    return code


def _report_blocks(work: Path, top: int = 12) -> None:
    """Samples per 64-byte block of play_blocks' release code, the hottest with their code."""
    base = int((work / "base.txt").read_text(), 16)
    script = subprocess.run(["perf", "script", "-i", str(work / "perf.data"), "-F", "ip"],
                            capture_output=True, text=True, check=True).stdout
    code = _disassembly(work)
    end = max(code) + 16
    ips = Counter(int(x, 16) - base for x in script.split())
    inside = Counter({a: n for a, n in ips.items() if 0 <= a < end})
    n_in = sum(inside.values())
    blocks: Counter = Counter()
    for a, n in inside.items():
        blocks[a // 64] += n
    print(f"{n_in} samples in play_blocks (release build)")
    for b, n in blocks.most_common(top):
        print(f"\n{100 * n / n_in:5.1f}%  block {64 * b:#x}")
        for a in sorted(x for x in code if 64 * b <= x < 64 * b + 64):
            print(f"   {100 * inside[a] / n_in:5.1f}  {a:6x}  {code[a]}")


def _report_callgrind(work: Path, top: int = 15) -> None:
    """Instructions and simulated mispredictions per turn from callgrind's per-instruction
    counts, with the heaviest runs of straight code (equal execution counts) and their code."""
    base = int((work / "base.txt").read_text(), 16)
    turns = int((work / "turns.txt").read_text())
    code = _disassembly(work)
    end = max(code) + 16
    ir: Counter = Counter()
    bcm: Counter = Counter()
    addr, after_call = 0, False
    for line in (work / "callgrind.out").read_text().splitlines():
        if line.startswith("calls="):
            after_call = True  # the next cost line is the callee's inclusive cost
            continue
        if not line or line[0] not in "0123456789+-*":
            continue
        parts = line.split()  # positions "instr line", then Ir Bc Bcm Bi Bim
        pos = parts[0]
        if pos.startswith("0x"):
            addr = int(pos, 16)
        elif pos[0] in "+-":
            addr += int(pos, 0)
        if after_call:
            after_call = False
            continue
        off = addr - base
        if 0 <= off < end:
            vals = [int(v) for v in parts[2:]] + [0] * 5
            ir[off] += vals[0]
            bcm[off] += vals[2]
    print(f"{turns} turns: {sum(ir.values()) / turns:.0f} instructions and "
          f"{sum(bcm.values()) / turns:.2f} simulated branch mispredictions a turn in play_blocks")
    runs: list[list[int]] = []  # [first, last, count, instructions, mispredictions]
    for a in sorted(ir):
        if runs and ir[a] == runs[-1][2] and a - runs[-1][1] < 16:
            runs[-1][1] = a
            runs[-1][3] += 1
            runs[-1][4] += bcm[a]
        else:
            runs.append([a, a, ir[a], 1, bcm[a]])
    runs.sort(key=lambda r: -r[2] * r[3])
    for first, last, count, n, miss in runs[:top]:
        print(f"\n{count * n / turns:6.1f} instructions a turn: {n} at {first:#x}-{last:#x}, run "
              f"{count / turns:.2f} times a turn, {miss / turns:.2f} mispredictions")
        for a in sorted(x for x in code if first <= x <= last)[:40]:
            print(f"          {a:6x}  {code[a]}")


def main() -> None:
    if os.environ.get(CHILD):
        _child(sys.argv[1], int(sys.argv[2]), Path(os.environ[CHILD]))
        return
    args = sys.argv[1:]
    mode = "lines"
    if args[:1] == ["--mode"]:
        if len(args) < 2 or args[1] not in MODES:
            sys.exit(f"lineprof_epic: --mode takes one of {', '.join(MODES)}")
        mode, args = args[1], args[2:]
    scenario = args[0] if args else "symmetric"
    repeats = int(args[1]) if len(args) > 1 else (10 if mode == "callgrind" else 15)
    work = Path(tempfile.mkdtemp(prefix="napsim-lineprof-"))
    env = dict(os.environ, NUMBA_DEBUGINFO="1" if mode == "lines" else "0",
               NUMBA_CACHE_DIR=str(work / "cache"), NUMBA_NUM_THREADS="1", **{CHILD: str(work)})
    child = [sys.executable, __file__, scenario, str(repeats)]
    if mode == "callgrind":
        # compile natively first (minutes under valgrind), keeping the object code; the counted
        # run loads play_blocks from that cache, so its code is the object kept here
        subprocess.run([*child[:2], scenario, "0"], env=env, check=True)
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--dump-instr=yes",
                        "--branch-sim=yes", f"--callgrind-out-file={work / 'callgrind.out'}",
                        *child], env=dict(env, **{CALLGRIND: "1"}), check=True,
                       stderr=subprocess.DEVNULL)
        _report_callgrind(work)
        return
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-o",
                    str(work / "perf.data"), *child], env=env, check=True)
    if mode == "blocks":
        _report_blocks(work)
    else:
        _report(work)


if __name__ == "__main__":
    main()
