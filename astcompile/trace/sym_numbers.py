"""Python numbers under tracing: ``SymScalar`` (an int/float/bool argument, a weak scalar by
value) and ``SymInt`` (a size such as ``x.shape[0]``, which stays symbolic in shapes).

Arrays are one idea (``symbolic.py``: nodes, NumPy protocols, in-place writes); Python numbers
are the other: they stay symbolic through arithmetic and *specialise* with a guard the moment
Python needs their value (``if alpha > 0``, ``range(n)``). Mixed with an array they become
operands of an elementwise node.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace import handlers
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason


def _python_scalar_ufunc(
    self: Any, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any
) -> Any:
    """A ufunc of a traced Python number is traced, not computed from a specialised value:
    ``np.ceil(2.5)`` is the *strong* NumPy scalar ``np.float64(3.0)`` (NEP 50), where
    NumPy's object loop would have returned the weak Python int 3."""
    return handlers.array_ufunc(ufunc, method, inputs, kwargs)


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
        self.bounds: tuple[int, int] | None = None  # a Python int's range (trace/int_bounds.py)
        self.leaf: int | None = None  # the argument it is (not computed from it)

    def _specialize(self, *_: Any) -> Any:
        if self.dynamic:
            raise TraceBreak(
                TraceReason.DATA_DEPENDENT_VALUE,
                f"{self.description} changes from one loop iteration to the next",
            )
        for d in self.dims:
            current().env.specialize(d)
        current().guard_values(self.sources)
        return self.hint

    def __bool__(self) -> bool:
        return bool(self._specialize())

    def __int__(self) -> int:
        return int(self._specialize())

    def __float__(self) -> float:
        return float(self._specialize())

    def __index__(self) -> int:
        return operator.index(self._specialize())

    def __complex__(self) -> complex:
        return complex(self._specialize())

    def __hash__(self) -> int:
        return hash(self._specialize())

    def __repr__(self) -> str:
        return f"SymScalar({self.description}={self.hint!r})"

    def __format__(self, spec: str = "") -> str:  # f"{n}", "%s" % n: pinned to its value
        return format(self._specialize(), spec)

    __str__ = __format__

    __array_ufunc__ = _python_scalar_ufunc

    def _arith(self, op: Op, fn: Callable, other: Any, reflected: bool) -> Any:
        if op is Op.MUL and type(other) is list:  # [0.0] * n: a list the region made
            return handlers.repeat(other, self)
        other = handlers.float64_partner(self.hint, other, reflected)  # 0j + x[i]: complex
        if isinstance(other, (arrays.SymArray, np.ndarray, np.generic)):
            return arrays.apply_elementwise(op, *((other, self) if reflected else (self, other)))
        if not isinstance(other, (bool, int, float, complex, SymScalar, SymInt)):
            return NotImplemented
        a, b = (other, self) if reflected else (self, other)
        # Python raises (x / 0) or goes complex ((-8.0) ** 0.5) where NumPy does not: the
        # divisor, and both sides of a power, are pinned to their traced values; a float to an
        # int power (``beta ** step``) is a float whatever the values: checked at run time.
        float_power = op is Op.POW and _float_to_int_power(a, b)
        if op is Op.POW and not float_power:
            a = _pinned(a)
        if op in (Op.TRUEDIV, Op.FLOORDIV, Op.MOD, Op.POW) and not float_power:
            b = _pinned(b)
        if not isinstance(a, (SymScalar, SymInt)) and not isinstance(b, (SymScalar, SymInt)):
            return fn(a, b)
        a, b = (v.as_scalar() if isinstance(v, SymInt) else v for v in (a, b))
        dynamic = _is_dynamic(a) or _is_dynamic(b)
        if dynamic and op is Op.POW and (_is_complex(a) or _is_complex(b)):
            return handlers.power(a, b)
        if dynamic:
            handlers.python_arith(op, fn, a, b)  # Python's errors (x / 0), not C's or NumPy's
        hint = (
            _example_result(fn, _hint_of(a), _hint_of(b))
            if dynamic
            else fn(_hint_of(a), _hint_of(b))
        )
        exact = _python_ints(a, b)
        if exact is not None:
            exact.beyond_int64(hint)
        # Python multiplies and divides complex numbers its own way (trace/pycomplex.py)
        node_op = _PYTHON_COMPLEX.get(op, op) if isinstance(hint, complex) else op
        node = B.elementwise(node_op, [arrays.operand(a), arrays.operand(b)])
        node = B.cast_node(node, np.result_type(hint))
        sources = {**getattr(a, "sources", {}), **getattr(b, "sources", {})}
        result = SymScalar(
            node, hint, f"({self.description} {op.name.lower()} ...)", None, sources, dynamic
        )
        result.dims = getattr(a, "dims", ()) + getattr(b, "dims", ())
        if op is Op.POW and type(hint) is float:  # Python's errors: 0.0 ** -1, overflow
            handlers.python_float_power(result, a, b)
        if exact is not None:
            exact.exact(op, a, b, result)
        return result

    def _compare(self, fn: Callable, other: Any) -> Any:
        if type(self.hint) is complex and fn in (operator.eq, operator.ne):
            other = handlers.float64_partner(self.hint, other, False)  # z == v: a Python bool
        if isinstance(other, (arrays.SymArray, np.ndarray)):
            return NotImplemented
        if _is_complex(self) or _is_complex(other):
            fn(_hint_of(self), _hint_of(other))  # complex numbers are not ordered: TypeError
        if self.dynamic and isinstance(other, np.generic):  # NumPy's: an np.bool_
            return arrays.apply_elementwise(arrays.COMPARE_OPS[fn.__name__], self, other)
        if self.dynamic or _is_dynamic(other):
            return self._dynamic_compare(fn, other)
        if self.leaf is not None and type(other) in (int, float) and type(self.hint) is not bool:
            return current().guard_outcome(self.leaf, fn, self.hint, other)
        return fn(self._specialize(), _hint_of(_pinned(other)))

    def _dynamic_compare(self, fn: Callable, other: Any) -> SymScalar:
        """``i > 0`` on a loop variable: a bool computed each iteration (for ``__ac_if``)."""
        other = other.as_scalar() if isinstance(other, SymInt) else other
        op = arrays.COMPARE_OPS[fn.__name__]
        node = B.elementwise(op, [arrays.operand(self), arrays.operand(other)])
        return SymScalar(node, True, f"({self.description} {fn.__name__} ...)", dynamic=True)

    def __neg__(self) -> Any:
        """``-x`` flips the sign bit, of a NaN too (``-np.nan``); ``x * -1`` need not."""
        if not isinstance(self.hint, (float, complex, np.floating, np.complexfloating)):
            return self._arith(Op.MUL, operator.mul, -1, False)  # ints: exact; -True is -1
        node = B.elementwise(Op.NEG, [arrays.operand(self)])
        result = SymScalar(node, -self.hint, f"(-{self.description})", None, self.sources)
        result.dynamic, result.dims = self.dynamic, self.dims
        return result

    def __pos__(self) -> SymScalar:
        return self

    @property
    def real(self) -> Any:
        """``x.real``: a float of a complex; a real number itself (an int of a bool)."""
        if isinstance(self.hint, complex):
            return handlers.part(self, Op.REAL)
        return self + 0 if isinstance(self.hint, bool) else self

    @property
    def imag(self) -> Any:
        if isinstance(self.hint, complex):
            return handlers.part(self, Op.IMAG)
        return type(self.hint + 0)(0)

    def conjugate(self) -> Any:
        if isinstance(self.hint, complex):
            return handlers.runtime(B.elementwise(Op.CONJ, [arrays.operand(self)]), complex)
        return self.real

    def __abs__(self) -> Any:
        if isinstance(self.hint, complex):
            return handlers.absolute(self)
        if self.dynamic:
            node = B.elementwise(Op.ABS, [arrays.operand(self)])
            result = SymScalar(node, self.hint, f"abs({self.description})", dynamic=True)
            exact = _python_ints(self, 0)
            return result if exact is None else exact.exact_abs(self, result)
        return abs(self._specialize())


