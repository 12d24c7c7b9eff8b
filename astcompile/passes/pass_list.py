"""The graph passes: one ordered list of named passes, each a stage of ``astcompile.pipeline``.

Each pass is ``graph -> (graph, changed)``; the stage runner verifies the graph each one leaves
when ``config.verify_ir`` is set (tests set it).

A pass's module is imported when the pass first runs: ``astcompile.pipeline`` lists the passes
as stages, and a warm start, which loads compiled entries and runs no pass, imports that list.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph

Pass = Callable[["Graph"], tuple["Graph", bool]]


class _Lazy:
    """The pass ``name`` of module ``astcompile.passes.<name>``, imported on its first run."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.fn: Pass | None = None

    def __call__(self, graph: Graph) -> tuple[Graph, bool]:
        if self.fn is None:
            module = importlib.import_module(f"astcompile.passes.{self.name}")
            self.fn = getattr(module, self.name)
        return self.fn(graph)


#: (name, pass, why) in the order they run.
PIPELINE: list[tuple[str, Pass, str]] = [
    ("decompose", _Lazy("decompose"), "var/std into mean and elementwise ops the codegen knows"),
    ("matmul_loops", _Lazy("matmul_loops"), "products inside loop regions as native sums"),
    (
        "reshape_late",
        _Lazy("reshape_late"),
        "elementwise ops before a reshape, fused with its input",
    ),
    ("constfold", _Lazy("constfold"), "scalar constant expressions computed once, at compile time"),
    ("cse", _Lazy("cse"), "one node per distinct computation (decomposition duplicates some)"),
    ("ifconvert", _Lazy("ifconvert"), "cheap scalar if/else in loops as selects, no branch"),
    ("dce", _Lazy("dce"), "drop identity casts and unary plus"),
]
