"""The package's layers (docs/architecture.md): imports go one way, model -> engine -> sim -> study ->
output -> top (cli, cli_variants, cli_sensitivity, bench, api, api_sensitivity, regen, __main__, and
the app package `napsim.app`), and no two modules import each other, directly or round a circle.
Function-level imports count too. The package face, napsim/__init__.py, may import the public API
from any layer.

Calls count as well as imports: no module calls a method defined only in a layer above its own
(an object handed down must not reach back up), and the output layer plays no game: it references
no function or method of the sim or study layer that plays games (`game_players`: those that reach
the engine's kernels). The imports and calls are read from the source with ast (nothing is
imported), so the test also holds for code paths no other test runs.
"""

from __future__ import annotations

import ast
import concurrent.futures
import fnmatch
import io
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "napsim"
LAYERS = ("model", "engine", "sim", "study", "output", "top")
TOP = ("napsim", "napsim.__main__", "napsim.api", "napsim.api_balance_across", "napsim.api_sensitivity",
       "napsim.bench", "napsim.cli", "napsim.cli_sensitivity", "napsim.cli_variants", "napsim.regen")
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
    # layer() raises for a module of no layer; TOP must not name modules that are gone, and every
    # layer has modules (a renamed package would otherwise leave its layer checked against nothing)
    unplaced = []
    for m in graph:
        try:
            layer(m)
        except AssertionError:
            unplaced.append(m)
    assert unplaced == []
    assert set(TOP) - set(graph) == set(), "TOP names modules that do not exist"
    assert {layer(m) for m in graph} == set(LAYERS)
    with pytest.raises(AssertionError, match="belongs to no layer"):
        layer("napsim.newmodule")


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


# ------------------------------------------------------------------------------------- calls

# methods of the types napsim's code calls methods on (files, paths, arrays, frames, futures):
# a call of one of these names is not a call into napsim
EXTERNAL_METHODS = set().union(*(dir(t) for t in (
    str, bytes, list, dict, set, tuple, io.TextIOWrapper, io.BufferedWriter, Path, np.ndarray,
    pd.DataFrame, pd.Series, pd.Index, concurrent.futures.ThreadPoolExecutor, concurrent.futures.Future)))


def trees() -> dict[str, ast.Module]:
    return {m: ast.parse(p.read_text(encoding="utf-8"), str(p)) for m, p in modules().items()}


def from_napsim(node: ast.ImportFrom) -> bool:
    return bool(node.level) or (node.module or "").startswith("napsim")


def foreign_names(tree: ast.Module) -> set[str]:
    """Names a module binds to imports from outside napsim (np, json, subprocess...)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names
                    if not a.name.startswith("napsim")}
        elif isinstance(node, ast.ImportFrom) and not from_napsim(node):
            out |= {a.asname or a.name for a in node.names}
    return out


def napsim_names(tree: ast.Module) -> set[str]:
    """Names a module binds to imports from napsim (modules, functions, classes)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.asname or a.name.split(".")[0] for a in node.names if a.name.startswith("napsim")}
        elif isinstance(node, ast.ImportFrom) and from_napsim(node):
            out |= {a.asname or a.name for a in node.names}
    return out


def method_calls(tree: ast.Module, skip: set[str]) -> list[tuple[str, int]]:
    """(name, line) of every call `x.name(...)` where x is not a name in `skip`."""
    return [(n.func.attr, n.lineno) for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and not (isinstance(n.func.value, ast.Name) and n.func.value.id in skip)]


def definitions(forest: dict[str, ast.Module]) -> dict[str, list[tuple[str, ast.AST, bool]]]:
    """name -> (module, node, is a method) of every function, method and class of the package."""
    out: dict[str, list] = {}
    for m, tree in forest.items():
        methods = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.setdefault(node.name, []).append((m, node, id(node) in methods))
    return out


