"""np.repeat (one count), x.repeat and np.tile: compiled without a graph break on
both backends, equal to NumPy's results (values, dtype, shape)."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_value
from test_masks import assert_compiled_same

import astcompile

rng = np.random.default_rng(3)


def repeats(x):
    return (
        np.repeat(x, 2),
        x.repeat(3, axis=0),
        np.repeat(x, 2, axis=-1),
        np.repeat(x, 0, axis=1),
        np.repeat(x, [2], axis=0),
        np.repeat(x[0, 0], 3),
        np.repeat(x[:0], 4, axis=0),
        np.repeat(x, 1),
    )


def tiles(x):
    return (
        np.tile(x, 2),
        np.tile(x, (2, 1)),
        np.tile(x, (2, 1, 3)),
        np.tile(x, 1),
        np.tile(x[0], (3, 2)),
        np.tile(x[0, 0], 3),
        np.tile(x, 0),
        np.tile(x[:, :0], (2, 2)),
    )


def repeat_in_loop(x):
    out = np.zeros((x.shape[0], 2 * x.shape[1]), x.dtype)
    for i in range(x.shape[0]):
        out[i] = np.repeat(x[i], 2) + np.tile(x[i], 2)
    return out


FLOATS = lambda: (rng.standard_normal((4, 6)),)
PROGRAMS = [
    (repeats, FLOATS),
    (repeats, lambda: (rng.integers(-5, 5, (3, 4)).astype(np.int8),)),
    (repeats, lambda: (rng.standard_normal((3, 4)) > 0,)),
    (tiles, FLOATS),
    (tiles, lambda: (rng.integers(0, 9, (2, 3)).astype(np.uint16),)),
    (repeat_in_loop, FLOATS),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS)
def test_repeat_tile_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_sizes_do_not_recompile(backend):
    compiled = astcompile.compile(repeats, backend=backend)
    for shape in ((4, 6), (5, 9), (7, 3)):
        x = rng.standard_normal(shape)
        assert_same_value(compiled(x), repeats(x))
    assert astcompile.explain(compiled, rng.standard_normal((8, 5))).graph_count == 1


def count_from_argument(x, k):
    return np.repeat(x, k, axis=0), np.tile(x, (k, 1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_count_passed_in_is_guarded(backend):
    x = rng.standard_normal((2, 3))
    assert_same_calls(count_from_argument, [(x, 2), (x, 3), (x, 0), (x, -1)], backend=backend)


def repeat_per_element(x):
    return np.repeat(x, [1, 2, 3])


def repeat_counts_array(x, counts):
    return np.repeat(x, counts, axis=0)


def repeat_computed_count(x):
    return np.repeat(x, x.shape[0] * 0 + np.int64(2) * (x[0] > 0))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args, reason",
    [
        (repeat_per_element, (np.arange(3.0),), "count per element"),
        (repeat_counts_array, (np.arange(3.0), np.array([1, 0, 2])), "count per element"),
        (repeat_computed_count, (np.arange(3.0),), "count computed from array values"),
    ],
)
def test_unsupported_counts_run_in_numpy(fn, args, reason, backend):
    """Counts only the data knows run the plain code, with the reason said."""
    assert_same_calls(fn, [args], backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert output.graph_break_count == 1
    assert reason in output.break_reasons[0].detail
