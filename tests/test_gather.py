"""Indexing with a 1-D integer array: gathers and scatters compiled as loops, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same

import astcompile


def gathers(x, idx, M):
    return x[idx] * 2.0, M[idx], x[idx].sum(), M[idx, 1:]


def scatters(x, idx, v):
    x[idx] = v
    x[idx] += 1.0  # repeated indices get one increment, as in NumPy
    return x


def rows_by_index(M, order):
    out = np.zeros_like(M)
    for k in range(order.shape[0]):
        out[k] = M[order[k]]
    return out + M[order]


CASES = [
    (gathers, lambda: (np.arange(8.0), np.array([3, -1, 0, 3, 7]), np.arange(24.0).reshape(8, 3))),
    (gathers, lambda: (np.arange(8.0), np.array([], dtype=np.int64), np.ones((8, 3)))),
    (scatters, lambda: (np.arange(8.0), np.array([3, -1, 0, 3]), np.array([1.0, 2.0, 3.0, 4.0]))),
    (scatters, lambda: (np.arange(8, dtype=np.float32), np.array([5, 2], dtype=np.uint8), 9.7)),
    (rows_by_index, lambda: (np.arange(12.0).reshape(4, 3), np.array([2, 0, 3, 1]))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, make", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_integer_array_indexing_matches_numpy(fn, make, backend):
    assert_same(fn, *make(), backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *make())
    assert output.graph_break_count == 0, output


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_range_index_raises_numpys_index_error(backend):
    compiled = astcompile.compile(gathers, backend=backend)
    x, M = np.arange(8.0), np.ones((8, 3))
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 0 with size 8"):
        compiled(x, np.array([1, 8]), M)
    with pytest.raises(IndexError, match="index -9 is out of bounds for axis 0 with size 8"):
        compiled(x, np.array([-9]), M)
