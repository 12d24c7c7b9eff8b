"""np.flip/fliplr/flipud (views) and np.linalg.norm, compiled, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_matches

import astcompile


def norms_and_flips(X, v, z):
    return (
        X / np.linalg.norm(X, axis=1, keepdims=True),
        np.linalg.norm(v),
        np.linalg.norm(X),
        np.linalg.norm(v, 1),
        np.linalg.norm(v, np.inf),
        np.linalg.norm(v, -np.inf),
        np.linalg.norm(v, 0),
        np.linalg.norm(z),
        np.linalg.norm(X, axis=0),
        np.linalg.norm(X, "fro"),
        np.linalg.norm(np.arange(5)),
        np.flip(v),
        np.flip(X, 0),
        np.fliplr(X),
        np.flipud(X),
        np.flip(X),
    )


def write_through_flip(x):
    r = np.flip(x)
    r[0] = -1.0  # a view: NumPy writes into x's last element
    return x


@pytest.mark.parametrize("backend", BACKENDS)
def test_norms_and_flips_match_numpy(backend):
    rng = np.random.default_rng(0)
    X, v = rng.random((6, 4)), rng.standard_normal(7)
    z = v + 1j * v[::-1]
    output = astcompile.explain(astcompile.compile(norms_and_flips, backend=backend), X, v, z)
    assert output.graph_break_count == 0, output
    for got, want in zip(output.out, norms_and_flips(X, v, z), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-13)
        assert np.asarray(got).dtype == np.asarray(want).dtype and np.shape(got) == np.shape(want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_flip_is_a_view_like_numpy(backend):
    x, want = np.arange(5.0), write_through_flip(np.arange(5.0))
    np.testing.assert_array_equal(astcompile.compile(write_through_flip, backend=backend)(x), want)
    np.testing.assert_array_equal(x, want)


def test_norm_options_numpy_has_and_we_do_not_model_run_in_numpy():
    def nuclear(X):
        return np.linalg.norm(X, "nuc")

    X = np.random.default_rng(1).random((4, 4))
    output = astcompile.explain(astcompile.compile(nuclear, backend="c"), X)
    assert output.graph_break_count == 1
    assert_matches(output.out, nuclear(X))