def _python_ints(a: Any, b: Any) -> Any:
    """trace/int_bounds.py's handlers when ``a`` and ``b`` are both Python ints (exact
    arithmetic)."""
    return handlers if handlers.is_python_int(a) and handlers.is_python_int(b) else None


#: Ops on Python complex numbers whose rules are CPython's, not NumPy's.
_PYTHON_COMPLEX = {Op.MUL: Op.PY_CMUL, Op.TRUEDIV: Op.PY_CDIV}


def _is_complex(value: Any) -> bool:
    return isinstance(_hint_of(value), complex)


def _is_dynamic(value: Any) -> bool:
    return isinstance(value, SymScalar) and value.dynamic


def _example_result(fn: Callable, a: Any, b: Any) -> Any:
    """An example of ``fn(a, b)``'s Python type when the operands' values are unknown."""
    try:  # a negative base to a fractional power runs plain (trace/scalars.python_arith)
        return fn(abs(a) if type(a) in (int, float) and type(b) is float else a, b)
    except (ArithmeticError, ValueError):
        return fn(type(a)(1), type(b)(1))


def _float_to_int_power(a: Any, b: Any) -> bool:
    return type(_hint_of(a)) is float and type(_hint_of(b)) is int


def _pinned(value: Any) -> Any:
    if _is_dynamic(value):
        return value  # a varying Python number: checked in trace/scalars.python_arith
    return value._specialize() if isinstance(value, (SymScalar, SymInt)) else value


def _hint_of(value: Any) -> Any:
    return value.hint if isinstance(value, (SymScalar, SymInt)) else value


