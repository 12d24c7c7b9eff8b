"""jit/fp_errors.py on integers and casts: NumPy scalar integer overflow, float-to-int casts
out of range, and complex-to-real casts warn as NumPy does, once, from the user's line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import (
    BACKENDS,
    TRITON,
    assert_same_call,
    assert_same_calls,
    assert_same_warnings,
    copy_args,
    runtime_warnings,
    target_mode,
)

import astcompile


def int8_item_sums(x):
    acc = np.zeros(1, np.int8)
    for v in x:
        acc[0] += v
    return acc


def int64_item_product(x):
    p = x[0]
    for i in range(1, x.shape[0]):
        p = p * x[i]
    return p


def uint8_steps(x):
    return [x[i] - x[i - 1] for i in range(1, x.shape[0])]


def python_int_steps(x):
    k = 0
    for i in range(x.shape[0]):
        k = k * 3 + i  # Python ints: no NumPy scalar, no warning
    return x * k


def int32_constant_steps(x):
    a = np.int32(2**30)
    for _ in range(x.shape[0]):
        a = a + np.int32(2**30)  # a NumPy scalar constant: NumPy's scalar add, which warns
    return a


def int8_abs_sums(x):
    s = np.int8(0)
    for i in range(x.shape[0]):
        s = s + abs(x[i])  # abs(np.int8(-128)): "overflow encountered in scalar absolute"
    return s


def sign_flips(x):
    s = x[0]
    for i in range(x.shape[0]):
        s = -s  # -np.int64(-2**63), -np.uint8(3): "overflow encountered in scalar negative"
    return s


def int64_item_powers(x):
    s = x[0]
    for i in range(x.shape[0]):
        s = s + x[i] ** 41  # NumPy's scalar power wraps without a word
    return s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "x"),
    [
        (int8_abs_sums, np.array([-128, 3], np.int8)),
        (sign_flips, np.array([np.iinfo(np.int64).min, 1, 2], np.int64)),
        (sign_flips, np.array([3, 1, 2], np.uint8)),
        (int64_item_powers, np.array([3, 3], np.int64)),
        (int8_item_sums, np.array([100, 100, 100], np.int8)),
        (int64_item_product, np.arange(1, 30, dtype=np.int64)),
        (uint8_steps, np.array([5, 3, 10], np.uint8)),
        (python_int_steps, np.ones(3)),
        (int32_constant_steps, np.ones(3)),
    ],
)
def test_integer_scalar_overflow_warns_as_numpy(backend, fn, x):
    """NumPy's scalar operators warn "overflow encountered in scalar add" where an integer sum,
    difference or product of NumPy scalars wraps (its array loops do not): compiled loops
    wrapped silently."""
    assert_same_warnings(fn, x, backend=backend)
    assert_same_call(astcompile.compile(fn, backend=backend), (x.copy(),), fn, (x.copy(),), backend)


def to_int64(x):
    return (x * 1).astype(np.int64)  # C: astc_f2i64


def to_uint64(x):
    return x.astype(np.uint64)  # C: a NumPy step in the region's wrapper


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [to_int64, to_uint64])
@pytest.mark.parametrize("x", [np.array([np.inf, 1.0]), np.array([1e20]), np.array([2.0**64])])
def test_a_float_to_int_cast_out_of_range_warns_once(backend, fn, x):
    """NumPy warns "invalid value encountered in cast" where the conversion is out of range:
    C warned only for NaN (its range test raised no flag), and a cast the region left to
    NumPy warned twice (from the step, then from the statements run again)."""
    assert_same_warnings(fn, x, backend=backend)


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
@pytest.mark.parametrize("fn", [to_int64, to_uint64])
def test_a_triton_regions_numpy_step_still_warns(fn):
    """A Triton region's NumPy steps note their errors as flags, as a C region's: the region
    runs its statements again and NumPy warns once (they warned as they ran, then silent)."""
    assert_same_warnings(fn, np.array([np.inf, 1e20]), backend="triton")


def complex_to_int8(b):
    return np.rint(b).astype(np.int8)


def difference_to_float32_and_an_argument_written(a, b):
    t = b.copy()
    t -= b
    rounded = np.rint(t).astype(np.float32)
    tail = a[::-1]
    tail &= a
    return rounded, np.min(b)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_complex_0d_cast_to_float32_warns_once(backend):
    """The same through a 0-d complex array (the interpreter holds its element as a Python
    complex), in a region that stores into an argument: its ComplexWarning came twice after
    the subtraction's invalid flag (found by the fuzzer)."""
    fn = difference_to_float32_and_an_argument_written
    a = np.zeros((2, 0), np.int32)
    calls = [(a, np.array(-2 + 1.5j)), (a, np.array(np.inf - 0j))]
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    for args in calls:
        assert runtime_warnings(compiled, *args) == runtime_warnings(fn, *args)


