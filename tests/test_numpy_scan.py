"""np.cumsum, np.cumprod (and the methods), np.diff and np.roll: compiled without a graph
break, equal to NumPy's results (values, dtype, shape); float scans bit-identical."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_value, assert_same_warnings
from graphs import all_nodes, traced
from test_masks import assert_compiled_same

import astcompile
from astcompile.ir.ops import Op


def cumsums(x):
    return np.cumsum(x), np.cumsum(x, axis=0), np.cumsum(x, axis=-1), x.cumsum(1)


def cumprods(x):
    return np.cumprod(x * 0.5), np.cumprod(x, axis=-2), x.cumprod(axis=1), x.cumprod()


def scan_dtypes(x):
    small = x.astype(np.int8)
    return (
        np.cumsum(small),
        np.cumsum(small.astype(np.uint16), axis=0),
        np.cumsum(x > 0),
        np.cumprod(x > -9, axis=1),
        np.cumsum(x.astype(np.float32), axis=1),
        np.cumsum(x, dtype=np.float32),
        small.cumsum(axis=0, dtype=np.int16),
        np.cumsum(x, axis=1, dtype=np.int32),
    )


def scan_empty_and_zero_d(x):
    return (
        np.cumsum(x[:0]),
        np.cumsum(x[:, :0], axis=1),
        np.cumprod(x[:0], axis=0),
        np.cumsum(x[0, 0]),
        np.cumprod(x[1, 1], axis=0),
        x[0, 0].cumsum(axis=-1),
    )


def scan_3d(cube):
    return np.cumsum(cube, axis=1), np.cumprod(cube, axis=-1), np.cumsum(cube.T, axis=0)


def scan_in_loop(x):
    total = np.zeros_like(x)
    for i in range(3):
        total += np.cumsum(x * i, axis=0)
    return total


def diffs(x):
    return (
        np.diff(x),
        np.diff(x, axis=0),
        np.diff(x, n=2, axis=-2),
        np.diff(x, 0),
        np.diff(x, n=5),
        np.diff(x[0]),
        np.diff(x > 0),
        np.diff(x.astype(np.uint8)),
    )


def diff_edges(x):
    return (
        np.diff(x, prepend=0.0),
        np.diff(x, axis=0, append=x[:1]),
        np.diff(x[0], prepend=x[0, :2], append=7),
    )


def rolls(x):
    return (
        np.roll(x, 2),
        np.roll(x, -3),
        np.roll(x, 1, axis=0),
        np.roll(x, -1, axis=-1),
        np.roll(x, 13, axis=1),
        np.roll(x, (1, 2), axis=(0, 1)),
        np.roll(x, 0),
        np.roll(x, 4, axis=1),
        np.roll(x[0, 0], 3),
        np.roll(x[:0], 2, axis=0),
    )


rng = np.random.default_rng(0)
FLOATS = lambda: (rng.standard_normal((4, 6)),)
INTS = lambda: (rng.integers(-4, 5, (4, 6)),)
PROGRAMS = [
    (cumsums, FLOATS),
    (cumsums, INTS),
    (cumprods, FLOATS),
    (cumprods, INTS),
    (scan_dtypes, INTS),
    (scan_empty_and_zero_d, FLOATS),
    (scan_3d, lambda: (rng.standard_normal((2, 3, 4)),)),
    (scan_in_loop, FLOATS),
    (diffs, FLOATS),
    (diffs, INTS),
    (diff_edges, FLOATS),
    (rolls, FLOATS),
    (rolls, INTS),
]
IDS = [f"{fn.__name__}-{'ints' if make is INTS else 'floats'}" for fn, make in PROGRAMS]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=IDS)
def test_scans_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    assert astcompile.explain(compiled, *make_args()).graph_break_count == 0


def scan_axes(x, near_one):
    return np.cumsum(x, axis=0), np.cumsum(x, axis=1), np.cumsum(x), np.cumprod(near_one, axis=1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_scans_are_numpys_bits(backend, dtype):
    """NumPy's accumulate adds one element at a time: so does the compiled loop."""
    x = (rng.standard_normal((300, 70)) * 1e3).astype(dtype)
    near_one = (1 + rng.standard_normal((300, 70)) * 1e-3).astype(dtype)
    got = astcompile.compile(scan_axes, backend=backend)(x, near_one)
    for g, e in zip(got, scan_axes(x, near_one)):
        assert g.dtype == e.dtype and g.shape == e.shape
        assert np.array_equal(g.view(np.uint8), e.view(np.uint8))


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_sizes_do_not_recompile(backend):
    compiled = astcompile.compile(rolls, backend=backend)
    for shape in ((4, 6), (5, 9), (7, 11)):
        x = rng.standard_normal(shape)
        assert_same_value(compiled(x), rolls(x))
    compiled = astcompile.compile(cumsums, backend=backend)
    for shape in ((4, 6), (5, 9), (2, 3)):
        x = rng.standard_normal(shape)
        assert_same_value(compiled(x), cumsums(x))
    assert astcompile.explain(compiled, rng.standard_normal((8, 3))).graph_count == 1


