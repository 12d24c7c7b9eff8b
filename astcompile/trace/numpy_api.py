"""The NumPy functions, ufuncs and array methods the tracer models.

Each supported NumPy callable maps to a small handler in a table; a callable missing from the
table is a trace-time break ("not supported by the tracer") and the region runs in NumPy, so
the subset can only ever make code faster, never wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from astcompile import registry
from astcompile.ir.ops import REDUCTION_TO_OP, UFUNC_TO_OP, Op
from astcompile.runtime.memory_order import axis_order
from astcompile.trace import complex as complex_parts
from astcompile.trace import (
    gather,
    handlers,
    literals,
    memory_order,
    numpy_bind,
    numpy_construct,
    numpy_diag,
    numpy_fill,
    numpy_grid,
    numpy_join,
    numpy_repeat,
    numpy_round,
    numpy_scan,
    numpy_stats,
    numpy_steps,
    numpy_steps_more,
    numpy_steps_search,
)
from astcompile.trace import nodes as B
from astcompile.trace import numpy_layout as L
from astcompile.trace import numpy_views_norms as views_norms
from astcompile.trace.context import TraceBreak
from astcompile.trace.masks import MaskedValue, masked_ufunc
from astcompile.trace.nonzero import nonzero
from astcompile.trace.outargs import ufunc_into
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, apply_elementwise, matmul, operand, wrap
from astcompile.trace.vectors import inner_product


def _unsupported(what: str) -> TraceBreak:
    return TraceBreak(TraceReason.NOT_SUPPORTED, f"{what} runs in NumPy")


def _check_allowed(func: Any) -> None:
    if registry.is_disallowed(func):
        name = getattr(func, "__name__", repr(func))
        raise TraceBreak(TraceReason.DISALLOWED_OP, f"{name} is marked disallow_in_graph")


@handlers.register
def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    _check_allowed(ufunc)
    if any(isinstance(v, MaskedValue) for v in inputs):
        return masked_ufunc(ufunc, method, inputs, kwargs)
    if method == "outer":
        return numpy_join.ufunc_outer(ufunc, inputs, kwargs)
    if method == "at" and not kwargs:
        return gather.ufunc_at(ufunc, *inputs)
    if method != "__call__":
        raise _unsupported(f"np.{ufunc.__name__}.{method}")
    out = kwargs.pop("out", None)
    if any(v is not None for k, v in kwargs.items() if k != "casting" or v != "same_kind"):
        raise _unsupported(f"np.{ufunc.__name__} with {', '.join(kwargs)}=")
    if out is not None:
        return ufunc_into(ufunc, lambda: array_ufunc(ufunc, method, inputs, {}), inputs, out)
    if ufunc is np.matmul:
        return matmul(Op.MATMUL, inputs[0], inputs[1])
    if ufunc is np._core.umath.clip:
        return apply_elementwise(Op.CLIP, *inputs, numpy_fn=ufunc, ufunc=True)
    op = UFUNC_TO_OP.get(ufunc)
    if op is None:
        raise _unsupported(f"np.{ufunc.__name__}")
    return apply_elementwise(op, *inputs, ufunc=True)


def _reduce(op: Op) -> Callable:
    """One handler for a reduction's function and method; NumPy's ``initial=``, ``where=``,
    ``mean=`` and ``correction=`` break the trace (numpy_bind)."""

    def handler(
        a: Any,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
        ddof: int = 0,
    ) -> Any:
        if dtype is not None or out is not None:
            raise _unsupported(f"np.{op.name.lower()} with dtype= or out=")
        if isinstance(a, (list, tuple)):
            raise _unsupported(f"np.{op.name.lower()} of a Python sequence")
        keep = bool(keepdims) if keepdims is not np._NoValue else False
        return _ordered_reduction(op, a, axis, keep, int(ddof))

    return handler


def _where(condition: Any, x: Any = None, y: Any = None) -> Any:
    if x is None and y is None:
        return nonzero(condition)  # indices: compiled where they only index (trace/nonzero.py)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return apply_elementwise(Op.WHERE, condition, x, y, ufunc=True)


def _nonzero(a: Any) -> Any:
    return nonzero(a)


def _clip(
    a: Any,
    a_min: Any = np._NoValue,
    a_max: Any = np._NoValue,
    out: Any = None,
    *,
    min: Any = np._NoValue,
    max: Any = np._NoValue,
) -> Any:
    """``np.clip``; the bounds by position (``a_min``, ``a_max``) or by keyword (``min=``,
    ``max=``, NumPy 2's names). NumPy calls the method of ``np.asarray(a)``: a Python number
    clipped is a strong float64 or int64 (only the bounds stay weak)."""
    low = min if a_min is np._NoValue else a_min
    high = max if a_max is np._NoValue else a_max
    if out is not None:
        raise _unsupported("np.clip with out=")
    if any(bound is None or bound is np._NoValue for bound in (low, high)):
        raise _unsupported("np.clip with a missing bound")
    a = a if isinstance(a, SymArray) else literals.asarray(a)
    return apply_elementwise(Op.CLIP, a, low, high, numpy_fn=np._core.umath.clip, ufunc=True)


def _clip_method(a: Any, min: Any = None, max: Any = None, out: Any = None) -> Any:
    return _clip(a, min, max, out)


def _dot(a: Any, b: Any, out: Any = None) -> Any:
    if out is not None:
        raise _unsupported("np.dot with out=")
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return apply_elementwise(Op.MUL, a, b)
    product = inner_product(a, b, in_loop_only=True)
    if product is not None:
        return product
    return matmul(Op.DOT, a, b)


def _vdot(a: Any, b: Any) -> Any:
    complex_a = (a.dtype if isinstance(a, SymArray) else np.asarray(a).dtype).kind == "c"
    product = inner_product(np.conjugate(a) if complex_a else a, b)
    if product is None:
        raise _unsupported("np.vdot of arrays other than 1-D float or complex vectors")
    return product


CREATION: dict[Callable, Callable] = {
    **numpy_fill.CREATION,
    np.array: literals.array,
    np.asarray: literals.asarray,
    **numpy_construct.CREATION,
}


def _ndim(a: Any) -> int:
    return a.ndim if isinstance(a, SymArray) else np.ndim(a)


def _shape(a: Any) -> tuple:
    return a.shape if isinstance(a, SymArray) else np.shape(a)


FUNCTIONS: dict[Callable, Callable] = {
    **{fn: _reduce(op) for fn, op in REDUCTION_TO_OP.items()},
    np.where: _where,
    np.nonzero: _nonzero,
    np.clip: _clip,
    **L.FUNCTIONS,
    np.dot: _dot,
    np.vdot: _vdot,
    np.ndim: _ndim,
    np.real: complex_parts.real,
    np.imag: complex_parts.imag,
    np.angle: complex_parts.angle,
    np.shape: _shape,
    **numpy_fill.FUNCTIONS,
    **views_norms.FUNCTIONS,
    **numpy_construct.FUNCTIONS,
    **numpy_join.FUNCTIONS,
    **numpy_scan.FUNCTIONS,
    **numpy_repeat.FUNCTIONS,
    **numpy_stats.FUNCTIONS,
    **numpy_grid.FUNCTIONS,
    **numpy_round.FUNCTIONS,
    **numpy_diag.FUNCTIONS,
    **numpy_steps.FUNCTIONS,
    **numpy_steps_more.FUNCTIONS,
    **numpy_steps_search.FUNCTIONS,
}


@handlers.register
def array_function(func: Callable, args: tuple, kwargs: dict) -> Any:
    _check_allowed(func)
    if any(isinstance(v, MaskedValue) for v in (*args, *kwargs.values())):
        return NotImplemented  # the selection's own __array_function__ handles it
    handler = FUNCTIONS.get(func)
    if handler is None:
        raise _unsupported(f"np.{getattr(func, '__name__', func)}")
    return numpy_bind.call_function(func, handler, args, kwargs)


METHODS: dict[str, Callable] = {
    **{
        fn.__name__: _reduce(op)
        for fn, op in REDUCTION_TO_OP.items()
        if fn.__name__
        in ("sum", "prod", "max", "min", "any", "all", "mean", "var", "std", "argmax", "argmin")
    },
    **L.METHODS,
    "clip": _clip_method,
    "nonzero": _nonzero,
    "dot": _dot,
    "conj": np.conjugate,
    "conjugate": np.conjugate,
    **numpy_scan.METHODS,
    **numpy_repeat.METHODS,
    **numpy_round.METHODS,
    **numpy_steps_search.METHODS,
}


@handlers.register
def array_method(array: SymArray, name: str) -> Callable:
    handler = METHODS.get(name)
    if handler is None:
        if hasattr(np.ndarray, name):
            raise _unsupported(f"ndarray.{name}")
        raise AttributeError(f"'numpy.ndarray' object has no attribute '{name}'")
    return lambda *args, **kwargs: numpy_bind.call_method(name, handler, array, args, kwargs)


def _ordered_reduction(op: Op, array: Any, axis: Any, keepdims: bool, ddof: int) -> Any:
    """A reduction's SymArray, laid out as NumPy's: the kept axes in the order of the array's
    strides (``F3.sum(axis=1)`` is F-ordered). It reduces the array transposed into that
    order, which also undoes the transpose of an operand computed in it (``(a * 2).sum(0)``
    of an F-ordered ``a`` stays one kernel), and hands the result back transposed. argmax
    and argmin (whose flat index follows C order) reduce the array as it is."""
    source = operand(array)
    perm = axis_order([memory_order.ranks_of(array)]) if isinstance(array, SymArray) else ()
    if perm == tuple(range(len(perm))) or op in (Op.ARGMAX, Op.ARGMIN):
        return wrap(*B.reduction(op, source, axis, keepdims, ddof))
    axes = B.normalize_axes(axis, array.ndim)
    kept = [a for a in perm if a not in axes]
    back = perm if keepdims else tuple(sorted(kept).index(a) for a in kept)
    moved = replace(source, node=memory_order.to_order(array.node, array.node.shape, perm))
    inner = None if axis is None else tuple(sorted(perm.index(a) for a in axes))
    node, is_scalar = B.reduction(op, moved, inner, keepdims, ddof)
    if back == tuple(range(len(back))):
        return wrap(node, is_scalar)
    return wrap(B.transpose(node, memory_order.inverse(back)), base=wrap(node, is_scalar))
