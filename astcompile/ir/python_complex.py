"""Reference implementations of the ops on Python ``complex`` values (and of the ``math``
functions NumPy has no ufunc for), for the eager backend.

Python's complex arithmetic is complex128, but not always NumPy's: ``a / b`` is CPython's
``_Py_c_quot`` (Smith's algorithm dividing by the denominator, where NumPy multiplies by its
reciprocal, so the last bit may differ) and ``cmath`` has its own special-value rules. The eager
backend runs these ops with Python's own operators element by element, so it is exact by
construction; the C helpers (``runtime/include/astc_complex.h``) transcribe the same algorithms.
The errors Python raises (``ZeroDivisionError``, ``OverflowError``) are CHECK nodes of their own,
so these functions never raise: where Python would, they return a placeholder.
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from typing import Any

import numpy as np

_C128 = np.dtype(np.complex128)
_NAN = complex(float("nan"), float("nan"))


def _elementwise(fn: Callable[..., complex], *args: Any, dtype: np.dtype = _C128) -> Any:
    """``fn`` on Python numbers, over the broadcast arguments; a complex128 value or array."""
    arrays = np.broadcast_arrays(*(np.asarray(a) for a in args))
    out = np.empty(arrays[0].shape if arrays else (), dtype)
    for index in np.ndindex(out.shape):
        out[index] = fn(*(a[index].item() for a in arrays))
    return out[()] if out.ndim == 0 else out


def _quotient(a: complex, b: complex) -> complex:
    return complex(a) / complex(b) if b != 0 else _NAN


def _exp(z: complex) -> complex:
    try:
        return cmath.exp(complex(z))
    except ValueError:  # a CHECK before this op raises it
        return _NAN
    except OverflowError:  # the infinite parts, which a CHECK after this op turns into the error
        with np.errstate(all="ignore"):
            scale = np.exp(np.float64(z.real) - 1.0) * np.e
            return complex(scale * math.cos(z.imag), scale * math.sin(z.imag))


def _sqrt(z: complex) -> complex:
    return cmath.sqrt(complex(z))


def make_complex(real: Any, imag: Any) -> Any:
    """``complex(real, imag)`` of two floats: the parts as given (``complex(inf, nan)``)."""
    return _elementwise(complex, real, imag)


def product(a: Any, b: Any) -> Any:
    """``a * b`` on Python complex numbers: the textbook formula (``_Py_c_prod``), where
    NumPy's array loops recover some infinities as C99's Annex G does."""
    return _elementwise(lambda x, y: complex(x) * complex(y), a, b)


def quotient(a: Any, b: Any) -> Any:
    """``a / b`` on Python complex numbers (NaN parts where Python raises ZeroDivisionError)."""
    return _elementwise(_quotient, a, b)


def exp(z: Any) -> Any:
    """``cmath.exp``."""
    return _elementwise(_exp, z)


def sqrt(z: Any) -> Any:
    """``cmath.sqrt``."""
    return _elementwise(_sqrt, z)


def real_of(fn: Callable[[float], float]) -> Callable[[Any], Any]:
    """A ``math`` function NumPy has no ufunc for (``math.erf``), element by element: a float64
    value or array, as CPython computes it (C calls the same libm function)."""
    return lambda x: _elementwise(fn, x, dtype=np.dtype(np.float64))