#: The comparisons, by dunder name: ``fn.__name__`` is also the key of ``COMPARE_OPS``.
_COMPARE_FNS = {name: getattr(operator, name) for name in ("eq", "ne", "lt", "le", "gt", "ge")}
_SCALAR_ARITH = {
    name: (Op[name.upper()], getattr(operator, name))
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow")
}
#: Bit operations on Python ints (and bools for & | ^): Python raises TypeError on floats, as
#: the trace does (the example result is computed with Python's own operator first).
_SCALAR_BITWISE = {
    "and": (Op.BITWISE_AND, operator.and_),
    "or": (Op.BITWISE_OR, operator.or_),
    "xor": (Op.BITWISE_XOR, operator.xor),
    "lshift": (Op.LSHIFT, operator.lshift),
    "rshift": (Op.RSHIFT, operator.rshift),
}
for _name, (_op, _fn) in {**_SCALAR_ARITH, **_SCALAR_BITWISE}.items():
    setattr(SymScalar, f"__{_name}__", lambda s, o, _op=_op, _fn=_fn: s._arith(_op, _fn, o, False))
    setattr(SymScalar, f"__r{_name}__", lambda s, o, _op=_op, _fn=_fn: s._arith(_op, _fn, o, True))
for _name, _fn in _COMPARE_FNS.items():
    setattr(SymScalar, f"__{_name}__", lambda s, o, _fn=_fn: s._compare(_fn, o))


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

    def as_scalar(self) -> SymScalar:
        scalar = SymScalar(self.as_node(), self.hint, str(self.dim), dim=self.dim)
        return handlers.bounded(scalar, handlers.dim_bounds(self.dim))

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

    def __format__(self, spec: str = "") -> str:  # f"{n}", "%s" % n: pinned to its value
        return format(self._specialize(), spec)

    __str__ = __format__

    __array_ufunc__ = _python_scalar_ufunc

    def _dim_op(self, fn: Callable, other: Any, reflected: bool) -> Any:
        if isinstance(other, (arrays.SymArray, SymScalar, np.ndarray, np.generic, float)):
            return NotImplemented
        if not isinstance(other, (int, SymInt)) or isinstance(other, bool):
            return NotImplemented
        o = other.dim if isinstance(other, SymInt) else other
        a, b = (o, self.dim) if reflected else (self.dim, o)
        return SymInt.of(fn(a, b))

    def _compare(self, fn: Callable, other: Any) -> Any:
        if isinstance(other, (arrays.SymArray, np.ndarray)):
            return NotImplemented
        return fn(self._specialize(), int(other) if isinstance(other, SymInt) else other)


_DIM_FNS = {name: getattr(S, f"dim_{name}") for name in ("add", "sub", "mul", "floordiv", "mod")}
for _name, _fn in _DIM_FNS.items():
    setattr(SymInt, f"__{_name}__", lambda s, o, _fn=_fn: s._dim_op(_fn, o, False))
    setattr(SymInt, f"__r{_name}__", lambda s, o, _fn=_fn: s._dim_op(_fn, o, True))
for _name, _fn in _COMPARE_FNS.items():
    setattr(SymInt, f"__{_name}__", lambda s, o, _fn=_fn: s._compare(_fn, o))


def _symint_op(name: str, op: Op, fn: Callable, reflected: bool) -> Callable:
    """Int-with-int arithmetic stays a size expression; anything else becomes a weak scalar."""
    dim_fn = _DIM_FNS.get(name)

    def method(self: SymInt, other: Any) -> Any:
        if op is Op.MUL and type(other) is list:
            return handlers.repeat(other, self)
        is_int = isinstance(other, (int, SymInt)) and not isinstance(other, bool)
        if dim_fn is not None and is_int and not _may_outgrow(op, self.dim, other):
            return self._dim_op(dim_fn, other, reflected)
        if not arrays.is_operand(other):
            return NotImplemented
        return self.as_scalar()._arith(op, fn, other, reflected)

    return method


def _may_outgrow(op: Op, size: S.Dim, other: Any) -> bool:
    """Whether a size times (or plus) ``other`` may leave int64 for some sizes (a size stays
    below 2**40): then it is a Python int computed exactly, not a size expression. A product
    of sizes may when it has more than two factors that are not each a different axis of one
    array (those multiply to at most the array's size): ``n * n * n * n``."""
    if op is Op.MUL and isinstance(other, SymInt):
        factors = _factors(size) + _factors(other.dim)
        sources = [getattr(f, "source", None) for f in factors]
        arrays = {source[0] for source in sources if source is not None}
        return len(factors) > 2 and (len(set(sources)) < len(sources) or len(arrays) > 1)
    big = {Op.MUL: 2**23, Op.ADD: 2**62, Op.SUB: 2**62}.get(op)
    return big is not None and type(other) is int and abs(other) >= big


def _factors(size: S.Dim) -> list:
    if isinstance(size, S.SymDim) and size.op is S.DimOp.MUL:
        return _factors(size.args[0]) + _factors(size.args[1])
    return [] if isinstance(size, int) else [size]


for _name, (_op, _fn) in _SCALAR_ARITH.items():
    for _reflected in (False, True):
        _method = _symint_op(_name, _op, _fn, _reflected)
        setattr(SymInt, f"__{'r' if _reflected else ''}{_name}__", _method)


# Last, and as a module: symbolic.py imports this module's classes at its top, so either module
# may be imported first; the array helpers are only looked up when a method runs.
from astcompile.trace import symbolic as arrays  # noqa: E402
