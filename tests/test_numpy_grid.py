"""np.meshgrid and np.pad (constant mode): compiled without a graph break on both backends,
equal to NumPy's results (values, dtype, shape), NumPy's errors for bad pad widths, and a
clear break for the forms that run in NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls
from test_masks import assert_compiled_same

import astcompile

rng = np.random.default_rng(8)


def grids(x, y):
    X, Y = np.meshgrid(x, y)
    A, B = np.meshgrid(x, y, indexing="ij")
    sx, sy = np.meshgrid(x, y, sparse=True)
    (only,) = np.meshgrid(x)
    return X, Y, A * B, sx + sy, only, np.meshgrid(x, y, x[:2])[2], np.meshgrid(x[:0], y)[0]


def pads(m):
    return (
        np.pad(m, 1),
        np.pad(m, (1, 2)),
        np.pad(m, ((0, 1), (2, 0)), constant_values=-1.5),
        np.pad(m[0], 3, mode="constant", constant_values=7),
        np.pad(m, 0),
        np.pad(m[:0], 1),
        np.pad(m, ((1,), (2,))),
    )


def pad_in_loop(m):
    out = np.zeros((m.shape[0], m.shape[1] + 2), m.dtype)
    for i in range(m.shape[0]):
        out[i] = np.pad(m[i], 1) * 2
    return out


PROGRAMS = [
    (grids, lambda: (rng.standard_normal(4), rng.standard_normal(3))),
    (grids, lambda: (rng.integers(0, 9, 4).astype(np.int8), rng.standard_normal(3))),
    (pads, lambda: (rng.standard_normal((3, 4)),)),
    (pads, lambda: (rng.integers(-9, 9, (3, 4)).astype(np.int16),)),
    (pad_in_loop, lambda: (rng.standard_normal((4, 5)),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS)
def test_meshgrid_pad_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


def pad_by(m, w):
    return np.pad(m, w)


def pad_constant(m, c):
    return np.pad(m, 1, constant_values=c)


@pytest.mark.parametrize("backend", BACKENDS)
def test_pad_widths_and_constants_follow_numpy(backend):
    m = rng.standard_normal((2, 3))
    calls = [(m, 1), (m, 2), (m, (1, 0)), (m, -1), (m, ((1, 2, 3),)), (m, 1.6)]
    assert_same_calls(pad_by, calls, backend=backend)
    i8 = np.zeros((2, 2), np.int8)
    assert_same_calls(pad_constant, [(i8, 5), (i8, 300), (m, 2.5), (i8, 2.7)], backend=backend)


def pad_empty(m):
    return np.pad(m, 0, mode="empty")  # copying modes are NumPy steps; "empty" is undefined


def pad_pairs(m):
    return np.pad(m, 1, constant_values=(1, 2))


def grid_views(x, y):
    return np.meshgrid(x, y, copy=False)[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, why",
    [
        (pad_empty, "np.pad with mode='empty'"),
        (pad_pairs, "np.pad with a constant per side"),
        (grid_views, "np.meshgrid with copy=False"),
    ],
)
def test_other_forms_run_in_numpy(fn, why, backend):
    args = (rng.standard_normal(3), rng.standard_normal(2))[: fn.__code__.co_argcount]
    assert_same_calls(fn, [args], backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert output.graph_break_count == 1 and why in output.break_reasons[0].detail
