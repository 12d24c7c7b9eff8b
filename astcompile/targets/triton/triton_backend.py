"""Backend "triton": the schedule's fused kernels as Triton kernels, on a GPU or interpreted.

The second target of the pipeline. ``schedule`` groups a flat graph into kernels with the
Triton target's ``supports`` (what it has no rule for runs as a NumPy step), ``accept`` picks
the graph's form (:data:`FORMS`; a loop graph none takes runs on the C target, and the
graph_breaks log and ``explain`` say why), ``lower`` writes one Python module holding every
kernel's ``@triton.jit`` functions and the region's wrapper, ``load`` imports the module from
the cache directory (Triton compiles from a kernel's source file; its own compile cache is
under the same directory), ``wrap`` binds the wrapper.

Where kernels run: with ``TRITON_INTERPRET=1`` Triton's interpreter runs them on the CPU over
the NumPy arrays themselves (what CI tests); otherwise on the GPU, NumPy inputs copied to the
device (CuPy) and results copied back, device arrays staying where they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

from astcompile import config
from astcompile.errors import CompileError
from astcompile.lower.ids import numbering
from astcompile.passes.schedule import Schedule
from astcompile.stages import GraphKind, RegionWork
from astcompile.targets.staged import StagedBackend, assured
from astcompile.targets.triton.flat import TritonCode, flat_code
from astcompile.targets.triton.host_loops import loop_code
from astcompile.targets.triton.host_stores import store_code
from astcompile.targets.triton.store_plan import StoreRegion, store_region
from astcompile.targets.triton.triton_loop_plan import HostProgram, c_target_reason, host_program
from astcompile.targets.triton.triton_target import TRITON
from astcompile.targets.wrapper import make_wrapper

__all__ = ["FORMS", "TritonBackend"]

#: A Triton region's wrapper: its NumPy steps warn as they run (flags raised in them would
#: not run its statements again: jit/fp_errors.after_compiled keys on C-built entries).
_loud_wrapper = functools.partial(make_wrapper, noted_steps=False)

Plan = Schedule | StoreRegion | HostProgram  #: what a form plans, and ``lower`` writes


class Form(NamedTuple):
    """A way to lower a graph: ``plan`` makes its plan or None, ``write`` the plan's code."""

    name: str
    plan: Callable[[RegionWork], Plan | None]
    write: Callable[..., TritonCode]


def _kernels(work: RegionWork) -> Schedule | None:
    return work.schedule if work.kind is GraphKind.FLAT else None


def _scan_kernels(work: RegionWork) -> Schedule | None:
    return TRITON.schedule(work.scans) if work.scans and not work.scans.effects else None


#: How Triton lowers a region's graph: in the first form whose ``plan(work)`` (of the graph or
#: ``work.scans``) is not None (stores: phases of kernels and stores into views, no loop;
#: host_loops: host loops launching their bodies' kernels). A graph no form takes runs on C.
FORMS = (
    Form("kernels", _kernels, flat_code),  # a flat graph: its schedule's fused kernels
    Form("scans", _scan_kernels, flat_code),  # np.cumsum/np.cumprod only: scan kernels
    Form("stores", lambda work: store_region(work.scans or work.graph), store_code),
    Form("host_loops", lambda work: host_program(work.graph), loop_code),
)


class TritonBackend(StagedBackend):
    """The Triton target: its ``schedule``, ``accept``, ``lower``, ``load``, ``wrap`` stages."""

    name = "triton"
    fallback = "c"  #: the backend of a graph it refuses, by name (stages.accept makes it)
    STAGES = ("schedule", "accept", "lower", "load", "wrap")  # accept: why it refuses a graph

    def schedule(self, work: RegionWork) -> None:
        work.schedule = TRITON.schedule(work.graph)

    def accept(self, work: RegionWork) -> str | None:
        """The ``accept`` stage: the form this target lowers the graph in, with its plan, left
        in the work; or why it has none (the region then runs on the C target)."""
        for form in FORMS:
            plan = form.plan(work)
            if plan is not None:
                work.form, work.schedule = form, plan
                return None
        return c_target_reason(work.graph)

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
                work.graph, code.parts, work.library, _loud_wrapper, code.stored_leaves
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
        work.run = run
