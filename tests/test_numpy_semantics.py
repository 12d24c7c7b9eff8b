"""NumPy's value semantics at the edges, found by the random differential run: each function
here gave a silently wrong answer (or invalid C) once. Compiled results must equal NumPy's in
value, dtype, shape and Python type, and raise NumPy's exception type where NumPy raises."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, EVERY_BACKEND, assert_same, assert_same_calls, assert_same_value

import astcompile


def _nan_sign(y):
    return np.copysign(y, -np.nan), np.copysign(y, np.nan), np.copysign(-np.nan, y) * 0 + y


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_negative_nan_constant_keeps_its_sign(backend):
    """``-np.nan`` has its sign bit set; C's ``NAN`` macro has not (the literal is ``-NAN``)."""
    got = assert_same(_nan_sign, np.array([1.0, -2.0]), backend=backend)
    np.testing.assert_array_equal(got[0], [-1.0, -2.0])


_NAN = np.nan


def _negated_global_nan(y):
    return np.copysign(y, -_NAN), -_NAN


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_negated_nan_read_from_a_global_keeps_its_sign(backend):
    """A NaN read from a global is an input: ``-x`` of it must set the sign bit as Python and
    NumPy do (``x * -1`` does not, on x86)."""
    got = assert_same(_negated_global_nan, np.array([1.0, -2.0]), backend=backend)
    np.testing.assert_array_equal(got[0], [-1.0, -2.0])


def _squeeze_to_zero_d(x):
    return np.squeeze(x + 1), np.squeeze(x), (x * 2)[0, ...], x.sum()[...], np.squeeze(x.sum())


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_d_array_results_stay_arrays(backend):
    """``np.squeeze`` of an array and ``x[0, ...]`` give 0-d arrays, never NumPy scalars."""
    assert_same(_squeeze_to_zero_d, np.array([1.5]), backend=backend)


def _write_a_zero_d_copy_of_a_ufunc_scalar(x, y):
    t = np.rint(y)  # of a 0-d array: a NumPy scalar
    c = np.asarray(t)  # a new 0-d array
    c[...] += 1
    return t + x, c


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_zero_d_array_is_written_through_an_ellipsis(backend):
    """``c[...] += 1`` of a 0-d array made from a NumPy scalar: the eager target indexed it
    with ``()`` (a scalar) and raised TypeError. Found by the NumPy-semantics generator."""
    assert_same(_write_a_zero_d_copy_of_a_ufunc_scalar, np.arange(3), np.array(3), backend=backend)


def _write_a_zero_d_view_of_a_new_array(x):
    v = (x * 2)[1, ...]  # a 0-d view (``(x * 2)[1]`` would be a NumPy scalar)
    v[...] += 5
    return x, v


def _read_a_zero_d_view_after_a_store(x):
    t = x * 2
    w = t[1, ...]  # sees the store below, as ``t[1]`` (a copy) would not
    t[1] = 7
    return w * np.ones(2), t[1] + 1


def _write_a_squeezed_element(x):
    s = np.squeeze(x[:1].copy())  # a 0-d view of the copy's one element
    s[...] = 1
    return s


def _write_a_numpy_scalar(x):
    c = x.sum().copy()  # a NumPy scalar keeps its type through copy()
    c[...] = 1
    return c


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(
    "fn",
    [
        _write_a_zero_d_view_of_a_new_array,
        _read_a_zero_d_view_after_a_store,
        _write_a_squeezed_element,
        _write_a_numpy_scalar,
    ],
)
def test_a_zero_d_view_takes_stores_and_a_scalar_raises(backend, fn):
    """A 0-d view ``t[1, ...]`` of an array the region made: C and Triton read it where it
    was made, as ``t[1]`` (a copy), so a store into it or into ``t`` was lost (silently wrong
    values; the eager target raised TypeError): such a region runs as written. A store into
    a NumPy scalar raises TypeError, as NumPy does (it was written). Found by the
    NumPy-semantics generator."""
    assert_same_calls(fn, [(np.arange(3.0),), (np.arange(4.0),)], backend=backend)


def _add_zero_d(x):
    x += np.array(300)
    return x


def _store_zero_d(x):
    x[:] = np.array(7)
    return x


def _shift_zero_d(x):
    x[1:] = np.array(3) * x[:-1]
    return x


