"""Complex arithmetic in generated C against NumPy: special values (inf, NaN, signed zeros),
strided and transposed arrays, 0-d and empty arrays, both precisions. Each function must run
as C (``assert_runs_in_c``): never a silent fallback to NumPy."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from differential import BACKENDS, assert_same_warnings
from test_complex import assert_runs_in_c

import astcompile

DTYPES = [np.complex64, np.complex128]
_PARTS = [0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan]
_GRID = np.array([complex(r, i) for r in _PARTS for i in _PARTS])
#: every pair of special values: a[k] op b[k]
SPECIAL_A, SPECIAL_B = np.repeat(_GRID, _GRID.size), np.tile(_GRID, _GRID.size)


def arithmetic(a, b):
    return a * b, a / b, abs(a), a + b, a - b, -a, np.conj(b), a * 2.5, a / 3


def predicates(a, b):
    return a == b, a != b, a < b, a <= b, a > b, a >= b, np.isnan(a), np.isinf(a), np.isfinite(a)


def exp_and_sqrt(a):
    return np.exp(a), np.sqrt(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [arithmetic, predicates])
def test_special_values_give_numpys_infs_and_nans(caplog, fn, dtype):
    assert_runs_in_c(caplog, fn, SPECIAL_A.astype(dtype), SPECIAL_B.astype(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_exp_and_sqrt_of_special_values(caplog, dtype):
    assert_runs_in_c(caplog, exp_and_sqrt, _GRID.astype(dtype))


def powers(z, w):
    return z**2, z**3, z**-2, z**0.5, z**2.5, z ** (1 + 1j), z**w, z**0


@pytest.mark.parametrize("dtype", DTYPES)
def test_powers_follow_numpys_special_cases(caplog, dtype):
    z = np.array([0, 1 + 1j, -2.5 + 0.5j, 3j, 0.5 - 1e-3j, -1]).astype(dtype)
    w = np.array([2, -1, 0.5 + 1j, 3, 0, 1.5]).astype(dtype)
    assert_runs_in_c(caplog, powers, z, w)


def power(z, w):
    return z**w


#: Zero raised to these: NaN with NumPy's invalid flag where the real part is not > 0 (its
#: ``nc_pow``), 1 for a zero exponent, 0 otherwise; and a base that is not zero, for contrast.
ZERO_BASE_POWERS = [(0, -1), (-0.0, -2.5), (0, 1j), (0, -1 + 1j), (0, np.nan), (0, 0), (0, 2 + 3j)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("z", "w"), [*ZERO_BASE_POWERS, (1.5 - 2j, -3)])
def test_powers_of_zero_warn_as_numpy_does(backend, dtype, z, w):
    assert_same_warnings(power, np.full(3, z, dtype), np.full(3, w, dtype), backend=backend)


def mixed(z, x, w):
    t = z[::2] * x[1::3] + w.T
    return t, (t / (x[1::3] + 1j)).sum(axis=0), z[::-2].real * w.T.imag, np.where(x[1::3] > 0, t, 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_and_transposed_complex_arrays(caplog, dtype):
    rng = np.random.default_rng(3)
    z = (rng.standard_normal((8, 5)) + 1j * rng.standard_normal((8, 5))).astype(dtype)
    w = (rng.standard_normal((5, 4)) - 2j).astype(dtype)
    x = np.linspace(-1.0, 1.0, 15)
    assert_runs_in_c(caplog, mixed, z, x, w)


def elementwise_and_sums(z, w):
    return z * w - 1j, (z / w).sum(), np.mean(z * w), np.prod(z), abs(z)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0)])
def test_0d_and_empty_complex_arrays(caplog, dtype, shape):
    z = np.full(shape, 1.5 - 0.5j, dtype)
    w = np.full(shape, -2 + 1j, dtype)
    assert_runs_in_c(caplog, elementwise_and_sums, z, w)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reductions_match_numpy(caplog, dtype):
    rng = np.random.default_rng(7)
    z = (rng.standard_normal((300, 70)) + 1j * rng.standard_normal((300, 70))).astype(dtype)

    def reduce_(z):
        return (
            z.sum(),
            z.sum(axis=0),
            z.mean(axis=1),
            (z[:4, :5] * 0.9).prod(axis=1),
            np.vdot(z[3], z[5]),
        )

    assert_runs_in_c(caplog, reduce_, z)


def test_kernels_call_no_annex_g_helpers(tmp_path, monkeypatch):
    """Multiply and divide use NumPy's formulas, inlined: no __muldc3/__divdc3 calls."""

    def muldiv(a, b):
        return a * b, a / b, (a * b).prod()

    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))
    compiled = astcompile.compile(muldiv, backend="c")
    compiled(SPECIAL_A, SPECIAL_B)
    libraries = list(tmp_path.rglob("*.so"))
    assert libraries
    for lib in libraries:
        symbols = subprocess.run(["nm", str(lib)], capture_output=True, text=True).stdout
        assert "__muldc3" not in symbols and "__divdc3" not in symbols, symbols


def narrowed_then_widened(a):
    return a.astype(np.complex64) + a, np.asarray(a, dtype=np.complex64) * 2


def test_a_complex128_narrowed_to_complex64_overflows_as_numpy(caplog):
    """GCC 12 drops a complex128 -> complex64 cast that a widening follows (``1e200j`` stayed
    ``1e200j``, NumPy's is ``infj``, and no overflow flag); found by the fuzzer."""
    a = np.array([1 + 1e200j, 1.0, 1e39 + 0j, -3e38 - 1e300j])
    assert_runs_in_c(caplog, narrowed_then_widened, a)


def ordered_with_itself(a):
    return a > a


def ordered_against_one(a):
    return a <= 1


def test_complex_order_with_nan_warns_as_numpy():
    """NumPy's complex ``<`` raises the invalid flag on a NaN real part (or imaginary part
    where the real parts are equal); GCC folded ``a > a`` and a quiet ``<=``, so the C region
    did not warn (found by the fuzzer)."""
    a = np.array([np.nan + 1j, 1.0, complex(1.0, np.nan), 2 + 0j])
    assert_same_warnings(ordered_with_itself, a, backend="c")
    assert_same_warnings(ordered_against_one, a[2:], backend="c")
