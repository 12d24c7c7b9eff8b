"""Node construction with NumPy's shape and dtype rules.

Dtypes come from NumPy itself: a ufunc's loop is chosen by ``ufunc.resolve_dtypes`` (NEP 50,
with Python scalars as "weak" operands), and the result is confirmed by running the NumPy
function on a one-element example, which also raises NumPy's own error for invalid input
(``int8_array + 300``, a string operand) so the region falls back and NumPy reports it.
Operands are cast to the loop's dtypes here, so backends never re-derive promotion rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from astcompile import quiet
from astcompile.ir import shapes as S
from astcompile.ir.attrs import ArithKind, index_shape
from astcompile.ir.checks import size_check_message
from astcompile.ir.graph import ConstAttr, IndexItem, IndexKind, Node, ReduceAttr, SizeCheckKind
from astcompile.ir.ops import COMPARISONS, Op, info
from astcompile.trace import limits
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.reasons import TraceReason

SUPPORTED_DTYPES = frozenset(
    np.dtype(name)
    for name in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32")
    + ("uint64", "float32", "float64", "complex64", "complex128")
)


@dataclass(frozen=True)
class Operand:
    """A value as an op sees it: its node, whether it is a weak Python scalar, and an example."""

    node: Node
    weak: bool
    example: Any  # what NumPy should see for dtype inference (a 0-d array or a Python scalar)


def check_dtype(dtype: np.dtype) -> np.dtype:
    if dtype not in SUPPORTED_DTYPES:
        raise TraceBreak(TraceReason.UNSUPPORTED_DTYPE, f"arrays of dtype {dtype} run in NumPy")
    return dtype


def const_operand(value: Any) -> Operand:
    """A concrete value met during tracing: a literal, a NumPy scalar or a captured array."""
    ctx = current()
    if isinstance(value, bool | int | float | complex) and not isinstance(value, np.generic):
        dtype = np.result_type(value)
        node = ctx.node(Op.CONST, (), dtype, (), ConstAttr(value, weak=True))
        return Operand(node, True, value)
    array = value if isinstance(value, np.ndarray) else np.asarray(value)
    if type(array) is not np.ndarray:
        raise TraceBreak(
            TraceReason.UNSUPPORTED_OPERAND, f"{type(value).__name__} operands run in NumPy"
        )
    check_dtype(array.dtype)
    shape = tuple(int(d) for d in array.shape)
    stored = array if isinstance(value, np.ndarray) else array.dtype.type(value)
    node = ctx.node(Op.CONST, (), array.dtype, shape, ConstAttr(stored))
    # a NumPy scalar's example is one: its ``+`` is NumPy's scalar math (_arith_kind)
    example = array.dtype.type(1) if isinstance(value, np.generic) else np.ones((), array.dtype)
    return Operand(node, False, example)


def _example_call(fn: Callable, examples: Sequence[Any], **kwargs: Any) -> Any:
    """``fn`` on one-element examples, for its dtype: the warnings NumPy gives about the
    examples (``x.var(ddof=1)`` of one element) are not the user's."""
    with np.errstate(all="ignore"), quiet.hidden():
        return fn(*examples, **kwargs)


def cast(operand: Operand, dtype: np.dtype) -> Node:
    node = operand.node
    if node.dtype == dtype:
        return node
    _keeps_imaginary(node, dtype)
    if node.op is Op.CONST and not isinstance(node.attr.value, np.ndarray):
        with np.errstate(all="raise", under="ignore"):
            try:
                value = dtype.type(node.attr.value)
            except FloatingPointError:  # 1e300 to float32: NumPy warns at each call, so
                value = None  # the cast stays in the code, raising its flag there
        if value is not None:
            return current().node(Op.CONST, (), dtype, node.shape, ConstAttr(value))
    return current().node(Op.CAST, (node,), dtype, node.shape)


def cast_node(node: Node, dtype: np.dtype) -> Node:
    """:func:`cast` of a node the trace made (not a weak Python scalar)."""
    return cast(Operand(node, False, None), dtype)


def _loop_dtypes(fn: Callable, operands: Sequence[Operand]) -> tuple[np.dtype, ...] | None:
    """The dtypes NumPy's ufunc loop computes in, one per operand (None: not a ufunc)."""
    if not isinstance(fn, np.ufunc):
        return None
    every_weak = all(o.weak for o in operands)  # NumPy resolves (int, int) to object loops
    all_bool = all(o.node.dtype == np.bool_ for o in operands if not o.weak)
    signature = tuple(
        _weak_type(o.example, all_bool) if o.weak and not every_weak else o.node.dtype
        for o in operands
    )
    try:
        resolved = fn.resolve_dtypes(signature + (None,))
    except (TypeError, np.exceptions.DTypePromotionError):
        return None
    return tuple(np.dtype(d) for d in resolved[: len(operands)])


