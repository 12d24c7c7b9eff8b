"""What the code generating backends (C, Triton) share: their construction and ``compile``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph
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
