"""Symbolic values that stand in for arrays, scalars and sizes while a region is traced.

The region's body is ordinary Python run once with these values: operators, ufuncs
(``__array_ufunc__``), NumPy functions (``__array_function__``), indexing and methods each
append a node. Anything that needs a concrete value breaks the trace: ``bool(array)`` is
data-dependent control flow; ``int(n)`` on a size or Python scalar specialises it (a guard).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace import build as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason

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
_COMPARE_OPS: dict[str, Op] = {
    "eq": Op.EQ,
    "ne": Op.NE,
    "lt": Op.LT,
    "le": Op.LE,
    "gt": Op.GT,
    "ge": Op.GE,
}


def operand(value: Any) -> B.Operand:
    """Any value an op may meet, as an :class:`~astcompile.trace.build.Operand`."""
    if isinstance(value, SymArray):
        if value.python is not None:
            from astcompile.trace.unions import broken

            raise broken("this use")
        example = value.node.dtype.type(1) if value.is_scalar else np.ones((), value.node.dtype)
        return B.Operand(value.node, False, example)
    if isinstance(value, SymScalar):
        return B.Operand(value.node, True, value.hint)
    if isinstance(value, SymInt):
        return B.Operand(value.as_node(), True, value.hint)
    return B.const_operand(value)


def wrap(node: Node, is_scalar: bool = False, base: "SymArray | None" = None) -> "SymArray":
    result = SymArray(node, is_scalar)
    if base is not None:
        result.base = base
        base.has_views = True
    return result


def apply_elementwise(
    op: Op, *values: Any, numpy_fn: Callable | None = None, ufunc: bool = False
) -> "SymArray":
    """``op`` on any operands; ``ufunc``: called as a NumPy ufunc (whose result is a NumPy
    value even of Python numbers), not as a Python operator."""
    if any(isinstance(v, SymArray) and v.python is not None for v in values):
        from astcompile.trace import unions

        return unions.elementwise(op, values, numpy_fn, ufunc)
    operands = [operand(v) for v in values]
    node = B.elementwise(op, operands, numpy_fn)
    all_zero_d = all(o.node.ndim == 0 for o in operands)
    return wrap(node, is_scalar=all_zero_d and op not in (Op.WHERE,))


def matmul(op: Op, a: Any, b: Any) -> SymArray:
    """``a @ b`` / ``np.dot``: two vectors give a NumPy scalar, as in NumPy."""
    node = B.matmul(op, operand(a), operand(b))
    return wrap(node, is_scalar=node.ndim == 0)


def _sym_or_const(value: Any) -> "SymArray":
    """A SymArray for any operand (a constant becomes a CONST node)."""
    return (
        value
        if isinstance(value, SymArray)
        else wrap(operand(value).node, is_scalar=np.ndim(value) == 0)
    )


def _binary(name: str, op: Op, reflected: bool = False) -> Callable:
    def method(self: Any, other: Any) -> Any:
        if not _is_operand(other):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        return apply_elementwise(op, a, b)

    method.__name__ = f"__{'r' if reflected else ''}{name}__"
    return method


def _is_operand(value: Any) -> bool:
    return isinstance(
        value, (SymArray, SymScalar, SymInt, np.ndarray, np.generic, bool, int, float, complex)
    )


class SymArray:
    """An array (or NumPy scalar, when ``is_scalar``) under tracing."""

    __array_priority__ = 1000

    def __init__(self, node: Node, is_scalar: bool = False) -> None:
        self.node = node
        self.is_scalar = is_scalar
        self.is_input = False
        self.base: SymArray | None = None
        self.has_views = False
        self.python: tuple | None = None  # (type, flag) of a union (trace/unions.py)

    # --- metadata: static facts become Python values, sizes become SymInt ---
    @property
    def dtype(self) -> np.dtype:
        return self.node.dtype

    @property
    def ndim(self) -> int:
        return self.node.ndim

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
        from astcompile.trace.indexing import setitem

        setitem(self, key, value)

    def __repr__(self) -> str:
        return f"SymArray({self.node.dtype}, {tuple(str(d) for d in self.node.shape)})"

    # --- NumPy protocols: implemented in numpy_api to keep this file about operators ---
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        from astcompile.trace.numpy_api import array_ufunc

        return array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Callable, types: Any, args: Any, kwargs: Any) -> Any:
        from astcompile.trace.numpy_api import array_function

        return array_function(func, args, kwargs)

    def __getattr__(self, name: str) -> Any:
        from astcompile.trace.numpy_api import array_method

        if name.startswith("__"):
            raise AttributeError(name)
        return array_method(self, name)

    def __getitem__(self, key: Any) -> "SymArray":
        from astcompile.trace.indexing import getitem

        return getitem(self, key)

    def __matmul__(self, other: Any) -> "SymArray":
        return matmul(Op.MATMUL, self, other)

    def __rmatmul__(self, other: Any) -> "SymArray":
        return matmul(Op.MATMUL, other, self)

    def __neg__(self) -> "SymArray":
        return apply_elementwise(Op.NEG, self)

    def __pos__(self) -> "SymArray":
        return apply_elementwise(Op.POS, self)

    def __abs__(self) -> "SymArray":
        return apply_elementwise(Op.ABS, self)

    def __invert__(self) -> "SymArray":
        return apply_elementwise(Op.INVERT, self)

    @property
    def real(self) -> "SymArray":
        from astcompile.trace.complex import real

        return real(self)

    @property
    def imag(self) -> "SymArray":
        from astcompile.trace.complex import imag

        return imag(self)

    @property
    def T(self) -> "SymArray":
        result = wrap(B.transpose(self.node, tuple(reversed(range(self.ndim)))), base=self)
        result.is_scalar = self.is_scalar and self.ndim == 0
        return result

    def _inplace(self, op: Op, other: Any) -> "SymArray":
        """``x += y``: a NumPy scalar is immutable, so ``+=`` makes a new one; an array is
        written in place, rebinding the node when no argument or view can observe the write and
        as a STORE into the buffer otherwise."""
        result = apply_elementwise(op, self, other)
        if self.is_scalar:
            return result
        if not np.can_cast(result.dtype, self.dtype, casting="same_kind"):
            raise TypeError(f"Cannot cast ufunc output from {result.dtype} to {self.dtype}")
        if self.is_input or self.base is not None or self.has_views:
            self[...] = result
            return self
        node = result.node if result.dtype == self.dtype else B.astype(operand(result), self.dtype)
        self.node = node
        return self


for _name, _op in _BINARY_OPS.items():
    setattr(SymArray, f"__{_name}__", _binary(_name, _op))
    setattr(SymArray, f"__r{_name}__", _binary(_name, _op, reflected=True))
    setattr(SymArray, f"__i{_name}__", lambda self, other, _op=_op: self._inplace(_op, other))
for _name, _op in _COMPARE_OPS.items():
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
    if not _is_operand(exponent):
        return NotImplemented
    return apply_elementwise(Op.POW, self, exponent)


SymArray.__pow__ = _fast_power  # type: ignore[method-assign]
SymArray.__hash__ = None  # type: ignore[assignment]


def _python_scalar_ufunc(
    self: Any, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any
) -> Any:
    """A ufunc of a traced Python number is traced, not computed from a specialised value:
    ``np.ceil(2.5)`` is the *strong* NumPy scalar ``np.float64(3.0)`` (NEP 50), where
    NumPy's object loop would have returned the weak Python int 3."""
    from astcompile.trace.numpy_api import array_ufunc

    return array_ufunc(ufunc, method, inputs, kwargs)


