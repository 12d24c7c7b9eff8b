"""Symbolic values that stand in for arrays, scalars and sizes while a region is traced.

This module holds ``SymArray`` and the helpers that turn any value into an op's operand;
the Python numbers (``SymScalar``, ``SymInt``) live in ``sym_numbers.py`` and are re-exported
here.

The region's body is ordinary Python run once with these values: operators, ufuncs
(``__array_ufunc__``), NumPy functions (``__array_function__``), indexing and methods each
append a node. Anything that needs a concrete value breaks the trace: ``bool(array)`` is
data-dependent control flow; ``int(n)`` on a size or Python scalar specialises it (a guard).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace import handlers
from astcompile.trace import memory_order as order
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason
from astcompile.trace.sym_numbers import SymInt, SymScalar

#: Arrays up to this length may be unpacked while tracing (``a, b = row``).
ITER_LIMIT = 8

_BINARY_OPS: dict[str, Op] = {
    "add": Op.ADD,
    "sub": Op.SUB,
    "mul": Op.MUL,
    "truediv": Op.TRUEDIV,
    "floordiv": Op.FLOORDIV,
    "mod": Op.MOD,
    "pow": Op.POW,
    "and": Op.BITWISE_AND,
    "or": Op.BITWISE_OR,
    "xor": Op.BITWISE_XOR,
    "lshift": Op.LSHIFT,
    "rshift": Op.RSHIFT,
}
COMPARE_OPS: dict[str, Op] = {
    "eq": Op.EQ,
    "ne": Op.NE,
    "lt": Op.LT,
    "le": Op.LE,
    "gt": Op.GT,
    "ge": Op.GE,
}


def operand(value: Any) -> B.Operand:
    """Any value an op may meet, as an :class:`~astcompile.trace.nodes.Operand`."""
    if isinstance(value, SymArray):
        if value.python is not None:
            raise handlers.broken("this use")
        example = value.node.dtype.type(1) if value.is_scalar else np.ones((), value.node.dtype)
        return B.Operand(value.node, False, example)
    if isinstance(value, SymScalar):
        return B.Operand(value.node, True, value.hint)
    if isinstance(value, SymInt):
        return B.Operand(value.as_node(), True, value.hint)
    if hasattr(type(value), "not_none"):  # None or a number (trace/optionals.py)
        return operand(value.not_none())
    if hasattr(type(value), "as_array"):  # a typed list (trace/lists.py): NumPy's array of it
        return operand(value.as_array())
    if isinstance(value, (list, tuple)):
        return operand(handlers.as_operand(value))  # np.asarray(value), as NumPy computes with it
    return B.const_operand(value)


def wrap(node: Node, is_scalar: bool = False, base: SymArray | None = None) -> SymArray:
    result = SymArray(node, is_scalar)
    if base is not None:
        result.view_of = base
        base.has_views = True
        result.ranks = order.of_view(node, base)
        if node.op is Op.INDEX and not node.shape and not is_scalar:  # x[1, ...]
            mark_element_view(result)
    return result


def viewed(array: SymArray) -> SymArray:
    """What a view of ``array`` views: a NumPy scalar's (``s[None]``, ``s.reshape(1)``,
    ``np.broadcast_to(s, n)``) is a fresh array NumPy makes of it at each view, so two views
    of one scalar share no byte; an array's is the array itself."""
    if not array.is_scalar:
        return array
    return wrap(current().node(Op.COPY, (array.node,), array.dtype, array.node.shape))


def mark_element_view(view: SymArray) -> None:
    """A 0-d view of one element (``x[1, ...]``) and every array under it: the backends read
    such a view where it is made, as they read ``x[1]`` (a copy), so a store into it or into
    its arrays runs as written (trace/indexing.py)."""
    while view is not None:
        view.element_views = True
        view = view.view_of


def apply_elementwise(
    op: Op, *values: Any, numpy_fn: Callable | None = None, ufunc: bool = False
) -> SymArray:
    """``op`` on any operands; ``ufunc``: called as a NumPy ufunc (whose result is a NumPy
    value even of Python numbers), not as a Python operator."""
    if any(isinstance(v, SymArray) and v.python is not None for v in values):
        return handlers.elementwise(op, values, numpy_fn, ufunc)
    operands = [operand(v) for v in values]
    all_zero_d = all(o.node.ndim == 0 for o in operands)
    return in_numpy_order(
        values,
        operands,
        lambda ops: B.elementwise(op, ops, numpy_fn, ufunc),
        is_scalar=all_zero_d and op not in (Op.WHERE,),
    )


