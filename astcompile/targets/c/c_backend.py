"""Backend "c": fused loop nests generated as C, built with gcc, loaded with cffi.

The C target of the pipeline (``astcompile/pipeline.py``): after the graph passes, ``schedule``
groups a flat graph into kernels, ``lower`` writes one C source for all of the region's kernels
(one compiler call), ``load`` builds or loads it through the runtime's disk cache, and ``wrap``
makes the generated Python wrapper. Graphs with loops, branches or stores (*loop* graphs) become
one C function each (``targets/c/structured.py``); what that emitter does not support raises
``Unlowerable`` and the region runs the user's own statements (never the graph
interpreter, which would be slower than the plain code).
"""

from __future__ import annotations

from dataclasses import dataclass

from astcompile import config, logs
from astcompile.errors import CompileError, Unlowerable
from astcompile.ir.graph import Graph
from astcompile.ir.ops import Kind
from astcompile.lower.host import NOTHING, Assured, WrapperSource
from astcompile.lower.ids import numbering
from astcompile.lower.inplace import reused_buffers
from astcompile.lower.source_notes import annotate
from astcompile.passes.schedule import Kernel, Schedule, schedule
from astcompile.runtime import RuntimeBuildError, load_library
from astcompile.runtime.loader import library_path
from astcompile.stages import GraphKind, RegionWork
from astcompile.targets.c.c_target import C
from astcompile.targets.c.entry import HEADER
from astcompile.targets.staged import StagedBackend, assured
from astcompile.targets.wrapper import WrapperParts, make_wrapper

__all__ = ["CBackend"]


supported = C.supports  #: whether C's code generator handles a node (else a NumPy step)


@dataclass
class CCode:
    """What ``lower`` made: one C source for all of a region's functions, and its wrapper."""

    source: str
    decls: str
    parts: WrapperParts


def _flat_code(sched: Schedule, assured: Assured = NOTHING) -> CCode:
    """The C source, cffi declarations and wrapper of a flat graph's schedule."""
    parts, decls, plans = [HEADER], [], {}
    reuse = reused_buffers(sched)
    aliased = frozenset(reuse) | {t.id for t in reuse.values()}
    for step in sched.steps:
        if isinstance(step, Kernel):
            code = C.kernel(step, aliased)
            parts.append(code.source)
            decls.append(code.decl)
            plans[step.name] = code.plan
    wrapper, cdecls = WrapperSource(sched, plans, C, reuse, assured), "\n".join(decls)
    wrapper.build()
    return CCode(annotate("\n".join(parts)), cdecls, WrapperParts.of(wrapper, cdecls))


def _log_numpy_steps(graph: Graph, sched: Schedule) -> None:
    """Say which computations the fused kernels leave to NumPy (no C rule for their dtypes)."""
    for step in sched.steps:
        node = getattr(step, "node", None)
        if node is not None and node.kind in (Kind.ELEMENTWISE, Kind.REDUCTION):
            logs.graph_breaks.info(
                "%s: %s on %s at %s runs as a NumPy step (no C rule)",
                graph.name,
                node.op.name,
                node.dtype,
                node.loc,
            )


class CBackend(StagedBackend):
    """The C target: its ``schedule``, ``lower``, ``load`` and ``wrap`` pipeline stages."""

    name = "c"

    def schedule(self, work: RegionWork) -> None:
        work.schedule = schedule(work.graph, supported)
        _log_numpy_steps(work.graph, work.schedule)

    def lower(self, work: RegionWork) -> None:
        """Flat graphs: one C function per fused kernel. Loop graphs: one C function for the
        region; what that emitter does not support raises Unlowerable (the region runs as
        written)."""
        graph = work.graph
        with numbering():
            if work.kind is GraphKind.FLAT:
                work.code = _flat_code(work.schedule, assured(work))
                return
            # The loop emitter is imported with the first loop graph: a program of flat
            # regions (and its first call) does without it.
            from astcompile.lower.structured_plan import StructuredUnsupported
            from astcompile.targets.c.structured import generate_structured
            from astcompile.targets.c.structured_wrapper import region_source

            try:
                c, decl, wrapper = region_source(
                    graph, generate_structured(graph, assured(work).unit_c)
                )
            except StructuredUnsupported as exc:
                raise Unlowerable(str(exc), exc.loc) from exc
        work.code = CCode(annotate(c), decl, WrapperParts.of(wrapper, decl))

    def load(self, work: RegionWork) -> None:
        """The library of the C source; a flat graph made only of NumPy steps has none."""
        code, folder = work.code, self.cache_dir or config.cache_dir
        if not code.decls:
            return
        try:
            work.library = load_library(
                code.source,
                code.decls,
                folder,
                timeout=config.build_timeout or None,
                max_bytes=config.cache_max_bytes,
            )
        except RuntimeBuildError as exc:
            raise CompileError(str(exc)) from exc
        code.parts.library = library_path(work.library[1])

    def wrap(self, work: RegionWork) -> None:
        run = make_wrapper(work.graph, work.code.parts, work.library)
        run.c_source = work.code.source
        if work.handed_over is not None:  # explain: "on c (why the chosen target refused it)"
            run.target = f"c ({work.handed_over})"
        work.run = run
