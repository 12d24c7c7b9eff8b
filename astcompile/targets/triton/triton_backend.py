"""Backend "triton": the schedule's fused kernels as Triton kernels, on a GPU or interpreted.

The second target of the pipeline. ``schedule`` groups a flat graph into kernels with the
Triton target's ``supports`` (what it has no rule for runs as a NumPy step); ``stores`` and
``host_loops`` plan a loop graph in their forms (:data:`FORMS`); ``accept`` hands a graph none
planned to the C target (the graph_breaks log and ``explain`` say why); ``lower`` writes one Python module holding every
kernel's ``@triton.jit`` functions and the region's wrapper, ``load`` imports the module from
the cache directory (Triton compiles from a kernel's source file; its own compile cache is
under the same directory), ``wrap`` binds the wrapper.

Where kernels run: with ``TRITON_INTERPRET=1`` Triton's interpreter runs them on the CPU over
the NumPy arrays themselves (what CI tests); otherwise on the GPU, NumPy inputs copied to the
device (CuPy) and results copied back, device arrays staying where they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from astcompile import config
from astcompile.errors import CompileError
from astcompile.ir.graph import Graph, walk
from astcompile.ir.ops import Kind, Op
from astcompile.lower.host_program import HostProgram, host_program, runtime_index
from astcompile.lower.ids import numbering
from astcompile.lower.loop_schedule import LoopForm, build_schedule, loop_forms
from astcompile.lower.store_plan import StoreRegion, store_region
from astcompile.lower.structured_plan import StructuredUnsupported, plan_structured
from astcompile.passes.schedule import Schedule, schedule
from astcompile.stages import RegionWork
from astcompile.targets.staged import StagedBackend, assured
from astcompile.targets.triton.flat import TritonCode, flat_code
from astcompile.targets.triton.host_loops import loop_code
from astcompile.targets.triton.host_stores import store_code
from astcompile.targets.triton.matmul import fused
from astcompile.targets.triton.triton_target import TRITON
from astcompile.targets.wrapper import make_wrapper

__all__ = ["FORMS", "TritonBackend"]

Plan = Schedule | StoreRegion | HostProgram  #: what a form plans, and ``lower`` writes


class Form(NamedTuple):
    """A way to lower a graph: ``plan`` makes its plan or None, ``write`` the plan's code."""

    name: str
    plan: Callable[[RegionWork], Plan | None]
    write: Callable[..., TritonCode]


def _kernels(work: RegionWork) -> Schedule:
    return schedule(work.scans or work.graph, TRITON.supports)


#: How Triton lowers a region's graph, each form planned by the stage of its name in the
#: pipeline list (``astcompile/pipeline.py``), the first to plan the graph taking it: a flat
#: graph, or one whose scans folded it flat (``work.scans``), is scheduled into kernels
#: (``schedule``: fused kernels, products as matmul kernels, scans as scan kernels); a graph
#: whose effects are stores and checks, no loop, is cut into phases (``stores``); one with user
#: loops the host runs, into segments (``host_loops``). A graph none plans runs on C.
FORMS = (
    Form("kernels", _kernels, flat_code),
    Form("scans", _kernels, flat_code),  # np.cumsum/np.cumprod loops folded: scan kernels
    Form("stores", lambda work: store_region(work.scans or work.graph, TRITON), store_code),
    Form("host_loops", lambda work: host_program(work.graph, TRITON), loop_code),
)


class TritonBackend(StagedBackend):
    """The Triton target: its ``schedule``, ``stores``, ``host_loops`` stages each plan the
    graph in its form, if it can; ``accept`` says why none did; ``lower``, ``load``, ``wrap``."""

    name = "triton"
    fallback = "c"  #: the backend of a graph it refuses, by name (stages.accept makes it)
    STAGES = ("schedule", "stores", "host_loops", "matmuls", "accept", "lower", "load", "wrap")

    def _plan(self, work: RegionWork, form: Form) -> None:
        plan = form.plan(work)
        if plan is not None:
            work.form, work.schedule = form, plan

    def schedule(self, work: RegionWork) -> None:
        self._plan(work, FORMS[work.scans is not None])

    def stores(self, work: RegionWork) -> None:
        self._plan(work, FORMS[2])

    def host_loops(self, work: RegionWork) -> None:
        self._plan(work, FORMS[3])

    def matmuls(self, work: RegionWork) -> None:
        fused(work.schedule)

    def accept(self, work: RegionWork) -> str | None:
        """The ``accept`` stage: None when a form planned the graph, or why none did (the
        region then runs on the C target)."""
        return None if work.form else c_target_reason(work.graph)

    def lower(self, work: RegionWork) -> None:
        with numbering():
            work.code = work.form.write(work.schedule, assured(work))

    def load(self, work: RegionWork) -> None:
        from astcompile.runtime.triton_runtime import load_module

        if work.code.signatures:
            work.library = load_module(work.code.source, self.cache_dir or config.cache_dir)

    def wrap(self, work: RegionWork) -> None:
        from astcompile.runtime import triton_device

        code = work.code
        try:
            run = triton_device.bind(
                work.graph, code.parts, work.library, make_wrapper, code.stored_leaves
            )
        except ImportError as exc:
            raise CompileError(
                f"backend 'triton' runs its kernels on a CUDA GPU through CuPy ({exc}): "
                "pip install 'astcompile[gpu]' on a machine with a GPU, or set "
                "TRITON_INTERPRET=1 to run them in Triton's interpreter on the CPU"
            ) from exc
        run.triton_source = code.source
        run.triton_module = work.library  # the debug dump names its file
        run.target = code.target()
        run.fp_silent = True  # its kernels' flags and NumPy steps' errors: raised as C's are
        work.run = run


def c_target_reason(graph: Graph) -> str:
    """Why a region that is not flat runs on the C target, as ``explain`` says it."""
    nodes = list(walk(graph.nodes()))
    if not any(runtime_index(n) or n.kind is Kind.CONTROL for n in nodes):  # stores only
        return (
            "stores Triton cannot lower: a run-time index, a cast without a Triton rule, a "
            "reshape of a stored array, or a store into an array that is neither an argument "
            "nor new"
        )
    try:
        forms = loop_forms(build_schedule(graph, plan_structured(graph, TRITON)))
    except StructuredUnsupported:
        forms = {}
    if any(form is LoopForm.SCALAR for form in forms.values()):
        return (
            "a loop of scalar element updates: no GPU form; it runs on the CPU over host "
            "arrays (GPU regions around it copy their arrays to and from the device)"
        )
    if any(form is LoopForm.GRID for form in forms.values()):
        return (
            "a loop of independent iterations whose body has no whole-array form (an index "
            "that may wrap or leave the array, a nested loop or branch, an argmax)"
        )
    if any(n.op is Op.INDEX and len(n.inputs) > 1 for n in nodes):
        return "a loop region with a run-time index: no Triton lowering yet"
    return "a loop region with a statement Triton cannot lower (see the graph_breaks log)"
