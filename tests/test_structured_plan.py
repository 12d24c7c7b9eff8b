"""The loop planner (lower/structured_plan.py) is target-free: which values a loop region may
compute is the target's answer (``Target.in_loops``), not C's rules imported."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from astcompile.ir.graph import Node
from astcompile.ir.ops import Kind
from astcompile.lower.structured_plan import StructuredUnsupported, plan_structured
from astcompile.targets.c.c_target import C
from tests.test_loop_schedule import norms


class NoReductions:
    """A target whose loop emitter writes everything C does except reductions."""

    def in_loops(self, node: Node) -> bool:
        return node.kind is not Kind.REDUCTION and C.in_loops(node)


def test_the_plan_asks_the_target_which_values_it_writes():
    graph = astcompile.explain(astcompile.compile(norms), np.ones((4, 3))).graphs[0]
    assert plan_structured(graph, C).stores
    with pytest.raises(StructuredUnsupported, match=r"reduction SUM \(.*test_loop_schedule"):
        plan_structured(graph, NoReductions())
