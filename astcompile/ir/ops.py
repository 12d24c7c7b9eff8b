"""The op registry: every IR op, its kind and its NumPy reference implementation.

One table describes each op once. The tracer maps NumPy callables to ops through it, the eager
backend runs an op by calling its ``numpy`` entry, and code generators key their lowering tables
by the same :class:`Op` members, so adding an op is one row here plus one row per backend.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any

import numpy as np

from astcompile.ir import python_complex
from astcompile.ir.attrs import (
    ArithKind,
    CheckAttr,
    ConstAttr,
    IfAttr,
    IndexItem,
    InputAttr,
    LoopAttr,
    NumpyCallAttr,
    ReduceAttr,
    SizeCheckAttr,
    StoreAttr,
)
from astcompile.ir.shapes import SymDim


class Kind(Enum):
    LEAF = auto()  # INPUT, CONST
    ELEMENTWISE = auto()  # one output element from the same-index elements of broadcast inputs
    REDUCTION = auto()  # folds axes
    VIEW = auto()  # re-indexes an input without computing (slicing, reshape, transpose)
    EXTERN = auto()  # computed by a library call (BLAS matmul)
    EFFECT = auto()  # writes memory (stores)
    CONTROL = auto()  # structured loops and branches with sub-graphs


class Op(Enum):
    # leaves
    INPUT = auto()
    CONST = auto()
    DIM = auto()  # the runtime value of a size expression; attr: Dim
    # elementwise, unary
    NEG = auto()
    POS = auto()
    ABS = auto()
    SQUARE = auto()
    RECIPROCAL = auto()
    SQRT = auto()
    CBRT = auto()
    EXP = auto()
    EXP2 = auto()
    EXPM1 = auto()
    LOG = auto()
    LOG2 = auto()
    LOG10 = auto()
    LOG1P = auto()
    SIN = auto()
    COS = auto()
    TAN = auto()
    ARCSIN = auto()
    ARCCOS = auto()
    ARCTAN = auto()
    SINH = auto()
    COSH = auto()
    TANH = auto()
    ARCSINH = auto()
    ARCCOSH = auto()
    ARCTANH = auto()
    FLOOR = auto()
    CEIL = auto()
    TRUNC = auto()
    RINT = auto()
    SIGN = auto()
    ISNAN = auto()
    ISINF = auto()
    ISFINITE = auto()
    SIGNBIT = auto()
    LOGICAL_NOT = auto()
    INVERT = auto()
    DEG2RAD = auto()
    RAD2DEG = auto()
    CONJ = auto()
    CAST = auto()  # astype; target dtype is the node's dtype
    IOTA = auto()  # no inputs: each element's index along axis ``attr`` (int64); np.arange
    # elementwise, binary
    ADD = auto()
    SUB = auto()
    MUL = auto()
    TRUEDIV = auto()
    FLOORDIV = auto()
    MOD = auto()
    POW = auto()
    MAXIMUM = auto()
    MINIMUM = auto()
    FMAX = auto()
    FMIN = auto()
    ARCTAN2 = auto()
    LOGADDEXP = auto()
    HYPOT = auto()
    COPYSIGN = auto()
    EQ = auto()
    NE = auto()
    LT = auto()
    LE = auto()
    GT = auto()
    GE = auto()
    LOGICAL_AND = auto()
    LOGICAL_OR = auto()
    LOGICAL_XOR = auto()
    BITWISE_AND = auto()
    BITWISE_OR = auto()
    BITWISE_XOR = auto()
    LSHIFT = auto()
    RSHIFT = auto()
    # elementwise, ternary
    WHERE = auto()
    CLIP = auto()
    # reductions (attr: ReduceAttr)
    SUM = auto()
    PROD = auto()
    MAX = auto()
    MIN = auto()
    ANY = auto()
    ALL = auto()
    MEAN = auto()
    VAR = auto()
    STD = auto()
    ARGMAX = auto()
    ARGMIN = auto()
    # views
    INDEX = auto()  # basic indexing; attr: tuple of IndexItem
    RESHAPE = auto()  # attr: target shape (dims)
    TRANSPOSE = auto()  # attr: axis permutation
    BROADCAST_TO = auto()  # attr: target shape (dims)
    COPY = auto()  # a fresh C-contiguous copy (np.copy, np.ascontiguousarray)
    REAL = auto()  # z.real: a view of the real parts (node dtype: the real dtype)
    IMAG = auto()  # z.imag: a view of the imaginary parts (read-only zeros for real arrays)
    # extern
    MATMUL = auto()
    DOT = auto()
    NUMPY = auto()  # NumPy's own function, run by the wrapper; attr: NumpyCallAttr
    NUMPY_VIEW = auto()  # the same, whose result may be (a view of) input attr.view_of
    # effects and control (see ir.StoreAttr, ir.LoopAttr, ir.IfAttr)
    STORE = auto()
    SIZE_CHECK = auto()  # a run-time size check; attr: ir.SizeCheckAttr
    LOOP = auto()
    IF = auto()
    RESULT = auto()  # picks result k of a multi-result node (LOOP, IF); attr: k
    CHECK = auto()  # raises when its bool input is false; attr: ir.CheckAttr
    # Python ``complex`` scalars, where Python's rules are not NumPy's (ir/python_complex.py)
    COMPLEX = auto()  # complex(re, im) of two float64 values
    PY_CMUL = auto()  # a * b as CPython multiplies complex numbers
    PY_CDIV = auto()  # a / b as CPython divides complex numbers
    PY_CEXP = auto()  # cmath.exp
    PY_CSQRT = auto()  # cmath.sqrt
    # ``math`` functions NumPy has no ufunc for: libm's own, as CPython calls them
    ERF = auto()  # math.erf
    ERFC = auto()  # math.erfc


@dataclass(frozen=True)
class OpInfo:
    """One op's row. ``fresh``: NumPy returns a new array (buffer) for it, never a view or a
    leaf, so the result has an *identity*: two equal computations are two arrays, and a write
    into one (a later STORE, or the caller after the region) must not show in the other."""

    op: Op
    kind: Kind
    numpy: Callable | None  # reference implementation used by the eager backend
    nin: int = 1
    fresh: bool = False


#: Kinds whose results are new arrays; views alias their input, leaves are the caller's.
_FRESH_KINDS = frozenset({Kind.ELEMENTWISE, Kind.REDUCTION, Kind.EXTERN})


def _row(op: Op, kind: Kind, fn: Callable | None, nin: int = 1) -> OpInfo:
    return OpInfo(op, kind, fn, nin, kind in _FRESH_KINDS)


E, R, V = Kind.ELEMENTWISE, Kind.REDUCTION, Kind.VIEW


def _ufuncs(table: str) -> dict[Op, np.ufunc]:
    """``OP`` (the ufunc of that name, lower case) or ``OP:ufunc_name``, separated by spaces."""
    pairs = (word.partition(":") for word in table.split())
    return {Op[op]: getattr(np, name or op.lower()) for op, _, name in pairs}


_UNARY_UFUNCS: dict[Op, np.ufunc] = _ufuncs(
    """
    NEG:negative POS:positive ABS:absolute SQUARE RECIPROCAL SQRT CBRT EXP EXP2 EXPM1 LOG LOG2
    LOG10 LOG1P SIN COS TAN ARCSIN ARCCOS ARCTAN SINH COSH TANH ARCSINH ARCCOSH ARCTANH FLOOR
    CEIL TRUNC RINT SIGN ISNAN ISINF ISFINITE SIGNBIT LOGICAL_NOT INVERT DEG2RAD RAD2DEG
    CONJ:conjugate
    """
)

_BINARY_UFUNCS: dict[Op, np.ufunc] = _ufuncs(
    """
    ADD SUB:subtract MUL:multiply TRUEDIV:true_divide FLOORDIV:floor_divide MOD:remainder
    POW:power MAXIMUM MINIMUM FMAX FMIN ARCTAN2 LOGADDEXP HYPOT COPYSIGN EQ:equal NE:not_equal
    LT:less LE:less_equal GT:greater GE:greater_equal LOGICAL_AND LOGICAL_OR LOGICAL_XOR
    BITWISE_AND BITWISE_OR BITWISE_XOR LSHIFT:left_shift RSHIFT:right_shift
    """
)

_REDUCTIONS: dict[Op, Callable] = {
    Op.SUM: np.sum,
    Op.PROD: np.prod,
    Op.MAX: np.max,
    Op.MIN: np.min,
    Op.ANY: np.any,
    Op.ALL: np.all,
    Op.MEAN: np.mean,
    Op.VAR: np.var,
    Op.STD: np.std,
    Op.ARGMAX: np.argmax,
    Op.ARGMIN: np.argmin,
}

REGISTRY: dict[Op, OpInfo] = {
    Op.INPUT: _row(Op.INPUT, Kind.LEAF, None, 0),
    Op.CONST: _row(Op.CONST, Kind.LEAF, None, 0),
    Op.DIM: _row(Op.DIM, Kind.LEAF, None, 0),
    Op.CAST: _row(Op.CAST, E, None),
    Op.IOTA: _row(Op.IOTA, E, None, 0),
    Op.WHERE: _row(Op.WHERE, E, np.where, 3),
    Op.CLIP: _row(Op.CLIP, E, np.clip, 3),
    Op.INDEX: _row(Op.INDEX, V, None),
    Op.RESHAPE: _row(Op.RESHAPE, V, np.reshape),
    Op.TRANSPOSE: _row(Op.TRANSPOSE, V, np.transpose),
    Op.BROADCAST_TO: _row(Op.BROADCAST_TO, V, np.broadcast_to),
    Op.COPY: _row(Op.COPY, E, np.array),
    Op.REAL: _row(Op.REAL, V, np.real),
    Op.IMAG: _row(Op.IMAG, V, np.imag),
    Op.MATMUL: _row(Op.MATMUL, Kind.EXTERN, np.matmul, 2),
    Op.DOT: _row(Op.DOT, Kind.EXTERN, np.dot, 2),
    Op.NUMPY: _row(Op.NUMPY, Kind.EXTERN, None, 1),
    Op.NUMPY_VIEW: OpInfo(Op.NUMPY_VIEW, Kind.EXTERN, None, 1, fresh=False),
    Op.STORE: _row(Op.STORE, Kind.EFFECT, None, 2),
    Op.SIZE_CHECK: _row(Op.SIZE_CHECK, Kind.EFFECT, None, 0),
    Op.LOOP: _row(Op.LOOP, Kind.CONTROL, None, 0),
    Op.IF: _row(Op.IF, Kind.CONTROL, None, 0),
    Op.RESULT: _row(Op.RESULT, Kind.CONTROL, None, 1),
    Op.CHECK: _row(Op.CHECK, Kind.EFFECT, None, 1),
    Op.COMPLEX: _row(Op.COMPLEX, E, python_complex.make_complex, 2),
    Op.PY_CMUL: _row(Op.PY_CMUL, E, python_complex.product, 2),
    Op.PY_CDIV: _row(Op.PY_CDIV, E, python_complex.quotient, 2),
    Op.PY_CEXP: _row(Op.PY_CEXP, E, python_complex.exp, 1),
    Op.PY_CSQRT: _row(Op.PY_CSQRT, E, python_complex.sqrt, 1),
    Op.ERF: _row(Op.ERF, E, python_complex.real_of(math.erf), 1),
    Op.ERFC: _row(Op.ERFC, E, python_complex.real_of(math.erfc), 1),
}
REGISTRY.update({op: _row(op, E, fn, 1) for op, fn in _UNARY_UFUNCS.items()})
REGISTRY.update({op: _row(op, E, fn, 2) for op, fn in _BINARY_UFUNCS.items()})
REGISTRY.update({op: _row(op, R, fn, 1) for op, fn in _REDUCTIONS.items()})

#: NumPy ufunc object -> op, for the tracer's ``__array_ufunc__``.
UFUNC_TO_OP: dict[np.ufunc, Op] = {fn: op for op, fn in {**_UNARY_UFUNCS, **_BINARY_UFUNCS}.items()}
UFUNC_TO_OP[np.divide] = Op.TRUEDIV
UFUNC_TO_OP[np.abs] = Op.ABS
UFUNC_TO_OP[np.mod] = Op.MOD

#: NumPy reduction function -> op, for ``__array_function__`` and array methods.
REDUCTION_TO_OP: dict[Callable, Op] = {fn: op for op, fn in _REDUCTIONS.items()}
REDUCTION_TO_OP.update({np.amax: Op.MAX, np.amin: Op.MIN})

COMPARISONS = frozenset({Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE})
#: calls of NumPy's own function (``NumpyCallAttr``), run as NumPy steps
NUMPY_CALLS = frozenset({Op.NUMPY, Op.NUMPY_VIEW})


def info(op: Op) -> OpInfo:
    return REGISTRY[op]


def kind(op: Op) -> Kind:
    return REGISTRY[op].kind


def is_reduction(op: Op) -> bool:
    return REGISTRY[op].kind is Kind.REDUCTION


def is_view(op: Op) -> bool:
    return REGISTRY[op].kind is Kind.VIEW


def is_fresh(op: Op) -> bool:
    """Whether ``op`` makes a new array (see :class:`OpInfo`): np.zeros, np.copy, x + 1, ..."""
    return REGISTRY[op].fresh


_NO_ATTR = type(None)


@dataclass(frozen=True)
class Signature:
    """What a well-formed node of one op looks like, for :func:`astcompile.ir.graph.verify`:
    ``inputs`` inputs (at least that many when ``more``: dynamic indices, loop-carried and
    captured values) and an attribute of type ``attr``; when ``each`` is set the attribute is a
    tuple of ``each`` items (INDEX's IndexItems, RESHAPE's dims)."""

    inputs: int
    attr: type | tuple[type, ...] = _NO_ATTR
    more: bool = False
    each: type | tuple[type, ...] | None = None

    def arity_ok(self, count: int) -> bool:
        return count == self.inputs or (self.more and count > self.inputs)

    def attr_ok(self, attr: Any) -> bool:
        if not isinstance(attr, self.attr):
            return False
        return self.each is None or all(isinstance(item, self.each) for item in attr)


_DIMS = (int, SymDim)

#: Ops whose signature is not the default of their kind (below).
_SIGNATURES: dict[Op, Signature] = {
    Op.INPUT: Signature(0, InputAttr),
    Op.CONST: Signature(0, ConstAttr),
    Op.DIM: Signature(0, _DIMS),
    Op.IOTA: Signature(0, int),
    Op.INDEX: Signature(1, tuple, more=True, each=IndexItem),
    Op.RESHAPE: Signature(1, tuple, each=_DIMS),
    Op.TRANSPOSE: Signature(1, tuple, each=int),
    Op.BROADCAST_TO: Signature(1, tuple, each=_DIMS),
    Op.STORE: Signature(2, StoreAttr, more=True),
    Op.SIZE_CHECK: Signature(0, SizeCheckAttr),
    Op.LOOP: Signature(1, LoopAttr, more=True),
    Op.IF: Signature(1, IfAttr, more=True),
    Op.RESULT: Signature(1, int),
    Op.CHECK: Signature(1, CheckAttr, more=True),  # the test, then the values its message names
    Op.NUMPY: Signature(1, NumpyCallAttr, more=True),
    Op.NUMPY_VIEW: Signature(1, NumpyCallAttr, more=True),
    Op.MUL: Signature(2, (_NO_ATTR, ArithKind)),
    Op.ADD: Signature(2, (_NO_ATTR, ArithKind)),
    Op.SUB: Signature(2, (_NO_ATTR, ArithKind)),
    Op.NEG: Signature(1, (_NO_ATTR, ArithKind)),
    Op.ABS: Signature(1, (_NO_ATTR, ArithKind)),
    Op.WHERE: Signature(3, (_NO_ATTR, ArithKind)),
    Op.MAXIMUM: Signature(2, (_NO_ATTR, ArithKind)),
    Op.MINIMUM: Signature(2, (_NO_ATTR, ArithKind)),
}


def _default_signature(row: OpInfo) -> Signature:
    """Elementwise, extern and plain view ops take ``nin`` inputs and no attribute;
    reductions take one input and a ReduceAttr."""
    if row.kind is Kind.REDUCTION:
        return Signature(1, ReduceAttr)
    return Signature(row.nin)


#: Op -> its signature, for every op.
SIGNATURES: dict[Op, Signature] = {
    op: _SIGNATURES.get(op) or _default_signature(row) for op, row in REGISTRY.items()
}


def signature(op: Op) -> Signature:
    return SIGNATURES[op]
