"""Backend "triton" against NumPy, without a GPU: every kernel kind through Triton's interpreter.

Shapes are small and blocks large (the interpreter costs about 1 ms per program instance);
``row_loop`` shrinks the longest row held in one block so the looped reduction runs too.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from differential import TRITON, assert_same, gpu_present, target_mode

import astcompile
from astcompile.runtime import triton_runtime

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

rng = np.random.default_rng(0)
X = rng.standard_normal((13, 37))
X32 = X.astype(np.float32)
V = rng.standard_normal(37)
K = rng.integers(-50, 50, (13, 37))


def chain(x, y, a):
    return np.tanh(x) * a + y**2 - 1.5


def predicates(x, y):
    return (x > y) & ~np.isnan(x), np.where(x > 0, x, -y), np.maximum(x, np.nan * y)


def ints(i, j):
    return i * 3 - j, np.abs(i) + (i > j), i & 7, np.clip(i, -10, 10)


def bools(x):
    b = x > 0
    return b | (x < -1), np.logical_xor(b, x > 1)


def softmax(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x, w, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * w + b


def mean_var(x):
    return x.mean(axis=0), x.var(axis=0), x.std(axis=1, ddof=1)


def full(x):
    return x.sum(), x.max(), np.prod(x[:3] * 0.5 + 1, axis=1), x.min(axis=0)


def truth(x):
    return np.any(x > 1, axis=1), np.all(x > -2, axis=0), (x > 0).sum(axis=1)


def nan_max(x):
    return x.max(axis=1), x.min(axis=1), x.max()


def whole(x):
    return x.sum(), np.max(x), x.mean() * 2 + 1, x.var(), x.std(ddof=1), np.min(x * 2 - 1)


def whole_truth(x):
    return np.any(x > 2), np.all(x > -3), (x > 0).sum(), np.prod(x[:3] * 0.01 + 1)


def centred(x):
    return x - x.mean(), x.std()


def epilogue(x, y):
    s = x.sum(axis=1, keepdims=True)
    return np.exp(x - s) * y + s


def math_ops(x):
    p = np.abs(x) + 0.5
    return np.log1p(p) + np.expm1(x * 0.1) - np.arctan2(x, p) + np.cbrt(x) + np.hypot(x, p)


def mixed_steps(i, x):
    return (i // 3) * x[:, ::2].sum(axis=1)[0] + np.sin(x[0, 0])


def nan_sign(y):
    return np.copysign(y, -np.nan), np.copysign(y, np.nan)


def scalar_math(x, s):
    return x * np.ceil(s), np.floor(s) + x, np.sqrt(x.shape[0]) * x


def column_sums(v):
    return np.broadcast_to(v[:, None], (v.shape[0], 6)).sum(axis=1)


def sized(x):
    return x + x.shape[0]


CASES = [
    (chain, (X, V, 0.3)),
    (chain, (X32, V.astype(np.float32), np.float32(0.5))),
    (predicates, (X, V)),
    (ints, (K, K[0])),
    (bools, (X,)),
    (softmax, (X,)),
    (softmax, (X32,)),
    (layernorm, (X, V, V[::-1].copy())),
    (mean_var, (X,)),
    (full, (X,)),
    (truth, (X,)),
    (epilogue, (X, V)),
    (math_ops, (X,)),
    (mixed_steps, (K, X)),
    (sized, (X,)),
    (chain, (X.T, V[:13], 2.0)),  # strided (transposed) input
    (softmax, (X[::2, 1:],)),  # a sliced view: ragged, strided rows
    (softmax, (np.zeros((0, 5)),)),  # no rows
    (chain, (X[:1], V, 1.0)),  # size-1 axis
    (softmax, (X[:, :1],)),  # rows of one element: each row's value is a scalar, not a block
    (full, (X[:, :1],)),
    (whole, (X,)),
    (whole, (X32,)),
    (whole, (K.astype(np.int32),)),
    (whole_truth, (X,)),
    (centred, (X32,)),
    (nan_max, (np.array([[np.nan], [1.0]]),)),
    (column_sums, (V[:5],)),
    (nan_sign, (V[:4],)),  # -np.nan keeps its sign bit
    (
        scalar_math,
        (K[:5], 100.5),
    ),  # a math function of a scalar kernel argument  # a broadcast column summed along the axis it does not vary on
]


@pytest.mark.parametrize(
    ("fn", "args"), CASES, ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(CASES)]
)
def test_matches_numpy(fn, args, launches):
    assert_same(fn, *args, backend="triton")
    assert launches


def count_launches(monkeypatch, launcher: type = triton_runtime.KernelLauncher) -> list:
    """A list that grows by one per launch of a ``launcher`` kernel (what runs must be
    kernels, not NumPy steps or the eager interpreter)."""
    count: list = []
    call = launcher.__call__
    monkeypatch.setattr(launcher, "__call__", lambda *a: count.append(1) or call(*a))
    return count


@pytest.fixture
def launches(monkeypatch):
    return count_launches(monkeypatch)


@pytest.fixture
def row_loop(monkeypatch):
    """Rows longer than 16 elements walk their row in steps of 16 (the looped reduction)."""
    small = triton_runtime.Blocks(64, 16, 16, ((1 << 30, 4),))
    monkeypatch.setitem(triton_runtime.BLOCKS, "interpret", small)


@pytest.mark.parametrize("fn", [softmax, layernorm, mean_var, full, truth, epilogue])
def test_looped_rows_match_numpy(row_loop, fn):
    args = {layernorm: (X, V, V), epilogue: (X, V)}.get(fn, (X,))
    assert_same(fn, *args, backend="triton")


@pytest.fixture
def grid_parts(monkeypatch):
    """Rows of more than 64 elements are reduced by several programs each, 12 programs in all
    (``X``'s 481 elements: 11 parts of 48, in steps of 16; ``T.sum(axis=0)``: 3 rows of 4
    parts), so the part and finish kernels run in the interpreter. Lists each grid launch's
    (rows, parts)."""
    return record_grids(monkeypatch)


#: Rows over 64 elements on several programs each (12 in all), in steps of 16.
SMALL_PARTS = triton_runtime.Blocks(64, 16, 16, ((1 << 30, 4),), ((64, 1), (1 << 62, 12)))


def record_grids(monkeypatch, blocks: triton_runtime.Blocks = SMALL_PARTS) -> list:
    """Interpreted kernels take ``blocks``; the list grows by (rows, parts) per launch of a
    kernel's part functions."""
    monkeypatch.setitem(triton_runtime.BLOCKS, "interpret", blocks)
    grids: list = []
    run = triton_runtime.KernelLauncher._grid
    monkeypatch.setattr(
        triton_runtime.KernelLauncher,
        "_grid",
        lambda self, args, nrows, length, parts, flags: (
            grids.append((nrows, parts)) or run(self, args, nrows, length, parts, flags)
        ),
    )
    return grids


