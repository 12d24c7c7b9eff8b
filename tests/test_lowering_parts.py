"""A lowered ``for`` (frontend/lowering_parts.py) calls no ``range``/``enumerate``/``zip``, but
loads their names first, as Python does: one rebound after the loop compiled (a global of that
name, the function's builtins patched) is seen at the next call."""

from __future__ import annotations

import builtins
import types

import numpy as np
import pytest
from differential import assert_same_call

import astcompile


def over_range(x, out):
    for i in range(len(out)):
        out[i] = x[i] + 1.0
    return out


def over_enumerate(x, out):
    for i, v in enumerate(x):
        out[i] = v * 2.0
    return out


def over_enumerate_range(x, out):
    for i, j in enumerate(range(1, len(out))):
        out[i] = x[j] * 2.0
    return out


def _first_only(*args):
    """What the loop's callee becomes: one step."""
    return [(0, args[0][0])] if len(args) == 1 and not isinstance(args[0], int) else [0]


def _args() -> tuple:
    return np.arange(6.0), np.zeros(6)


@pytest.mark.parametrize("backend", ["eager", "c"])
@pytest.mark.parametrize("where", ["global", "builtins"])
@pytest.mark.parametrize(
    "fn, name",
    [
        (over_range, "range"),
        (over_enumerate, "enumerate"),
        (over_enumerate_range, "enumerate"),
    ],
)
def test_a_loop_callee_rebound_after_it_compiled_is_called(fn, name, where, backend):
    namespace = {**globals(), "__builtins__": dict(vars(builtins))}
    plain = types.FunctionType(fn.__code__, namespace)
    compiled = astcompile.compile(plain, backend=backend)
    for _ in range(3):
        assert_same_call(compiled, _args(), plain, _args(), backend)
    (namespace if where == "global" else namespace["__builtins__"])[name] = _first_only
    for _ in range(2):
        assert_same_call(compiled, _args(), plain, _args(), backend)
