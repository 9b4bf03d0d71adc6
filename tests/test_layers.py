"""The package's layers (docs/architecture.md): imports go one way, model -> engine -> sim -> study ->
output -> top (cli, bench, bench_app, bench_e2e, api, regen, __main__, and the app package `napsim.app`), and
no two modules import each other, directly or round a circle. Function-level imports count too. The
package face, napsim/__init__.py, may import the public API from any layer.

The imports are read from the source with ast (nothing is imported), so the test also holds for
code paths no other test runs.
"""

from __future__ import annotations

import ast
import fnmatch
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "napsim"
LAYERS = ("model", "engine", "sim", "study", "output", "top")
TOP = ("napsim", "napsim.__main__", "napsim.api", "napsim.bench", "napsim.bench_app", "napsim.bench_e2e",
       "napsim.cli",
       "napsim.cli_compare",
       "napsim.regen")
TOP_PACKAGES = ("app",)  # napsim.app.*: the page of `napsim app`, a client of the Python API
FACE = "napsim"  # napsim/__init__.py
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 150


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> str:
    """The layer of a module: its subpackage (napsim.<layer>...), or top for the listed modules."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS[:-1]:
        return parts[1]
    if module in TOP or (len(parts) > 1 and parts[1] in TOP_PACKAGES):
        return "top"
    raise AssertionError(f"{module} belongs to no layer: put it in a layer's package, or list it in TOP")


def imports(module: str, path: Path, known: dict[str, Path]) -> list[tuple[str, int]]:
    """(imported napsim module, line) for every import statement of a module, at any depth."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []

    def longest_module(name: str) -> str | None:
        parts = name.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        return ".".join(parts) or None

    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            # `from pkg import sub` imports the module pkg.sub; `from mod import name` the module mod
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for name in names:
            if name == "napsim" or name.startswith("napsim."):
                target = longest_module(name)
                if target and target != module:
                    out.append((target, node.lineno))
    return out


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: first line}."""
    known = modules()
    graph: dict[str, dict[str, int]] = {}
    for m, p in known.items():
        graph[m] = {}
        for target, line in imports(m, p, known):
            graph[m].setdefault(target, line)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


@pytest.fixture(scope="module")
def graph():
    return import_graph()


def test_every_module_has_a_layer(graph):
    for m in graph:
        assert layer(m) in LAYERS


def test_no_import_goes_up_a_layer(graph):
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad = [f"{modules()[m].relative_to(ROOT)}:{line}: {m} ({layer(m)}) imports {t} ({layer(t)})"
           for m, targets in graph.items() if m != FACE
           for t, line in targets.items() if rank[layer(t)] > rank[layer(m)]]
    assert not bad, "imports from a lower layer into a higher one:\n" + "\n".join(bad)


def test_no_import_cycle(graph):
    assert cycles(graph) == [], "modules that import each other (directly or round a circle)"


def test_the_engine_imports_only_the_engine(graph):
    # the numba kernels take plain arrays: they know nothing of napsim's Python objects
    bad = [(m, t) for m, targets in graph.items() if layer(m) == "engine"
           for t in targets if layer(t) != "engine"]
    assert not bad


def test_layer_packages_import_nothing(graph):
    # napsim/<layer>/__init__.py is a docstring: importing one module never loads the others
    for name in LAYERS[:-1]:
        assert graph[f"napsim.{name}"] == {}, name


def test_the_checker_sees_every_kind_of_import(tmp_path):
    # the graph is only as good as its parser: module-level, function-level, `from pkg import mod`,
    # `import a.b as c` and relative imports all count
    known = {m: Path() for m in ("napsim.sim", "napsim.sim.a", "napsim.sim.b", "napsim.study.c",
                                 "napsim.model.d", "napsim.output.e")}
    src = tmp_path / "a.py"
    src.write_text("from napsim.sim import b\nimport napsim.study.c as c\n"
                   "def f():\n    from napsim.output import e\n    from .b import x\n"
                   "    from ..model.d import y\n")
    got = sorted({t for t, _ in imports("napsim.sim.a", src, known)})
    assert got == ["napsim.model.d", "napsim.output.e", "napsim.sim.b", "napsim.study.c"]


def test_cycles_are_found():
    g = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert cycles(g) == [["a", "b", "c"]]


def test_module_and_function_sizes():
    # a module a reader can hold in mind, kernels included: at most 600 lines, functions at most 150
    bad = []
    for p in modules().values():
        text = p.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            bad.append(f"{p.relative_to(ROOT)}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    bad.append(f"{p.relative_to(ROOT)}:{node.lineno}: {node.name} has {n} lines")
    assert not bad, "\n".join(bad)


def test_package_data_ships_every_data_file():
    # the installed package must find its decks, scenarios and rule catalogue
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["package-data"]["napsim"]
    files = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc", ".nbi", ".nbc")
             and "__pycache__" not in p.parts]
    assert files
    missing = [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert not missing, f"data files not in [tool.setuptools.package-data]: {missing}"
    for pat in patterns:
        assert any(fnmatch.fnmatch(f, pat) for f in files), f"{pat} matches no file"
