"""np.concatenate, np.stack, np.hstack, np.vstack, np.column_stack, np.outer and ufunc.outer:
compiled without a graph break, equal to NumPy's results (values, dtype, shape)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_value
from test_masks import assert_compiled_same

import astcompile


def join_rows(a, b):
    return np.concatenate((a, b), axis=0) * 2


def join_columns(a, b):
    return np.concatenate([a, b[:, :2], a], axis=1)


def join_negative_axis_and_flat(a, b):
    return np.concatenate((a, b), axis=-2), np.concatenate((a, b.T), axis=None)


def join_promotes(a, b):
    return np.concatenate((a.astype(np.int8), b.astype(np.uint8))), np.concatenate((a, a > 0))


def join_with_dtype(a, b):
    return np.concatenate((a, b), dtype=np.float32, casting="same_kind")


def join_empty(a, b):
    return np.concatenate((a[:0], b, a[:0])), np.stack((a[:, :0], a[:, :0]))


def stacks(a, b):
    return np.stack((a, a)), np.stack((a, a), axis=-1), np.stack([a[0], a[1], a[2]], axis=1)


def horizontal_vertical(a, b):
    v = a[0]
    return (
        np.hstack((v, v[:2], 7.0)),
        np.hstack((a, a)),
        np.vstack((v, v)),
        np.vstack((a, b)),
        np.column_stack((v, v * 2)),
        np.column_stack((a, a[:, :1])),
    )


def outer_products(a, b):
    v, w = a[0], b[:, 1]
    return (
        np.outer(v, w),
        np.outer(a, w),
        np.add.outer(v, w),
        np.subtract.outer(a, w),
        np.multiply.outer(v, 2.0),
        np.minimum.outer(w, v),
        np.maximum.outer(a, w),
        np.greater.outer(v, w),
        np.add.outer(v[0], w[0]),
    )


def floyd_warshall(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))
    return path


def join_in_loop(a, b):
    out = np.zeros_like(np.concatenate((a, b)))
    for i in range(3):
        out += np.concatenate((a * i, b))
    return out


rng = np.random.default_rng(0)
PAIR = lambda: (rng.standard_normal((3, 4)), rng.standard_normal((5, 4)))
PROGRAMS = [
    (join_rows, PAIR),
    (join_columns, lambda: (rng.standard_normal((3, 4)), rng.integers(0, 9, (3, 5)))),
    (join_negative_axis_and_flat, lambda: (rng.random((2, 3)), rng.random((3, 3)))),
    (join_promotes, lambda: (rng.integers(-5, 5, 6), rng.integers(0, 9, 3))),
    (join_with_dtype, lambda: (rng.random(3).astype(np.float32), rng.random(2))),
    (join_empty, PAIR),
    (stacks, PAIR),
    (horizontal_vertical, PAIR),
    (outer_products, PAIR),
    (floyd_warshall, lambda: (rng.random((6, 6)) * 10,)),
    (join_in_loop, PAIR),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_joins_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sizes_add_up_symbolically(backend):
    compiled = astcompile.compile(join_rows, backend=backend)
    for n, m in ((3, 5), (7, 2), (4, 9)):
        a, b = rng.random((n, 4)), rng.random((m, 4))
        assert_same_value(compiled(a, b), join_rows(a, b))
    assert astcompile.explain(join_rows, rng.random((6, 4)), rng.random((8, 4))).graph_count == 1


def mismatched(a, b):
    return np.concatenate((a, b), axis=1)


def ranks_differ(a, b):
    return np.concatenate((a, b[0]))


def zero_d(a, b):
    return np.concatenate((a[0, 0], b[0, 0]))


def unequal_stack(a, b):
    return np.stack((a, b))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [mismatched, ranks_differ, zero_d, unequal_stack])
def test_numpy_errors(fn, backend):
    a, b = PAIR()
    with pytest.raises(ValueError) as expected:
        fn(a, b)
    with pytest.raises(ValueError, match=str(expected.value).split(",")[0]):
        astcompile.compile(fn, backend=backend)(a, b)


def test_floyd_warshall_is_one_native_loop():
    """npbench's Floyd-Warshall: the whole loop is one C function, no Python iteration."""
    compiled = astcompile.compile(floyd_warshall, backend="c")
    path = rng.random((40, 40)) * 10
    assert_same_value(compiled(path.copy()), floyd_warshall(path.copy()))
    output = astcompile.explain(floyd_warshall, path.copy())
    assert output.graph_break_count == 0 and output.graph_count == 1
