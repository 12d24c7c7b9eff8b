"""Small IR graphs built by hand, for the tests of one pass or one rule.

A traced graph shows what the tracer emits today; a hand-built one pins the exact shape a pass
must handle (two equal nodes, a constant subexpression, an identity cast), whatever the tracer
later folds itself. ``evaluate`` runs a graph through the eager interpreter, so a test can
check that a pass kept the values as well as changed the structure. ``passed`` and ``lowered``
run the compile's own stages on a graph and stop before a stage, for tests that read what the
stages before it made.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.ir.graph import ConstAttr, Graph, InputAttr, InputKind, Node
from astcompile.ir.ops import Op
from astcompile.pipeline import run_target_stages
from astcompile.stages import RegionWork
from astcompile.targets import get_backend
from astcompile.targets.eager import run_graph

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)


def array(index: int, shape: tuple = (4,), dtype: np.dtype = F64) -> Node:
    """The region's ``index``-th array argument, named ``x{index}``."""
    return Node(Op.INPUT, (), dtype, shape, InputAttr(index, f"x{index}", InputKind.ARRAY))


def const(value: Any, dtype: np.dtype = F64, weak: bool = False) -> Node:
    """A constant (of ``value``'s shape); ``weak``: a Python literal (NEP 50)."""
    return Node(Op.CONST, (), dtype, np.shape(value), ConstAttr(value, weak))


def apply(
    op: Op, *inputs: Node, dtype: np.dtype | None = None, shape: tuple | None = None, attr=None
) -> Node:
    """``op`` of ``inputs``: by default of the first input's dtype and the broadcast shape."""
    if shape is None:
        shape = np.broadcast_shapes(*(tuple(i.shape) for i in inputs))
    return Node(op, inputs, inputs[0].dtype if dtype is None else dtype, shape, attr)


def graph(inputs: list[Node], outputs: list[Node], effects: list[Node] | None = None) -> Graph:
    return Graph("test", inputs, outputs, effects or [])


def evaluate(g: Graph, *leaves: Any) -> list:
    """The outputs of ``g`` on ``leaves``, by the eager interpreter."""
    with np.errstate(all="ignore"):
        return run_graph(g, list(leaves))


def ops(g: Graph) -> list[Op]:
    """The ops of ``g``'s nodes, inputs first."""
    return [n.op for n in g.nodes()]


def traced(fn: Any, *args: Any) -> Graph:
    """The graph the compiler traces for ``fn(*args)`` (its first region), before any pass."""
    import astcompile

    return astcompile.explain(astcompile.compile(fn), *args).graphs[0]


def all_nodes(g: Graph) -> list[Node]:
    """Every node of ``g``, its loop bodies and branches, once each, in program order."""
    from astcompile.ir.graph import walk

    return sorted({n.id: n for n in walk(g.nodes())}.values(), key=lambda n: n.id)


def passed(graph: Graph) -> Graph:
    """``graph`` after the pipeline's graph passes (its stages before ``schedule``)."""
    return run_target_stages(graph, get_backend("c"), stop_before="schedule").graph


def lowered(graph: Graph, backend: str = "c") -> RegionWork:
    """What ``backend``'s stages up to ``lower`` made of ``graph`` (its graph after the passes,
    schedule and code), nothing built yet."""
    return run_target_stages(graph, get_backend(backend), stop_before="load")
