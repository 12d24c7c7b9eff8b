"""Small array literals: ``np.array([...])``/``np.asarray([...])`` of traced values compile.

Each program runs as plain Python and through astcompile (eager and C); results must agree in
value, dtype and shape, and the function must compile without a graph break.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same

import astcompile


def rotate(points, c, s):
    out = np.empty_like(points)
    for i in range(points.shape[0]):
        p = points[i]
        v = np.array([p[0] * c - p[1] * s, p[0] * s + p[1] * c])
        out[i] = v
    return out


def constant_literal(x):
    return x + np.array([1.0, 2.0])


def rotation_matrices(theta):
    out = np.empty((theta.shape[0], 2, 2))
    for i in range(theta.shape[0]):
        c = np.cos(theta[i])
        s = np.sin(theta[i])
        out[i] = np.array([[c, -s], [s, c]])
    return out


def explicit_dtype(x):
    out = np.zeros((x.shape[0], 2), dtype=np.float32)
    for i in range(x.shape[0]):
        out[i] = np.array([x[i], x[i] * 2], dtype=np.float32)
    return out


def int_and_float(x):
    total = np.zeros(2)
    for i in range(x.shape[0]):
        total = total + np.array([i, x[i]])
    return total


def weak_python_scalar(x, alpha):
    out = np.empty((x.shape[0], 2))
    for i in range(x.shape[0]):
        out[i] = np.array([x[i], alpha])
    return out


def int_literal(n):
    acc = np.zeros(2, dtype=np.int64)
    for i in range(n):
        acc = acc + np.array([i, i * 2])
    return acc


def reductions_asarray(x):
    stats = np.asarray([x.sum(), x.max(), x.min()])
    return stats * 2.0


def array_copies(x):
    y = np.array(x)
    y[0] = 5.0
    return x + 0.0, y


def rows_of_a_matrix(m):
    return np.array([m[0], m[1] * 2.0]) + 1.0


def float32_rotation(points, c, s):
    out = np.empty_like(points)
    for i in range(points.shape[0]):
        out[i] = np.array([points[i, 0] * c, points[i, 1] * s])
    return out


PROGRAMS = [
    (rotate, lambda: (np.arange(12.0).reshape(6, 2), 0.6, 0.8)),
    (constant_literal, lambda: (np.arange(6.0).reshape(3, 2),)),
    (rotation_matrices, lambda: (np.linspace(0.0, 3.0, 5),)),
    (explicit_dtype, lambda: (np.linspace(-1.0, 1.0, 4),)),
    (int_and_float, lambda: (np.linspace(0.0, 1.0, 5).astype(np.float32),)),
    (weak_python_scalar, lambda: (np.arange(4, dtype=np.float32), 0.25)),
    (int_literal, lambda: (7,)),
    (reductions_asarray, lambda: (np.arange(5.0),)),
    (array_copies, lambda: (np.arange(3.0),)),
    (rows_of_a_matrix, lambda: (np.arange(6.0).reshape(2, 3),)),
    (float32_rotation, lambda: (np.arange(8, dtype=np.float32).reshape(4, 2), 0.5, 2.0)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_array_literals_match_python(fn, make_args, backend):
    assert_same(fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_array_literals_compile_without_breaks(fn, make_args, backend):
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *make_args())
    assert output.graph_break_count == 0, output
    assert all(r.eager_calls == 0 for r in output.regions), output
    assert not output.python_loops, output


def ragged(x):
    return np.array([x[0], x[1:]], dtype=object)


def narrow_int(n):
    return np.array([n, 1], dtype=np.int8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsupported_literals_fall_back_to_numpy(backend):
    assert_same(narrow_int, 5, backend=backend)
    compiled = astcompile.compile(ragged, backend=backend)
    got, expected = compiled(np.arange(3.0)), ragged(np.arange(3.0))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    with pytest.raises(OverflowError):
        astcompile.compile(narrow_int, backend=backend)(300)
