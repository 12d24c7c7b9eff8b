"""Backend "c": fused loop nests generated as C, built with gcc, loaded with cffi.

``CBackend().compile(graph)`` runs the pass pipeline, schedules the graph into kernels, writes
one C source for all of the region's kernels (one compiler call), builds or loads it through the
runtime's disk cache, and returns the generated Python wrapper. Graphs with loops, branches or
stores (*structured* graphs) become one C function each (``codegen/structured.py``); what that
emitter does not support raises ``StructuredUnsupported`` and the region runs eagerly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from astcompile import config, logs
from astcompile.backends.cwrap import WrapperParts, make_wrapper
from astcompile.backends.eager import EagerBackend
from astcompile.codegen import c as cgen
from astcompile.codegen.ctypes import supported_dtype
from astcompile.codegen.inplace import reused_buffers
from astcompile.codegen.lower import can_lower
from astcompile.codegen.reduce import can_reduce
from astcompile.codegen.structured import generate_structured
from astcompile.codegen.structured_plan import StructuredUnsupported
from astcompile.codegen.structured_wrapper import raise_error, region_source
from astcompile.codegen.wrapper import WrapperSource
from astcompile.errors import CompileError
from astcompile.graph.ir import Graph, Node, walk
from astcompile.graph.ops import Kind, Op
from astcompile.passes.pipeline import run_passes
from astcompile.passes.schedule import Kernel, Schedule, schedule
from astcompile.runtime import RuntimeBuildError, load_library
from astcompile.runtime.loader import library_path
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
        reuse = reused_buffers(sched)
        aliased = frozenset(reuse) | {t.id for t in reuse.values()}
        for step in sched.steps:
            if isinstance(step, Kernel):
                src, decl, plans[step.name] = cgen.kernel_source(step, aliased)
                parts.append(src)
                decls.append(decl)
        wrapper = WrapperSource(sched, plans, reuse)
        py = wrapper.build()
    return sched, "\n".join(parts), "\n".join(decls), py, wrapper


class CBackend:
    name = "c"

    def __init__(self, cache_dir: str | None = None) -> None:
        self.cache_dir = cache_dir

    def compile(self, graph: Graph) -> Callable[[Sequence[Any]], list]:
        if graph.effects or any(n.kind is Kind.CONTROL for n in walk(graph.nodes())):
            try:
                return self._compile_structured(graph)
            except StructuredUnsupported as exc:
                logs.graph_breaks.info("%s runs eagerly: the C backend does not support %s",
                                       graph.name, exc)
                return EagerBackend().compile(graph)
        _, source, decls, py, wrapper = generate(graph)
        parts = WrapperParts(py, dict(wrapper.consts), dict(wrapper.steps), decls)
        library = None
        if decls:
            library = self._load(source, decls)
            parts.library = library_path(library[1])
        fn = make_wrapper(graph, parts, library)
        fn.c_source = source
        return fn

    def _compile_structured(self, graph: Graph) -> Callable:
        """One C function for a region with loops, branches or stores."""
        with phase("codegen"):
            src = region_source(graph, generate_structured(graph))
        parts = WrapperParts(src.py, {**src.consts, "_raise": raise_error}, {}, src.decl)
        library = self._load(src.c, src.decl)
        parts.library = library_path(library[1])
        fn = make_wrapper(graph, parts, library)
        fn.c_source = src.c
        return fn

    def _load(self, source: str, decls: str) -> tuple[Any, Any]:
        try:
            return load_library(source, decls, self.cache_dir or config.cache_dir)
        except RuntimeBuildError as exc:
            raise CompileError(str(exc)) from exc


def c_backend_available() -> bool:
    """True when a C compiler is on PATH: backend "auto" then picks "c"."""
    from astcompile.runtime.build import find_compiler
    from astcompile.runtime.errors import CompilerNotFound

    try:
        find_compiler()
    except CompilerNotFound:
        return False
    return True
