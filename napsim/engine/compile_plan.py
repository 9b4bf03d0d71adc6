"""Which cached helpers a kernel's first compile needs, with their argument types: part of the
compile shortcuts (napsim.engine.jit.COMPILE_SHORTCUTS).

numba compiles a kernel one function at a time, callees first as its typing reaches them. A
helper with a cache of its own (`napsim.engine.jit.inlined_cached`, and any cached function a
kernel calls) can be compiled by another process, if that process knows the argument types the
kernel will call it with, and the kernel's compile then loads it from numba's on-disk cache. The
plan (`compile_plan.json` beside this file) holds those types: for each kernel and the types of
its arguments (`args_key`), the cached helpers its compile reached, in the order it reached them.
`tools/compile_plan.py` writes it from real compiles; `napsim.sim.precompile` has a second process
compile a plan while the kernel compiles in the first.

A plan is only a help: an entry that no longer matches (a helper renamed, its arguments changed
since the plan was written) compiles a version the kernel never asks for, and the kernel compiles
that helper itself, as without a plan. The games are the same either way.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from pathlib import Path

import numba
from numba.core import types

from napsim.engine import layout as bundles
from napsim.engine.kernel_cache import has_own_cache
from napsim.engine.kernel_pick import lean_copy

PLAN_FILE = Path(__file__).with_name("compile_plan.json")
_SCALARS = {"bool": types.boolean, "none": types.none}


def args_key(kind: str, kargs: tuple) -> str:
    """A short name of a chunk kernel (`Simulation.kernel_args()`'s kind, napsim.engine.kernel_pick),
    its arguments' numba types and whether it plays its lean copy (`kernel_pick.lean_copy`): the
    kernels compiled for two keys alike are the same code."""
    typed = repr((kind, lean_copy(kind, kargs), tuple(numba.typeof(a) for a in kargs)))
    return hashlib.sha256(typed.encode()).hexdigest()[:16]


def encode_type(t) -> str | list | None:
    """A numba type as JSON: an array, a literal integer or boolean (a constant argument), a
    tuple, a bundle of napsim.engine.layout (a NamedTuple, by its class name), an optional (a type
    or None), or a scalar by name;
    None for any other kind (a plan leaves such a function out)."""
    if isinstance(t, types.Array):
        return ["array", str(t.dtype), t.ndim, t.layout, not t.mutable]
    if isinstance(t, types.IntegerLiteral | types.BooleanLiteral):
        return ["literal", t.literal_value]
    if isinstance(t, types.BaseTuple):
        inner = [encode_type(e) for e in t.types]
        if None in inner:
            return None
        named = getattr(t, "instance_class", None)  # a bundle of napsim.engine.layout
        if named is not None:
            return ["named", named.__name__, inner] if getattr(bundles, named.__name__, None) is named \
                else None
        return ["tuple", inner]
    if isinstance(t, types.Optional):  # an array or None (a step's Guerrilla record)
        inner = encode_type(t.type)
        return None if inner is None else ["optional", inner]
    if isinstance(t, types.Literal):
        return None
    if isinstance(t, types.Boolean | types.Integer | types.Float | types.NoneType):
        return str(t)
    return None


def decode_type(spec) -> types.Type:
    """The numba type `encode_type` wrote (ValueError for anything else)."""
    if isinstance(spec, list) and len(spec) == 5 and spec[0] == "array":
        _, dtype, ndim, layout, readonly = spec
        return types.Array(decode_type(dtype), int(ndim), str(layout), readonly=bool(readonly))
    if isinstance(spec, list) and len(spec) == 2 and spec[0] == "literal" and isinstance(spec[1], int):
        return types.literal(spec[1])  # a bool is an int here: BooleanLiteral for True / False
    if isinstance(spec, list) and len(spec) == 2 and spec[0] == "tuple" and isinstance(spec[1], list):
        return types.BaseTuple.from_types([decode_type(e) for e in spec[1]])
    if isinstance(spec, list) and len(spec) == 2 and spec[0] == "optional":
        return types.Optional(decode_type(spec[1]))
    if (isinstance(spec, list) and len(spec) == 3 and spec[0] == "named"
            and isinstance(getattr(bundles, str(spec[1]), None), type) and isinstance(spec[2], list)):
        return types.BaseTuple.from_types([decode_type(e) for e in spec[2]], getattr(bundles, spec[1]))
    if isinstance(spec, str):
        t = _SCALARS.get(spec, getattr(types, spec, None))
        if isinstance(t, types.Type):
            return t
    raise ValueError(f"not a type of a compile plan: {spec!r}")


def load_plan(path: Path = PLAN_FILE) -> dict[str, list]:
    """{args_key: [[module, function, [argument types]], ...]}; empty when there is no plan."""
    try:
        plan = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return plan.get("kernels", {}) if isinstance(plan, dict) else {}


def planned_functions(key: str, plan: dict | None = None) -> list[tuple]:
    """(dispatcher, signature) of every entry of `key`'s plan that can be compiled here: entries
    that name no cached numba function or a type napsim cannot rebuild are left out."""
    out = []
    for entry in (plan if plan is not None else load_plan()).get(key, []):
        try:
            module, name, specs = entry
            fn = getattr(importlib.import_module(module), name)
            sig = tuple(decode_type(s) for s in specs)
        except (ImportError, AttributeError, TypeError, ValueError):
            continue
        if isinstance(fn, numba.core.registry.CPUDispatcher) and has_own_cache(fn):
            out.append((fn, sig))
    return out


def compile_planned(key: str, plan: dict | None = None) -> int:
    """Compile (into numba's on-disk cache) every function of `key`'s plan; how many compiled."""
    functions = planned_functions(key, plan)
    for fn, sig in functions:
        fn.compile(sig)
    return len(functions)


class Recorder(numba.core.event.Listener):
    """Listens to numba's compiles and keeps, in the order they start, the cached functions
    compiled inside another compile (a function Python calls first, the kernel or a table of its
    arguments, compiles here before a second process could help) with types a plan can hold
    (`tools/compile_plan.py` writes them)."""

    def __init__(self) -> None:
        self.depth = 0
        self.entries: list[list] = []

    def on_start(self, ev) -> None:
        self.depth += 1
        d = ev.data["dispatcher"]
        if self.depth == 1 or not has_own_cache(d):
            return
        specs = [encode_type(t) for t in ev.data["args"]]
        if None not in specs:
            self.entries.append([d.py_func.__module__, d.py_func.__name__, specs])

    def on_end(self, ev) -> None:
        self.depth -= 1
