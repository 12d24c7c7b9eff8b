"""Each op's Triton rule against NumPy, through Triton's interpreter.

By default all unary and all binary ops of a dtype go through one function (a few fused
kernels, cheap in the interpreter); with --slow each op is its own case over special values
(NaN, infinities, signed zeros, extreme integers)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import TRITON, assert_same
from test_backend_triton import count_launches

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

FLOAT_UNARY = [
    np.negative, np.positive, np.abs, np.square, np.reciprocal, np.sqrt, np.cbrt, np.exp,
    np.exp2, np.expm1, np.log, np.log2, np.log10, np.log1p, np.sin, np.cos, np.tan, np.arcsin,
    np.arccos, np.arctan, np.sinh, np.cosh, np.tanh, np.arcsinh, np.arccosh, np.arctanh,
    np.floor, np.ceil, np.trunc, np.rint, np.sign, np.isnan, np.isinf, np.isfinite,
    np.signbit, np.deg2rad, np.rad2deg, np.logical_not,
]  # fmt: skip
FLOAT_BINARY = [
    np.add, np.subtract, np.multiply, np.true_divide, np.power, np.maximum, np.minimum,
    np.fmax, np.fmin, np.arctan2, np.hypot, np.copysign, np.equal, np.not_equal, np.less,
    np.less_equal, np.greater, np.greater_equal, np.logical_and, np.logical_or,
    np.logical_xor,
]  # fmt: skip

SPECIAL = np.array(
    [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.75, 1e30, -1e-30, np.inf, -np.inf, np.nan]
)
INTS = np.array([0, 1, -1, 7, -8, 100, -128, 2**31 - 1, -(2**31)], dtype=np.int64)


def _floats(dtype):
    return SPECIAL.astype(dtype), SPECIAL[::-1].astype(dtype)


def _unary(op):
    def f(x):
        return op(x)

    return f


def _binary(op):
    def f(x, y):
        return op(x, y)

    return f


def float_unary(x):
    """Every op of FLOAT_UNARY (one region, a few fused kernels)."""
    p = np.abs(x)
    return (
        -x, +x, p, x * x, 1 / x, np.sqrt(x), np.cbrt(x), np.exp(x), np.exp2(x), np.expm1(x),
        np.log(x), np.log2(x), np.log10(x), np.log1p(x), np.sin(x), np.cos(x), np.tan(x),
        np.arcsin(x), np.arccos(x), np.arctan(x), np.sinh(x), np.cosh(x), np.tanh(x),
        np.arcsinh(x), np.arccosh(p), np.arctanh(x), np.floor(x), np.ceil(x), np.trunc(x),
        np.rint(x), np.sign(x), np.isnan(x), np.isinf(x), np.isfinite(x), np.signbit(x),
        np.deg2rad(x), np.rad2deg(x), np.logical_not(x),
    )  # fmt: skip


def float_binary(x, y):
    return (
        x + y, x - y, x * y, x / y, np.power(np.abs(x), y), np.maximum(x, y), np.minimum(x, y),
        np.fmax(x, y), np.fmin(x, y), np.arctan2(x, y), np.hypot(x, y), np.copysign(x, y),
        x == y, x != y, x < y, x <= y, x > y, x >= y, np.logical_and(x, y),
        np.logical_or(x, y), np.logical_xor(x, y), x**2, x**3,
    )  # fmt: skip


def int_unary(x):
    return -x, np.abs(x), x * x, np.sign(x), ~x, np.logical_not(x)


def int_binary(x, y):
    return (
        x + y, x - y, x * y, np.maximum(x, y), np.minimum(x, y), x & y, x | y, x ^ y, x == y,
        x < y, x >= y, np.logical_and(x, y),
    )  # fmt: skip


@pytest.fixture
def launches(monkeypatch):
    return count_launches(monkeypatch)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_ops(dtype, launches):
    x, y = _floats(dtype)
    assert_same(float_unary, x, backend="triton")
    assert_same(float_binary, x, y, backend="triton")
    assert launches


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_int_ops(dtype, launches):
    x = INTS.astype(dtype)
    assert_same(int_unary, x, backend="triton")
    assert_same(int_binary, x, x[::-1].copy(), backend="triton")
    assert launches


def test_clip_where_and_casts(launches):
    def f(x, i):
        return (
            np.clip(x, -1.0, 2.0),
            np.where(x > 0, x, i),
            i.astype(np.float32),
            (x > 0).astype(np.int8),
        )

    x, _ = _floats(np.float64)
    assert_same(f, x, np.arange(len(x)), backend="triton")
    assert launches


@pytest.mark.slow
@pytest.mark.parametrize("op", FLOAT_UNARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_float_unary(op, dtype):
    assert_same(_unary(op), _floats(dtype)[0], backend="triton")


@pytest.mark.slow
@pytest.mark.parametrize("op", FLOAT_BINARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_float_binary(op, dtype):
    x, y = _floats(dtype)
    grid_x, grid_y = np.meshgrid(x, y)
    assert_same(_binary(op), grid_x, grid_y, backend="triton")


def _against_minus_one(u):
    return u > -1, u >= -1, u == -1, u > -1, (u > -1).sum(), np.where(u != -5, u, 0)


@pytest.mark.parametrize("dtype", [np.uint64, np.uint32, np.uint8])
def test_unsigned_arrays_compare_with_negative_python_ints(dtype):
    """``uint64_array > -1`` compares as NumPy does (the -1 converted as NumPy converts it);
    building the kernel's literal raised OverflowError (a CompileError on every call)."""
    u = np.arange(300).astype(dtype)
    u[-1] = np.iinfo(dtype).max
    assert_same(_against_minus_one, u, backend="triton")
