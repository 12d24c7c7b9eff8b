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