def calls_up(forest: dict[str, ast.Module]) -> list[str]:
    """Method calls whose name the package defines only in layers above the caller's (callbacks
    stored on an object, `self.progress = progress`, and methods of foreign types excepted)."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    lowest = {name: min(rank[layer(m)] for m, _, _ in d) for name, d in definitions(forest).items()}
    stored = {n.attr for t in forest.values() for n in ast.walk(t)
              if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
    bad = []
    for m, tree in forest.items():
        r = rank[layer(m)]
        for name, line in method_calls(tree, foreign_names(tree)):
            if lowest.get(name, -1) > r and name not in EXTERNAL_METHODS and name not in stored:
                bad.append(f"{m}:{line}: calls .{name}(), defined only above the {layer(m)} layer")
    return bad


def referenced(node: ast.AST) -> set[str]:
    """Every name and attribute a piece of code reads."""
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
            if isinstance(n, ast.Name | ast.Attribute) and isinstance(n.ctx, ast.Load)}


def game_players(forest: dict[str, ast.Module]) -> tuple[set[str], set[str]]:
    """(functions, methods) that play games: the engine's (the kernels), and those of the sim and
    study layers that reach one, directly or through another. A method name counts only when every
    method of that name plays (`Balance.setting` reads a result, `_Search.setting` plays)."""
    defs = [(m, name, node, method) for name, d in definitions(forest).items() for m, node, method in d
            if not isinstance(node, ast.ClassDef)]
    playing = {id(node) for m, _, node, _ in defs if layer(m) == "engine"}
    reads = {id(node): referenced(node) for _, _, node, _ in defs}
    grew = True
    while grew:
        names = {name for _, name, node, _ in defs if id(node) in playing}
        new = {id(node) for m, _, node, _ in defs
               if layer(m) in ("sim", "study") and id(node) not in playing and reads[id(node)] & names}
        playing |= new
        grew = bool(new)
    functions = {name for m, name, node, method in defs if id(node) in playing and not method}
    methods = {name for _, name, _, method in defs if method}
    methods = {name for name in methods
               if all(id(node) in playing for _, n, node, me in defs if n == name and me)}
    return functions - {name for m, name, _, _ in defs if layer(m) == "output"}, methods


def plays_games(tree: ast.Module, functions: set[str], methods: set[str]) -> list[tuple[str, int]]:
    """(name, line) where a module imports or reads a game-playing function (by name, or as an
    attribute of a napsim module) or calls a game-playing method on an object that is no foreign import."""
    foreign = foreign_names(tree)
    own = napsim_names(tree)
    out = [(a.name, n.lineno) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
           and from_napsim(n) for a in n.names if a.name in functions]
    out += [(n.id, n.lineno) for n in ast.walk(tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in functions]
    out += [(n.attr, n.lineno) for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr in functions
            and isinstance(n.value, ast.Name) and n.value.id in own]
    out += [(name, line) for name, line in method_calls(tree, foreign) if name in methods]
    return out


@pytest.fixture(scope="module")
def forest():
    return trees()


def test_no_call_goes_up_a_layer(forest):
    bad = calls_up(forest)
    assert not bad, "calls from a lower layer into a higher one:\n" + "\n".join(bad)


def test_the_output_layer_plays_no_game(forest):
    functions, methods = game_players(forest)
    # the derivation finds the ways games are played, whatever their module
    assert {"play_chunk", "play_chunks", "run_games", "compute_chunk", "execute", "compare_variants",
            "find_balance", "run_study_ensemble", "answer_questions"} <= functions
    assert {"run", "play_to", "warm_up", "trace"} <= methods
    bad = [f"{modules()[m].relative_to(ROOT)}:{line}: {name}" for m, tree in forest.items()
           if layer(m) == "output" for name, line in plays_games(tree, functions, methods)]
    assert not bad, "the output layer plays games (play them above it, pass the result):\n" + "\n".join(bad)


def test_the_call_checkers_see_what_they_must():
    src = ("import subprocess\nfrom napsim.study import runloop\nfrom napsim.sim.runner import run_games\n"
           "def f(sim, res, fh):\n    subprocess.run(['x'])\n    fh.write('x')\n    res.report()\n"
           "    sim.run(10, 1)\n    runloop.execute('s', 'o')\n    return run_games\n")
    tree = ast.parse(src)
    assert sorted(plays_games(tree, {"run_games", "execute"}, {"run"})) == [
        ("execute", 9), ("run", 8), ("run_games", 3), ("run_games", 10)]
    forest = {"napsim.sim.a": tree, "napsim.output.b": ast.parse("class R:\n    def report(self): ...\n")}
    assert calls_up(forest) == ["napsim.sim.a:7: calls .report(), defined only above the sim layer"]


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
