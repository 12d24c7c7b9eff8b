"""Backend "triton": the schedule's fused kernels as Triton kernels, on a GPU or interpreted.

The second target of the pipeline. ``schedule`` groups a flat graph into kernels with the
Triton target's ``supports`` (what it has no rule for runs as a NumPy step), ``lower`` writes
one Python module holding every kernel's ``@triton.jit`` functions and the region's wrapper,
``load`` imports the module from the cache directory (Triton compiles from a kernel's source
file; its own compile cache is under the same directory), ``wrap`` binds the wrapper.

Where kernels run: with ``TRITON_INTERPRET=1`` Triton's interpreter runs them on the CPU over
the NumPy arrays themselves (what CI tests); otherwise on the GPU, NumPy inputs copied to the
device (CuPy) and results copied back, device arrays staying where they are.

Stores into views without loops are lowered as store kernels (codegen/triton_store_plan.py).
Loop graphs (loops, branches, run-time indices) have no Triton lowering yet: they go to the C
target's stages, and the graph_breaks log says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from astcompile import config, logs
from astcompile.backends.c import CBackend, assured
from astcompile.backends.cwrap import make_wrapper
from astcompile.backends.triton_flat import TritonCode, flat_code
from astcompile.backends.triton_host_loops import loop_code
from astcompile.backends.triton_host_stores import store_code
from astcompile.codegen.ids import numbering
from astcompile.codegen.scan_steps import fold_scans
from astcompile.codegen.triton_loop_plan import c_target_reason, host_program
from astcompile.codegen.triton_store_plan import store_region
from astcompile.codegen.triton_target import TRITON
from astcompile.errors import CompileError
from astcompile.ir.graph import Graph
from astcompile.stages import GraphKind, RegionWork

__all__ = ["TritonBackend"]


class TritonBackend:
    """The Triton target: its ``schedule``, ``lower``, ``load`` and ``wrap`` stages."""

    name = "triton"
    graph_passes = True

    def __init__(self, cache_dir: str | None = None) -> None:
        self.cache_dir = cache_dir
        self.c = CBackend(cache_dir)
        self.steps = {
            "schedule": self.schedule,
            "lower": self.lower,
            "load": self.load,
            "wrap": self.wrap,
        }

    def compile(self, graph: Graph) -> Callable[[Sequence[Any]], list]:
        from astcompile.pipeline import compile_graph

        return compile_graph(graph, self)

    def schedule(self, work: RegionWork) -> None:
        work.schedule = TRITON.schedule(work.graph)

    def lower(self, work: RegionWork) -> None:
        graph = work.graph
        scans = fold_scans(graph) if work.kind is not GraphKind.FLAT else None
        if scans is not None and not scans.effects:  # np.cumsum/np.cumprod: scan kernels
            work.schedule = TRITON.schedule(scans)
            with numbering():
                work.code = flat_code(work.schedule, assured(work))
            return
        graph = scans or graph
        stores = store_region(graph) if work.kind is not GraphKind.FLAT else None
        if stores is not None:  # stores into views, no loop: phases of kernels and stores
            with numbering():
                work.code = store_code(stores, assured(work))
            return
        program = host_program(work.graph) if work.kind is not GraphKind.FLAT else None
        if program is not None:  # host loops launching their bodies' kernels
            with numbering():
                work.code = loop_code(program, assured(work))
            return
        if work.kind is not GraphKind.FLAT:
            logs.graph_breaks.info(
                "%s: %s: it runs on the C target (CPU)",
                work.graph.name,
                c_target_reason(work.graph),
            )
            self.c.lower(work)
            return
        with numbering():
            work.code = flat_code(work.schedule, assured(work))

    def load(self, work: RegionWork) -> None:
        if not isinstance(work.code, TritonCode):
            self.c.load(work)
            return
        from astcompile.runtime.triton_runtime import load_module

        if work.code.signatures:
            work.library = load_module(work.code.source, self.cache_dir or config.cache_dir)

    def wrap(self, work: RegionWork) -> None:
        code = work.code
        if not isinstance(code, TritonCode):
            self.c.wrap(work)
            work.run.target = f"c ({c_target_reason(work.graph)})"
            return
        from astcompile.runtime import triton_device

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
        work.run = run