class SymScalar:
    """A Python ``int``/``float``/``bool`` passed into a region: a weak scalar by value.

    Arithmetic keeps it symbolic (so a new value never recompiles); anything that needs the
    Python value (``if alpha > 0``, ``range(k)``, ``math.exp``) specialises it with a guard.
    """

    def __init__(
        self,
        node: Node,
        hint: Any,
        description: str,
        dim: S.Dim | None = None,
        sources: dict[int, Any] | None = None,
        dynamic: bool = False,
    ) -> None:
        self.node = node
        self.hint = hint  # the traced value; for a dynamic scalar only an example of its type
        self.description = description
        self.dynamic = dynamic  # varies per loop iteration: never specialised, never guarded
        self.dims: tuple = () if dim is None else (dim,)  # sizes it derives from: shape guards
        self.sources = sources or {}  # input leaf index -> traced value, for value guards

    def _specialize(self, *_: Any) -> Any:
        if self.dynamic:
            raise TraceBreak(
                TraceReason.DATA_DEPENDENT_VALUE,
                f"{self.description} changes from one loop iteration to the next",
            )
        for d in self.dims:
            current().env.specialize(d)
        guards = current().value_guards
        for leaf, value in self.sources.items():
            if (leaf, value) not in guards:
                guards.append((leaf, value))
        return self.hint

    def __bool__(self) -> bool:
        return bool(self._specialize())

    def __int__(self) -> int:
        return int(self._specialize())

    def __float__(self) -> float:
        return float(self._specialize())

    def __index__(self) -> int:
        return operator.index(self._specialize())

    def __hash__(self) -> int:
        return hash(self._specialize())

    def __repr__(self) -> str:
        return f"SymScalar({self.description}={self.hint!r})"

    __array_ufunc__ = _python_scalar_ufunc

    def _arith(self, op: Op, fn: Callable, other: Any, reflected: bool) -> Any:
        if isinstance(other, (SymArray, np.ndarray, np.generic)):
            return apply_elementwise(op, *((other, self) if reflected else (self, other)))
        if not isinstance(other, (bool, int, float, complex, SymScalar, SymInt)):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        # Python raises (x / 0) or goes complex ((-8.0) ** 0.5) where NumPy does not: the
        # divisor, and both sides of a power, are pinned to their traced values.
        if op is Op.POW:
            a = _pinned(a)
        if op in (Op.TRUEDIV, Op.FLOORDIV, Op.MOD, Op.POW):
            b = _pinned(b)
        if not isinstance(a, (SymScalar, SymInt)) and not isinstance(b, (SymScalar, SymInt)):
            return fn(a, b)
        a = a.as_scalar() if isinstance(a, SymInt) else a
        b = b.as_scalar() if isinstance(b, SymInt) else b
        dynamic = _is_dynamic(a) or _is_dynamic(b)
        if dynamic:
            from astcompile.trace.scalars import python_arith

            python_arith(op, fn, a, b)  # Python's errors (x / 0), not C's or NumPy's
        hint = (
            _example_result(fn, _hint_of(a), _hint_of(b))
            if dynamic
            else fn(_hint_of(a), _hint_of(b))
        )
        node = B.elementwise(op, [operand(a), operand(b)])
        node = B.cast(B.Operand(node, False, None), np.result_type(hint))
        sources = {**getattr(a, "sources", {}), **getattr(b, "sources", {})}
        result = SymScalar(
            node, hint, f"({self.description} {op.name.lower()} ...)", None, sources, dynamic
        )
        result.dims = getattr(a, "dims", ()) + getattr(b, "dims", ())
        return result

    def _compare(self, fn: Callable, other: Any) -> Any:
        if isinstance(other, (SymArray, np.ndarray)):
            return NotImplemented
        if self.dynamic or _is_dynamic(other):
            return self._dynamic_compare(fn, other)
        return fn(self._specialize(), _hint_of(_pinned(other)))

    def _dynamic_compare(self, fn: Callable, other: Any) -> "SymScalar":
        """``i > 0`` on a loop variable: a bool computed each iteration (for ``__ac_if``)."""
        other = other.as_scalar() if isinstance(other, SymInt) else other
        op = _COMPARE_OPS[fn.__name__]
        node = B.elementwise(op, [operand(self), operand(other)])
        return SymScalar(node, True, f"({self.description} {fn.__name__} ...)", dynamic=True)

    def __neg__(self) -> Any:
        return self._arith(Op.MUL, operator.mul, -1, False)

    def __pos__(self) -> "SymScalar":
        return self

    def __abs__(self) -> Any:
        if self.dynamic:
            node = B.elementwise(Op.ABS, [operand(self)])
            return SymScalar(node, self.hint, f"abs({self.description})", dynamic=True)
        return abs(self._specialize())


