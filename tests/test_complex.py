"""complex64/complex128 against NumPy on both backends: promotion, abs/conj/real/imag/angle,
ufuncs, reductions, masks and loops with complex loop-carried values. On backend "c" every
program must run as generated C: no graph break, no region left to the eager interpreter and
no computation left to a NumPy step (``assert_runs_in_c``)."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls
from test_masks import escape_time  # the Mandelbrot set's escape-time loop

import astcompile
from bench.loop_kernels import escape_time as bench_escape_time
from bench.loop_kernels import lms_filter

Z64 = (np.arange(6) - 2.5 + 1j * np.arange(6)[::-1]).astype(np.complex64)
_FALLBACKS = ("runs eagerly", "NumPy step", "in NumPy")


def assert_runs_in_c(caplog, fn, *args):
    """NumPy's answer from backend "c", every region and every op of it compiled to C."""
    caplog.set_level(logging.INFO, logger="astcompile.graph_breaks")
    got = assert_same(fn, *args, backend="c")
    output = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert output.graph_break_count == 0, str(output)
    messages = [r.getMessage() for r in caplog.records]
    assert not [m for m in messages if any(f in m for f in _FALLBACKS)], messages
    return got


def check(caplog, fn, *args, backend):
    """``assert_same`` on the eager backend; ``assert_runs_in_c`` on "c"."""
    if backend == "c":
        return assert_runs_in_c(caplog, fn, *args)
    return assert_same(fn, *args, backend=backend)


def promotion(z64, x32, x64, n):
    return z64 + x32, x64 * z64, n - z64, z64 / 3, x32 * 1j, 2j * n, z64**2, z64 / x64


def parts(z):
    a = z * (1 - 2j)
    return abs(a), np.abs(a), np.conj(a), a.conj(), a.real, a.imag, np.angle(a), np.angle(a, True)


def ufuncs_and_reductions(z):
    return (
        np.exp(z),
        np.sqrt(z),
        z == z.conj(),
        z != 1j,
        z < z.conj(),
        z.sum(),
        z.mean(),
        z.prod(),
        np.vdot(z, z + 1),
        np.real(z) + np.imag(z),
    )


def adaptive_filter(x, d, k, mu):
    """Complex LMS: ``y = w^H x``, ``w += mu * conj(e) * x`` over a sliding window."""
    w = np.zeros(k, dtype=np.complex128)
    err = np.zeros(d.shape[0], dtype=np.complex128)
    for i in range(d.shape[0]):
        y = np.vdot(w, x[i : i + k])
        e = d[i] - y
        w += mu * e.conj() * x[i : i + k]
        err[i] = e
    return w, err


def carried_sum(z):
    s = 0j
    for i in range(z.shape[0]):
        s = s + z[i] * z[i].conj()
    return s


def overflowing_products(z, w):
    """NumPy's array loops fuse each part of a product into a multiply-add (on a CPU with
    FMA), its scalar operators and its prod do not, and prod folds in order from ``1+0j``:
    ``(-3e38-infj)**2`` is ``-inf+infj`` in an array, ``nan+infj`` as NumPy scalars, and
    ``np.prod([1e300+0j, 1e300+0j])`` is ``inf+0j``."""
    s = z[0]
    for i in range(1, z.shape[0]):
        s = s * z[i]
    return z * z, z * w, np.square(z), z.prod(), z[1:3].prod(), s, z[0] * z[0], z[1] * z[1]


