"""Tuples and lists mixed with arrays: operands of operators and ufuncs (``x + (1, 2, 3)``,
``np.maximum(x, [0, 0, 1])``) and values stored into arrays (``force[0] = 0, 0``,
``a[:, 0] = (x, y)``). Compiled without a break or an eager fallback on both backends, equal
to NumPy's results, dtypes included (a sequence is a strong array: ``int8 + (1, 2, 3)`` is
int64), and NumPy's errors for items that do not fit the target."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls
from test_masks import assert_compiled_same

rng = np.random.default_rng(5)


def operands(x):
    return (
        x + (1, 2, 3),
        (1, 2, 3) - x,
        x * [[1], [2]],
        np.maximum(x, [0, 0, 1]),
        np.where(x > 0, x, (7, 8, 9)),
        x == (0, 1, 2),
        x + [1.5, 1.5, 1.5],
        x[:, :1] + [0] * 20,  # longer than a table: a NumPy constant
    )


def traced_items(x, a, b):
    return x + (a, b, 2), np.minimum(x, [x[0, 0], a, b]), x * ((a,), (b,))


def in_loop(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.maximum(x[i], (0, 1, 0)) * [2, 2, 3]
    return out


def stores(a, p, q):
    a[0] = 0, 0, 0
    a[1] = [1, 2, 3]
    a[:, 0] = (p, q, p, q)
    a[2, 1:] = (q, 7)
    a[3] = (a[3, 1], a[3, 0], a[3, 2])  # the items are read before the store
    a[:, 2] = (5,)
    return a


def row_stores(force):
    for i in range(force.shape[0]):
        force[i] = i, 2 * i
    force[0] = 0, 0
    return force


def nested_store(a):
    a[:2, :2] = [[1, 2], [3, 4]]
    a[2:] = ((9, 8, 7),)
    return a


F64 = lambda: (rng.standard_normal((2, 3)),)
PROGRAMS = [
    (operands, F64),
    (operands, lambda: (rng.integers(-9, 9, (2, 3)).astype(np.int8),)),
    (operands, lambda: (rng.standard_normal((2, 3)).astype(np.float32),)),
    (traced_items, lambda: (rng.standard_normal((2, 3)), 1.5, 2)),
    (traced_items, lambda: (rng.integers(-9, 9, (2, 3)).astype(np.int16), 3, 4)),
    (in_loop, lambda: (rng.standard_normal((5, 3)),)),
    (stores, lambda: (rng.standard_normal((4, 3)), 1.5, -2.0)),
    (stores, lambda: (rng.integers(-9, 9, (4, 3)).astype(np.int8), 3, -4)),
    (stores, lambda: (rng.integers(0, 9, (4, 3)).astype(np.uint8), 3.7, 4)),
    (row_stores, lambda: (rng.standard_normal((6, 2)),)),
    (row_stores, lambda: (rng.integers(0, 9, (6, 2)).astype(np.int32),)),
    (nested_store, lambda: (rng.standard_normal((3, 3)),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS)
def test_sequences_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


def store_pair(a, p):
    a[0] = (p, 1)
    return a


def store_constants(a):
    a[0] = (300, 1)
    return a


def store_three(a):
    a[0] = (1, 2, 3)
    return a


@pytest.mark.parametrize("backend", BACKENDS)
def test_items_that_do_not_fit_raise_numpys_errors(backend):
    i8 = np.zeros((2, 2), np.int8)
    u8 = np.zeros((2, 2), np.uint8)
    calls = [(i8, 5), (i8, 300), (i8, -129), (i8, 2.5), (i8, float("nan")), (i8, np.int64(300))]
    calls += [(u8, np.int64(300)), (u8, np.float64(-1.0)), (u8, -1)]
    assert_same_calls(store_pair, calls, backend=backend)
    assert_same_calls(store_constants, [(i8,), (np.zeros((2, 2)),)], backend=backend)
    assert_same_calls(store_three, [(np.zeros((2, 2)),), (np.zeros((2, 3)),)], backend=backend)