def _scan_of_zero_d(y):
    return np.cumsum(np.uint8(200) > y), np.cumsum(y + np.array(2))


def _reduce_zero_d(y):
    return y + np.sum(np.array(2.5)), y * np.max(np.float32(np.nan))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_add_zero_d, _store_zero_d, _shift_zero_d])
def test_zero_d_array_constants_in_stores_compile(backend, fn):
    """A 0-d array constant cast to another dtype is a literal in C (was ``((double))``)."""
    assert_same(fn, np.array([1.0, 2.0]), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_scan_of_zero_d, _reduce_zero_d])
def test_zero_d_array_constants_in_scans_and_reductions_compile(backend, fn):
    assert_same(fn, np.array([1.0, 300.0]), backend=backend)


def _compare_with(y, k):
    return y >= k, y < k, y == k, k != y, y > k + 1


def _add(y, k):
    return y + k


U8, I8 = np.array([3, 200], np.uint8), np.array([3, -100], np.int8)
I64, U64 = np.array([3, -5]), np.array([3, 2**63 + 5], np.uint64)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "y, k",
    [
        (U8, -1),
        (U8, 300),
        (I8, 300),
        (I8, -129),
        (U64, -3),
        (I64, 2**63),
        (I64, 2**64 - 1),
        (U64, 2**63 + 5),
    ],
)
def test_comparisons_with_python_ints_outside_the_dtype_are_exact(backend, y, k):
    """NumPy 2 compares a Python int with an integer array exactly even where it does not
    fit the array's dtype (a cast would wrap: ``uint8 >= -1`` was all False)."""
    assert_same_calls(_compare_with, [(y, k)], backend=backend)


def _add_shifted(y, k):
    return y + (k - 100)


@pytest.mark.parametrize("backend", BACKENDS)
def test_arithmetic_with_a_python_int_outside_the_dtype_raises(backend):
    """``k - 100`` is -128 at the first call (it fits int8) and -200 at the second, with the
    same guard class of ``k``: NumPy's OverflowError, checked when the code runs, not a wrap."""
    calls = [(I8, -128), (I8, -200), (I8, -3), (U8, 255), (U8, 256), (U64, -3)]
    assert_same_calls(_add, calls, backend=backend)
    assert_same_calls(_add_shifted, [(I8, -28), (I8, -100), (I8, 0)], backend=backend)


def _loop_compares_and_adds(y, n):
    out = np.zeros(n, bool)
    total = np.zeros(n, np.int64)
    for i in range(n):
        out[i] = y[0] >= i - 3
        total[i] = y[1] + i
    return out, total


@pytest.mark.parametrize("backend", BACKENDS)
def test_loop_values_compare_exactly_and_overflow_like_numpy(backend):
    """A loop variable next to an element of a uint8 array: compared exactly, and added
    with NumPy's OverflowError once it passes 255."""
    calls = [(np.array([1, 250], np.uint8), 5), (np.array([1, 250], np.uint8), 300)]
    assert_same_calls(_loop_compares_and_adds, calls, backend=backend)


def _mixed_signs(a, b):
    return a < b, a >= b, b == a


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_against_uint64_arrays_compares_exactly(backend):
    a, b = np.array([-1, 5, 2**62]), np.array([2**63, 5, 3], np.uint64)
    assert_same_calls(_mixed_signs, [(a, b)], backend=backend)


def _ufuncs_of_python_scalars(x, s):
    return x * np.ceil(s), x * np.abs(s / 3), np.floor(s) + x, np.sqrt(x.shape[0]) * x


def _ufunc_of_a_loop_value(x):
    out = np.zeros(x.shape[0], x.dtype)
    for i in range(x.shape[0]):
        out[i] = x[i] * np.ceil(i + 0.5)
    return out


