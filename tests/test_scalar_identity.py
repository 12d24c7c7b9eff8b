"""Scalar calls whose result is their argument itself (trace/scalar_identity.py): the compiled
function returns the caller's object, as the plain one does, and traces once for any value."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_call

import astcompile


def straight(f, i, x):
    g = float(f)
    m = max(f, f)
    n = min(i, i, i)
    k = int(i)
    r = f.real
    return g, m, n, k, r, x * 2.0


def after_a_loop(f, x):
    t = 0.0
    for v in x:
        t = t + v
    return float(f), max(f, f), f.real, t


def _objects(result, args):
    """For each returned item: its type, and which arguments it is."""
    return [(type(r), [k for k, a in enumerate(args) if r is a]) for r in result]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_argument_itself_comes_back(backend):
    compiled = astcompile.compile(straight, backend=backend)
    x = np.ones(3)
    for f, i in [(2.5, 7), (-0.0, 9), (float("nan"), 11), (1e300, 13)]:  # one int class
        args = (f, i, x)
        assert _objects(compiled(*args), args) == _objects(straight(*args), args)
        assert_same_call(compiled, args, straight, args, backend)
    assert sum(region.stats.traces for region in compiled.regions) == 1  # no value guard
    args = (1.5, 1 << 40, x)  # another class of ints
    assert _objects(compiled(*args), args) == _objects(straight(*args), args)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [2.5, np.float64(2.5), 3, True])
def test_after_a_loop(backend, f):
    compiled = astcompile.compile(after_a_loop, backend=backend)
    x = np.ones(4)
    for _ in range(3):
        args = (f, x)
        got, expected = compiled(*args), after_a_loop(*args)
        assert [type(g) for g in got] == [type(e) for e in expected]
        assert [g is f for g in got[:2]] == [e is f for e in expected[:2]]
        assert_same_call(compiled, args, after_a_loop, args, backend)
