"""Where a first run's compile time goes (developer tool, issue 17).

Usage: python tools/compile_profile.py [--top N] NAPSIM ARGS...
e.g.   python tools/compile_profile.py simulate --scenario symmetric --games 1000 --no-per-game \
           --out /tmp/x --force

Runs the napsim command in this process with numba's cache in a new empty folder, listens to
numba's compile events and prints, on stderr: the command's wall and CPU time, the CPU time each
jitted function took to compile less the functions it compiled inside it (numba compiles a callee
while typing its caller), and every function compiled more than once with the argument types that
differ. A helper compiled again for `Literal[int](0)` or `Literal[bool](False)` was called with a
constant, or with a variable that starts as one: pass np.int64(...) or np.bool_(...) there
(napsim.engine.jit).
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from collections import defaultdict


def main(argv: list[str]) -> int:
    top = 25
    if argv[:1] == ["--top"]:
        top, argv = int(argv[1]), argv[2:]
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="napsim-compile-")
    from numba.core import event  # after NUMBA_CACHE_DIR: numba reads it at import

    class Compiles(event.Listener):
        """CPU seconds per function, less the compiles nested inside it."""

        def __init__(self) -> None:
            self.stack: list[list] = []
            self.own: dict[str, float] = defaultdict(float)
            self.signatures: dict[str, list[tuple]] = defaultdict(list)

        def on_start(self, ev) -> None:
            name = ev.data["dispatcher"].py_func.__qualname__
            self.signatures[name].append(tuple(str(a) for a in ev.data["args"]))
            self.stack.append([name, time.process_time(), 0.0])

        def on_end(self, ev) -> None:
            name, t0, nested = self.stack.pop()
            spent = time.process_time() - t0
            self.own[name] += spent - nested
            if self.stack:
                self.stack[-1][2] += spent

    compiles = Compiles()
    event.register("numba:compile", compiles)
    t0 = time.perf_counter()
    from napsim.cli import main as napsim_main
    try:
        napsim_main(argv)
    except SystemExit:
        pass
    wall = time.perf_counter() - t0
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    n = sum(len(v) for v in compiles.signatures.values())
    say = lambda text: print(text, file=sys.stderr)  # noqa: E731
    say(f"\nwall {wall:.1f} s, CPU {cpu:.1f} s; {n} compiles of {len(compiles.own)} functions, "
        f"{sum(compiles.own.values()):.1f} s of CPU in them")
    for name, seconds in sorted(compiles.own.items(), key=lambda kv: -kv[1])[:top]:
        say(f"{seconds:7.1f} s  x{len(compiles.signatures[name]):<3} {name}")
    for name, sigs in sorted(compiles.signatures.items()):
        if len(sigs) < 2 or name.startswith("ol_") or "<locals>" in name:
            continue  # numba's own overloads compile once per array type, as they should
        differ = [f"arg {i}: {sorted({s[i] for s in sigs})}" for i in range(len(sigs[0]))
                  if len({s[i] for s in sigs}) > 1]
        say(f"compiled {len(sigs)} times: {name}  " + ("; ".join(differ) or "(same types)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
