"""Backend "c": fused loop nests generated as C, built with gcc, loaded with cffi.

``CBackend().compile(graph)`` runs the pass pipeline, schedules the graph into kernels, writes
one C source for all of the region's kernels (one compiler call), builds or loads it through the
runtime's disk cache, and returns the generated Python wrapper. Graphs with loops, branches or
stores (a later issue) run with the eager interpreter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from astcompile import config
from astcompile.backends.eager import EagerBackend, EvalContext, rule_for
from astcompile.codegen import c as cgen
from astcompile.codegen.ctypes import supported_dtype
from astcompile.codegen.lower import can_lower
from astcompile.codegen.names import sanitize
from astcompile.codegen.reduce import can_reduce
from astcompile.codegen.wrapper import WrapperSource
from astcompile.errors import CompileError
from astcompile.graph.ir import Graph, Node, walk
from astcompile.graph.ops import Kind, Op
from astcompile.passes.pipeline import run_passes
from astcompile.passes.schedule import Kernel, Schedule, schedule
from astcompile.runtime import RuntimeBuildError, load_library, nthreads
from astcompile.runtime.timing import compile_times, phase

__all__ = ["CBackend", "compile_times", "generate"]


def supported(node: Node) -> bool:
    """Whether the C code generator handles ``node`` (else it runs as a NumPy step)."""
    if node.kind is Kind.REDUCTION:
        return can_reduce(node)
    if node.op is Op.BROADCAST_TO:
        return supported_dtype(node.dtype)
    return node.kind is Kind.ELEMENTWISE and can_lower(node)


def generate(graph: Graph) -> tuple[Schedule, str, str, str, WrapperSource]:
    """(schedule, C source, cffi declarations, Python wrapper source) for a graph."""
    with phase("passes"):
        sched = schedule(run_passes(graph), supported)
    with phase("codegen"):
        parts, decls, plans = [cgen.HEADER], [], {}
        for step in sched.steps:
            if isinstance(step, Kernel):
                src, decl, plans[step.name] = cgen.kernel_source(step)
                parts.append(src)
                decls.append(decl)
        wrapper = WrapperSource(sched, plans)
        py = wrapper.build()
    return sched, "\n".join(parts), "\n".join(decls), py, wrapper


def _step_runner() -> Callable:
    def run(node: Node, args: list, leaves: Sequence[Any]) -> Any:
        ctx = EvalContext([np.shape(v) for v in leaves])
        return rule_for(node)(node, ctx, args)

    return run


class CBackend:
    name = "c"

    def __init__(self, cache_dir: str | None = None) -> None:
        self.cache_dir = cache_dir

    def compile(self, graph: Graph) -> Callable[[Sequence[Any]], list]:
        eager = EagerBackend().compile(graph)
        if graph.effects or any(n.kind is Kind.CONTROL for n in walk(graph.nodes())):
            return eager
        _, source, decls, py, wrapper = generate(graph)
        namespace: dict[str, Any] = {
            "_np": np,
            "_ndarray": np.ndarray,
            "_empty": np.empty,
            "_eager": eager,
            "_nthreads": nthreads,
            "_step": _step_runner(),
            "_stop": _stop,
            **wrapper.consts,
            **wrapper.steps,
        }
        if decls:
            namespace["_lib"], namespace["_ptr"], namespace["_fb"] = self._load(source, decls)
        exec(compile(py, f"<astcompile region {graph.name}>", "exec"), namespace)  # noqa: S102 - our generated wrapper
        fn = namespace[f"region_{sanitize(graph.name)}"]
        fn.c_source, fn.py_source = source, py
        return fn

    def _load(self, source: str, decls: str) -> tuple[Any, Callable, Callable]:
        try:
            ffi, lib = load_library(source, decls, self.cache_dir or config.cache_dir)
        except RuntimeBuildError as exc:
            raise CompileError(str(exc)) from exc
        from_buffer, cast = ffi.from_buffer, ffi.cast

        def ptr(a: np.ndarray) -> Any:
            return from_buffer(a) if a.flags.c_contiguous else cast("void*", a.ctypes.data)

        return lib, ptr, from_buffer


def _stop(value: int) -> int | None:
    return None if value < 0 else value


def c_backend_available() -> bool:
    """True when a C compiler is on PATH: backend "auto" then picks "c"."""
    from astcompile.runtime.build import find_compiler
    from astcompile.runtime.errors import CompilerNotFound

    try:
        find_compiler()
    except CompilerNotFound:
        return False
    return True
