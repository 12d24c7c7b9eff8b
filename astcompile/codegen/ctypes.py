"""NumPy dtypes as C types and literals."""

from __future__ import annotations

import math

import numpy as np

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
}


def supported_dtype(dtype: np.dtype) -> bool:
    return dtype in C_TYPES


def ctype(dtype: np.dtype) -> str:
    return C_TYPES[np.dtype(dtype)]


def literal(value, dtype: np.dtype) -> str:
    """A C literal for ``value`` converted to ``dtype`` (NaN and inf spelled as macros)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind == "f":
        v = float(dtype.type(value))
        if math.isnan(v):
            text = "NAN"
        elif math.isinf(v):
            text = "INFINITY" if v > 0 else "(-INFINITY)"
        else:
            text = repr(v)
        return f"(({ctype(dtype)}){text})"
    v = int(dtype.type(value))
    if dtype == np.int64 and v == -(2**63):
        return "INT64_MIN"
    suffix = "ULL" if dtype.kind == "u" else "LL"
    return f"(({ctype(dtype)}){v}{suffix})"


def scalar_param_dtype(dtype: np.dtype) -> np.dtype:
    """The C parameter type of a scalar input of ``dtype``."""
    return np.dtype(dtype)
