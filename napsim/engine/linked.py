"""A compile path for kernel helpers whose code only ever runs linked into a caller: one of the
compile shortcuts (napsim.engine.jit.COMPILE_SHORTCUTS).

numba gives every jitted function a code library of its own and finalises it: it optimises the
library's module and has LLVM emit its machine code. A helper without a CPython or C wrapper
(`napsim.engine.jit.inlined`, `outlined`) is never called at that machine code: every jitted caller
links the helper's module into its own, and the entry kernel (`play_blocks`, cached on disk)
optimises and emits the whole game once. So for these helpers the first optimisation and the
machine code are work thrown away: 10-30% of the CPU of a first `napsim simulate` from an empty
cache, by format (docs/speed.md, "The compile shortcuts, measured"). numba's public API has no way
to skip them: a caller links a callee's library only once numba has finalised it.

`LinkedOnlyCompiler` is numba's own nopython pipeline with one pass added before lowering, which
gives the function a `LinkedOnlyLibrary`: its module is verified and handed to callers as built
(numba's function passes have run over it), neither optimised as a module nor turned into machine
code. The entry kernels optimise it with their own code, as they did before. The games are
bit-identical (the golden digests), and the kernels as fast (docs/speed.md).

It leans on numba's code-library internals (numba 0.59-0.68; pyproject pins numba below its next
minor release), the one napsim module that does: where they are missing, `available()` is False,
and where numba's nopython pipeline has another shape, `LinkedOnlyCompiler` builds numba's own;
either way the helpers compile the ordinary way, more slowly, into the same games. The cache
folder (napsim.engine.kernel_cache) does not depend on this path: a kernel compiled either way is
the same kernel.
"""

from __future__ import annotations

try:
    from numba.core.codegen import JITCodeLibrary
    from numba.core.compiler import Compiler, CompilerBase, DefaultPassBuilder
    from numba.core.compiler_machinery import LoweringPass, register_pass
    from numba.core.typed_passes import AnnotateTypes, NativeLowering
except ImportError:  # numba moved them: compile the ordinary way
    JITCodeLibrary = None


def available() -> bool:
    """Whether numba has the internals this path needs (else helpers compile the ordinary way)."""
    return JITCodeLibrary is not None and all(
        hasattr(JITCodeLibrary, name) for name in (
            "_optimize_final_module", "_finalize_final_module", "_finalize_dynamic_globals",
            "_verify_declare_only_symbols", "get_pointer_to_function"))


if available():

    class _NoEnvCodegen:
        """The shared code generator, less `set_env`: a library that never reaches LLVM's engine
        has no environment slot to set (numba would write through a null address)."""

        def __init__(self, codegen) -> None:
            self._codegen = codegen

        def set_env(self, env_name, env) -> None:
            """Nothing to set: the helper's code runs inside its callers, which set their own."""

        def __getattr__(self, name):
            return getattr(self._codegen, name)

    class LinkedOnlyLibrary(JITCodeLibrary):
        """The code library of a helper that runs only linked into its callers: no module
        optimisation of its own and no machine code (the callers do both with their code)."""

        def _optimize_final_module(self) -> None:
            """Left to the callers: they optimise the helper's code together with their own."""

        def _finalize_final_module(self) -> None:
            self._finalize_dynamic_globals()
            self._verify_declare_only_symbols()
            self._finalized = True

        def get_pointer_to_function(self, name: str) -> int:
            """No machine code, so no address (numba asks for the absent CPython wrapper's)."""
            self._ensure_finalized()
            return 0

        @property
        def codegen(self):
            return _NoEnvCodegen(self._codegen)

    @register_pass(mutates_CFG=False, analysis_only=False)
    class _LinkedOnlyLibraryPass(LoweringPass):
        """Gives the function being compiled a `LinkedOnlyLibrary` before numba lowers it."""

        _name = "napsim_linked_only_library"

        def __init__(self) -> None:
            LoweringPass.__init__(self)

        def run_pass(self, state) -> bool:
            if state.library is None:
                state.library = LinkedOnlyLibrary(state.targetctx.codegen(),
                                                  state.func_id.func_qualname)
            return False

    class LinkedOnlyCompiler(CompilerBase):
        """numba's nopython pipeline, the function's code library a `LinkedOnlyLibrary`; numba's
        own pipelines where its nopython pipeline no longer has the shape this path expects."""

        def define_pipelines(self):
            try:
                pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
                pm.add_pass_after(_LinkedOnlyLibraryPass, AnnotateTypes)
                pm.finalize()
                if not any(cls is NativeLowering for cls, _ in pm.passes):
                    raise ValueError("no native lowering in numba's nopython pipeline")
            except Exception:  # another numba: the plain way, slower, the same code
                return Compiler.define_pipelines(self)
            return [pm]

else:  # pragma: no cover - another numba
    LinkedOnlyCompiler = None


def linked_only_options() -> dict:
    """The `njit` options that compile a wrapper-less helper on this path (none: the ordinary way)."""
    return {"pipeline_class": LinkedOnlyCompiler} if LinkedOnlyCompiler is not None else {}