def _weak_type(example: Any, all_bool: bool) -> Any:
    """What ``resolve_dtypes`` takes for a weak Python scalar. It has no entry for Python's
    ``bool``: with bool arrays it is the bool dtype (``b | True`` stays logical), with any
    other it acts as the int 1 or 0 (``x <= True`` compares with 1.0, as NumPy does)."""
    if type(example) is bool:
        return np.dtype(bool) if all_bool else int
    return type(example)


def elementwise(
    op: Op, operands: Sequence[Operand], numpy_fn: Callable | None = None, ufunc: bool = False
) -> Node:
    """A broadcasting elementwise op; operands are cast to the ufunc loop's dtypes. ``ufunc``:
    called as a NumPy ufunc, which computes NumPy scalars as arrays (see :func:`_arith_kind`)."""
    fn = numpy_fn or info(op).numpy
    result = _example_call(fn, [o.example for o in operands])
    dtype = check_dtype(np.asarray(result).dtype)
    shape = S.broadcast_shapes(current().env, *(o.node.shape for o in operands))
    loop = _loop_dtypes(fn, operands)
    if loop is None and op is Op.WHERE:
        loop = (np.dtype(bool), dtype, dtype)
    if loop is None and op in COMPARISONS:  # compare in the operands' common type, not bool
        common = np.result_type(*(o.example for o in operands))
        loop = tuple(common for _ in operands)
    if loop is None:
        loop = tuple(dtype for _ in operands)
    if op in COMPARISONS and _needs_exact_compare(operands, loop):
        return limits.exact_compare(op, operands[0].node, operands[1].node, shape)
    if op in COMPARISONS and len(set(loop)) > 1:
        raise TraceBreak(TraceReason.MIXED_SIGN_COMPARISON, "runs in NumPy")
    inputs = tuple(_loop_operand(op, o, d) for o, d in zip(operands, loop))
    node = current().node(op, inputs, dtype, shape, _arith_kind(op, dtype, operands, ufunc))
    if all(o.weak for o in operands):  # Python's arithmetic: never a NumPy warning
        current().python_numbers.add(node.id)
    if op is Op.POW and dtype.kind in "iu":
        limits.power_check(node)
    return node


#: (op, dtype kinds) where NumPy's scalar operators differ from its array loops: a complex
#: product rounds otherwise, an integer sum, product, ``-s`` or ``abs(s)`` warns of overflow
#: ("overflow encountered in scalar add", "scalar negative"; the array loops wrap silently).
_SCALAR_MATH = {Op.MUL: "ciu", Op.ADD: "iu", Op.SUB: "iu", Op.NEG: "iu", Op.ABS: "i"}


def _arith_kind(op: Op, dtype: np.dtype, operands: Sequence[Operand], ufunc: bool) -> Any:
    """``ArithKind.SCALAR`` for an op of NumPy scalars or Python numbers by an operator
    (``s * t``: NumPy's scalar math) where that differs (``_SCALAR_MATH``), None for one of
    arrays (0-d ones too) or a ufunc call. Of Python ints only, it is Python's arithmetic."""
    if op is Op.WHERE and ufunc:
        return ArithKind.EVERY
    if dtype.kind not in _SCALAR_MATH.get(op, "") or ufunc:
        return None
    if any(isinstance(o.example, np.ndarray) for o in operands):
        return None
    if dtype.kind != "c" and not any(isinstance(o.example, np.generic) for o in operands):
        return None
    return ArithKind.SCALAR


def _is_python_int(operand: Operand) -> bool:
    return (
        operand.weak and isinstance(operand.example, int) and not isinstance(operand.example, bool)
    )


def _may_not_fit(operand: Operand, dtype: np.dtype) -> bool:
    """A Python int that may lie outside the integer dtype it is about to be converted to."""
    if not _is_python_int(operand) or dtype.kind not in "iu" or operand.node.dtype == dtype:
        return False
    return not limits.known_to_fit(operand.node, operand.example, dtype)


def _needs_exact_compare(operands: Sequence[Operand], loop: Sequence[np.dtype]) -> bool:
    """Integers compared across signedness, or with a Python int the loop's dtype may not
    hold (``uint8_array >= -1``): NumPy compares the values exactly, not their casts."""
    if len(operands) != 2 or any(o.node.dtype.kind not in "biu" for o in operands):
        return False
    if all(o.node.dtype.kind == "b" for o in operands):
        return False
    mixed = len({d.kind for d in loop}) > 1 and all(d.kind in "iu" for d in loop)
    return mixed or any(_may_not_fit(o, d) for o, d in zip(operands, loop))


