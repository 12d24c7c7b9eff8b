"""Slices whose bounds change per loop iteration (``x[i:i + k]``), against NumPy, both backends.

Their lengths are known only when the code runs: NumPy clips the bounds (slices never raise),
a clipped length of 1 broadcasts, and a mismatch raises ValueError where NumPy does.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls
from hypothesis import given, settings
from hypothesis import strategies as st
from test_masks import assert_compiled_same

import astcompile


def moving_sum(x, k):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i : i + k].sum()
    return out


def suffix_max_prefix_mean(x):
    hi = np.zeros(x.shape[0])
    mean = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        hi[i] = x[i:].max()
        mean[i] = x[: i + 1].mean()
    return hi, mean


def row_windows(a, k):
    out = np.zeros(a.shape)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j : j + k].sum() + a[:, i].sum()
    return out


def window_store(x, w):
    for i in range(x.shape[0]):
        x[i : i + 3] += w
    return x


def tail_broadcasts(x, w):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = (x[i : i + 2] * w).sum()  # the last slice has length 1 and broadcasts
    return out


def reversed_windows(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i + 2 : i - 3 : -1].sum() + x[-i - 1 :: -2].sum()
    return out


def column_store(a, v):
    for i in range(a.shape[1]):
        a[:, i] = v * i
        a[i % a.shape[0], i:] -= 1.0
    return a


def lms_filter(x, d, w, mu):
    """An adaptive (LMS) filter: the weights are updated from a sliding window of the input."""
    k = w.shape[0]
    err = np.zeros(d.shape[0])
    for i in range(d.shape[0]):
        y = np.dot(w, x[i : i + k])
        e = d[i] - y
        w += mu * e * x[i : i + k]
        err[i] = e
    return w, err


_x = np.sin(np.arange(11.0))
PROGRAMS = [
    (moving_sum, lambda: (_x.copy(), 3)),
    (suffix_max_prefix_mean, lambda: (_x.copy(),)),
    (row_windows, lambda: (np.arange(20.0).reshape(4, 5) % 7, 2)),
    (window_store, lambda: (np.zeros(8), np.ones(1))),
    (tail_broadcasts, lambda: (_x.copy(), np.array([1.0, -2.0]))),
    (reversed_windows, lambda: (_x.copy(),)),
    (column_store, lambda: (np.ones((3, 5)), np.arange(3.0))),
    (lms_filter, lambda: (np.sin(np.arange(40.0)), np.cos(np.arange(36.0)), np.zeros(5), 0.05)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_dynamic_slice_programs_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


def _same_error(fn, args, backend):
    with pytest.raises(ValueError) as expected:
        fn(*[a.copy() for a in args])
    with pytest.raises(ValueError) as got:
        astcompile.compile(fn, backend=backend)(*[a.copy() for a in args])
    return str(expected.value), str(got.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_clipped_window_that_no_longer_fits_raises_value_error(backend):
    _same_error(window_store, (np.zeros(8), np.ones(3)), backend)  # x[6:9] has length 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_dot_with_a_clipped_window_raises_value_error(backend):
    args = (np.ones(6), np.ones(6), np.zeros(3), 0.1)
    with pytest.raises(ValueError):
        lms_filter(*args)
    with pytest.raises(ValueError):
        astcompile.compile(lms_filter, backend=backend)(*args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_of_an_empty_window_raises_value_error(backend):
    def prefix_max(x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = x[:i].max()
        return out

    _same_error(prefix_max, (np.arange(4.0),), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_using_a_window_length_as_a_number_is_a_graph_break(backend):
    def lengths(x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = np.zeros(len(x[i : i + 3])).size
        return out

    x = np.arange(5.0)
    assert_same(lengths, x, backend=backend)
    assert astcompile.explain(lengths, x).graph_break_count >= 1


def strided_windows(x, a, b, step):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i + a : i + b : step].sum() + x[i + a :: step].sum()
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=20, deadline=None)
@given(
    a=st.integers(-12, 12),
    b=st.integers(-12, 12),
    step=st.sampled_from([1, 2, -1, -3]),
    n=st.integers(1, 9),
)
def test_runtime_bounds_clip_like_python_slices(backend, a, b, step, n):
    x = np.arange(1.0, n + 1.0) ** 2
    assert_same(strided_windows, x, a, b, step, backend=backend)


def head(x, k):
    return x[:k] * 2.0


def head_and_total(x, k):
    part = x[k:]
    return part + 1, part.sum()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [head, head_and_total])
def test_a_result_whose_length_varies_with_an_argument_has_numpys_length(fn, backend):
    """A second ``k`` makes the slice length a run-time value: the result must still be
    ``x[:k]``'s length (it was returned at ``x``'s length, the tail uninitialised)."""
    x = np.arange(10.0)
    assert_same_calls(fn, [(x, k) for k in (3, 4, 5, 12, -2, 0)], backend=backend)


def _zeros_of_a_slice_length(x, n):
    s = 0.0
    for i in range(n):
        y = x[i:]
        s += np.zeros(len(y)).sum() + y.sum()
    return s


def test_a_loop_dependent_size_used_as_a_value_breaks_at_the_users_line():
    """ir/ raises its own error for it; the tracer reports the break at the line that used it."""
    assert_same(_zeros_of_a_slice_length, np.ones(6), 3, backend="c")
    compiled = astcompile.compile(_zeros_of_a_slice_length)
    report = str(astcompile.explain(compiled, np.ones(6), 3))
    line = _zeros_of_a_slice_length.__code__.co_firstlineno + 4
    assert "size known only at run time" in report
    assert f"line {line}, in _zeros_of_a_slice_length" in report
