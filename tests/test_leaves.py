"""jit/leaves.py: results put back into the structure the trace returned, each number as one
object where plain code returns one object twice (``return s, s``) and two where it returns
two values (``return s, t`` of two equal sums)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, numbers_twice

import astcompile
from astcompile.ir.results import Box, OutKind, OutSpec
from astcompile.jit.leaves import rebuilder, repeated


def sum_twice(x, out):
    s = (x * 2.0).sum()
    return s, s


def two_sums(x, out):
    y = x * 2.0
    s = y.sum()
    t = y.sum()
    return s, t


def loop_sum_twice(x, out):
    y = x * 2.0
    for i in range(len(out)):
        out[i] = y[i] + 1.0
    s = y.sum()
    return s, s, y.sum()


def python_numbers_twice(x, out):
    y = x * 2.0
    for i in range(len(out)):
        out[i] = y[i] + 1.0
    s = y.sum()
    n = int(s) * 1000
    f = float(s)
    return n, n, f, f, int(s) * 1000


def carried_total_twice(x, out):
    t = 0.0
    for i in range(len(x)):
        t += x[i]
    return t, t


def nested_twice(x, out):
    s = x.sum()
    return (s, s), {"a": s, "b": x.max()}, (s, (s,))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn",
    [sum_twice, two_sums, loop_sum_twice, python_numbers_twice, carried_total_twice, nested_twice],
)
def test_a_number_returned_twice_is_one_object(backend, fn):
    """Several calls: the later ones take the C-level call path where the entry has one."""
    calls = [(np.arange(8.0) + k, np.zeros(8)) for k in range(6)]
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    for x, out in calls:
        assert numbers_twice(compiled(x, out.copy())) == numbers_twice(fn(x, out.copy()))


def test_rebuilder_boxes_a_repeated_output_once():
    s = OutSpec(OutKind.GRAPH, 0, Box.SCALAR)
    t = OutSpec(OutKind.GRAPH, 1, Box.SCALAR)
    template = (s, [s, t], (t,))
    assert repeated(template) == {0: s, 1: t} and repeated((s, t)) == {}
    first, (second, other), (last,) = rebuilder(template)([np.array(2.0), np.array(2.0)], [], ())
    assert first is second and first == 2.0 and type(first) is np.float64
    assert other is last and other is not first
