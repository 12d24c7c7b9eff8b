"""Python ``complex`` scalars in compiled loops (trace/pycomplex.py) against plain Python:
``complex(a, b)``, ``.real``/``.imag``, ``abs``, ``cmath.exp``/``sqrt``/``phase``, ``/`` and
``**`` with CPython's own algorithms and errors, results as Python ``complex``. Programs are
written as Numba and Pythran users write them; on backend "c" each must run as generated C
(``assert_runs_in_c``). Special values are compared bit for bit (``same_bits``): the
differential helper's tolerance would hide the last-bit difference between CPython's and
NumPy's complex division."""

from __future__ import annotations

import cmath
import math

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same_calls
from test_complex import check

import astcompile
from bench.programs.dft_cmath import dft_cmath as dft
from bench.programs.mandelbrot_complex import mandelbrot_complex
from bench.programs.newton_fractal import newton_fractal
from bench.programs.quadratic_roots import quadratic_roots

_PARTS = [0.0, -0.0, 1.5, -2.0, 1e-310, 1e308, np.inf, -np.inf, np.nan]
GRID = np.array([complex(r, i) for r in _PARTS for i in _PARTS])
A, B = np.repeat(GRID, GRID.size), np.tile(GRID, GRID.size)
NONZERO = B != 0


