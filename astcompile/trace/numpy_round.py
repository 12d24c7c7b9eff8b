"""Rounding to a number of decimals: np.round, np.around and ``x.round``.

NumPy's own recipe (``PyArray_Round``): ``decimals == 0`` is ``np.rint``; ``decimals > 0``
is ``rint(x * 10**d) / 10**d`` and ``decimals < 0`` is ``rint(x / 10**-d) * 10**-d``, in the
array's dtype (a Python float scale, weak, so float32 stays float32). Integers are copied for
``decimals >= 0`` and rounded in float64, then cast back, otherwise. So compiled results are
NumPy's bits (the C backend may not contract ``rint(x * f)``: rint is not an FMA operand).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.trace import numpy_join
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.numpy_fill import sym
from astcompile.trace.symbolic import SymArray, SymScalar


def _decimals(value: Any) -> int:
    if isinstance(value, SymScalar):
        value = value._specialize()  # a Python int passed in: guarded by value
    return operator.index(value)


def _copy(array: SymArray) -> SymArray:
    """NumPy's copy of an int array: a new NumPy scalar where it has no axes (a 0-d array
    too): each round is its own object, as NumPy's (``return np.round(a), a.round(2)``)."""
    if array.ndim:
        return np.copy(array)
    return np.positive(array if array.is_scalar else array[()])


def round_(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """``np.round(a, decimals)``."""
    if out is not None:
        raise unsupported("np.round with out=")
    array = numpy_join.as_array(a) if not isinstance(a, SymArray) else a
    kind = array.dtype.kind
    if kind not in "iuf":
        raise unsupported(f"np.round of {array.dtype} values")
    digits = _decimals(decimals)
    if kind in "iu" and digits >= 0:
        return _copy(array)
    if digits == 0:
        return np.rint(array)
    scale = 10.0 ** abs(digits)
    source = array.astype(np.float64) if kind in "iu" else array
    if digits > 0:
        rounded = np.rint(source * scale) / scale
    else:
        rounded = np.rint(source / scale) * scale
    return rounded.astype(array.dtype) if kind in "iu" else rounded


def _round_method(a: SymArray, decimals: Any = 0, out: Any = None) -> Any:
    return round_(sym(a), decimals, out)


FUNCTIONS: dict[Callable, Callable] = {np.round: round_, np.around: round_}

METHODS: dict[str, Callable] = {"round": _round_method}
