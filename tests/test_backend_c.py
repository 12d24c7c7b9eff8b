"""Differential tests: the C backend against the eager interpreter (NumPy), op by op and on
fused programs, over dtypes, broadcasting, strides, empty and 0-d arrays."""

from __future__ import annotations

import numpy as np
import pytest

from tests.c_helpers import check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
]
INT_DTYPES = ["int8", "int32", "int64", "uint8", "uint64"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("cache"))


def _values(dtype: str, shape, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) > 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(info.min, -100), min(info.max, 100)
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dt)
    x = (rng.standard_normal(shape) * 3).astype(dt)
    if x.size > 4:
        x.flat[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return x


ARITH = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "fmax": np.fmax,
    "lt": lambda a, b: a < b,
    "eq": lambda a, b: a == b,
    "and": lambda a, b: a & b,
    "lshift": lambda a, b: a << b,
    "rshift": lambda a, b: a >> b,
    "where": lambda a, b: np.where(a > b, a, b),
}


def _defined(fns, *args):
    """The functions NumPy defines for these argument dtypes."""
    ok = []
    for fn in fns:
        try:
            with np.errstate(all="ignore"):
                fn(*args)
            ok.append(fn)
        except TypeError:
            pass
    return ok


@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_ops(dtype, cache):
    a, b = _values(dtype, (5, 7), 1), _values(dtype, (7,), 2)
    fns = _defined(ARITH.values(), a, b)
    check(
        lambda x, y: tuple(fn(x, y) for fn in fns),
        [a, b],
        cache,
        calls=[[a[::-1, ::2], b[:4]], [a[:0], b]],
    )


UNARY = [
    "negative",
    "absolute",
    "sqrt",
    "exp",
    "log",
    "tanh",
    "sin",
    "arctan",
    "floor",
    "rint",
    "sign",
    "isnan",
    "isinf",
    "logical_not",
    "square",
    "expm1",
    "log1p",
    "cbrt",
]


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint8", "float32", "float64", "bool"])
def test_unary_ops(dtype, cache):
    a = _values(dtype, (33,), 3)
    fns = _defined([getattr(np, name) for name in UNARY], a)
    fns = [fn for fn in fns if np.asarray(fn(a[:1])).dtype != np.float16]
    check(lambda x: tuple(fn(x) for fn in fns), [a], cache, calls=[[a[::-3]]])


@pytest.mark.parametrize("src", ["float32", "float64", "int64", "uint8", "bool"])
def test_casts_including_nan_and_out_of_range(src, cache):
    a = _values(src, (16,), 4)
    if a.dtype.kind == "f":
        a[4:8] = [1e20, -1e20, 300.7, -129.5]
    dsts = ["int8", "int16", "int32", "int64", "uint8", "uint16", "float32", "float64", "bool"]
    check(lambda x: tuple(x.astype(d) for d in dsts), [a], cache)


