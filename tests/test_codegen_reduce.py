"""The reduction rules (lower/reduce.py), their C (targets/c/c_reduce.py), and the one
reduction strategy: a sum in a compiled loop is the fused kernel's sum, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from differential import (
    BACKENDS,
    TRITON,
    assert_same_signs,
    assert_same_value,
    assert_same_warnings,
    run_both,
)

import astcompile
from astcompile.ir.graph import Node, ReduceAttr
from astcompile.ir.ops import Op
from astcompile.lower.reduce import RULES, acc_dtype, has_nan_flag, identity, overflow_total
from astcompile.runtime import parallel, set_num_threads
from astcompile.targets.c import c_reduce

#: fold op -> the NumPy ufunc it is (what the table promises).
UFUNCS = {
    Op.ADD: np.add,
    Op.MUL: np.multiply,
    Op.MAXIMUM: np.maximum,
    Op.MINIMUM: np.minimum,
    Op.LOGICAL_OR: np.logical_or,
    Op.LOGICAL_AND: np.logical_and,
}
#: reduction op -> NumPy's own reduction.
NUMPY = {
    Op.SUM: np.sum,
    Op.MEAN: np.mean,
    Op.PROD: np.prod,
    Op.MAX: np.max,
    Op.MIN: np.min,
    Op.ANY: np.any,
    Op.ALL: np.all,
}
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_, np.complex128]


def reduction(op: Op, src: np.dtype, out: np.dtype | None = None, ddof: int = 0) -> Node:
    x = Node(Op.INPUT, (), np.dtype(src), (5,), None, None, -1)
    out = np.dtype(out if out is not None else NUMPY[op](np.zeros(2, src)).dtype)
    return Node(op, (x,), out, (), ReduceAttr((0,), False, ddof), None, -2)


def cases() -> list[tuple[Op, type]]:
    return [
        (op, dt)
        for op in RULES
        for dt in DTYPES
        if c_reduce.can_reduce(reduction(op, np.dtype(dt)))
    ]


def values(dtype: type) -> np.ndarray:
    raw = np.array([3, -1, 0, 2, 7, 1])
    return raw.astype(dtype) if np.dtype(dtype).kind != "u" else np.abs(raw).astype(dtype)


@pytest.mark.parametrize(("op", "dtype"), cases())
def test_folding_from_the_identity_is_numpys_reduction(op, dtype):
    """identity, fold and accumulator dtype together give NumPy's answer (mean: its total)."""
    node = reduction(op, np.dtype(dtype))
    rule, data = RULES[op], values(dtype)
    acc = identity(node)
    for x in data:
        x = np.bool_(x != 0) if rule.truth else acc_dtype(node).type(x)
        acc = UFUNCS[rule.fold](acc, x)
    want = NUMPY[op](data) * (len(data) if rule.divides else 1)
    assert np.allclose(np.asarray(acc).astype(node.dtype), want)


@pytest.mark.parametrize(("op", "dtype"), cases())
def test_the_identity_leaves_a_value_unchanged_but_in_complex_products(op, dtype):
    """A single chunk folds straight into its total (targets/c/chunks.py): exact for these."""
    node = reduction(op, np.dtype(dtype))
    fold = UFUNCS[RULES[op].fold]
    for x in values(dtype).astype(acc_dtype(node)):
        same = fold(identity(node), x)
        exact = np.asarray(same).tobytes() == np.asarray(x).tobytes()
        assert c_reduce.sequential(node) or exact


def test_complex_products_fold_in_order_in_their_own_dtype():
    """NumPy's formula: ``(1+0j) * (inf+0j)`` is ``(1*inf - 0*0) + (1*0 + 0*inf)j``, so a
    product folds element after element as NumPy's does, the first chunk's product taken as
    it is; a complex64 product overflows where NumPy's does."""
    node = reduction(Op.PROD, np.dtype(np.complex128))
    with np.errstate(invalid="ignore"):
        assert np.isnan(np.multiply(identity(node), np.complex128(complex(np.inf, 0))).imag)
    assert c_reduce.sequential(node)
    assert c_reduce.combine(node, "t1", "a1") == [
        "t1 = t1_set ? astc_cmul(t1, a1) : a1;",
        "t1_set = 1;",
    ]
    assert acc_dtype(reduction(Op.PROD, np.dtype(np.complex64))) == np.complex64


