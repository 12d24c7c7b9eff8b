"""Matmul on the Triton target: the hand-written tiled kernel (kernels/triton_matmul.py) and the
products lowered to it with their elementwise epilogue (targets/triton/matmul.py).

Everything runs in Triton's interpreter on small shapes: 33 x 17 @ 17 x 40 has ragged edges
on every axis, and ``small_tiles`` makes it a 3 x 3 grid of 16 x 16 tiles walking the shared
axis in two steps, so the grouped tile order and every mask run.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import TRITON, assert_matches, assert_same, target_mode
from graphs import lowered

import astcompile
from astcompile.trace.tracer import trace_callable

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

rng = np.random.default_rng(3)
A = rng.standard_normal((33, 17))
W = rng.standard_normal((17, 40))
B = rng.standard_normal(40)
W2 = rng.standard_normal((40, 9))
A32, W32, B32 = A.astype(np.float32), W.astype(np.float32), B.astype(np.float32)
IA = rng.integers(-100, 100, (33, 17))
JB = rng.integers(-100, 100, (17, 40))


def product(a, w):
    return a @ w


def dense_relu(a, w, b):
    return np.maximum(a @ w + b, 0)


def dot(a, w):
    return np.dot(a, w) * 2.0


def matmul_fn(a, w, b):
    return np.tanh(np.matmul(a, w)) - b


def mlp(a, w1, b1, w2):
    h = np.maximum(a @ w1 + b1, 0)
    return h @ w2


def kept(a, w):
    y = a @ w
    return y, y * 2 + 1


def two_products(a, w, c, v):
    return a @ w + c @ v


def reduced(a, w):
    return (a @ w).sum(axis=1), np.exp(a @ w).max(axis=0)


def transposed(a, w):
    return a.T @ w


def mixed(i, w):
    return i @ w + 1


def scaled(a, w, s):
    return (a @ w) * s


def positive_part(a, w):
    return np.where(a @ w > 0, a @ w, 0.0), (a @ w) > 0


def square(x):
    return x @ x + x


MATMUL_CASES = [
    (product, (A, W)),
    (product, (A32, W32)),
    (dense_relu, (A, W, B)),
    (dense_relu, (A32, W32, B32)),
    (dot, (A32, W32)),
    (matmul_fn, (A, W, B)),
    (mlp, (A, W, B, W2)),
    (kept, (A, W)),
    (two_products, (A, W, A[:, ::-1].copy(), W[::-1])),
    (reduced, (A32, W32)),
    (transposed, (W, W2[:17])),  # a transposed operand, read through its strides
    (product, (A[::2, 1:], W[1:, ::3])),  # sliced, strided operands
    (product, (IA, JB)),  # integers: a broadcast product summed in 64 bits
    (product, (IA.astype(np.int8), JB.astype(np.int8))),  # wraps as NumPy's int8
    (dense_relu, (IA.astype(np.uint16), JB.astype(np.uint16), JB[0].astype(np.uint16))),
    (mixed, (IA.astype(np.int32), W32)),  # int32 @ float32 is float64
    (square, (A[:17],)),  # one array as both operands and in the epilogue
    (scaled, (A32, W32, 0.5)),  # a Python float in the epilogue: a weak scalar argument
    (positive_part, (A, W)),  # one product read twice in the epilogue, a bool output
    (product, (A[:0], W)),  # no rows
    (product, (A[:, :0], W[:0])),  # no shared axis: zeros
    (dense_relu, (A[:1], W, B)),  # one row
    (product, (A[:, :1], W[:1, :1])),  # 1 x 1 operands
]


def _ids(cases: list) -> list[str]:
    return [f"{f.__name__}{k}" for k, (f, _) in enumerate(cases)]


@pytest.fixture
def matmuls(monkeypatch):
    """A list that grows by one per matmul kernel launch."""
    from test_backend_triton import count_launches

    from astcompile.runtime.triton_runtime import MatmulLauncher

    return count_launches(monkeypatch, MatmulLauncher)


@pytest.fixture
def small_tiles(monkeypatch):
    """16 x 16 x 16 tiles in groups of two tile rows: a 33 x 40 product is 9 programs."""
    from astcompile.kernels import triton_matmul

    for key in [k for k in triton_matmul.TILES if k[0] == "interpret"]:
        monkeypatch.setitem(triton_matmul.TILES, key, triton_matmul.Tiles(16, 16, 16, 2, 4))


@pytest.mark.parametrize(("fn", "args"), MATMUL_CASES, ids=_ids(MATMUL_CASES))
def test_matches_numpy(fn, args, matmuls):
    assert_same(fn, *args, backend="triton")
    empty = any(np.asarray(a).size == 0 for a in args[:2])
    assert matmuls or empty  # a matmul kernel ran (an empty product launches none)


@pytest.mark.parametrize(
    ("fn", "args"),
    [(dense_relu, (A, W, B)), (mlp, (A32, W32, B32, W2.astype(np.float32))), (product, (IA, JB))],
    ids=["dense_relu", "mlp", "ints"],
)
def test_many_tiles_match_numpy(small_tiles, fn, args):
    assert_same(fn, *args, backend="triton")


def store_relu(out, a, w, b):
    out[1:] = np.maximum(a @ w + b, 0)
    return out


def test_a_product_stored_into_a_view(matmuls):
    """In a region with stores the phase computing the stored value runs the matmul kernel
    (70 x 70 x 72: a smaller product in such a region is summed as a reduction instead, see
    passes/matmul_loops.py)."""
    a, w = rng.standard_normal((70, 70)), rng.standard_normal((70, 72))
    assert_same(store_relu, np.zeros((71, 72)), a, w, w[0], backend="triton")
    assert matmuls


def gram(x):
    return x.T @ x


@pytest.mark.parametrize("fn", [gram, dense_relu])
def test_a_one_by_one_product_is_stored_from_its_tile(fn):
    """A 1 x 1 result has no axis to index its store by: ``tl.store(out + (0), tile)`` put a
    block into one pointer (the interpreter raised; found by red team 11)."""
    x = rng.standard_normal((5, 1))
    args = (x,) if fn is gram else (x.T, x, np.ones(1))
    assert_same(fn, *args, backend="triton")


def test_inf_and_nan_propagate():
    a, w = A.copy(), W.copy()
    a[3, 4], w[5, 7] = np.inf, np.nan
    assert_same(dense_relu, a, w, B, backend="triton")


def test_epilogue_is_fused_into_the_matmul_kernel():
    """``np.maximum(a @ w + b, 0)`` is one kernel: the bias and the ReLU are applied to the
    accumulator tile before its only store, and no NumPy step computes the product."""
    from astcompile.targets.triton.matmul import MatmulKernel

    work = lowered(trace_callable(dense_relu, [A, W, B]), "triton")
    sched, code = work.schedule, work.code
    (step,) = sched.steps
    assert isinstance(step, MatmulKernel)
    assert [n.op.name for n in step.nodes] == ["ADD", "MAXIMUM"]
    assert code.source.count("tl.store(") == 1 and "tile_product(" in code.source
    assert "matmul" not in code.parts.py.replace("_matmul(", "")


def test_a_product_read_elsewhere_is_stored_by_its_kernel():
    sched = lowered(trace_callable(kept, [A, W]), "triton").schedule
    (step,) = sched.steps
    assert step.product in step.outputs and len(step.outputs) == 2


def test_a_reduction_of_a_product_reads_it_from_memory():
    """A kernel with reductions does not run in the product's tiles: the product is a
    kernel of its own and the reductions read what it stored."""
    from astcompile.targets.triton.matmul import MatmulKernel

    sched = lowered(trace_callable(reduced, [A32, W32]), "triton").schedule
    matmuls = [s for s in sched.steps if isinstance(s, MatmulKernel)]
    assert matmuls and all(not s.nodes for s in matmuls)


@pytest.mark.parametrize(
    ("fn", "args", "why"),
    [
        (product, (A, W[:, 0]), "not two 2-D operands"),
        (product, (A > 0, W > 0), "no Triton matmul for bool"),
        (product, (A + 1j, W), "no Triton matmul for complex128"),
    ],
    ids=["vector", "bool", "complex"],
)
def test_other_products_stay_numpy_steps(fn, args, why, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same(fn, *args, backend="triton")
    report = str(astcompile.explain(astcompile.compile(fn, backend="triton"), *args))
    assert f"as a NumPy step ({why})" in report


def test_explain_says_the_matmul_runs_in_a_triton_kernel_with_its_epilogue(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    report = str(astcompile.explain(astcompile.compile(dense_relu, backend="triton"), A, W, B))
    assert "in a Triton matmul kernel with its epilogue: add, maximum)" in report
    assert "on triton (the matmul at test_triton_matmul.py:" in report


def test_the_plain_kernel_matches_numpy(small_tiles):
    """kernels/triton_matmul.py's own ``matmul`` (what the benchmark times)."""
    from astcompile.runtime.triton_runtime import plain_matmul

    with target_mode("triton"):
        for a, b in [
            (A32, W32),
            (IA, JB),
            (A[:5], W[:, :3]),
            (IA.astype(np.int8), JB.T.copy().T.astype(np.int8)),
        ]:
            c = np.empty((a.shape[0], b.shape[1]), np.result_type(a, b))
            plain_matmul(a, b, c)
            assert_matches(c, a @ b)


def test_tiles_shrink_to_the_product():
    from astcompile.kernels.triton_matmul import MIN_BLOCK, tiles

    t = tiles("cuda", np.dtype(np.float32), 33, 4000, 5)
    assert (t.block_m, t.block_n, t.block_k, t.num_warps) == (64, 128, MIN_BLOCK, 4)
    assert t.grid(33, 4000) == (32,)
    assert tiles("cuda", np.dtype(np.float32), 4000, 4000, 4000).num_warps == 8
    assert tiles("cuda", np.dtype(np.int8), 1000, 1000, 1000).block_k == 8