def in_numpy_order(
    values: Sequence, operands: list[B.Operand], make: Callable, is_scalar: bool = False
) -> SymArray:
    """``make(operands)``'s new array, laid out as NumPy lays out its result from ``values``
    (``order='K'``): computed on the operands transposed into that order and handed back as
    the transpose of that (trace/memory_order.py)."""
    shape = S.broadcast_shapes(current().env, *(o.node.shape for o in operands))
    perm = order.result_order(values, shape)
    if perm is not None:
        operands = [replace(o, node=order.to_order(o.node, shape, perm)) for o in operands]
    result = wrap(make(operands), is_scalar=is_scalar)
    if perm is None:
        return result
    return wrap(B.transpose(result.node, order.inverse(perm)), base=result)


def matmul(op: Op, a: Any, b: Any) -> SymArray:
    """``a @ b`` / ``np.dot``: two vectors give a NumPy scalar, as in NumPy."""
    node = B.matmul(op, operand(a), operand(b))
    return wrap(node, is_scalar=node.ndim == 0)


def _sym_or_const(value: Any) -> SymArray:
    """A SymArray for any operand (a constant becomes a CONST node)."""
    return (
        value
        if isinstance(value, SymArray)
        else wrap(operand(value).node, is_scalar=np.ndim(value) == 0)
    )


def _binary(name: str, op: Op, reflected: bool = False) -> Callable:
    def method(self: Any, other: Any) -> Any:
        if not is_operand(other):
            return NotImplemented
        if reflected and type(other) is complex and op in COMPLEX_TAKES_FLOAT:
            as_float = python_float(self)
            if as_float is not None:  # ``1j * v``: Python's complex.__mul__ took v
                return getattr(operator, name)(other, as_float)
        a, b = (other, self) if reflected else (self, other)
        return apply_elementwise(op, a, b)

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


#: What a Python complex computes with a float itself (``//`` and ``%`` it leaves to NumPy).
COMPLEX_TAKES_FLOAT = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.TRUEDIV, Op.POW})


def python_float(value: Any) -> Any:
    """A float64 NumPy scalar as the Python float a Python complex takes it for (np.float64
    subclasses float: ``z * v`` of an element ``v`` of a float64 array is a Python complex, not
    np.complex128); None for any other value."""
    if type(value) is np.float64:
        return float(value)
    if isinstance(value, SymArray) and value.is_scalar and value.python is None:
        return handlers.runtime(operand(value).node, float) if value.dtype == np.float64 else None
    return None


def is_operand(value: Any) -> bool:
    return isinstance(value, (SymArray, SymScalar, SymInt, *_CONCRETE_OPERANDS))


def is_union(value: Any) -> bool:
    """A Python number or NumPy scalar depending on the branch taken (trace/unions.py)."""
    return isinstance(value, SymArray) and value.python is not None


def plain(value: Any) -> Any:
    """The value as its NumPy twin (for uses where the two types agree)."""
    return SymArray(value.node, True) if is_union(value) else value


#: Values an operator takes besides traced ones; NumPy makes lists and tuples arrays.
_CONCRETE_OPERANDS = (np.ndarray, np.generic, bool, int, float, complex, list, tuple)