def _inplace_ufunc_of_a_scalar(x, s):
    x += np.ceil(s)
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [np.array([3, 2], np.uint8), np.array([1, 2], np.float32)])
def test_a_ufunc_of_a_python_scalar_is_a_strong_numpy_scalar(backend, x):
    """NEP 50: ``np.ceil(100.5)`` is ``np.float64(101.0)``, which promotes a uint8 or float32
    array to float64 (it was traced as the weak Python int 101)."""
    assert_same_calls(_ufuncs_of_python_scalars, [(x, 100.5), (x, 0.25)], backend=backend)
    assert_same_calls(_ufunc_of_a_loop_value, [(x,)], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_inplace_ufunc_that_cannot_cast_raises_numpys_error(backend):
    assert_same_calls(_inplace_ufunc_of_a_scalar, [(np.array([1, 2]), 2.5)], backend=backend)


def _read_at(x, idx):
    s = 0.0
    for k in range(idx.shape[0]):
        s += x[idx[k]]
    return s


def _slice_from(x, idx):
    t = 0.0
    for k in range(idx.shape[0]):
        t += x[idx[k] :].sum() + x[: idx[k]].sum()
    return t


@pytest.mark.parametrize("backend", BACKENDS)
def test_uint64_indices_above_int64_raise_or_clip_like_numpy(backend):
    """``x[np.uint64(2**64 - 1)]`` raises OverflowError (it was read as ``x[-1]``); as a
    slice bound the value is clipped to the axis."""
    x = np.arange(5.0)
    calls = [
        (x, np.array([1, 2], np.uint64)),
        (x, np.array([2, 2**64 - 1], np.uint64)),
        (x, np.array([2**63], np.uint64)),
    ]
    assert_same_calls(_read_at, calls, backend=backend)
    assert_same_calls(_slice_from, calls, backend=backend)


def _store_reduced(x, y):
    x[0] = y.max()
    x[1:] = y[0]
    return x * 2


def _store_python_numbers(x, y, n):
    for i in range(n):
        x[i % 2] = i * 1.5 + y[0] * 0
        x[1] = i
    return x


def _masked_and_fancy_stores(x, y, idx):
    x[x > 1] = y.max()
    x[idx] = y[0]
    return x + 1


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8"])
@pytest.mark.parametrize(
    "y",
    [
        [np.inf, 1.0],
        [np.nan, 1.0],
        [-np.inf, 2.0],
        [1e30, 1.0],
        [300.5, -1.5],
        [-0.5, 2.0],
        [300, 2],
        [-(2**63), 1],
        [2**64 - 1, 1],
    ],
)
def test_scalars_stored_into_integer_arrays_convert_like_numpy(backend, dtype, y):
    """NumPy converts a NumPy scalar stored by element or slice through Python's int (NaN:
    ValueError, infinity or out of range: OverflowError) for signed dtypes, and casts it
    unsafely into unsigned ones and in mask or index-array stores."""
    x, y = np.array([1, 2], dtype), np.array(y)
    assert_same_calls(_store_reduced, [(x, y)], backend=backend)
    assert_same_calls(_masked_and_fancy_stores, [(x, y, np.array([0, 1]))], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_numbers_stored_from_a_loop_must_fit(backend):
    """A loop's Python int (or float) stored into a uint8 array raises OverflowError once it
    leaves 0..255, as NumPy's store does."""
    calls = [(np.zeros(2, np.uint8), np.ones(1), 100), (np.zeros(2, np.uint8), np.ones(1), 300)]
    assert_same_calls(_store_python_numbers, calls, backend=backend)


def _carried_until_assigned(x):
    acc = -3
    for i in range(x.shape[0]):
        if x[i] > 100:
            acc = x[i]
        if acc < 0:
            break
    return acc


def _carried_through_arithmetic(x):
    acc = 3
    for i in range(x.shape[0]):
        if x[i] > 100:
            acc = x[i]
        acc = acc - 5
    return acc


def _maybe_assigned(x, y):
    worst = 0.0
    found = False
    for i in range(x.shape[0]):
        if x[i] > 2:
            worst = x[i] * 2
            found = x[i] > 3
    return worst, found, worst > 1.0, -worst


def _maybe_assigned_then_mixed(x, y):
    best = 0.0
    for i in range(x.shape[0]):
        if x[i] > 2:
            best = x[i]
    return best * y


def _inner_loop_with_runtime_bounds(x):
    out = np.zeros(x.shape[0] + 1)
    for i in range(x.shape[0] + 1):
        s = 0.0
        for j in range(i):
            s = s + x[j]
        out[i] = s
    return out, s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "x",
    [
        np.array([1, 2, 3], np.uint8),
        np.array([1, 200, 3], np.uint8),
        np.array([1, 2, 3]),
        np.array([1, 200, 3]),
        np.array([1.5, 2.5], np.float32),
        np.array([1.5, 250.0]),
    ],
)
def test_a_carried_python_int_keeps_its_type_until_a_numpy_value_is_assigned(backend, x):
    """``acc = -3`` was carried as np.uint8(253) from the start, so ``acc < 0`` broke out of
    the loop wrongly. A Python number and a NumPy value of another dtype in one variable
    depend on which branch ran: NumPy runs it; with its NumPy twin (int64, float64) it is
    exact, the returned type included."""
    assert_same_calls(_carried_until_assigned, [(x,)], backend=backend)
    assert_same_calls(_carried_through_arithmetic, [(x,)], backend=backend)
    assert_same_calls(_maybe_assigned, [(x, np.ones(3, np.float32))], backend=backend)
    assert_same_calls(_inner_loop_with_runtime_bounds, [(x,)], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([1.0, 3.0])])
