"""Matrix products inside loop regions become native sums (passes/matmul_loops.py).

Each program is compared with the plain function through the shared differential helper and
must compile without a break; sums run in another order than BLAS's, within the float
tolerances of astcompile/compare.py, and integer products wrap as NumPy's do.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same

import astcompile
from astcompile.ir.ops import Op
from astcompile.passes import matmul_loops as M


def power_steps(A, v, steps):
    for _ in range(steps):
        w = A @ v
        v = w / np.sqrt(w @ w)
    return v


def row_times_matrix(v, B, steps):
    for _ in range(steps):
        v = np.dot(v, B) % 97
    return v


def matrix_chain(A, B, steps):
    P = np.eye(A.shape[0], dtype=A.dtype)
    for _ in range(steps):
        P = P @ A + B
    return P


def strided_operands(M_, x, steps):
    acc = np.zeros(M_.shape[1])
    for k in range(steps):
        acc += M_.T @ x[::2] + M_[:, k % M_.shape[1]] @ x[::2]
    return acc


def in_a_branch(A, x, steps):
    for k in range(steps):
        if x.sum() > 1.0:
            x = A @ x
        else:
            x = x + 1.0
    return x


RNG = np.random.default_rng(3)
CASES = [
    (power_steps, (np.array([[2.0, 1.0], [1.0, 3.0]]), np.ones(2), 6)),
    (power_steps, (RNG.random((5, 5)).astype(np.float32), np.ones(5, np.float32), 3)),
    (row_times_matrix, (np.arange(3.0), RNG.random((3, 4)) @ np.ones((4, 3)), 3)),
    (row_times_matrix, (np.arange(3), np.arange(9).reshape(3, 3), 2)),
    (matrix_chain, (RNG.random((3, 3)), RNG.random((3, 3)), 4)),
    (
        matrix_chain,
        (np.arange(4, dtype=np.int32).reshape(2, 2) * 40000, np.ones((2, 2), np.int32), 3),
    ),
    (strided_operands, (RNG.random((6, 3)), RNG.random(12), 4)),
    (in_a_branch, (RNG.random((3, 3)) / 3, np.array([0.2, 0.9, 0.4]), 5)),
    (power_steps, (np.zeros((0, 0)), np.zeros(0), 2)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_products_inside_loops_compile_natively(fn, args, backend):
    assert_same(fn, *args, backend=backend)
    report = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert report.break_reasons == [], str(report)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_core_dimension_mismatch_raises_numpys_error(backend):
    compiled = astcompile.compile(power_steps, backend=backend)
    with pytest.raises(ValueError, match="matmul"):
        compiled(np.ones((3, 3)), np.ones(2), 2)


def top_level_product(A, B, x, steps):
    C = A @ B
    for _ in range(steps):
        x = C @ x
    return x


def _products_left(fn, *args) -> int:
    report = astcompile.explain(astcompile.compile(fn, backend="eager"), *args)
    (graph,) = report.graphs
    passed, _ = M.matmul_loops(graph)
    from astcompile.ir.graph import walk

    return len({n.id for n in walk(passed.nodes()) if n.op in (Op.MATMUL, Op.DOT)})


def test_a_large_product_outside_the_loop_stays_blas_work():
    small = (np.ones((4, 4)), np.ones((4, 4)), np.ones(4), 2)
    large = (np.ones((80, 80)), np.ones((80, 80)), np.ones(80), 2)
    assert _products_left(top_level_product, *small) == 0
    assert _products_left(top_level_product, *large) == 1  # A @ B is 80**3 > SMALL_PRODUCT
    assert_same(top_level_product, *large, backend="c")
