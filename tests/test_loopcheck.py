"""Which loop heads lower to native loops (frontend/loopcheck.py): every name the lowered
loop reads as a builtin must be the builtin, the ``range`` inside ``enumerate(range(n))``
too; a module's own ``range`` runs as written."""

from __future__ import annotations

import types

import numpy as np
import pytest
from differential import BACKENDS, assert_same_call

import astcompile


def _shuffled_range(*args):
    return [3, 1, 2][: args[0]] if len(args) == 1 else [4, 0]


def _enumerated(x):
    s = 0.0
    for i, v in enumerate(range(x.shape[0])):
        s = s + x[v] * i
    return s


def _enumerated_from(x):
    s = 0.0
    for i, v in enumerate(range(1, x.shape[0], 2), 3):
        s = s + x[v] * i
    return s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("body", [_enumerated, _enumerated_from])
def test_enumerate_of_a_users_range(backend, body):
    fn = types.FunctionType(body.__code__, {**globals(), "range": _shuffled_range})
    compiled = astcompile.compile(fn, backend=backend)
    x = np.arange(5.0) + 1.0
    for _ in range(3):
        assert_same_call(compiled, (x,), fn, (x,), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_enumerate_of_range_rebound_between_calls(backend):
    scope = dict(globals())
    fn = types.FunctionType(_enumerated.__code__, scope)
    compiled = astcompile.compile(fn, backend=backend)
    x = np.arange(5.0) + 1.0
    assert_same_call(compiled, (x,), fn, (x,), backend)
    scope["range"] = _shuffled_range
    assert_same_call(compiled, (x,), fn, (x,), backend)
    del scope["range"]
    assert_same_call(compiled, (x,), fn, (x,), backend)


def _local_range(x):
    range = _shuffled_range  # a local the loop head reads
    s = 0.0
    for v in range(x.shape[0]):
        s = s + x[v]
    return s


def _local_zip(x):
    zip = lambda a, b: [(1.0, 2.0)]
    s = 0.0
    for a, b in zip(x, x):
        s = s + a * b
    return s


def _parameter_enumerate(x, enumerate):
    s = 0.0
    for i, v in enumerate(x):
        s = s + v * i
    return s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "more"),
    [(_local_range, ()), (_local_zip, ()), (_parameter_enumerate, (lambda v: [(2, 7.0)],))],
)
def test_a_loop_head_naming_a_local_runs_as_written(backend, fn, more):
    """A local or a parameter named ``range``/``zip``/``enumerate`` is no builtin: the loop
    lowered as one read x[0..n) (35.0 where plain returns 5.0)."""
    compiled = astcompile.compile(fn, backend=backend)
    x = np.arange(5.0) + 1.0
    for _ in range(3):
        assert_same_call(compiled, (x, *more), fn, (x, *more), backend)