T = rng.standard_normal((200, 3))  # a tall array: 3 long columns


def columns(t, w):
    return t.mean(axis=0), t.max(axis=0), t.std(axis=0), (t * w).sum(axis=0) + w[0]


def standardised(t):
    return (t - t.mean(axis=0)) / t.std(axis=0)


WHOLE = [
    (whole, (X,)),
    (whole, (X32,)),
    (whole, (K.astype(np.int32),)),  # an int32 sum is an int64, as NumPy's
    (whole, (X.T,)),  # strided
    (whole_truth, (X,)),
    (centred, (X,)),  # the elementwise epilogue x - x.mean() runs on the programs too
    (centred, (X32[::2, 1:],)),
    (full, (X,)),
    (columns, (T, T[0])),  # few long rows: several programs per row
    (columns, (T.astype(np.float32), T[0].astype(np.float32))),
    (standardised, (T,)),
    (truth, (T.T.copy(),)),  # (x > 0).sum(axis=1): 3 rows of 200
]


@pytest.mark.parametrize(
    ("fn", "args"), WHOLE, ids=[f"{f.__name__}{k}" for k, (f, _) in enumerate(WHOLE)]
)
def test_long_reductions_on_many_programs(grid_parts, fn, args):
    assert_same(fn, *args, backend="triton")
    assert grid_parts and all(parts > 1 for _, parts in grid_parts)


def test_long_reduction_nan_in_any_program(grid_parts):
    """A NaN in any program's part makes max and min NaN, as NumPy's; an infinity does not."""
    for where in ((0, 0), (6, 20), (12, 36)):
        x = X.copy()
        x[where] = np.nan
        x[3, 3] = np.inf
        assert_same(whole, x, backend="triton")
        t = T.copy()
        t[where[0] * 15, where[1] % 3] = np.nan
        assert_same(columns, t, T[0], backend="triton")
    assert len(grid_parts) >= 6


