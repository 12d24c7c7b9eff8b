"""np.arange, np.linspace, np.eye, np.identity, np.triu, np.tril: built on the IOTA op (each
element's index along an axis), fused into their consumers, equal to NumPy's results."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_value, run_both
from hypothesis import given
from hypothesis import strategies as st
from test_masks import assert_compiled_same

import astcompile


def arange_size(x):
    return np.arange(x.shape[0]) + x


def arange_odd(x):
    return np.arange(1, x.shape[0] + 1, 2) * 3


def arange_down(x):
    return np.arange(x.shape[0], 0, -3)


def arange_float_dtype(x):
    return np.arange(x.shape[0], dtype=np.float64) / 2 + np.arange(4, x.shape[0] + 4)


def arange_floats(x):
    return np.arange(0.5, 3.3, 0.3), np.arange(2.0, -1.0, -0.25)


def arange_dtypes(x):
    return (
        np.arange(5, dtype=np.float32),
        np.arange(0.5, 5, 1.0, dtype=int),
        np.arange(10, 0, -1, dtype=np.uint8),
        np.arange(3, 300, 7, dtype=np.int8),
    )


def arange_empty(x):
    return np.arange(5, 2), np.arange(1.0, 1.0), np.arange(x.shape[0], 0)


def arange_argument(x, n):
    return np.arange(n) * x[0]


def linspace_size(x):
    return np.linspace(0, 1, x.shape[0]) + x


def linspace_variants(x):
    return (
        np.linspace(-2.5, 7, 11, endpoint=False),
        np.linspace(0, 10, 5, dtype=int),
        np.linspace(3, 3, 4),
        np.linspace(1, 2, 1),
        np.linspace(1, 2, 0),
        np.linspace(0, 1, 6, dtype=np.float32),
        np.linspace(5, -1e300, 7),
    )


def linspace_arguments(x, lo, hi):
    return np.linspace(lo, hi, x.shape[0]) * x


def eye_variants(x):
    return (
        np.eye(x.shape[0]),
        np.eye(3, 5, k=1, dtype=int),
        np.eye(4, k=-2, dtype=bool),
        np.identity(x.shape[0]) * x,
        np.eye(2, 3, k=7),
    )


def triangles(m):
    return np.triu(m), np.triu(m, 1), np.tril(m, -1), np.tril(m) + np.triu(m, 1)


def triangles_batched(b):
    return np.triu(b, -1), np.tril(b.astype(np.int32), 2), np.triu(b > 0.5)


def triangle_of_vector(v):
    return np.triu(v), np.tril(v, 1)


def index_in_loop(x):
    for i in range(x.shape[0]):
        x[i] += np.arange(x.shape[1]) * i
    return x


def diagonal_sum(m):
    return (m * np.eye(m.shape[0], m.shape[1])).sum(axis=1)


ROW = lambda: (np.random.default_rng(0).random(7),)
MATRIX = lambda: (np.random.default_rng(1).standard_normal((5, 6)),)
PROGRAMS = [
    (arange_size, ROW),
    (arange_odd, ROW),
    (arange_down, ROW),
    (arange_float_dtype, ROW),
    (arange_floats, ROW),
    (arange_dtypes, ROW),
    (arange_empty, ROW),
    (arange_argument, lambda: (np.arange(3.0) + 2, 6)),
    (linspace_size, ROW),
    (linspace_variants, ROW),
    (linspace_arguments, lambda: (np.arange(9.0), -1.5, 2)),
    (eye_variants, ROW),
    (triangles, MATRIX),
    (triangles_batched, lambda: (np.random.default_rng(2).random((3, 4, 4)),)),
    (triangle_of_vector, lambda: (np.arange(1, 5),)),
    (index_in_loop, lambda: (np.ones((4, 6)),)),
    (diagonal_sum, MATRIX),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_constructors_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_size_runs_without_recompiling(backend):
    compiled = astcompile.compile(arange_odd, backend=backend)
    for n in (7, 12, 30):
        assert_same_value(compiled(np.zeros(n)), arange_odd(np.zeros(n)))
    assert astcompile.explain(arange_odd, np.zeros(9)).graph_count == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_symbolic_length_that_becomes_empty(backend):
    compiled = astcompile.compile(arange_down, backend=backend)
    for n in (7, 3, 2, 9):
        assert_same_value(compiled(np.zeros(n)), arange_down(np.zeros(n)))


def _exact(fn, *args):
    """The eager backend runs NumPy's own formulas: bit-for-bit NumPy's answer."""
    expected, got = run_both(fn, *args, backend="eager")
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        assert e.tobytes() == g.tobytes(), (e, g)


finite = st.floats(-1e3, 1e3, allow_nan=False)


@given(finite, finite, st.floats(0.01, 50).flatmap(lambda s: st.sampled_from([s, -s])))
def test_float_arange_is_numpys_bit_for_bit(start, stop, step):
    def ranges(x):
        return np.arange(start, stop, step), np.arange(start, stop, step, dtype=np.float32)

    if abs((stop - start) / step) < 2000:
        _exact(ranges, np.zeros(2))


@given(finite, finite, st.integers(0, 40), st.booleans())
def test_linspace_is_numpys_bit_for_bit(start, stop, num, endpoint):
    def spaced(x):
        return (
            np.linspace(start, stop, num, endpoint=endpoint),
            np.linspace(start, stop, num, endpoint=endpoint, dtype=np.int64),
        )

    _exact(spaced, np.zeros(2))


def zero_step(x):
    return np.arange(0, x.shape[0], 0)


def nan_stop(x):
    return np.arange(0, np.nan)


def negative_num(x):
    return np.linspace(0, 1, -1) + x[0]


def negative_eye(x):
    return np.eye(-1) + x[0]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, error",
    [
        (zero_step, ZeroDivisionError),
        (nan_stop, ValueError),
        (negative_num, ValueError),
        (negative_eye, ValueError),
    ],
)
def test_numpy_errors(fn, error, backend):
    with pytest.raises(error) as expected:
        fn(np.zeros(3))
    with pytest.raises(error, match=str(expected.value)):
        astcompile.compile(fn, backend=backend)(np.zeros(3))


def test_iota_fuses_into_its_consumer(tmp_path):
    """``np.arange(n) * 2.0 + x`` and ``np.triu(m)``: one kernel each that reads the loop
    indices, no index array or mask in memory."""
    from c_helpers import compile_c

    from astcompile.trace.numpy_construct import arange  # what region bodies call for np.arange

    x, m = np.random.default_rng(3).random(9), np.random.default_rng(4).random((4, 6))
    _, compiled = compile_c(lambda x: arange(x.shape[0]) * 2.0 + x, [x], str(tmp_path))
    assert compiled.c_source.count("static void") == 1 and "(int64_t)i0" in compiled.c_source
    assert_same_value(compiled([x])[0], np.arange(9) * 2.0 + x)
    _, compiled = compile_c(lambda m: np.triu(m, 1), [m], str(tmp_path))
    assert compiled.c_source.count("static void") == 1 and "(int64_t)i1" in compiled.c_source
    assert_same_value(compiled([m])[0], np.triu(m, 1))


def counted_up(k):
    a = np.zeros(k)
    for i in range(a.size):
        a[i] = i + 1
    return a


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_bool_or_float_size_raises_as_in_numpy(backend):
    """``np.zeros(True)`` raises in NumPy (True is no size) although True == 1, the size of
    the call before; so do a float size and a bool inside a shape (trace/numpy_fill.py)."""
    calls = [(1,), (True,), (2,), (2.0,), (np.float64(3),), ((1, False),), ((2, 1),)]
    assert_same_calls(counted_up, calls, backend=backend)
