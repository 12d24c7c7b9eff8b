"""complex64/complex128 against NumPy on both backends (the C backend runs complex regions in
NumPy, the eager interpreter, for now): promotion, abs/conj/real/imag/angle, ufuncs, reductions,
masks and loops with complex loop-carried values."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from differential import assert_same
from test_masks import escape_time  # the Mandelbrot set's escape-time loop

BACKENDS = ["eager", "c"]
Z64 = (np.arange(6) - 2.5 + 1j * np.arange(6)[::-1]).astype(np.complex64)


def promotion(z64, x32, x64, n):
    return z64 + x32, x64 * z64, n - z64, z64 / 3, x32 * 1j, 2j * n, z64 ** 2, z64 / x64


def parts(z):
    a = z * (1 - 2j)
    return abs(a), np.abs(a), np.conj(a), a.conj(), a.real, a.imag, np.angle(a), np.angle(a, True)


def ufuncs_and_reductions(z):
    return (np.exp(z), np.sqrt(z), z == z.conj(), z != 1j, z < z.conj(), z.sum(), z.mean(),
            z.prod(), np.vdot(z, z + 1), np.real(z) + np.imag(z))


def adaptive_filter(x, d, k, mu):
    """Complex LMS: ``y = w^H x``, ``w += mu * conj(e) * x`` over a sliding window."""
    w = np.zeros(k, dtype=np.complex128)
    err = np.zeros(d.shape[0], dtype=np.complex128)
    for i in range(d.shape[0]):
        y = np.vdot(w, x[i:i + k])
        e = d[i] - y
        w += mu * e.conj() * x[i:i + k]
        err[i] = e
    return w, err


def carried_sum(z):
    s = 0j
    for i in range(z.shape[0]):
        s = s + z[i] * z[i].conj()
    return s


_g = np.linspace(-2.0, 1.0, 9)
PROGRAMS = [
    (promotion, lambda: (Z64, np.arange(6, dtype=np.float32), np.linspace(0, 1, 6), 3)),
    (parts, lambda: (Z64,)),
    (ufuncs_and_reductions, lambda: (Z64.astype(np.complex128),)),
    (ufuncs_and_reductions, lambda: (Z64,)),
    (adaptive_filter, lambda: (np.exp(0.3j * np.arange(30.0)), np.exp(0.3j * np.arange(25.0)),
                               4, 0.1)),
    (escape_time, lambda: (np.zeros((9, 9), complex), _g[:, None] * 1j + _g, 12)),
    (carried_sum, lambda: (Z64.astype(np.complex128),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS,
                         ids=[f"{p[0].__name__}{k}" for k, p in enumerate(PROGRAMS)])
def test_complex_programs_match_numpy(fn, make_args, backend):
    assert_same(fn, *make_args(), backend=backend)


@pytest.mark.parametrize("fn, make_args", PROGRAMS,
                         ids=[f"{p[0].__name__}{k}" for k, p in enumerate(PROGRAMS)])
def test_complex_programs_trace_without_graph_breaks(fn, make_args):
    assert astcompile.explain(fn, *make_args()).graph_break_count == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_real_and_imag_are_views_of_the_complex_array(backend):
    def halves(z):
        return z.real, z.imag

    z = Z64.copy()
    re, im = astcompile.compile(halves, backend=backend)(z)
    assert np.shares_memory(re, z) and np.shares_memory(im, z)
    re[0] = 100
    assert z[0].real == 100


@pytest.mark.parametrize("backend", BACKENDS)
def test_storing_complex_into_a_real_array_runs_in_numpy(backend):
    def store(x, z):
        x[:] = z
        return x

    with pytest.warns(np.exceptions.ComplexWarning):
        assert_same(store, np.zeros(6), Z64, backend=backend)