#: products that overflow, and a pair whose real part is nonzero only when fused
_BIG = [complex(-3e38, -np.inf), complex(-1e200, -np.inf), 1e300, 1e300, 1 + 2**-30 + 1j]
_BIG = np.array(_BIG + [1 - 2**-30 + 1j, complex(np.inf, 0), 1 + 2**-13 + 1j, 1 - 2**-13 + 1j])
_g = np.linspace(-2.0, 1.0, 9)
_rng = np.random.default_rng(5)
_x = _rng.standard_normal(80) + 1j * _rng.standard_normal(80)
_d = np.convolve(_x, _rng.standard_normal(4) + 1j * _rng.standard_normal(4))[:80]
PROGRAMS = [
    (promotion, lambda: (Z64, np.arange(6, dtype=np.float32), np.linspace(0, 1, 6), 3)),
    (parts, lambda: (Z64,)),
    (ufuncs_and_reductions, lambda: (Z64.astype(np.complex128),)),
    (ufuncs_and_reductions, lambda: (Z64,)),
    (
        adaptive_filter,
        lambda: (np.exp(0.3j * np.arange(30.0)), np.exp(0.3j * np.arange(25.0)), 4, 0.1),
    ),
    (escape_time, lambda: (np.zeros((9, 9), complex), _g[:, None] * 1j + _g, 12)),
    (carried_sum, lambda: (Z64.astype(np.complex128),)),
    (carried_sum, lambda: (Z64,)),
    (bench_escape_time, lambda: (_g[:, None] * 1j + _g, 15)),
    (bench_escape_time, lambda: ((_g[:, None] * 1j + _g).astype(np.complex64), 15)),
    (lms_filter, lambda: (_x, _d, 0.05, 4)),
    (lms_filter, lambda: (_x.astype(np.complex64), _d.astype(np.complex64), 0.05, 4)),
    (overflowing_products, lambda: (_BIG, _BIG[::-1].copy())),
    (overflowing_products, lambda: (_BIG.astype(np.complex64), _BIG[::-1].astype(np.complex64))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, make_args", PROGRAMS, ids=[f"{p[0].__name__}{k}" for k, p in enumerate(PROGRAMS)]
)
def test_complex_programs_match_numpy(caplog, fn, make_args, backend):
    check(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize(
    "fn, make_args", PROGRAMS, ids=[f"{p[0].__name__}{k}" for k, p in enumerate(PROGRAMS)]
)
def test_complex_programs_trace_without_graph_breaks(fn, make_args):
    assert astcompile.explain(fn, *make_args()).graph_break_count == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_real_and_imag_are_views_of_the_complex_array(backend):
    def halves(z):
        return z.real, z.imag

    z = Z64.copy()
    re, im = astcompile.compile(halves, backend=backend)(z)
    assert re.dtype == np.float32
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


def write_parts(z, w):
    z.real[1:] = w.imag[:-1]
    z.imag[::2] *= -2
    for i in range(z.shape[0]):
        w.imag[i] = z[i].real + w[i].imag
    return z, w


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_stores_through_real_and_imag_views_change_the_complex_array(caplog, backend, dtype):
    z, w = Z64.astype(dtype), (Z64[::-1] * 1j).astype(dtype)
    check(caplog, write_parts, z, w, backend=backend)


def scale_by(z, alpha):
    s = 0j
    for i in range(z.shape[0]):
        s = s + alpha * z[i]
    return z * alpha - 1j, s


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("alpha", [0.5 - 2j, 3j, 2.0])
def test_python_complex_scalars_are_arguments(caplog, backend, alpha):
    check(caplog, scale_by, Z64.astype(np.complex128), alpha, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_complex_scalar_value_is_not_a_cached_constant(backend):
    compiled = astcompile.compile(scale_by, backend=backend)
    z = Z64.astype(np.complex128)
    for alpha in (0.5 - 2j, 3j, -1 + 0j):
        got, s = compiled(z, alpha)
        np.testing.assert_allclose(got, z * alpha - 1j, rtol=1e-12)
        assert type(s) is np.complex128


def python_complex_times_elements(x, z):
    acc, turned, same = z, 0j, []
    for v in x:
        acc = acc * z + v
        turned = turned + 1j * v - v / (2 - 1j)
        same.append(z == v)
    return acc, turned, acc * x[0], x[0] * acc, same, acc != x[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_python_complex_with_a_float64_element_is_a_python_complex(backend):
    """np.float64 subclasses float, so Python's complex takes it as a float: ``1j * v`` and
    ``z + v`` of elements of a float64 array are Python complex numbers, ``z == v`` a Python
    bool (they were np.complex128, np.bool_ in a compiled loop); ``v * z`` is NumPy's."""
    x = np.array([0.5, -0.0, 3.0, np.inf])
    assert_same_calls(
        python_complex_times_elements,
        [(x, 1 + 2j), (x[:3], 0.5j), (x[:2], -1.0 + 0j)],
        backend=backend,
    )