def test_accumulator_dtypes():
    assert acc_dtype(reduction(Op.SUM, np.dtype(np.float32))) == np.float64
    assert acc_dtype(reduction(Op.MAX, np.dtype(np.float32))) == np.float32
    assert acc_dtype(reduction(Op.SUM, np.dtype(np.int32))) == np.int64  # the result's dtype
    assert acc_dtype(reduction(Op.SUM, np.dtype(np.complex64))) == np.complex128
    assert acc_dtype(reduction(Op.ANY, np.dtype(np.float64))) == np.bool_


def test_float_max_and_min_keep_a_nan_flag_and_ints_do_not():
    assert has_nan_flag(reduction(Op.MAX, np.dtype(np.float32)))
    assert has_nan_flag(reduction(Op.MIN, np.dtype(np.float64)))
    assert not has_nan_flag(reduction(Op.MAX, np.dtype(np.int32)))
    assert not has_nan_flag(reduction(Op.SUM, np.dtype(np.float64)))


def test_c_accumulators_updates_and_finals():
    s = reduction(Op.SUM, np.dtype(np.float32))
    assert c_reduce.accumulators(s) == [c_reduce.Acc("double", "", "((double)0.0)", "+")]
    assert c_reduce.update(s, "a1", "in1") == ["a1 += in1;"]
    assert c_reduce.finalize(s, "t1", "n") == "((float)t1)"
    m = reduction(Op.MAX, np.dtype(np.float64))
    assert [a.omp for a in c_reduce.accumulators(m)] == ["max", "|"]
    v = "astc_select_double(v == v, v, ((double)(-INFINITY)))"  # NaN: no invalid flag
    assert c_reduce.update(m, "a1", "v") == [f"a1 = ({v} >= a1) ? {v} : a1;", "a1_nan |= (v != v);"]
    assert c_reduce.combine(m, "t1", "a1") == ["t1 = (a1 >= t1) ? a1 : t1;", "t1_nan |= a1_nan;"]
    assert c_reduce.finalize(m, "t1", "n") == "((double)(t1_nan ? NAN : t1))"
    p = reduction(Op.PROD, np.dtype(np.complex128))
    assert [a.suffix for a in c_reduce.accumulators(p)] == ["", "_set"]
    assert c_reduce.update(p, "a1", "v") == ["a1 = astc_cmul(a1, v);"]
    mean = reduction(Op.MEAN, np.dtype(np.float64), ddof=1)
    assert c_reduce.finalize(mean, "t1", "n") == "((double)(t1 / (double)(n > 1 ? n - 1 : 0)))"


def test_truth_folds_test_for_nonzero_not_cast():
    """``(int)0.5`` would be 0: any/all fold ``x != 0``."""
    node = reduction(Op.ANY, np.dtype(np.float64))
    assert c_reduce.reduction_input(node, "x") == "((x) != 0)"
    assert c_reduce.acc_type(node) == "int"
    assert c_reduce.update(node, "a1", "in1") == ["a1 |= in1;"]


def test_c_declines_what_numpy_must_run():
    assert not c_reduce.can_reduce(reduction(Op.MAX, np.dtype(np.complex128)))
    assert not c_reduce.can_reduce(reduction(Op.MEAN, np.dtype(np.int64), np.dtype(np.int64)))
    assert not c_reduce.can_reduce(reduction(Op.MAX, np.dtype(np.float32), np.dtype(np.float64)))
    assert c_reduce.can_reduce(reduction(Op.SUM, np.dtype(np.int8)))


# -- one strategy: loop regions sum like fused kernels -------------------------------------


def row_sums_in_a_loop(X):
    out = np.empty(X.shape[0], dtype=X.dtype)
    for i in range(X.shape[0]):
        out[i] = np.sum(X[i])
    return out


def row_sums(X):
    return np.sum(X, axis=1)


def row_means_in_a_loop(X):
    out = np.empty(X.shape[0], dtype=X.dtype)
    for i in range(X.shape[0]):
        out[i] = np.mean(X[i] * 2.0)
    return out