def _is_dynamic(value: Any) -> bool:
    return isinstance(value, SymScalar) and value.dynamic


def _example_result(fn: Callable, a: Any, b: Any) -> Any:
    """An example of ``fn(a, b)``'s Python type when the operands' values are unknown."""
    try:
        return fn(a, b)
    except (ArithmeticError, ValueError):
        return fn(type(a)(1), type(b)(1))


def _pinned(value: Any) -> Any:
    if _is_dynamic(value):
        return value  # a varying Python number: checked in trace/scalars.python_arith
    return value._specialize() if isinstance(value, (SymScalar, SymInt)) else value


def _hint_of(value: Any) -> Any:
    return value.hint if isinstance(value, (SymScalar, SymInt)) else value


_SCALAR_ARITH = {
    "add": (Op.ADD, operator.add),
    "sub": (Op.SUB, operator.sub),
    "mul": (Op.MUL, operator.mul),
    "truediv": (Op.TRUEDIV, operator.truediv),
    "floordiv": (Op.FLOORDIV, operator.floordiv),
    "mod": (Op.MOD, operator.mod),
    "pow": (Op.POW, operator.pow),
}
for _name, (_op, _fn) in _SCALAR_ARITH.items():
    setattr(SymScalar, f"__{_name}__", lambda s, o, _op=_op, _fn=_fn: s._arith(_op, _fn, o, False))
    setattr(SymScalar, f"__r{_name}__", lambda s, o, _op=_op, _fn=_fn: s._arith(_op, _fn, o, True))
