"""Values nothing reads that NumPy warns about (trace/unread_values.py): the compiled code
still computes them, so the region's statements run again and NumPy warns, as plain."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_same_warnings, target_mode

import astcompile
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace.unread_values import may_warn


def unread_remainder(x, y):
    t = x % y  # noqa: F841 - unread on purpose
    return x + 1


def unread_cast(x, y):
    t = y.astype(np.int32)  # noqa: F841 - unread on purpose
    return x + 1


def unread_complex_less(x, y):
    t = x < y  # noqa: F841 - unread on purpose
    return x * 2


def unread_complex_to_real(x, y):
    t = x.astype(np.float64)  # noqa: F841 - unread on purpose: ComplexWarning, even if empty
    return y + 1


def unread_int_reciprocal(x, y):
    t = np.reciprocal(y)  # noqa: F841 - unread on purpose
    return x + 1


def unread_in_a_loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        t = x[i] / y[i]  # noqa: F841 - unread on purpose
        s += x[i]
    return s


CASES = [
    (unread_remainder, np.array([4, 5], np.int32), np.array([0, 2], np.int32)),
    (unread_cast, np.array([1.0, 2.0]), np.array([np.nan, 1.0])),
    (unread_complex_less, np.array([np.nan + 0j, 1j]), np.array([1j, 2j])),
    (unread_complex_to_real, np.array([1.5 - 2j]), np.array([1.0])),
    (unread_complex_to_real, np.zeros(0, np.complex64), np.array([1.0])),
    (unread_int_reciprocal, np.array([1, 2]), np.array([0, 2], np.int8)),
    (unread_in_a_loop, np.array([4.0, 1.0]), np.array([2.0, 0.0])),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "x", "y"), CASES)
def test_an_unread_value_warns_as_numpy_does(backend, fn, x, y):
    """``t = x % y`` with a zero in ``y``, ``t`` never read: NumPy warns "divide by zero
    encountered in remainder" at every call; compiled, the graph dropped ``t`` and nothing
    warned after the first call. Found by the NumPy-semantics generator."""
    assert_same_warnings(fn, x, y, backend=backend)


def python_floats(a, x):
    r = int(3 * a)
    return x[:r].sum()


def test_python_number_arithmetic_is_not_kept():
    """Python's own arithmetic never warns (``3 * a`` of a Python float): nothing of it is
    added to the graph's outputs."""
    compiled = astcompile.compile(python_floats, backend="eager")
    x = np.arange(5.0)
    assert compiled(1.5, x) == python_floats(1.5, x)
    explained = astcompile.explain(compiled, 1.5, x)
    assert all(len(g.outputs) == 1 for g in explained.graphs)


@pytest.mark.parametrize(
    ("source", "op", "dtype", "warns"),
    [
        (np.float64, Op.CAST, np.int32, True),  # NaN to int: "invalid value"
        (np.float64, Op.CAST, np.float32, True),  # 1e300: "overflow"
        (np.float32, Op.CAST, np.float64, False),
        (np.complex64, Op.CAST, np.complex128, False),
        (np.complex64, Op.CAST, np.float64, True),  # ComplexWarning
        (np.int8, Op.RECIPROCAL, np.int8, True),  # of zero
        (np.float64, Op.CAST, bool, False),
        (np.int64, Op.MOD, np.int64, True),  # by zero
        (np.int64, Op.ADD, np.int64, False),  # arrays wrap silently
        (np.float64, Op.MAXIMUM, np.float64, False),
        (np.float64, Op.LT, bool, False),
        (np.complex128, Op.LT, bool, True),
    ],
)
def test_which_values_may_warn(source, op, dtype, warns):
    """Of an array argument (not a Python number): NumPy's warnings by op and dtypes."""
    arg = Node(Op.INPUT, (), np.dtype(source), (2,))
    inputs = (arg,) if op is Op.CAST else (arg, arg)
    assert may_warn(Node(op, inputs, np.dtype(dtype), (2,))) is warns


def unread_difference_in_a_loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        d = x[i] - y[i]  # noqa: F841 - unread on purpose
        s += x[i] * y[i]
    return s


