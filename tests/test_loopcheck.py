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