def _loop_operand(op: Op, operand: Operand, dtype: np.dtype) -> Node:
    """``operand`` cast to its loop dtype; a Python int must fit it (NumPy raises
    OverflowError), except in ``np.where``, which casts unsafely."""
    if op is not Op.WHERE and _may_not_fit(operand, dtype):
        if op is Op.CLIP:
            raise TraceBreak(
                TraceReason.CLIP_INT_BOUND,
                "NumPy drops a bound outside the array's dtype: runs in NumPy",
            )
        limits.require_int_fits(operand.node, operand.example, dtype)
    return cast(operand, dtype)


def astype(operand: Operand, dtype: np.dtype) -> Node:
    """A cast, a new array even to the same dtype."""
    dtype = check_dtype(np.dtype(dtype))
    _keeps_imaginary(operand.node, dtype)
    return current().node(Op.CAST, (operand.node,), dtype, operand.node.shape)


def _keeps_imaginary(node: Node, dtype: np.dtype) -> None:
    """Complex to a real dtype (``x.astype(float)``, ``np.full(n, z, float)``) runs as
    written: NumPy warns ComplexWarning at every call, from the user's line (compiled, it came
    from ours, and again when a flag reran it). To bool NumPy is quiet."""
    if node.dtype.kind == "c" and dtype.kind not in "cb":
        raise TraceBreak(TraceReason.COMPLEX_TO_REAL_CAST, "NumPy warns ComplexWarning")


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis=None|int|tuple`` to sorted non-negative axes, with NumPy's AxisError."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    normalized = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(a, ndim)
        normalized.append(a % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(normalized))


#: the reductions an empty axis makes raise, each with NumPy's own message (it names the op)
_NO_IDENTITY = {
    Op.MAX: SizeCheckKind.NONEMPTY,
    Op.MIN: SizeCheckKind.NONEMPTY_MIN,
    Op.ARGMAX: SizeCheckKind.NONEMPTY_ARGMAX,
    Op.ARGMIN: SizeCheckKind.NONEMPTY_ARGMIN,
}


def reduction(
    op: Op, operand: Operand, axis: Any, keepdims: bool, ddof: int = 0
) -> tuple[Node, bool]:
    """A reduction node and whether NumPy would return a scalar (a full reduction)."""
    node = operand.node
    axes = normalize_axes(axis, node.ndim)
    if op in (Op.ARGMAX, Op.ARGMIN) and axis is not None and len(axes) != 1:
        raise TypeError("argmax/argmin take a single integer axis")
    empty = any(node.shape[a] == 0 for a in axes) or (
        node.ndim and axis is None and 0 in node.shape
    )
    nonempty = _NO_IDENTITY.get(op)
    if empty and nonempty:
        raise ValueError(size_check_message(nonempty, (0,)))
    reduced_dims = [node.shape[a] for a in axes]
    if nonempty and any(map(S.is_runtime, reduced_dims)):
        current().env.check(nonempty, S.prod(reduced_dims))
    kwargs: dict[str, Any] = {"keepdims": keepdims}
    if op in (Op.VAR, Op.STD):
        kwargs["ddof"] = ddof
    example = np.ones((1,) * node.ndim, node.dtype)
    call_axis = None if axis is None else (axes[0] if op in (Op.ARGMAX, Op.ARGMIN) else axes)
    result = _example_call(info(op).numpy, [example], axis=call_axis, **kwargs)
    dtype = check_dtype(np.asarray(result).dtype)
    if keepdims:
        shape = tuple(1 if i in axes else d for i, d in enumerate(node.shape))
    else:
        shape = tuple(d for i, d in enumerate(node.shape) if i not in axes)
    attr = ReduceAttr(axes, keepdims, ddof)
    reduced = current().node(op, (node,), dtype, shape, attr)
    return reduced, not isinstance(result, np.ndarray)


def index(node: Node, items: Sequence[IndexItem], dynamic: Sequence[Node] = ()) -> Node:
    """A view of ``node``; ``dynamic`` are the run-time index values DynIndex items refer to."""
    consumed = sum(1 for item in items if item.kind is not IndexKind.NEWAXIS)
    full = tuple(items) + tuple(IndexItem(IndexKind.SLICE, 0, d, 1) for d in node.shape[consumed:])
    shape = index_shape(node.shape, items)
    return current().node(Op.INDEX, (node, *dynamic), node.dtype, shape, full)