def test_many_rows_keep_one_program_each(grid_parts):
    """12 rows of 200: one program per row already fills the grid."""
    assert_same(columns, rng.standard_normal((200, 12)), T[0, :1], backend="triton")
    assert not grid_parts


def test_short_full_reductions_stay_on_one_program(grid_parts):
    assert_same(whole, X[:4, :8], backend="triton")
    assert not grid_parts


#: Rows over 8 elements on several programs each (6 in all), in steps of 4.
TINY_PARTS = triton_runtime.Blocks(64, 4, 4, ((1 << 30, 4),), ((8, 1), (1 << 62, 6)))


def small_values(dtype) -> np.ndarray:
    """A (2, 23) array of ``dtype``: small non-negative ints, bools, or normal floats."""
    if dtype == np.bool_:
        return rng.random((2, 23)) > 0.5
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 5, (2, 23)).astype(dtype)
    return rng.standard_normal((2, 23)).astype(dtype)


def reductions(x):
    whole = x.sum(), x.max(), x.min(), x.mean(), np.any(x), np.all(x), np.prod(x[:1]), x.var()
    per_row = x.sum(axis=1), x.max(axis=1), np.any(x, axis=1), x.std(axis=1), x.T.mean(axis=0)
    return whole + per_row


@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64],
)
def test_every_dtype_on_many_programs(monkeypatch, dtype):
    """Rows of 23 (and 46 elements in all) on three programs each, in steps of 4."""
    grids = record_grids(monkeypatch, TINY_PARTS)
    assert_same(reductions, small_values(dtype), backend="triton")
    assert (1, 6) in grids and (2, 3) in grids


def test_nan_in_max_and_min():
    x = X.copy()
    x[2, 5] = np.nan
    assert_same(nan_max, x, backend="triton")


def test_loop_region_runs_on_the_c_target():
    def loop(x):
        total = np.zeros_like(x[0])
        for i in range(x.shape[0]):
            total += x[i] * 2
        return total

    assert_same(loop, X, backend="triton")


def test_region_runs_triton_kernels():
    """The compiled region calls its Triton kernels (not the eager interpreter)."""
    compiled = astcompile.compile(softmax, backend="triton")
    with target_mode("triton"):
        compiled(X)
    (entry,) = [e for r in compiled.regions for es in r.entries.values() for e in es]
    assert entry.run.target == "triton"
    assert "@triton.jit" in entry.run.triton_source


@pytest.mark.skipif(not gpu_present(), reason="needs a CUDA GPU and CuPy")
def test_device_arrays_stay_on_the_device():
    import cupy

    compiled = astcompile.compile(softmax, backend="triton")
    got = compiled(cupy.asarray(X))
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(got), softmax(X), rtol=1e-12)


def test_device_context_picks_triton_for_auto(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    with astcompile.device("cuda"):
        report = astcompile.explain(astcompile.compile(softmax), X)
    assert "on triton" in str(report)
    np.testing.assert_allclose(report.out, softmax(X), rtol=1e-12)
    assert "on c" in str(astcompile.explain(astcompile.compile(softmax), X))


def test_explain_names_the_c_target_of_a_loop_region(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")

    def loop(x):
        y = x.copy()
        for i in range(1, y.shape[0]):
            y[i, 0] = y[i - 1, 0] + y[i, 1]
        return y

    report = str(astcompile.explain(astcompile.compile(loop, backend="triton"), X))
    assert "on c (a loop of scalar element updates: no GPU form" in report


def test_unknown_device_is_refused():
    with pytest.raises(ValueError, match="unknown device"), astcompile.device("tpu"):
        pass


@pytest.mark.skipif(gpu_present(), reason="a GPU is here")
def test_cuda_device_without_a_gpu_says_what_to_do(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET=1"), astcompile.device("cuda"):
        pass


@pytest.mark.skipif(gpu_present(), reason="a GPU is here")
def test_triton_without_a_gpu_or_the_interpreter_says_what_to_do(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    with pytest.raises(astcompile.CompileError, match="TRITON_INTERPRET=1"):
        astcompile.compile(softmax, backend="triton")(X)


def test_kernels_and_tritons_cache_live_under_our_cache_dir(monkeypatch):
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    astcompile.compile(softmax, backend="triton")(X)
    root = os.path.join(astcompile.config.cache_dir, "triton")
    assert os.environ["TRITON_CACHE_DIR"] == os.path.join(root, "cache")
    assert any(name.endswith(".py") for name in os.listdir(root))
