"""The pass pipeline: one ordered list of named passes, then scheduling.

Each pass is ``graph -> (graph, changed)``. ``run_passes`` applies them in order and verifies
the IR after each pass when ``config.verify_ir`` is set (tests set it).
"""

from __future__ import annotations

from collections.abc import Callable

from astcompile.ir.graph import Graph, verify_between
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


def run_passes(graph: Graph) -> Graph:
    for name, fn, _why in PIPELINE:
        graph, _changed = fn(graph)
        verify_between(graph, f"pass {name}")
    return graph