def diff_negative_order(x):
    return np.diff(x, n=-1)


def diff_zero_d(x):
    return np.diff(x[0, 0])


def scan_bad_axis(x):
    return np.cumsum(x, axis=2)


def scan_zero_d_bad_axis(x):
    return np.cumsum(x[0, 0], axis=1)


def roll_bad_axis(x):
    return np.roll(x, 1, axis=-3)


def roll_unpaired(x):
    return np.roll(x, (1, 2, 3), axis=(0, 1))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn",
    [
        diff_negative_order,
        diff_zero_d,
        scan_bad_axis,
        scan_zero_d_bad_axis,
        roll_bad_axis,
        roll_unpaired,
    ],
)
def test_numpy_errors(fn, backend):
    x = rng.standard_normal((3, 4))
    with pytest.raises(ValueError) as expected:
        fn(x)
    with pytest.raises(type(expected.value), match=str(expected.value).split("(")[0]):
        astcompile.compile(fn, backend=backend)(x)


def ediffs(x):
    return (
        np.ediff1d(x),
        np.ediff1d(x[0], to_begin=-1),
        np.ediff1d(x, to_end=x[2, :2]),
        np.ediff1d(x[0, 0]),
        np.ediff1d(x[0], to_begin=x[1, :2], to_end=0),
        np.ediff1d(x[:0]),
    )


def trapezoids(x):
    v, t = x[0], np.abs(x[1]).cumsum()
    return (
        np.trapezoid(v),
        np.trapezoid(v, dx=0.5),
        np.trapezoid(v, t),
        np.trapezoid(x),
        np.trapezoid(x, axis=0),
        np.trapezoid(x, t),
        np.trapezoid(x, x * 2, axis=0),
        np.trapezoid(x[:, :1]),
    )


EDGE_PROGRAMS = [(ediffs, FLOATS), (ediffs, INTS), (trapezoids, FLOATS), (trapezoids, INTS)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, make_args",
    EDGE_PROGRAMS,
    ids=[f"{fn.__name__}-{make is INTS}" for fn, make in EDGE_PROGRAMS],
)
def test_ediff1d_and_trapezoid(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


def ediff_unsafe_begin(x):
    return np.ediff1d(x.astype(np.int32), to_begin=0.5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ediff1d_refuses_unsafe_edges(backend):
    x = rng.integers(0, 9, (3, 4))
    with pytest.raises(TypeError, match="to_begin"):
        ediff_unsafe_begin(x)
    with pytest.raises(TypeError, match="to_begin"):
        astcompile.compile(ediff_unsafe_begin, backend=backend)(x)


def higher_diffs(x):
    return np.diff(x, n=2), np.diff(x, 3, axis=0), np.diff(x > 0, n=2), np.diff(x, n=4)


def second_diff(x):
    return np.diff(x, n=2) * 0.5


def test_a_second_difference_reads_only_the_input():
    """Each element computed where it is read, in one kernel: no difference array in between
    (``np.diff(x, n=2)`` ran as two kernels and a temporary, 0.7x plain for 10,000 floats)."""
    graph = traced(second_diff, np.arange(10.0) ** 2)
    slices = [n for n in all_nodes(graph) if n.op is Op.INDEX]
    assert slices and all(n.inputs[0].op is Op.INPUT for n in slices)


@pytest.mark.parametrize("backend", BACKENDS)
def test_higher_diffs_at_every_length(backend):
    """Long enough for every order, then too short for some (NumPy's empty results)."""
    calls = [
        (rng.standard_normal((n, 6)).astype(dtype),)
        for n in (6, 4, 3, 2, 1, 0)
        for dtype in (np.float64,)
    ]
    calls += [(rng.integers(-9, 9, (5, 6)).astype(np.int8),), (rng.integers(0, 9, (7, 1)),)]
    assert_same_calls(higher_diffs, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("values", [[np.inf, np.inf, 1.0], [1.0, np.inf, np.inf], [np.inf, np.inf]])
def test_second_differences_warn_as_numpy(backend, values):
    """inf - inf: NumPy's invalid-value warning, wherever the first difference meets it."""
    assert_same_warnings(second_diff, np.array(values), backend=backend)
