"""np.round, np.around and ``x.round``: compiled without a graph break on both backends, with
NumPy's bits (its own recipe: rint of a scaled value), dtypes and copies."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_value
from test_masks import assert_compiled_same

import astcompile

rng = np.random.default_rng(6)


def rounds(x):
    return (
        np.round(x),
        np.round(x, 2),
        np.around(x, -1),
        x.round(1),
        np.round(x[0], 3),
        np.round(x[:0], 2),
        np.round(x, decimals=-2),
    )


def round_in_loop(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = np.round(x[i] * 0.37, 1)
    return out


PROGRAMS = [
    (rounds, lambda: (rng.standard_normal(9) * 500,)),
    (rounds, lambda: ((rng.standard_normal(9) * 500).astype(np.float32),)),
    (rounds, lambda: (rng.integers(-900, 900, 9),)),
    (rounds, lambda: (rng.integers(-900, 900, 9).astype(np.int16),)),
    (rounds, lambda: (rng.integers(0, 255, 9).astype(np.uint8),)),
    (rounds, lambda: (np.array([0.125, 2.5, -0.5, 1.5, np.nan, np.inf, -0.0, 1e300, 0.05]),)),
    (round_in_loop, lambda: (rng.standard_normal(7) * 10,)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS)
def test_round_compiles_and_matches_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_round_gives_numpys_bits(backend):
    x = rng.standard_normal(1000) * 10.0 ** rng.integers(-3, 6, 1000)
    got = astcompile.compile(rounds, backend=backend)(x)
    for g, e in zip(got, rounds(x)):
        assert_same_value(g, e)
        assert np.asarray(g).tobytes() == np.asarray(e).tobytes()


def round_by(x, d):
    return np.round(x, d)


def round_bool(x):
    return np.round(x > 0)


def round_complex(x):
    return np.round(x * 1j, 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_decimals_passed_in_and_unsupported_dtypes(backend):
    x = rng.standard_normal(5) * 100
    assert_same_calls(round_by, [(x, 1), (x, 2), (x, -1), (x, 1)], backend=backend)
    for fn in (round_bool, round_complex):
        assert_same_calls(fn, [(x,)], backend=backend)
        output = astcompile.explain(astcompile.compile(fn, backend=backend), x)
        assert "np.round of" in output.break_reasons[0].detail


def rounded_with_another_result(a, b):
    return np.round(a), np.round(a, 1), np.round(a, -1), a.round(2), np.around(a, -1), b + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_zero_d_int_array_rounds_to_a_numpy_scalar(backend):
    """np.round of an int 0-d array is NumPy's scalar, as of a float one; compiled it was a
    0-d array copy, seen where the region returns another value too (found by the fuzzer)."""
    b = np.array([-1.0, 2.0])
    calls = [(np.array(15, np.int32), b), (np.array(2.567), b), (np.uint64(7), b)]
    assert_same_calls(rounded_with_another_result, calls, backend)