class SymArray:
    """An array (or NumPy scalar, when ``is_scalar``) under tracing."""

    __array_priority__ = 1000

    def __init__(self, node: Node, is_scalar: bool = False) -> None:
        self.node = node
        self.is_scalar = is_scalar
        self.is_input = False
        self.c_contiguous = False  # an argument's guarded layout (trace/numpy_layout.py)
        self.ranks: tuple[int, ...] | None = None  # its strides' order (trace/memory_order.py)
        self.view_of: SymArray | None = None  # the traced array this one is a view of
        self.origin: Any = None  # an input's: what ``x.base`` asks (trace/reads.py)
        self.has_views = False
        self.element_views = False  # it is, or is under, a 0-d element view (wrap)
        self.python: tuple | None = None  # (type, flag) of a union (trace/unions.py)

    # --- metadata: static facts become Python values, sizes become SymInt ---
    @property
    def dtype(self) -> np.dtype:
        return self.node.dtype

    @property
    def ndim(self) -> int:
        return self.node.ndim

    @property
    def base(self) -> Any:
        """NumPy's ``x.base``: for an argument, whether it owns its memory is guarded (a view
        must not take the branch of the array it views); else the traced array it views."""
        return self.origin() if self.origin is not None else self.view_of

    @property
    def shape(self) -> tuple:
        return tuple(SymInt.of(d) for d in self.node.shape)

    @property
    def size(self) -> Any:
        return SymInt.of(S.prod(self.node.shape))

    @property
    def itemsize(self) -> int:
        return self.node.dtype.itemsize

    def __len__(self) -> int:
        if self.node.ndim == 0:
            raise TypeError("len() of unsized object")
        return current().env.specialize(self.node.shape[0])

    # --- things that need data break the trace ---
    def __bool__(self) -> bool:
        raise TraceBreak(
            TraceReason.DATA_DEPENDENT_CONTROL,
            "the truth value of an array is only known when the code runs",
        )

    def _concrete(self, *_: Any) -> Any:
        raise TraceBreak(
            TraceReason.DATA_DEPENDENT_VALUE,
            "converting an array element to a Python number needs its value",
        )

    __float__ = __int__ = __index__ = __complex__ = item = tolist = _concrete

    def __iter__(self) -> Any:
        """Unpacking a short row (``dx, dy = p[i] - p[i - 1]``) yields its elements; the
        length is guarded. Longer iteration would unroll: it runs in Python."""
        if len(self) > ITER_LIMIT:
            raise TraceBreak(TraceReason.ARRAY_ITERATION, "iterating an array runs in Python")
        return iter([self[k] for k in range(len(self))])

    def __array__(self, *_: Any, **__: Any) -> Any:
        raise TraceBreak(
            TraceReason.CONCRETE_ARRAY,
            "a function outside the supported NumPy subset needs real data",
        )

    def __setitem__(self, key: Any, value: Any) -> None:
        handlers.setitem(self, key, value)

    def __repr__(self) -> str:
        return f"SymArray({self.node.dtype}, {tuple(str(d) for d in self.node.shape)})"

    # --- NumPy protocols: implemented in numpy_api to keep this file about operators ---
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return handlers.array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Callable, types: Any, args: Any, kwargs: Any) -> Any:
        return handlers.array_function(func, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return handlers.array_method(self, name)

    def __getitem__(self, key: Any) -> SymArray:
        return handlers.getitem(self, key)

    def __matmul__(self, other: Any) -> SymArray:
        return matmul(Op.MATMUL, self, other)

    def __rmatmul__(self, other: Any) -> SymArray:
        return matmul(Op.MATMUL, other, self)

    def __neg__(self) -> SymArray:
        return apply_elementwise(Op.NEG, self)

    def __pos__(self) -> SymArray:
        return apply_elementwise(Op.POS, self)

    def __abs__(self) -> SymArray:
        return apply_elementwise(Op.ABS, self)

    def __invert__(self) -> SymArray:
        return apply_elementwise(Op.INVERT, self)

    @property
    def real(self) -> SymArray:
        return handlers.real(self)

    @property
    def imag(self) -> SymArray:
        return handlers.imag(self)

    @property
    def T(self) -> SymArray:
        result = wrap(B.transpose(self.node, tuple(reversed(range(self.ndim)))), base=self)
        result.is_scalar = self.is_scalar and self.ndim == 0
        return result

    def _inplace(self, op: Op, other: Any) -> SymArray:
        """``x += y``: a NumPy scalar is immutable, so ``+=`` makes a new one; an array is
        written in place, rebinding the node when no argument or view can observe the write and
        as a STORE into the buffer otherwise."""
        result = apply_elementwise(op, self, other)
        if self.is_scalar:
            return result
        if not np.can_cast(result.dtype, self.dtype, casting="same_kind"):
            raise TypeError(f"Cannot cast ufunc output from {result.dtype} to {self.dtype}")
        if not B.same_shape(result.node.shape, self.node.shape):  # NumPy's out= must hold it
            raise ValueError(
                f"non-broadcastable output operand with shape {self.node.shape} doesn't match "
                f"the broadcast shape {result.node.shape}"
            )
        if self.is_input or self.view_of is not None or self.has_views:
            self[...] = result
            return self
        node = result.node if result.dtype == self.dtype else B.astype(operand(result), self.dtype)
        self.node = node
        return self


for _name, _op in _BINARY_OPS.items():
    setattr(SymArray, f"__{_name}__", _binary(_name, _op))
    setattr(SymArray, f"__r{_name}__", _binary(_name, _op, reflected=True))
    setattr(SymArray, f"__i{_name}__", lambda self, other, _op=_op: self._inplace(_op, other))
for _name, _op in COMPARE_OPS.items():
    setattr(SymArray, f"__{_name}__", _binary(_name, _op))


def _fast_power(self: SymArray, exponent: Any) -> Any:
    """``array ** e`` as NumPy's operator does it: e == 2 is square, and on float arrays
    e == -1 is reciprocal and e == 0.5 is sqrt (``bool_array ** 2`` is int8, not int64)."""
    if not self.is_scalar:
        inexact = self.dtype.kind == "f"
        if type(exponent) is int and exponent == 2:
            return apply_elementwise(Op.SQUARE, self)
        if inexact and type(exponent) is int and exponent == -1:
            return apply_elementwise(Op.RECIPROCAL, self)
        if inexact and type(exponent) is float and exponent == 0.5:
            return apply_elementwise(Op.SQRT, self)
    if not is_operand(exponent):
        return NotImplemented
    return apply_elementwise(Op.POW, self, exponent)


SymArray.__pow__ = _fast_power  # type: ignore[method-assign]
SymArray.__hash__ = None  # type: ignore[assignment]
