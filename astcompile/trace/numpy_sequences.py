"""Python tuples and lists met by NumPy: operands (``x + (1, 2, 3)``, ``np.maximum(x, [0, 0,
1])``) and values stored into arrays (``force[0] = 0, 0``, ``a[:, 0] = (x, y)``).

NumPy turns such a sequence into an array first: an operand with NumPy's dtype discovery
(``np.asarray``: strong, so ``int8_array + (1, 2, 3)`` is int64), a stored value with the
target's dtype, item by item, with the checks of an element store (``a_int8[0] = (300, 1)``
raises OverflowError). The tracer does the same, but never leaves a small sequence as an array
constant in the graph, which the C backend's loop regions do not take: its elements become a
*table*, ``where(k == 0, c0, where(k == 1, c1, c2))`` over the element index ``k`` (an IOTA),
elementwise code that fuses into its consumer on every backend. Longer sequences of constants
stay NumPy constants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.ir.ops import Op
from astcompile.trace import handlers, literals
from astcompile.trace import nodes as B
from astcompile.trace.numpy_construct import iota
from astcompile.trace.numpy_fill import new_array
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, apply_elementwise, operand, wrap

#: Sequences of up to this many elements become tables; longer ones stay array constants.
TABLE_LIMIT = 16

_TRACED = (SymArray, SymScalar, SymInt)


def _element_index(shape: tuple[int, ...]) -> SymArray:
    """Each element's flat (C-order) index, for an array of the constant ``shape``."""
    index = None
    for axis in range(len(shape)):
        along = iota(shape, axis)
        stride = int(np.prod(shape[axis + 1 :], dtype=np.int64))
        along = along * stride if stride != 1 else along
        index = along if index is None else index + along
    return index


def _table(leaves: list[Any], shape: tuple[int, ...], dtype: np.dtype) -> SymArray:
    """An array of ``shape`` whose elements are ``leaves`` (strong scalars of ``dtype``)."""
    last = leaves[-1]
    if all(_same(leaf, last) for leaf in leaves):
        return wrap(B.broadcast_to(operand(last).node, shape))
    index = _element_index(shape)
    table = last
    for k in range(len(leaves) - 2, -1, -1):
        if not _same(leaves[k], last):
            table = apply_elementwise(Op.WHERE, index == k, leaves[k], table)
    return table


def _same(a: Any, b: Any) -> bool:
    """Whether two table entries are the same constant (bitwise: NaN and -0.0 kept apart)."""
    return isinstance(a, np.generic) and isinstance(b, np.generic) and a.tobytes() == b.tobytes()


def _constant(array: np.ndarray) -> Any:
    """A constant array: a table when it is small, else NumPy's constant."""
    if array.size == 0 or array.size > TABLE_LIMIT or array.ndim == 0:
        return array
    B.check_dtype(array.dtype)
    return _table(list(array.reshape(-1)), tuple(int(d) for d in array.shape), array.dtype)


def _holds_traced(obj: Any) -> bool:
    if isinstance(obj, (list, tuple)):
        return any(_holds_traced(item) for item in obj)
    return isinstance(obj, _TRACED)


def _strong(leaf: Any, dtype: np.dtype) -> Any:
    """A leaf as a strong scalar of ``dtype`` (the literal's element)."""
    if isinstance(leaf, _TRACED):
        node = operand(leaf).node
        return wrap(B.cast(operand(leaf), dtype), is_scalar=True) if node.dtype != dtype else leaf
    return np.asarray(leaf).astype(dtype)[()]


@handlers.register
def as_operand(sequence: list | tuple) -> Any:
    """What NumPy computes with in place of ``sequence``: ``np.asarray(sequence)``."""
    if not _holds_traced(sequence):
        return _constant(np.asarray(sequence))
    leaves: list[tuple[tuple[int, ...], Any]] = []
    shape = literals.walk(sequence, (), leaves)
    scalars = all(literals.shape_of(leaf) == () for _, leaf in leaves)
    if not scalars or not leaves or len(leaves) > TABLE_LIMIT:
        return literals.array(sequence)
    dtype = B.check_dtype(literals.dtype_of(leaves, None))
    return _table([_strong(leaf, dtype) for _, leaf in leaves], shape, dtype)


def stored(sequence: list | tuple, dtype: np.dtype) -> Any:
    """The value ``array[key] = sequence`` stores into an array of ``dtype``: converted to
    ``dtype`` item by item, as NumPy's assignment does (with its errors)."""
    if not _holds_traced(sequence):
        return _constant(np.asarray(sequence, dtype=dtype))

    leaves: list[tuple[tuple[int, ...], Any]] = []
    outer = literals.walk(sequence, (), leaves)
    inner = {literals.shape_of(leaf) for _, leaf in leaves}
    if len(inner) != 1:
        return literals.array(sequence)  # NumPy's own error, or a break for a ragged nesting
    value = new_array((*outer, *inner.pop()), dtype, 0)
    for index, leaf in leaves:
        value[index] = leaf  # an element store: NumPy's checks on each item
    return value
