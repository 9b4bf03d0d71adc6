"""What carrying a bundle of arrays through a chain of kernel helpers costs numba's compile
(developer tool).

Usage: python tools/bundle_compile.py [--steps K] [--arrays N] [--rounds R] FORM [FORM ...]
FORM: tuple (a NamedTuple of arrays passed as numba passes it, as its members), ref (the same
NamedTuple handed on by reference: a numba type of a pointer to the kernel's copy, built here
with numba's extension API), structref
(numba.experimental.structref: one pointer too, but its helpers need reference counting on).

Each FORM compiles, in a fresh process with an empty numba cache, an entry kernel and a chain of
K helpers (napsim.engine.jit's `inlined` options: LLVM inlines them; the linked-only path where
numba has it), each taking the bundle of N int64 arrays, touching three of them and passing the
bundle on. Printed per form and round: the entry's first call (compile) in CPU seconds, the best
of 5 runs of the chained loop in seconds, and the loop's result (the same in every form). numba
passes a tuple argument as its members, each array as 7 values or more, so every helper that takes
the bundle as a tuple builds and takes apart N arrays; a reference is one pointer (docs/speed.md,
"A bundle's price in a first compile, and passing it by reference").
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

CHILD = """
import sys, time
from typing import NamedTuple
import numpy as np
from numba import njit, types
from numba.experimental import structref
from napsim.engine.jit import linked_only_options

form, K, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = [f"a{i}" for i in range(N)]
if form in ("tuple", "ref"):
    Bundle = NamedTuple("Bundle", [(n, np.ndarray) for n in names])
else:
    @structref.register
    class BundleType(types.StructRef):
        def preprocess_fields(self, fields):
            return tuple((n, types.unliteral(t)) for n, t in fields)

    class Bundle(structref.StructRefProxy):
        pass

    structref.define_proxy(Bundle, BundleType, names)
if form == "ref":  # a NamedTuple handed on as one pointer to the kernel's copy of it
    from llvmlite.ir import IRBuilder
    from numba.core import cgutils
    from numba.core.imputils import impl_ret_borrowed
    from numba.core.typing.templates import AttributeTemplate
    from numba.extending import (infer_getattr, intrinsic, lower_getattr_generic, models,
                                 register_model)

    class BundleRef(types.Type):
        def __init__(self, bundle):
            self.bundle = bundle
            super().__init__(name=f"ref[{bundle}]")

    @register_model(BundleRef)
    class BundleRefModel(models.PrimitiveModel):
        def __init__(self, dmm, fe_type):
            pointer = dmm.lookup(fe_type.bundle).get_value_type().as_pointer()
            super().__init__(dmm, fe_type, pointer)

    @infer_getattr
    class BundleRefAttributes(AttributeTemplate):
        key = BundleRef

        def generic_resolve(self, typ, attr):
            if attr in typ.bundle.fields:
                return typ.bundle[typ.bundle.fields.index(attr)]

    @lower_getattr_generic(BundleRef)
    def bundle_ref_field(context, builder, typ, value, attr):
        i = typ.bundle.fields.index(attr)
        field = IRBuilder.load(builder, cgutils.gep_inbounds(builder, value, 0, i))
        return impl_ret_borrowed(context, builder, typ.bundle[i], field)

    @intrinsic
    def by_ref(typingctx, bundle):
        def codegen(context, builder, signature, args):
            slot = cgutils.alloca_once(builder, args[0].type)
            IRBuilder.store(builder, args[0], slot)
            return slot
        return BundleRef(bundle)(bundle), codegen
else:
    by_ref = None
helper = njit(forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True,
              _nrt=form == "structref", **linked_only_options())
src = []
for k in range(K, 0, -1):
    a, c, d = names[k % N], names[(3 * k + 1) % N], names[(7 * k + 2) % N]
    nxt = f"    x = step{k + 1}(b, i + 1 + (x % 3 == 0), x)\\n" if k < K else ""
    src.append(f"def step{k}(b, i, x):\\n    for j in range(b.{a}.shape[0]):\\n"
               f"        b.{a}[j] += b.{c}[(j + i) % b.{c}.shape[0]] + x\\n"
               f"        x += b.{d}[j % b.{d}.shape[0]]\\n{nxt}    return x\\n")
scope = {}
for text in src:
    exec(text, scope)
    name = text.split("(")[0][4:]
    scope[name] = helper(scope[name])


@njit
def kernel(b, reps):
    x = 0
    rb = by_ref(b) if REF else b
    for r in range(reps):
        x = step1(rb, r, x) % 1000003
    return x


step1 = scope["step1"]
REF = form == "ref"
# every third array a strided view (numba types it apart), so that the bundle is a NamedTuple of
# mixed array types, as napsim's are, not a NamedUniTuple
b = Bundle(*[np.arange(2 * (16 + i % 5), dtype=np.int64)[::2] if i % 3 == 2
             else np.arange(16 + i % 5, dtype=np.int64) for i in range(N)])
t0 = time.process_time()
kernel(b, 1)
compile_s = time.process_time() - t0
best = float("inf")
for _ in range(5):
    t0 = time.perf_counter()
    result = kernel(b, 200000)
    best = min(best, time.perf_counter() - t0)
print(f"{compile_s:.2f} {best:.4f} {result}")
"""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("forms", nargs="+", choices=("tuple", "ref", "structref"))
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--arrays", type=int, default=70)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    print(f"{args.steps} helpers, a bundle of {args.arrays} arrays; compile (CPU s), run (s), result")
    for r in range(args.rounds):
        for form in args.forms:
            with tempfile.TemporaryDirectory(prefix="napsim-bundle-") as cache:
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, form, str(args.steps), str(args.arrays)],
                    capture_output=True, text=True, env={**os.environ, "NUMBA_CACHE_DIR": cache})
            if done.returncode != 0:
                print(f"{form}: failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}")
                return 1
            compile_s, run_s, result = done.stdout.split()
            print(f"round {r + 1}  {form:9s}  compile {compile_s:>6}  run {run_s}  result {result}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