def reshape(node: Node, new_shape: Sequence[S.Dim]) -> Node:
    env = current().env
    total = S.prod(node.shape)
    unknown = [i for i, d in enumerate(new_shape) if isinstance(d, int) and d == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    dims = list(new_shape)
    if unknown:
        known = S.prod([d for i, d in enumerate(dims) if i != unknown[0]])
        if S.hint(known) == 0 or not env.is_eq(S.dim_mod(total, known), 0):
            raise ValueError(
                f"cannot reshape array of size {S.hint(total)} into shape {_hints(dims)}"
            )
        dims[unknown[0]] = S.dim_floordiv(total, known)
    elif not env.is_eq(S.prod(dims), total):
        raise ValueError(f"cannot reshape array of size {S.hint(total)} into shape {_hints(dims)}")
    dims = [_specialize_small(env, d) for d in dims]
    return current().node(Op.RESHAPE, (node,), node.dtype, tuple(dims), tuple(dims))


def _specialize_small(env: S.ShapeEnv, d: S.Dim) -> S.Dim:
    """Sizes 0 and 1 change broadcasting, so a derived size that is 0 or 1 is pinned."""
    if isinstance(d, S.SymDim) and d.hint in (0, 1):
        return env.specialize(d)
    return d


def transpose(node: Node, perm: Sequence[int]) -> Node:
    perm = tuple(int(p) % max(node.ndim, 1) for p in perm)
    if sorted(perm) != list(range(node.ndim)):
        raise ValueError("axes don't match array")
    shape = tuple(node.shape[p] for p in perm)
    return current().node(Op.TRANSPOSE, (node,), node.dtype, shape, perm)


def broadcast_to(node: Node, shape: Sequence[S.Dim]) -> Node:
    env = current().env
    target = tuple(shape)
    if len(target) < node.ndim:
        raise ValueError("input operand has more dimensions than allowed by the axis remapping")
    padded = (1,) * (len(target) - node.ndim) + node.shape
    for have, want in zip(padded, target):
        if have != 1 and not (have == want or env.is_eq(have, want)):
            raise ValueError("operands could not be broadcast together with remapped shapes")
    return current().node(Op.BROADCAST_TO, (node,), node.dtype, target, target)


def same_shape(a: Sequence[S.Dim], b: Sequence[S.Dim]) -> bool:
    """Whether two shapes are one, as far as the trace may tell: a size known only at run time
    counts as equal (its value may not be asked for)."""
    env = current().env

    def same(x: S.Dim, y: S.Dim) -> bool:
        return x == y or S.is_runtime(x) or S.is_runtime(y) or env.is_eq(x, y)

    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


def check_broadcast(value: Sequence[S.Dim], target: Sequence[S.Dim]) -> None:
    """``target[...] = value`` needs ``value`` to broadcast to ``target``; NumPy's error if not."""
    env = current().env
    fits = not any(d != 1 for d in value[: max(len(value) - len(target), 0)])
    for have, want in zip(reversed(value), reversed(target)):
        if S.is_runtime(have) or S.is_runtime(want):
            continue  # checked by the store itself when it runs (store_checks)
        fits = fits and (have == 1 or have == want or env.is_eq(have, want))
    if not fits:
        raise ValueError(
            f"could not broadcast input array from shape {_hints(value)} "
            f"into shape {_hints(target)}"
        )


def _hints(shape: Sequence[S.Dim]) -> tuple[int, ...]:
    return tuple(S.hint(d) for d in shape)


def matmul(op: Op, a: Operand, b: Operand) -> Node:
    """``a @ b`` / ``np.dot`` shapes (stacks of matrices broadcast), computed as an extern call."""
    env = current().env
    x, y = a.node, b.node
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions")
    if op is Op.DOT and (x.ndim > 2 or y.ndim > 2):
        raise TraceBreak(TraceReason.DOT_ABOVE_2D, "use @ (matmul) or run in NumPy")
    k_left = x.shape[-1]
    k_right = y.shape[0] if y.ndim == 1 else y.shape[-2]
    if not env.is_eq(k_left, k_right):
        raise ValueError(
            f"matmul: mismatch in its core dimension ({S.hint(k_left)} != {S.hint(k_right)})"
        )
    rows = () if x.ndim == 1 else (x.shape[-2],)
    cols = () if y.ndim == 1 else (y.shape[-1],)
    batch = S.broadcast_shapes(env, x.shape[:-2], y.shape[:-2])
    result = _example_call(info(op).numpy, [np.ones((1, 1), x.dtype), np.ones((1, 1), y.dtype)])
    dtype = check_dtype(result.dtype)
    inputs = (cast(a, dtype), cast(b, dtype))
    return current().node(op, inputs, dtype, batch + rows + cols)