def unread_product_in_a_branch(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > y[i]:
            d = x[i] * y[i]  # noqa: F841 - unread on purpose
            s += x[i]
        else:
            s -= y[i]
    return s


def unread_int_product_in_a_loop(x, y):
    s = 0
    for i in range(x.shape[0]):
        k = x[i] * y[i]  # noqa: F841 - unread on purpose: NumPy's scalar overflow warning
        s += i
    return s


def unread_int_quotient_in_a_loop(x, y):
    s = 0
    for i in range(x.shape[0]):
        q = x[i] // y[i]  # noqa: F841 - unread on purpose: divide by zero
        s += i
    return s


def unread_complex_product_in_a_loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        z = x[i] * y[i]  # noqa: F841 - unread on purpose
        s += x[i].real
    return s


def unread_python_complex_in_a_loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        z = complex(x[i], y[i])  # noqa: F841 - unread on purpose: never warns
        s += x[i]
    return s


def unread_int_negation_in_a_loop(x, y):
    s = 0
    for i in range(x.shape[0]):
        n = -x[i]  # noqa: F841 - unread on purpose: "overflow encountered in scalar negative"
        a = abs(y[i])  # noqa: F841 - unread on purpose: "... in scalar absolute"
        s += i
    return s


def unread_int_absolute(x, y):
    a = abs(x[0])  # noqa: F841 - unread on purpose: NumPy's scalar abs of the least int warns
    return y + 1


INF_MINUS_INF = [
    (np.array([1.0, np.inf, 2.0]), np.array([2.0, np.inf, 1.0])),
    (np.array([1.0, np.inf], np.float32), np.array([2.0, np.inf], np.float32)),
    (np.array([1.0, 3.0]), np.array([2.0, 1.0])),
]
#: (function, x, y): an unread scalar in a loop or branch body that NumPy warns about (or not).
UNREAD_SCALARS = [
    (unread_difference_in_a_loop, *INF_MINUS_INF[0]),
    (unread_difference_in_a_loop, *INF_MINUS_INF[2]),
    (unread_product_in_a_branch, np.array([1.0, np.inf, 2.0]), np.array([0.5, 0.0, 1.0])),
    (unread_product_in_a_branch, np.array([1.0, 3.0]), np.array([0.5, 1.0])),
    (unread_int_product_in_a_loop, np.array([2**62, 3]), np.array([4, 5])),
    (unread_int_product_in_a_loop, np.array([2, 3]), np.array([4, 5])),
    (unread_int_quotient_in_a_loop, np.array([7, 3]), np.array([2, 0])),
    (unread_int_quotient_in_a_loop, np.array([7, 3]), np.array([2, 1])),
    (unread_complex_product_in_a_loop, np.array([1e200 + 1e200j, 1j]), np.array([1e200, 2.0])),
    (unread_complex_product_in_a_loop, np.array([1 + 2j, 1j]), np.array([3j, 2.0])),
    (unread_int_negation_in_a_loop, np.array([3, -(2**63)]), np.array([-(2**63), 1])),
    (unread_int_negation_in_a_loop, np.array([3, -4], np.int8), np.array([-128, 1], np.int8)),
    (unread_int_negation_in_a_loop, np.array([3, -4]), np.array([5, 1])),
    (unread_int_absolute, np.array([-(2**63), 1]), np.array([5, 1])),
    (unread_python_complex_in_a_loop, np.array([np.inf, 1.0]), np.array([np.nan, 2.0])),
]


def _outcome(fn, x, y, modes):
    """What a call returns or raises and the RuntimeWarnings it gives, under ``modes``."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(**modes):
        warnings.simplefilter("always")
        try:
            got = fn(x.copy(), y.copy())
        except FloatingPointError as error:
            got = repr(error)
    return got, [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("x", "y"), INF_MINUS_INF)
@pytest.mark.parametrize("modes", [{}, {"invalid": "raise"}, {"all": "ignore"}])
def test_an_unread_float_in_a_loop_warns_and_raises_as_numpy_does(backend, x, y, modes):
    """``d = x[i] - y[i]``, ``d`` unused, of inf - inf: NumPy warns "invalid value encountered
    in scalar subtract" (raises under ``errstate(invalid='raise')``, is quiet under
    ``all='ignore'``) and the sum is the same."""
    compiled = astcompile.compile(unread_difference_in_a_loop, backend=backend)
    expected = _outcome(unread_difference_in_a_loop, x, y, modes)
    with target_mode(backend):
        for _ in range(3):
            got = _outcome(compiled, x, y, modes)
            assert repr(got) == repr(expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "x", "y"), UNREAD_SCALARS)
@pytest.mark.parametrize("modes", [{}, {"all": "raise"}, {"all": "ignore"}])
def test_an_unread_scalar_in_a_loop_or_branch_warns_as_numpy_does(backend, fn, x, y, modes):
    """An unread float in a branch, an unread NumPy int (overflow, division by zero) or complex
    scalar, a Python complex (never a warning): the same result, warnings and errors."""
    compiled = astcompile.compile(fn, backend=backend)
    expected = _outcome(fn, x, y, modes)
    with target_mode(backend):
        for _ in range(3):
            assert repr(_outcome(compiled, x, y, modes)) == repr(expected)


@pytest.mark.parametrize(("fn", "x", "y"), [*UNREAD_SCALARS[1::2], UNREAD_SCALARS[-1]])
def test_an_unread_scalar_in_a_loop_keeps_the_loop_compiled(fn, x, y):
    """The loop keeps ``d`` by a KEEP check (computed, its flags raised, then dropped), not by
    running as written: the loop ran as slowly as plain NumPy scalars (1.0x, from ~300x); so
    do a float in a branch, an int and a complex (before: the region ran as written)."""
    compiled = astcompile.compile(fn, backend="c")
    explained = astcompile.explain(compiled, x, y)
    assert explained.break_reasons == []
    assert [(r.compiled_calls, r.eager_calls) for r in explained.regions] == [(1, 0)]
