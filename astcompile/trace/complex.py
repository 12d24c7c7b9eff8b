"""Complex numbers in the tracer: ``z.real``/``z.imag`` views, ``np.angle``, ``np.real``/``np.imag``.

Arithmetic, ``abs``, ``np.conj``, ``np.exp``/``np.sqrt``, powers, comparisons and reductions on
complex arrays need nothing here: they are ufuncs and reductions whose dtypes NumPy itself
resolves (``abs(complex64)`` is float32, ``float64 + complex64`` is complex128). What is special
is that ``z.real`` and ``z.imag`` are *views* in NumPy (writing ``z.real[...] = 0`` changes ``z``),
so they are REAL/IMAG view nodes of ``z``, never copies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.ir.ops import Op
from astcompile.trace import handlers
from astcompile.trace.context import current
from astcompile.trace.symbolic import _sym_or_const, wrap


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.real(np.ones((), dtype)).dtype


def part(array: Any, op: Op) -> Any:
    """``array.real`` (op REAL) or ``array.imag`` (op IMAG) as a view of ``array``."""
    array = _sym_or_const(array)
    node = current().node(op, (array.node,), _real_dtype(array.dtype), array.node.shape)
    return wrap(node, is_scalar=array.is_scalar, base=array)


@handlers.register
def real(val: Any) -> Any:
    return part(val, Op.REAL)


@handlers.register
def imag(val: Any) -> Any:
    return part(val, Op.IMAG)


def angle(z: Any, deg: bool = False) -> Any:
    """``np.angle``: ``arctan2(z.imag, z.real)``, in degrees when asked (NumPy's own formula)."""
    result = np.arctan2(imag(z), real(z))
    return result * (180 / np.pi) if deg else result