def test_a_maybe_python_float_mixed_with_float32_runs_in_numpy(backend, x):
    """``0.0 * float32_array`` is float32, ``np.float64(2.5) * float32_array`` float64."""
    assert_same_calls(_maybe_assigned_then_mixed, [(x, np.ones(2, np.float32))], backend=backend)


def _mean_of_logs(x, n):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            total += np.log(x[i])
    return total / n, n / (total + 1.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_maybe_python_float_divides_as_python_and_numpy_both_do(backend):
    """``total / n`` is a Python float or a NumPy float64 (no positive value, or some): the
    same quotient, and the type follows; only Python raises on a zero ``n``, and only where
    ``total`` stayed the Python float."""
    pos, neg = np.array([1.0, 2.0, 3.0]), np.array([-1.0, -2.0])
    calls = [(pos, 3), (neg, 3), (pos, 0), (neg, 0), (pos, 2.5), (np.array([0.5]), 7)]
    assert_same_calls(_mean_of_logs, calls, backend=backend)
    report = astcompile.explain(astcompile.compile(_mean_of_logs, backend=backend), pos, 3)
    assert report.graph_break_count == 0


def _owns_memory(x):
    if x.base is None:
        return x * 2.0
    return x + 1.0


class _Holder:
    def __init__(self, w):
        self.w = w

    def scaled(self, x):
        return x * (3.0 if self.w.base is None else -3.0) + self.w


@pytest.mark.parametrize("backend", BACKENDS)
def test_base_is_none_follows_the_argument(backend):
    """``x.base is None`` is whether the argument owns its memory: a view passed after an
    array that owns its memory takes the other branch, as in NumPy (issue 22, item 6)."""
    a = np.arange(7.0)
    owns = astcompile.compile(_owns_memory, backend=backend)
    for x in (a, a[1:], a[::1], a):  # not copied: a copy owns its memory
        assert_same_value(owns(x), _owns_memory(x))
    scaled = astcompile.compile(_Holder.scaled, backend=backend)
    for w in (np.ones(6), np.ones(7)[1:], np.ones(6)):
        assert_same_value(scaled(_Holder(w), a[:6]), _Holder(w).scaled(a[:6]))


def _clip_a_python_float(x, t):
    s = 1.5
    for i in range(x.shape[0]):
        s = s * 0.5
    return np.clip(s, 0, t), np.clip(x.shape[0] * 2, 0, t)


@pytest.mark.parametrize("backend", BACKENDS)
def test_clip_of_a_python_number_clips_a_strong_array(backend):
    """NumPy's ``np.clip(s, lo, hi)`` calls the method of ``np.asarray(s)``: a Python float
    is a strong float64 there (a float32 bound does not make it float32), an int an int64."""
    got = assert_same(_clip_a_python_float, np.ones(3), np.float32(1), backend=backend)
    assert type(got[0]) is np.float64


def _add_into_smaller(x, y):
    z = x * 2.0
    z += y
    x[...] += y[:1]
    return z


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_in_place_op_whose_result_does_not_fit_raises(backend):
    """``z += y`` is ``np.add(z, y, out=z)``: a ``y`` that broadcasts ``z`` to a larger shape
    raises ValueError (compiled, ``z`` was rebound to the larger result, and a store into a
    0-d argument raised TypeError)."""
    calls = [(np.ones(3), np.ones(3)), (np.ones(1), np.ones(3)), (np.array(1.0), np.ones(2))]
    assert_same_calls(_add_into_smaller, calls, backend=backend)