#: Bit operations on Python ints (and bools for & | ^): Python raises TypeError on floats, as
#: the trace does (the example result is computed with Python's own operator first).
_SCALAR_BITWISE = {
    "and": (Op.BITWISE_AND, operator.and_),
    "or": (Op.BITWISE_OR, operator.or_),
    "xor": (Op.BITWISE_XOR, operator.xor),
    "lshift": (Op.LSHIFT, operator.lshift),
    "rshift": (Op.RSHIFT, operator.rshift),
}
for _name, (_op, _fn) in _SCALAR_BITWISE.items():
    setattr(SymScalar, f"__{_name}__", lambda s, o, _op=_op, _fn=_fn: s._arith(_op, _fn, o, False))
    setattr(SymScalar, f"__r{_name}__", lambda s, o, _op=_op, _fn=_fn: s._arith(_op, _fn, o, True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(
        SymScalar, f"__{_name}__", lambda s, o, _fn=getattr(operator, _name): s._compare(_fn, o)
    )


def _scalar_invert(self: SymScalar) -> Any:
    """``~n`` on a Python int is ``-n - 1``; on a bool Python gives an int (-1 or -2), NumPy a
    bool: specialised there, never guessed."""
    if type(self.hint) is not int:
        return ~self._specialize()
    return (-self) - 1


SymScalar.__invert__ = _scalar_invert  # type: ignore[method-assign]


class SymInt:
    """A size (``x.shape[0]``, ``x.size``) as a Python int that stays symbolic in shapes."""

    def __init__(self, dim: S.SymDim) -> None:
        self.dim = dim
        self.hint = dim.hint

    @staticmethod
    def of(d: S.Dim) -> Any:
        return d if isinstance(d, int) else SymInt(d)

    def as_node(self) -> Node:
        return current().node(Op.DIM, (), np.dtype(np.int64), (), self.dim)

    def _specialize(self) -> int:
        return current().env.specialize(self.dim)

    def as_scalar(self) -> "SymScalar":
        return SymScalar(self.as_node(), self.hint, str(self.dim), dim=self.dim)

    def __index__(self) -> int:
        return self._specialize()

    __int__ = __index__

    def __float__(self) -> float:
        return float(self._specialize())

    def __bool__(self) -> bool:
        return self._specialize() != 0

    def __hash__(self) -> int:
        return hash(self._specialize())

    def __repr__(self) -> str:
        return f"SymInt({self.dim}={self.hint})"

    __array_ufunc__ = _python_scalar_ufunc

    def _dim_op(self, fn: Callable, other: Any, reflected: bool) -> Any:
        if isinstance(other, (SymArray, SymScalar, np.ndarray, np.generic, float)):
            return NotImplemented
        if not isinstance(other, (int, SymInt)) or isinstance(other, bool):
            return NotImplemented
        o = other.dim if isinstance(other, SymInt) else other
        a, b = (o, self.dim) if reflected else (self.dim, o)
        return SymInt.of(fn(a, b))

    def _compare(self, fn: Callable, other: Any) -> Any:
        if isinstance(other, (SymArray, np.ndarray)):
            return NotImplemented
        return fn(self._specialize(), int(other) if isinstance(other, SymInt) else other)


_DIM_FNS = {
    "add": S.dim_add,
    "sub": S.dim_sub,
    "mul": S.dim_mul,
    "floordiv": S.dim_floordiv,
    "mod": S.dim_mod,
}
for _name, _fn in _DIM_FNS.items():
    setattr(SymInt, f"__{_name}__", lambda s, o, _fn=_fn: s._dim_op(_fn, o, False))
    setattr(SymInt, f"__r{_name}__", lambda s, o, _fn=_fn: s._dim_op(_fn, o, True))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(SymInt, f"__{_name}__", lambda s, o, _fn=getattr(operator, _name): s._compare(_fn, o))


def _symint_op(name: str, op: Op, fn: Callable, reflected: bool) -> Callable:
    """Int-with-int arithmetic stays a size expression; anything else becomes a weak scalar."""
    dim_fn = _DIM_FNS.get(name)

    def method(self: SymInt, other: Any) -> Any:
        is_int = isinstance(other, (int, SymInt)) and not isinstance(other, bool)
        if dim_fn is not None and is_int:
            return self._dim_op(dim_fn, other, reflected)
        if not _is_operand(other):
            return NotImplemented
        return self.as_scalar()._arith(op, fn, other, reflected)

    return method


for _name, (_op, _fn) in _SCALAR_ARITH.items():
    for _reflected in (False, True):
        _method = _symint_op(_name, _op, _fn, _reflected)
        setattr(SymInt, f"__{'r' if _reflected else ''}{_name}__", _method)
