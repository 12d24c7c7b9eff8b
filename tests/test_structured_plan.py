"""The loop planner (lower/structured_plan.py) is target-free: which values a loop region may
compute is the target's answer (``Target.in_loops``), not C's rules imported."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_call, assert_same_value

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


# -- views a region returns ---------------------------------------------------------------------


def every_other_stored(x, out):
    y = x * 2
    out[:] = x + 1
    return y[::2]


def strided_with_its_base(x, out):
    y = x * 2
    out[:] = y.sum()
    return y[1::3], y


def two_views(x, out):
    y = x * 2
    out[:] = y[0]
    return y[::2], y[1::2].T


def seen_by_a_later_store(x, out):
    y = x * 2
    v = y[::-2]
    y[-1] = 7.0
    out[:] = x
    return v


def parts_and_broadcast(z, out):
    w = z * 2j
    out[:] = z.real
    return w.imag[::2], np.broadcast_to(w.real, (2, *w.shape))


def layout(value):
    """What NumPy says of a returned array besides its values."""
    if isinstance(value, tuple):
        return [layout(v) for v in value]
    flags = value.flags
    return value.strides, flags.c_contiguous, flags.owndata, flags.writeable, value.base is None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn", [every_other_stored, strided_with_its_base, two_views, seen_by_a_later_store]
)
def test_a_view_of_a_computed_array_is_returned_as_that_view(backend, fn):
    """Beside a store into an argument (a region with stores), ``y[::2]`` leaves as NumPy's
    view of ``y``: its strides and ``.base``; written into, the other views see it."""
    x = np.arange(12.0)
    compiled = astcompile.compile(fn, backend=backend)
    for _ in range(3):
        assert_same_call(compiled, (x.copy(), np.zeros(12)), fn, (x.copy(), np.zeros(12)))
        got, want = compiled(x.copy(), np.zeros(12)), fn(x.copy(), np.zeros(12))
        assert layout(got) == layout(want)
        for result in (got, want):
            first = result[0] if isinstance(result, tuple) else result
            first[...] = -1.0
        assert_same_value(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_parts_and_broadcasts_of_a_computed_array_are_views(backend):
    z = np.arange(6.0) + 1j
    compiled = astcompile.compile(parts_and_broadcast, backend=backend)
    for _ in range(3):
        got = compiled(z.copy(), np.zeros(6))
        want = parts_and_broadcast(z.copy(), np.zeros(6))
        assert_same_value(got, want)
        assert layout(got) == layout(want)


def one_view_twice_after_a_loop(x, out):
    y = x * 2.0
    for i in range(len(out)):
        out[i] = y[i] + 1.0
    v = y[::2]
    return v, v, y[::2], y, y, x, x


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_value_returned_twice_is_one_object(backend):
    """``v, v`` is one object, as in NumPy; a second ``y[::2]`` is a view of its own."""
    compiled = astcompile.compile(one_view_twice_after_a_loop, backend=backend)
    for _ in range(10):
        x = np.arange(8.0)
        assert_same_call(
            compiled, (x.copy(), np.zeros(8)), one_view_twice_after_a_loop, (x, np.zeros(8))
        )
        v, w, other, y, z, a, b = compiled(x, np.zeros(8))
        assert v is w and y is z and a is b is x and other is not v