def same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    """Equal as bits, part by part (NaN equals NaN; -0.0 is not 0.0)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    for name in ("real", "imag"):
        g, e = getattr(got, name), getattr(expected, name)
        bad = ~((g == e) & (np.signbit(g) == np.signbit(e)) | (np.isnan(g) & np.isnan(e)))
        assert not bad.any(), (name, got[bad][:5], expected[bad][:5])


# -- the programs ------------------------------------------------------------------------------


def goertzel(samples, freq, rate):
    s = 0j
    for i, v in enumerate(samples):
        t = 2.0 * math.pi * freq * i / rate
        s += v * complex(math.cos(t), -math.sin(t))
    return abs(s), s, s.real, s.conjugate()


def horner(coeffs, zs):
    out = np.empty(zs.shape[0], dtype=np.complex128)
    for i in range(zs.shape[0]):
        z = complex(zs[i])
        acc = 0j
        for c in coeffs:
            acc = acc * z + c
        out[i] = acc
    return out


def impedance(freqs, R, L, C):
    n = freqs.shape[0]
    mag = np.empty(n)
    ph = np.empty(n)
    for i in range(n):
        w = 2 * math.pi * float(freqs[i])
        z = R + 1j * w * L + 1 / (1j * w * C)
        mag[i] = abs(z)
        ph[i] = cmath.phase(z)
        r, phi = cmath.polar(z / 1000.0)
        mag[i] += r + phi
    return mag, ph


def phasor_of_running_sum(x):
    """``s`` starts a Python float and is a NumPy float64 once a branch adds to it (a union,
    trace/unions.py): ``complex(x[i], s)`` takes the same value either way."""
    s = 0.0
    total = 0j
    for i in range(x.shape[0]):
        total = total + complex(x[i], s)
        if x[i] > 0.5:
            s += x[i]
    return total, s


_rng = np.random.default_rng(7)
PROGRAMS = [
    (mandelbrot_complex, lambda: (12, 9, 25)),
    (dft, lambda: (_rng.standard_normal(16),)),
    (goertzel, lambda: ([float(v) for v in _rng.standard_normal(40)], 50.0, 1000.0)),
    (newton_fractal, lambda: (np.linspace(-1.5, 1.5, 7), np.linspace(-1.5, 1.5, 6), 30)),
    (horner, lambda: ([1 + 2j, -0.5j, 3.0, 0.25 - 1j], np.exp(0.7j * np.arange(9.0)))),
    (quadratic_roots, lambda: tuple(_rng.standard_normal((3, 12)))),
    (impedance, lambda: (np.linspace(10.0, 1000.0, 12), 50.0, 1e-3, 1e-6)),
    (phasor_of_running_sum, lambda: (_rng.random(20),)),
    (phasor_of_running_sum, lambda: (np.array([0.1, 0.2]),)),  # s stays the Python 0.0
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_python_complex_programs_match_python(caplog, fn, make_args, backend):
    check(caplog, fn, *make_args(), backend=backend)


def test_results_are_python_complex_numbers():
    got = astcompile.compile(goertzel, backend="c")([0.5, 1.0, -2.0], 3.0, 10.0)
    assert [type(v) for v in got] == [float, complex, float, complex]


# -- CPython's algorithms, bit for bit ---------------------------------------------------------


def arithmetic(a, b):
    n = a.shape[0]
    quot, prod, absolute = np.empty(n, complex), np.empty(n, complex), np.empty(n)
    for i in range(n):
        x, y = complex(a[i].real, a[i].imag), complex(b[i].real, b[i].imag)
        quot[i] = x / y
        prod[i] = x * y - y
        absolute[i] = abs(x) if abs(x.real) < 1e300 else 0.0
    return quot, prod, absolute


@pytest.mark.parametrize("backend", BACKENDS)
def test_division_multiply_and_abs_are_cpythons(backend):
    a, b = A[NONZERO], B[NONZERO]
    quot, prod, absolute = astcompile.compile(arithmetic, backend=backend)(a, b)
    want = arithmetic(a, b)
    same_bits(quot, want[0])
    same_bits(prod, want[1])
    same_bits(absolute.astype(complex), want[2].astype(complex))


def division_by_reals(z, x):
    out = np.empty(z.shape[0], complex)
    for i in range(z.shape[0]):
        out[i] = complex(z[i]) / 3 + complex(z[i]) / float(x[i]) + 1 / complex(z[i])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_division_by_a_real_is_cpythons_not_a_reciprocal(backend):
    z = np.exp(0.1j * np.arange(1.0, 200.0)) * np.arange(1.0, 200.0)
    x = np.linspace(0.3, 7.0, z.size)
    same_bits(astcompile.compile(division_by_reals, backend=backend)(z, x), division_by_reals(z, x))


def cmath_functions(z):
    n = z.shape[0]
    e, r, p = np.empty(n, complex), np.empty(n, complex), np.empty(n)
    for i in range(n):
        w = complex(z[i])
        e[i] = cmath.exp(w) if abs(w.real) < 700.0 and math.isfinite(w.imag) else 0j
        r[i] = cmath.sqrt(w)
        p[i] = cmath.phase(w) if w.real < 1e300 else 0.0  # (1e308+1e-310j): OverflowError
    return e, r, p


@pytest.mark.parametrize("backend", BACKENDS)
def test_cmath_exp_sqrt_phase_of_special_values(backend):
    z = np.concatenate([GRID, [710.0 + 1j, 1e-320 + 2e-320j, -3 + 4j, 0.5 - 2.5j]])
    got = astcompile.compile(cmath_functions, backend=backend)(z)
    for g, e in zip(got, cmath_functions(z)):
        same_bits(g.astype(complex), e.astype(complex))


def powers(z, w):
    out = np.empty(z.shape[0], complex)
    for i in range(z.shape[0]):
        x = complex(z[i])
        out[i] = x**2 + x**3 - x**-2 + x**0 + x**5.0 + w * x**1
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_powers_are_cpythons_repeated_squaring(backend):
    z = np.array([1 + 1j, -2.5 + 0.5j, 3j, 0.5 - 1e-3j, -1, 1e-5 + 1e5j])
    same_bits(astcompile.compile(powers, backend=backend)(z, 0.5j), powers(z, 0.5j))


# -- Python's errors and types ---------------------------------------------------------------


def divide_into(out, a, b):
    for i in range(a.shape[0]):
        out[i] = complex(a[i]) / complex(b[i])
    return out


def exp_of(z):
    s = 0j
    for i in range(z.shape[0]):
        s += cmath.exp(complex(z[i]))
    return s


def power_of(z, k):
    s = 0j
    for i in range(z.shape[0]):
        s += complex(z[i]) ** -2 + abs(complex(z[i])) * k
    return s


def phase_of(z):
    s = 0.0
    for i in range(z.shape[0]):
        s += cmath.phase(complex(z[i]))
    return s


def polar_of(z):
    s = 0.0
    for i in range(z.shape[0]):
        r, phi = cmath.polar(complex(z[i]))
        s += r - phi
    return s


def compare(z):
    n = 0
    for i in range(z.shape[0]):
        if complex(z[i]) < 1:
            n += 1
    return n


def rounded(x):
    s = 0
    for i in range(x.shape[0]):
        s += round(complex(x[i], 0.0))
    return s


def stored_in_a_real_array(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = complex(x[i], 1.0)
    return out


_Z = np.array([1 + 1j, 2 - 1j, -3j])


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_errors_are_raised(backend):
    zero = np.array([1 + 1j, 0j, 2j])
    assert_same_calls(
        divide_into, [(np.zeros(3, complex), _Z, _Z), (np.zeros(3, complex), _Z, zero)], backend
    )
    big = np.array([1j, 800 + 1j, 0j])
    assert_same_calls(exp_of, [(_Z,), (big,), (np.array([complex(1, np.inf)]),)], backend)
    huge = np.array([1e308 + 1e308j])
    assert_same_calls(
        power_of, [(_Z, 1.0), (zero, 1.0), (huge, 0.0), (np.array([1e300j]), 1.0)], backend
    )
    assert_same_calls(phase_of, [(_Z,), (np.array([1e308 + 1e-310j]),)], backend)
    big = np.array([1e308 + 1e308j, 1e308 + 1e-310j])
    assert_same_calls(polar_of, [(_Z,), (big[1:],), (big,)], backend)
    assert_same_calls(compare, [(_Z,)], backend)
    assert_same_calls(rounded, [(np.array([0.5, 2.0]),)], backend)
    assert_same_calls(stored_in_a_real_array, [(np.array([0.5, 2.0]),)], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_before_a_zero_division_stay(backend):
    out = np.zeros(3, complex)
    with pytest.raises(ZeroDivisionError, match="complex division by zero"):
        astcompile.compile(divide_into, backend=backend)(out, _Z, np.array([1 + 1j, 2j, 0j]))
    assert out[0] == _Z[0] / (1 + 1j) and out[1] == _Z[1] / 2j and out[2] == 0


def mixed(z, c):
    s = 0j
    t = 0j
    for i in range(z.shape[0]):
        s = s + z[i] * c  # a NumPy complex: NumPy's rules, np.complex128
        t = t + complex(z[i]) / c
    return s, t


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_complex_mixed_with_python_complex_follows_numpy(caplog, backend, dtype):
    check(caplog, mixed, _Z.astype(dtype), 0.5 - 2j, backend=backend)


def complex_meets_float64(x):
    s = 0j
    for i in range(x.shape[0]):
        s = s * 1j + x[i]  # complex.__add__ takes the np.float64 (a float): Python's complex
    return s, 1j * x[0], (0.5 + 1j) / x[1], x[0] + 1j


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_python_complex_meeting_a_float64_scalar_stays_python(backend):
    """np.float64 subclasses float, so ``0j + x[i]`` and ``1j * x[0]`` are Python complex
    numbers (``x[0] + 1j`` is NumPy's); compiled they were np.complex128, and ``s ** x[i]``
    (a complex power of a float) was NumPy's where it must run as Python. Float32 and int
    elements are not floats: NumPy's complex scalars, both ways."""
    calls = [(np.array([1.5, -2.0, 0.25]),), (np.array([1.5, 0.0]),), (np.arange(3.0),)]
    calls += [(np.array([1.5, 2.0], np.float32),), (np.arange(1, 4),)]
    assert_same_calls(complex_meets_float64, calls, backend)
    compiled = astcompile.compile(complex_meets_float64, backend=backend)
    assert [type(v) for v in compiled(np.arange(1.0, 3.0))] == [complex] * 3 + [np.complex128]


def escape_time(c, maxiter):
    z = 0j
    for n in range(maxiter):
        if abs(z) > 2:
            return n
        z = z * z + c
    return maxiter


@pytest.mark.parametrize("backend", TRITON)
def test_triton_loop_carrying_a_python_complex(backend):
    """A Python complex carried by a host loop hands its real part, a Python float, to a
    kernel: Triton took it for an array (AttributeError: 'float' object has no 'dtype')."""
    assert_same_calls(escape_time, [(0.3 + 0.2j, 20), (-2 + 0j, 20), (1j, 5)], backend)