def row_means(X):
    return np.mean(X * 2.0, axis=1)


@pytest.fixture
def threads(monkeypatch):
    """Restore the thread count a test changes as it was (the default's sign too)."""
    monkeypatch.setattr(parallel, "_nthreads", parallel._nthreads)
    return set_num_threads


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [3, 100, 40_003])
@pytest.mark.parametrize(
    ("looped", "flat"), [(row_sums_in_a_loop, row_sums), (row_means_in_a_loop, row_means)]
)
def test_a_sum_in_a_loop_is_the_fused_kernels_sum_bit_for_bit(threads, looped, flat, n, dtype):
    """Chunks and blocked float64 lanes in both, for any thread count (a plain ``omp simd``
    sum in the loop differed from the kernel's in the last bits)."""
    X = (np.random.default_rng(n).standard_normal((3, n)) + 0.25).astype(dtype)
    in_loop = astcompile.compile(looped, backend="c")
    fused = astcompile.compile(flat, backend="c")
    results = []
    for count in (1, 2, 3):
        threads(count)
        results += [in_loop(X), fused(X)]
    assert all(r.tobytes() == results[0].tobytes() for r in results)
    np.testing.assert_allclose(results[0], flat(X), rtol=1e-5 if dtype == np.float32 else 1e-12)


def maxima_in_a_loop(X):
    out = np.empty(X.shape[0], dtype=X.dtype)
    for i in range(X.shape[0]):
        out[i] = np.max(X[i])
    return out


def test_a_nan_anywhere_in_a_long_row_gives_nan_in_a_loop():
    X = np.arange(3 * 20_000, dtype=np.float64).reshape(3, -1)
    X[1, 15_000] = np.nan  # in the second chunk
    got = astcompile.compile(maxima_in_a_loop, backend="c")(X)
    np.testing.assert_array_equal(got, maxima_in_a_loop(X))


def _signed_zero_extremes(x):
    m = x * 1.0
    return np.max(m), np.min(m), m.max(axis=0), m.min(axis=-1), np.max([-0.0, 0.0])


def _in_a_loop(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.max(x[i] * 2) + np.min(x[i] * 3)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_signed_zero_extremes, _in_a_loop])
@pytest.mark.parametrize(
    "rows", [[[-0.0, 0.0], [0.0, -0.0]], [[0.0, -0.0, -0.0], [-0.0, 0.0, 0.0]]]
)
def test_max_and_min_of_signed_zeros_give_numpys_zero(backend, fn, rows):
    """Equal values differ only in the sign of a zero: NumPy's max/min keep the later one
    (``np.max([-0.0, 0.0])`` is ``0.0``); C kept the first."""
    expected, got = run_both(fn, np.array(rows), backend=backend)
    assert_same_value(got, expected)
    assert_same_signs(got, expected)


def _means(x):
    return x.mean(), np.mean(x, axis=1), x.var(), np.average(x), x.sum()


def _means_in_a_loop(x):
    out = np.empty(x.shape[0], np.float32)
    for i in range(x.shape[0]):
        out[i] = x[i].mean()
    return out


def test_a_float32_means_total_is_infinite_from_where_it_rounds_up():
    big = overflow_total(reduction(Op.MEAN, np.dtype(np.float32)))
    with np.errstate(over="ignore"):
        assert np.float32(big) == np.inf and np.float32(np.nextafter(big, 0)) < np.inf
    assert overflow_total(reduction(Op.MEAN, np.dtype(np.float64))) is None
    assert overflow_total(reduction(Op.SUM, np.dtype(np.float32))) is None


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
@pytest.mark.parametrize("fn", [_means, _means_in_a_loop])
@pytest.mark.parametrize("big", [3e38, -3e38, 1e37])
def test_a_float32_mean_past_float32s_range_is_infinite(backend, fn, big):
    """NumPy sums float32 in float32: a total past its range is inf before the mean divides
    it (with the overflow warning); the float64 total gave ``3e38``. In range: unchanged."""
    x = np.full((3, 17), big, np.float32)
    x[1] = 1.5
    expected, got = run_both(fn, x, backend=backend)
    assert_same_value(got, expected)
    assert_same_warnings(fn, x, backend=backend)
