"""NumPy dtypes as C types and literals."""

from __future__ import annotations

import math

import numpy as np

from astcompile.lower.operands import as_integer

#: dtype -> C type of one element. Bools are bytes holding 0 or 1, as in NumPy.
C_TYPES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "uint8_t",
    np.dtype(np.int8): "int8_t",
    np.dtype(np.int16): "int16_t",
    np.dtype(np.int32): "int32_t",
    np.dtype(np.int64): "int64_t",
    np.dtype(np.uint8): "uint8_t",
    np.dtype(np.uint16): "uint16_t",
    np.dtype(np.uint32): "uint32_t",
    np.dtype(np.uint64): "uint64_t",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "float complex",  # <complex.h>: interleaved parts, NumPy's layout
    np.dtype(np.complex128): "double complex",
}


def supported_dtype(dtype: np.dtype) -> bool:
    return dtype in C_TYPES


def ctype(dtype: np.dtype) -> str:
    return C_TYPES[np.dtype(dtype)]


def _complex_of(dtype: np.dtype, re: str, im: str) -> str:
    return f"{'ASTC_CMPLXF' if dtype == np.complex64 else 'ASTC_CMPLX'}({re}, {im})"


def literal(value, dtype: np.dtype) -> str:
    """A C literal for ``value`` converted to ``dtype`` (NaN and inf spelled as macros; a NaN
    keeps its sign, which ``np.copysign(x, -np.nan)`` reads)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        part = real_dtype(dtype)
        z = complex(dtype.type(value))
        return _complex_of(dtype, literal(z.real, part), literal(z.imag, part))
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind == "f":
        v = float(dtype.type(value))
        if math.isnan(v):
            text = "(-NAN)" if math.copysign(1.0, v) < 0 else "NAN"
        elif math.isinf(v):
            text = "INFINITY" if v > 0 else "(-INFINITY)"
        else:
            text = repr(v)
        return f"(({ctype(dtype)}){text})"
    v = as_integer(value, dtype)
    if dtype == np.int64 and v == -(2**63):
        return "INT64_MIN"
    suffix = "ULL" if dtype.kind == "u" else "LL"
    return f"(({ctype(dtype)}){v}{suffix})"


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of one part of a complex dtype (complex64 -> float32)."""
    return np.dtype(np.dtype(dtype).char.lower())


def scalar_params(name: str, dtype: np.dtype) -> list[tuple[str, str]]:
    """(C type, name) of the parameters passing a scalar by value: a complex scalar goes as
    its two parts (cffi's ABI mode cannot pass C99 complex values)."""
    dtype = np.dtype(dtype)
    if dtype.kind != "c":
        return [(ctype(dtype), name)]
    part = ctype(real_dtype(dtype))
    return [(part, f"{name}_re"), (part, f"{name}_im")]


def scalar_value(name: str, dtype: np.dtype) -> str:
    """C for the scalar passed as ``scalar_params(name, dtype)``."""
    if np.dtype(dtype).kind != "c":
        return name
    return _complex_of(np.dtype(dtype), f"{name}_re", f"{name}_im")


def scalar_args(expr: str, dtype: np.dtype) -> list[str]:
    """Python for the arguments of ``scalar_params``: ``expr`` is the scalar's value."""
    if np.dtype(dtype).kind == "c":
        return [f"{expr}.real", f"{expr}.imag"]
    return [f"int({expr})" if np.dtype(dtype).kind == "b" else expr]
