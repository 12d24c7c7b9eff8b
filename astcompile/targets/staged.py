"""What the code generating backends (C, Triton) share: their construction, ``compile`` and
what a region's guard key assures their wrappers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from astcompile.jit.entries import current_leaves
from astcompile.lower.host import NOTHING, Assured, assured_by

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph
    from astcompile.stages import RegionWork
    from astcompile.targets import CompiledGraph


class StagedBackend:
    """A backend whose ``STAGES`` are its methods of the same names, run by the pipeline
    after the graph passes; its code is cached under ``cache_dir`` (default:
    ``config.cache_dir``)."""

    graph_passes = True
    STAGES: tuple[str, ...] = ("schedule", "lower", "load", "wrap")

    def __init__(self, cache_dir: str | None = None) -> None:
        self.cache_dir = cache_dir
        self.steps = {n: getattr(self, n) for n in self.STAGES}

    def compile(self, graph: Graph) -> CompiledGraph:
        from astcompile.pipeline import compile_graph

        return compile_graph(graph, self)


def assured(work: RegionWork) -> Assured:
    """What the guard key of the entry being compiled checks before its wrapper runs (every
    call of an entry's wrapper comes after its key held); nothing for a bare graph."""
    if work.region is None or work.result is None:
        return NOTHING
    leaves = current_leaves(work.args, work.result.reads, work.region.owner.fn, work.observed)
    return assured_by(work.graph, leaves)
