"""The stand-ins a trace runs the user's statements on (trace/stand_ins.py): the globals of
a function whose globals dict has no ``__builtins__`` (``types.FunctionType(code, {...})``,
``exec`` into a bare dict), whose builtins are then its own, set when it was made."""

from __future__ import annotations

import types

import numpy as np
import pytest
from differential import BACKENDS, assert_same_call

import astcompile


def _weighted(x):
    s = 0.0
    for i in range(len(x)):
        s = s + abs(x[i]) * float(i)
    return s


def _traces(fn):
    return sum(region.stats.traces for region in fn.regions)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bare_globals_compile_once(backend):
    bare = types.FunctionType(_weighted.__code__, {"np": np})
    assert "__builtins__" not in bare.__globals__
    compiled = astcompile.compile(bare, backend=backend)
    x = np.arange(-3.0, 4.0)
    for _ in range(5):
        assert_same_call(compiled, (x,), bare, (x,), backend)
    assert _traces(compiled) == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_bare_globals_see_a_builtin_shadowed_later(backend):
    scope = {"np": np}
    bare = types.FunctionType(_weighted.__code__, scope)
    compiled = astcompile.compile(bare, backend=backend)
    x = np.arange(-3.0, 4.0)
    assert_same_call(compiled, (x,), bare, (x,), backend)
    scope["abs"] = lambda v: -v  # a global now, looked up before the builtins
    assert_same_call(compiled, (x,), bare, (x,), backend)
    del scope["abs"]
    assert_same_call(compiled, (x,), bare, (x,), backend)