def test_integer_division_by_zero_and_int_min(cache):
    a = np.array([-5, 5, -6, 7, np.iinfo(np.int32).min, 0], np.int32)
    b = np.array([0, -2, 4, 0, -1, 0], np.int32)
    check(lambda x, y: (x // y, x % y), [a, b], cache)


def test_float_floor_division_signs(cache):
    a = np.array([-5.5, 5.5, -6.0, 7.0, 0.0, -0.0, np.inf, np.nan, 1.0])
    b = np.array([2.0, -2.0, 4.0, 0.0, -3.0, 2.0, 2.0, 1.0, np.inf])
    check(lambda x, y: (x // y, x % y), [a, b], cache)


def test_shifts_past_bit_width(cache):
    a = np.array([1, -8, 3, 100], np.int32)
    b = np.array([40, 40, 31, -1], np.int32)
    check(lambda x, y: (x << y, x >> y), [a, b], cache)


def test_signed_overflow_wraps(cache):
    a = np.array([np.iinfo(np.int64).max, 2**40], np.int64)
    check(lambda x: (x + 1, x * x, -x), [a], cache)


def test_nan_propagating_max_min_and_reductions(cache):
    a = np.array([1.0, np.nan, 3.0, -np.inf])
    b = np.array([np.nan, 2.0, -0.0, 5.0])
    check(
        lambda x, y: (np.maximum(x, y), np.minimum(x, y), x.max(), y.min(), np.fmin(x, y)),
        [a, b],
        cache,
    )


REDUCE = {
    "sum": lambda x: x.sum(axis=1),
    "sum_keep": lambda x: x.sum(axis=0, keepdims=True),
    "sum_all": lambda x: x.sum(),
    "mean": lambda x: x.mean(axis=-1),
    "max": lambda x: x.max(axis=1),
    "min_all": lambda x: x.min(),
    "prod": lambda x: x.prod(axis=0),
    "any": lambda x: np.any(x > 0, axis=1),
    "all": lambda x: np.all(x > 0),
    "var": lambda x: x.var(axis=1),
    "std_ddof": lambda x: x.std(ddof=1),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "bool"])
def test_reductions(dtype, cache):
    a = _values(dtype, (6, 9), 5)
    if a.dtype.kind == "f":
        a = np.abs(np.nan_to_num(a, nan=1.0, posinf=2.0, neginf=-2.0)) + 0.5
    fns = _defined(REDUCE.values(), a)
    other = _values(dtype, (3, 4), 6)
    if a.dtype.kind == "f":
        other = np.abs(np.nan_to_num(other, nan=1.0, posinf=2.0, neginf=-2.0)) + 0.5
    check(lambda x: tuple(fn(x) for fn in fns), [a], cache, calls=[[other], [a.T]])


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) * g + b


def test_programs_over_sizes_and_strides(cache):
    x = np.random.default_rng(0).standard_normal((40, 70)).astype(np.float32)
    g, b = x[0].copy(), x[1].copy()
    check(
        softmax,
        [x],
        cache,
        calls=[
            [x[::2, ::-1]],
            [x.T[:20].copy()],
            [x[:1]],
            [np.ones((3, 1), np.float32) * x[:3, :1]],
        ],
    )
    check(layernorm, [x, g, b], cache, calls=[[x[:, ::-2], g[:35], b[:35]], [x[5:9], g, b]])


def test_broadcast_reduce_without_temporaries(cache):
    X, Y = np.random.default_rng(1).random((2, 12, 9))
    check(lambda X, Y: np.sum(X[:, :, None] * Y[:, None, :], axis=(-2, -1)), [X, Y], cache)


def test_stencil_reads_strided_views(cache):
    A = np.random.default_rng(2).random((20, 30))
    st = lambda A: 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[2:, 1:-1] + A[:-2, 1:-1])
    check(st, [A], cache, calls=[[A[::-1, ::2]], [np.ones((7, 9))]])


def test_matmul_extern_with_fused_epilogue(cache):
    rng = np.random.default_rng(3)
    a, w, b = rng.random((8, 5)), rng.random((5, 4)), rng.random(4)
    check(lambda a, w, b: np.maximum(a @ w + b, 0.0), [a, w, b], cache)


def test_empty_and_zero_d(cache):
    check(lambda x: (np.exp(x) * 2, x.sum(axis=0)), [np.ones((0, 3))], cache)
    check(lambda x: np.exp(x) * 2, [np.array(1.5)], cache)
    check(lambda x: x.mean(), [np.ones(0)], cache)


def test_max_of_empty_raises_like_numpy(cache):
    compiled = check(lambda x: x.max(axis=1), [np.ones((2, 3))], cache)
    with pytest.raises(ValueError):
        compiled([np.ones((2, 0))])


def test_weak_python_scalars_keep_float32(cache):
    x = np.linspace(-1, 1, 11, dtype=np.float32)
    check(lambda x, s: (x * s + 1.0, x < 0.1), [x, 0.3], cache)


def test_view_outputs_are_views(cache):
    x = np.arange(12.0).reshape(3, 4)
    from tests.c_helpers import compile_c

    _, compiled = compile_c(lambda x: (x[1:], x.T, x * 2), [x], cache)
    view, trans, _ = compiled([x])
    assert np.shares_memory(view, x) and np.shares_memory(trans, x)
    view[0, 0] = 99.0
    assert x[1, 0] == 99.0


def test_new_size_does_not_recompile(cache):
    from astcompile.runtime import compile_times

    x = np.ones((5, 6), np.float32)
    compiled = check(softmax, [x], cache)
    builds = compile_times.get("build", 0.0)
    compiled([np.ones((50, 3), np.float32)])
    assert compile_times.get("build", 0.0) == builds


def test_guard_mismatch_falls_back_to_eager(cache):
    compiled = check(lambda x: x * 2, [np.ones(4, np.float32)], cache)
    (out,) = compiled([np.ones(4, np.float64)])
    assert out.dtype == np.float64


@pytest.mark.slow
def test_float32_sum_of_16m_elements_is_accurate(cache):
    x = np.random.default_rng(0).random(1 << 24, dtype=np.float32)
    compiled = check(lambda x: (x.sum(), x.mean()), [x], cache)
    total, _ = compiled([x])
    exact = np.sum(x, dtype=np.float64)
    assert abs(float(total) - exact) / exact < 1e-6


def test_any_all_use_truthiness_not_integer_casts():
    """Regression: ``(int)0.5`` is 0, so a cast-based any() said False where NumPy says True."""
    import astcompile

    def frac_any(x):
        return (x * 0.5).any(), (x * 0.5).all()

    x = np.ones(5)
    assert astcompile.compile(frac_any, backend="c")(x) == frac_any(x)


def test_reduction_over_empty_inner_axes_does_not_trap():
    """Regression: the chunk size divided by the inner size, 0 for an empty axis (SIGFPE)."""
    import astcompile

    def any_sin(x):
        return np.sin(x).any(axis=None), np.sin(x).sum()

    x = np.zeros((0, 1, 0))
    assert astcompile.compile(any_sin, backend="c")(x) == any_sin(x)


def test_multiply_add_rounds_like_numpy():
    """GCC contracts ``a * b + c`` into an FMA unless told not to; NumPy rounds twice. The
    compiled result must be NumPy's bits, not within an ulp of them."""
    import astcompile

    rng = np.random.default_rng(0)
    a, b, c = (rng.random(4099) for _ in range(3))

    def fma_like(a, b, c):
        return a * b + c, a * b - c * a

    compiled = astcompile.compile(fma_like, backend="c")
    for got, want in zip(compiled(a, b, c), fma_like(a, b, c)):
        assert np.array_equal(got, want)
