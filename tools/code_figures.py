"""The package's size in figures (issue 27): .py files and lines under napsim/, modules under 100
lines, and the longest functions (ast: from the `def` line to the function's last line).

    python tools/code_figures.py [--longest 10]
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "napsim"


def figures(longest: int) -> str:
    files = sorted(PACKAGE.rglob("*.py"))
    lines = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in files}
    small = [p for p in files if lines[p] < 100 and p.name != "__init__.py"]
    functions = []
    for p in files:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = f"{p.relative_to(ROOT)}:{node.lineno} {node.name}"
                functions.append((node.end_lineno - node.lineno + 1, where))
    functions.sort(key=lambda f: (-f[0], f[1]))
    inits = sum(p.name == "__init__.py" for p in files)
    out = [
        f"- .py files under napsim/: {len(files)} ({inits} of them __init__.py)",
        f"- lines: {sum(lines.values())}",
        f"- modules under 100 lines (not counting __init__.py): {len(small)}",
        *(f"  - {p.relative_to(ROOT)} ({lines[p]})" for p in small),
        f"- the {longest} longest functions (lines):",
        *(f"  - {n:4d}  {where}" for n, where in functions[:longest]),
    ]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--longest", type=int, default=10)
    print(figures(parser.parse_args().longest))


if __name__ == "__main__":
    main()
