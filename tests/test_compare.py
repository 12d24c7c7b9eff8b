"""The rules verify mode compares a compiled run with a plain run by, and the copies it makes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from astcompile.compare import (
    call_differences,
    copy_args,
    differences,
    exception_differences,
    input_floor,
    tolerance,
)


def test_exact_kinds_and_float_tolerances():
    assert tolerance(np.dtype(np.int32)) == tolerance(np.dtype(bool)) == (0.0, 0.0)
    assert tolerance(np.dtype(np.float32)) == tolerance(np.dtype(np.complex64))
    assert tolerance(np.dtype(np.float64)) == tolerance(np.dtype(np.complex128)) == (1e-12, 1e-12)


@pytest.mark.parametrize(
    "got, expected",
    [
        (np.array([1.0, np.nan, np.inf, -0.0]), np.array([1.0, np.nan, np.inf, -0.0])),
        (np.float32(1.0) + np.float32(5e-6), np.float32(1.0)),
        (np.array([1e6, 1e-13]), np.array([1e6, 0.0])),  # within the absolute tolerance
        ((np.arange(3), 2.5, None, "s"), (np.arange(3), 2.5, None, "s")),
        (np.array([1 + 2j]), np.array([1 + 2j])),
        ({"a": [1, np.float32(2.0)]}, {"a": [1, np.float32(2.0)]}),
        (Fraction(1, 2), Fraction(2, 4)),
        (object(), object()),  # no ``==`` of its own: the type is all that can be compared
    ],
)
def test_equal_within_tolerance(got, expected):
    assert differences(got, expected) == []


@pytest.mark.parametrize(
    "got, expected, text",
    [
        (np.arange(3), np.arange(3.0), "dtype int64 != float64"),
        (np.zeros((2, 3)), np.zeros((3, 2)), "shape (2, 3) != (3, 2)"),
        (np.float64(1.0), 1.0, "type float64 != float"),
        (np.array([1, 2, 3]), np.array([1, 2, 4]), "1 of 3 element(s) differ (exact)"),
        (np.array([np.inf]), np.array([-np.inf]), "first at index (0,): compiled inf, plain -inf"),
        (np.array([np.nan]), np.array([0.0]), "compiled nan, plain 0.0"),
        (np.float32(1.001), np.float32(1.0), "rtol 1e-05"),
        ((1, 2), (1, 2, 3), "length 2 != 3"),
        ([np.zeros(2)], [np.ones(2)], "result[0]: 2 of 2"),
        (True, False, "True != False"),
        (np.array([1e6, 1e-9]), np.array([1e6, 1e-8]), "compiled 1e-09, plain 1e-08"),  # not scaled
        (np.array([0.0, -0.0]), np.array([0.0, 0.0]), "compiled -0.0, plain 0.0"),
        (np.array([1j]), np.array([complex(-0.0, 1.0)]), "1 of 1 element(s) differ"),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, "keys ['a', 'b'] != ['b', 'a']"),
        ({"a": [np.zeros(2)]}, {"a": [np.ones(2)]}, "result['a'][0]: 2 of 2"),
        (Fraction(1, 2), Fraction(1, 3), "Fraction(1, 2) != Fraction(1, 3)"),
    ],
)
def test_differences_name_what_differs(got, expected, text):
    (problem,) = differences(got, expected)
    assert text in problem


def test_float32_inputs_allow_float32_tolerance_in_float64_results():
    args = (np.ones(3, np.float32),)
    assert input_floor(args) == (1e-5, 1e-5)
    got, expected = np.array([1.0 + 1e-7]), np.array([1.0])
    assert differences(got, expected) and not differences(got, expected, floor=input_floor(args))


def test_exceptions_compare_by_type():
    assert exception_differences(None, None) == []
    assert exception_differences(ValueError("a"), ValueError("b")) == []  # worded otherwise
    (problem,) = exception_differences(None, ValueError("bad"))
    assert problem == "raised nothing, plain ValueError: bad"
    (problem,) = exception_differences(TypeError("x"), ValueError("x"))
    assert problem == "raised TypeError: x, plain ValueError: x"


def test_numpys_overflow_message_must_name_the_same_int():
    plain = OverflowError("Python integer 300 out of bounds for int8")
    assert exception_differences(OverflowError(f"{plain}\n  at user.py:3"), plain) == []
    (problem,) = exception_differences(OverflowError("Python integer out of bounds"), plain)
    assert "Python integer 300" in problem
    assert exception_differences(OverflowError("a"), OverflowError("b")) == []  # other words


def test_call_differences_compare_arguments_after_the_call():
    problems = call_differences(
        (1,), (1,), (np.array([1, 2]), 3), (np.array([1, 0]), 3), ("x", "n"), (0.0, 0.0)
    )
    expected = (
        "argument 'x' after the call: 1 of 2 element(s) differ (exact); "
        "first at index (1,): compiled 2, plain 0"
    )
    assert problems == [expected]


def test_copies_keep_views_aliasing_and_read_only_flags():
    x = np.arange(10.0)
    tail, reversed_odd = x[1:], x[1::2][::-1]
    frozen = np.arange(3)
    frozen.flags.writeable = False
    f_order = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    cx, ctail, codd, cfrozen, cf, cfv, nested = copy_args(
        (x, tail, reversed_odd, frozen, f_order, f_order[:, 1:3], [x, {"k": tail}])
    )
    assert not np.shares_memory(cx, x) and np.shares_memory(cx, ctail)
    ctail[0] = -1.0
    codd[0] = -9.0
    assert cx[1] == -1.0 and cx[9] == -9.0 and x[1] == 1.0
    assert not cfrozen.flags.writeable
    cfv[0, 0] = -7.0
    assert cf[0, 1] == -7.0 and f_order[0, 1] == 1.0
    assert nested[0] is cx and nested[1]["k"] is ctail
