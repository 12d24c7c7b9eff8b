"""Functions passed as arguments or defaults (``def f(x, op=np.add)``, ``mode=wrap``): a call
of a parameter is graph-able in the source; the tracer vets the function passed in, guards it
by identity, and runs the region as Python where it may not call it (``print``, a user
function with loops or breaks), always with the plain function's result."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls
from test_masks import assert_compiled_same

import astcompile

rng = np.random.default_rng(7)
SCALE = 2.0


def wrap(i, n):
    return i % n


def scaled(v):
    return v * SCALE


def with_loop(v):
    for _ in range(2):
        v = v + 1
    return v


def with_print(v):
    print("value")
    return v


def apply(x, op=np.add):
    return op(x, 1)


def shifted(x, mode=wrap):
    return x * mode(5, 3) + mode(x, 2.0)


def fold(x, op=np.maximum):
    acc = x[0]
    for i in range(1, x.shape[0]):
        acc = op(acc, x[i])
    return acc


def unary(x, f=scaled):
    return f(x) + 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args",
    [
        (apply, ()),
        (apply, (np.subtract,)),
        (apply, (np.maximum,)),
        (shifted, ()),
        (fold, ()),
        (fold, (np.minimum,)),
        (unary, ()),
        (unary, (np.sin,)),
        (unary, (with_loop,)),  # its loop runs natively (frontend/callee_loops.py)
    ],
)
def test_functions_passed_in_compile(caplog, fn, args, backend):
    assert_compiled_same(caplog, fn, rng.standard_normal((5, 3)), *args, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_function_identity_is_guarded(backend):
    """Each function passed in gets its own entry: never the code traced for another."""
    x = rng.standard_normal(4)
    ops = [np.add, np.subtract, np.multiply, np.add, np.power, np.maximum]
    assert_same_calls(apply, [(x, op) for op in ops], backend=backend)
    compiled = astcompile.compile(fold, backend=backend)
    for op in (np.maximum, np.minimum, np.add):
        np.testing.assert_array_equal(compiled(x[:, None], op), fold(x[:, None], op))


@pytest.mark.parametrize("backend", BACKENDS)
def test_globals_of_a_function_passed_in_are_read_each_call(backend):
    global SCALE
    x = rng.standard_normal(4)
    compiled = astcompile.compile(unary, backend=backend)
    try:
        for value in (2.0, 3.0):
            SCALE = value
            np.testing.assert_array_equal(compiled(x), x * value + 1)
    finally:
        SCALE = 2.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, op, why",
    [
        (apply, print, "op is a function with side effects"),
        (unary, with_print, "f is with_print(), whose line"),
    ],
)
def test_functions_the_trace_may_not_run_are_called_in_python(capsys, fn, op, why, backend):
    x = rng.standard_normal(3)
    compiled = astcompile.compile(fn, backend=backend)
    expected = fn(x, op)
    printed = capsys.readouterr().out
    got = compiled(x, op)
    assert capsys.readouterr().out == printed  # printed at each call, as in Python
    if expected is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, expected)
    output = astcompile.explain(compiled, x, op)
    assert output.graph_break_count == 1
    assert why in output.break_reasons[0].detail