def doubled_then_cast(b):
    t = b
    t += b
    b[1:] = b[:-1]
    return np.cumprod(b, axis=-1, dtype=np.int8), b


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_complex_cast_after_a_store_into_an_argument_stores_once(backend):
    """The cast's hand-over to the statements comes after ``b += b``: the arguments must be
    kept under every error state (``ignore`` too), or the statements double ``b`` again."""
    b = np.array([np.inf - 2j, 1 + 1j, np.nan + 0j, 3.0, -1j])
    assert_same_calls(doubled_then_cast, [(b,), (b[::-1],)], backend=backend)


def doubled_then_cast_to_float32(b):
    b *= 2
    return b.astype(np.float32)


def cast_in_loop(b, n):
    total = np.zeros(b.shape)
    for i in range(n):
        total += (b * i).astype(np.float64)
    return total


def complex_fills(b):
    return np.full(3, b[0] * 2, dtype=np.float64), np.full_like(b.real, b[1])


def complex_literal_and_scan(b):
    return np.array([b[0] * 2, b[1]], dtype=np.float64), np.cumsum(b, dtype=np.float64)


COMPLEX_CASTS = [
    (complex_fills, (np.array([1 + 2j, np.nan + 0j]),)),
    (complex_literal_and_scan, (np.array([1 + 2j, np.nan + 0j]),)),
    (complex_to_int8, (np.array([1 + 2j, np.nan + 0j, 3e10 + 1j]),)),
    (complex_to_int8, (np.array([1 + 2j, 3 + 0j]),)),
    (doubled_then_cast_to_float32, (np.array([1 + 2j, np.nan + 0j, 3e40 + 1j]),)),
    (cast_in_loop, (np.array([1 + 2j, np.nan + 0j]), 3)),
    (cast_in_loop, (np.array([1e300 + 2j, 1 + 0j]), 3)),
]


def _warned_lines(fn, args):
    """Each warning of one call of ``fn`` on a copy of ``args``: category, message, file, line."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        fn(*copy_args(args))
    return [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", COMPLEX_CASTS, ids=lambda c: getattr(c, "__name__", ""))
def test_a_complex_cast_to_a_real_dtype_warns_once_from_the_users_line(backend, fn, args):
    """A complex array cast to a real dtype warns ComplexWarning at every call, then a NaN or
    an overflow raises its flag: the eager interpreter's cast warned and the statements run
    after the flag warned again; C's host step warned from targets/eager.py, and again from
    the user's line after a flag (the default filter then showed it once per process, not once
    per user line). The cast now breaks the trace: the statements run as written, an argument
    written before it is written once (found by the fuzzer)."""
    assert_same_warnings(fn, *args, backend=backend)
    assert_same_calls(fn, [copy_args(args) for _ in range(3)], backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    with target_mode(backend):
        for _ in range(2):
            assert _warned_lines(compiled, args) == _warned_lines(fn, args)
