"""The NumPy functions, ufuncs and array methods the tracer models.

Each supported NumPy callable maps to a small handler in a table; a callable missing from the
table is a trace-time break ("not supported by the tracer") and the region runs in NumPy, so
the subset can only ever make code faster, never wrong.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from astcompile import registry
from astcompile.graph import build as B
from astcompile.graph import complex as complex_parts
from astcompile.graph import numpy_views_norms as views_norms
from astcompile.graph import numpy_construct, numpy_join, numpy_scan
from astcompile.graph.context import TraceBreak
from astcompile.graph.literals import literal_handler
from astcompile.graph.masks import MaskedValue, masked_ufunc
from astcompile.graph.ops import REDUCTION_TO_OP, UFUNC_TO_OP, Op
from astcompile.graph.outargs import ufunc_into
from astcompile.graph.symbolic import SymArray, SymInt, apply_elementwise, matmul, operand, wrap
from astcompile.graph.vectors import inner_product


def _unsupported(what: str) -> TraceBreak:
    return TraceBreak("not supported by the tracer", f"{what} runs in NumPy")


def _check_allowed(func: Any) -> None:
    if registry.is_disallowed(func):
        name = getattr(func, "__name__", repr(func))
        raise TraceBreak("disallowed op", f"{name} is marked disallow_in_graph")


def array_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    _check_allowed(ufunc)
    if any(isinstance(v, MaskedValue) for v in inputs):
        return masked_ufunc(ufunc, method, inputs, kwargs)
    if method == "outer":
        return numpy_join.ufunc_outer(ufunc, inputs, kwargs)
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
    def handler(a: Any, axis: Any = None, dtype: Any = None, out: Any = None,
                keepdims: bool = False, ddof: int = 0, **rest: Any) -> Any:
        if dtype is not None or out is not None or any(v is not np._NoValue for v in rest.values()):
            raise _unsupported(f"np.{op.name.lower()} with dtype=/out=/where=/initial=")
        if isinstance(a, (list, tuple)):
            raise _unsupported(f"np.{op.name.lower()} of a Python sequence")
        keep = bool(keepdims) if keepdims is not np._NoValue else False
        node, is_scalar = B.reduction(op, operand(a), axis, keep, int(ddof))
        return wrap(node, is_scalar=is_scalar)

    return handler


def _where(condition: Any, *values: Any) -> Any:
    if len(values) != 2:
        raise _unsupported("np.where with one argument (it returns indices)")
    return apply_elementwise(Op.WHERE, condition, *values, ufunc=True)


def _clip(a: Any, a_min: Any = None, a_max: Any = None, out: Any = None, **kwargs: Any) -> Any:
    if out is not None or kwargs:
        raise _unsupported("np.clip with out= or keyword bounds")
    if a_min is None or a_max is None:
        raise _unsupported("np.clip with a missing bound")
    return apply_elementwise(Op.CLIP, a, a_min, a_max, numpy_fn=np._core.umath.clip, ufunc=True)


def _dims(shape: Any) -> tuple:
    items = shape if isinstance(shape, (tuple, list)) else (shape,)
    return tuple(d.dim if isinstance(d, SymInt) else int(d) for d in items)


def _sym(a: Any) -> SymArray:
    return a if isinstance(a, SymArray) else wrap(operand(a).node)


def _keeps_scalar(array: SymArray, result: SymArray) -> SymArray:
    """Shape methods of a NumPy scalar (``s.T``, ``s.reshape(())``, ``np.squeeze(s)``) give a
    scalar back when the result is 0-d; the same methods of a 0-d array give a 0-d array."""
    result.is_scalar = array.is_scalar and result.ndim == 0
    return result


def _reshape(a: Any, *shape: Any, order: str = "C", newshape: Any = None, copy: Any = None) -> Any:
    if order != "C" or copy is not None:
        raise _unsupported("reshape with order= or copy=")
    target = newshape if newshape is not None else (shape[0] if len(shape) == 1 else shape)
    array = _sym(a)
    return _keeps_scalar(array, wrap(B.reshape(array.node, _dims(target)), base=array))


def _transpose(a: Any, *axes: Any) -> Any:
    array = _sym(a)
    perm = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
    perm = perm or (None,)
    if perm == (None,):
        perm = tuple(reversed(range(array.ndim)))
    return _keeps_scalar(array, wrap(B.transpose(array.node, perm), base=array))


def _ravel(a: Any, order: str = "C") -> Any:
    return _reshape(a, -1, order=order)


def _flatten(a: Any, order: str = "C") -> Any:
    return _copy(_reshape(a, -1, order=order))


def _copy(a: Any, order: str = "K", **kwargs: Any) -> Any:
    """``np.copy``: always an array, even of a NumPy scalar (``s.copy()`` keeps the scalar)."""
    array = _sym(a)
    from astcompile.graph.context import current

    return wrap(current().node(Op.COPY, (array.node,), array.dtype, array.node.shape))


def _copy_method(array: SymArray, order: str = "K") -> Any:
    return _keeps_scalar(array, _copy(array, order))


def _astype(a: Any, dtype: Any, order: str = "K", casting: str = "unsafe", copy: bool = True) -> Any:
    array = _sym(a)
    target = np.dtype(dtype)
    if not np.can_cast(array.dtype, target, casting=casting):
        raise TypeError(f"Cannot cast array data from {array.dtype} to {target} "
                        f"according to the rule '{casting}'")
    if target == array.dtype:
        return _copy_method(array) if copy else array
    return wrap(B.astype(operand(array), target), is_scalar=array.is_scalar)


def _asarray(a: Any, dtype: Any = None, order: Any = None, **kwargs: Any) -> Any:
    """``np.asarray``: the array itself, or a 0-d array where ``a`` is a NumPy scalar."""
    array = _sym(a)
    if dtype is not None and np.dtype(dtype) != array.dtype:
        array = _astype(array, dtype)
    if array.is_scalar:
        return _copy(array)  # NumPy makes a new 0-d array of a scalar; its own node, boxed so
    return array


def _ascontiguousarray(a: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """Like ``np.asarray``, but NumPy makes a 0-d input one-dimensional."""
    array = _asarray(a, dtype)
    return _reshape(array, (1,)) if array.ndim == 0 else array


def _broadcast_to(a: Any, shape: Any, subok: bool = False) -> Any:
    array = _sym(a)
    return wrap(B.broadcast_to(array.node, _dims(shape)), base=array)


def _expand_dims(a: Any, axis: Any) -> Any:
    array = _sym(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out_ndim = array.ndim + len(axes)
    new_axes = B.normalize_axes(axes, out_ndim)
    key = tuple(None if i in new_axes else slice(None) for i in range(out_ndim))
    return array[key]


def _squeeze(a: Any, axis: Any = None) -> Any:
    array = _sym(a)
    shape = array.node.shape
    axes = [i for i, d in enumerate(shape) if d == 1] if axis is None else B.normalize_axes(axis, array.ndim)
    if any(shape[i] != 1 for i in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return _keeps_scalar(array, array[tuple(0 if i in axes else slice(None) for i in range(array.ndim))])


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


def _full_like(a: Any, fill: Any, dtype: Any = None, **kwargs: Any) -> Any:
    array = _sym(a)
    target = np.dtype(dtype) if dtype is not None else array.dtype
    value = operand(np.asarray(fill).astype(target)[()])
    from astcompile.graph.context import current

    spread = B.broadcast_to(value.node, array.node.shape)
    node = current().node(Op.COPY, (spread,), target, array.node.shape)
    return wrap(node)


def _filled(fill: Any) -> Callable:
    """``np.zeros(shape, dtype)`` & co: a fresh array the region may write into."""

    def handler(shape: Any, dtype: Any = float, order: str = "C", **kwargs: Any) -> Any:
        if order not in ("C", "K", "A") or kwargs.get("like") is not None:
            raise _unsupported("array creation with order='F' or like=")
        return _new_array(_dims(shape), np.dtype(dtype), fill)

    return handler


def _full(shape: Any, fill_value: Any, dtype: Any = None, order: str = "C", **kwargs: Any) -> Any:
    if isinstance(fill_value, SymArray) and fill_value.ndim:
        raise _unsupported("np.full with an array fill value")
    target = np.dtype(dtype) if dtype is not None else np.asarray(_hint(fill_value)).dtype
    return _new_array(_dims(shape), target, fill_value)


def _hint(value: Any) -> Any:
    if isinstance(value, SymArray):
        return value.dtype.type(0)
    return getattr(value, "hint", value)


def _new_array(shape: tuple, dtype: np.dtype, fill: Any) -> SymArray:
    from astcompile.graph.context import current

    B.check_dtype(dtype)
    if any(isinstance(d, int) and d < 0 for d in shape):
        raise ValueError("negative dimensions are not allowed")
    value = operand(fill)
    node = value.node if value.node.dtype == dtype else B.cast(value, dtype)
    spread = B.broadcast_to(node, shape)
    return wrap(current().node(Op.COPY, (spread,), dtype, shape))


CREATION: dict[Callable, Callable] = {
    np.zeros: _filled(0), np.ones: _filled(1), np.empty: _filled(0), np.full: _full,
    np.array: literal_handler(np.array), np.asarray: literal_handler(np.asarray),
    **numpy_construct.CREATION,
}


def _ndim(a: Any) -> int:
    return a.ndim if isinstance(a, SymArray) else np.ndim(a)


def _shape(a: Any) -> tuple:
    return a.shape if isinstance(a, SymArray) else np.shape(a)


FUNCTIONS: dict[Callable, Callable] = {
    **{fn: _reduce(op) for fn, op in REDUCTION_TO_OP.items()},
    np.where: _where, np.clip: _clip, np.reshape: _reshape, np.transpose: _transpose,
    np.ravel: _ravel, np.copy: _copy, np.ascontiguousarray: _ascontiguousarray, np.asarray: _asarray,
    np.broadcast_to: _broadcast_to, np.expand_dims: _expand_dims, np.squeeze: _squeeze,
    np.dot: _dot, np.vdot: _vdot, np.ndim: _ndim, np.real: complex_parts.real,
    np.imag: complex_parts.imag, np.angle: complex_parts.angle, np.shape: _shape,
    np.zeros_like: lambda a, dtype=None, **k: _full_like(a, 0, dtype),
    np.ones_like: lambda a, dtype=None, **k: _full_like(a, 1, dtype),
    np.full_like: _full_like,
    np.empty_like: lambda a, dtype=None, **k: _full_like(a, 0, dtype),
    **views_norms.FUNCTIONS,
    **numpy_construct.FUNCTIONS, **numpy_join.FUNCTIONS, **numpy_scan.FUNCTIONS,
}


def array_function(func: Callable, args: tuple, kwargs: dict) -> Any:
    _check_allowed(func)
    if any(isinstance(v, MaskedValue) for v in (*args, *kwargs.values())):
        return NotImplemented  # the selection's own __array_function__ handles it
    handler = FUNCTIONS.get(func)
    if handler is None:
        raise _unsupported(f"np.{getattr(func, '__name__', func)}")
    return handler(*args, **kwargs)


METHODS: dict[str, Callable] = {
    **{fn.__name__: _reduce(op) for fn, op in REDUCTION_TO_OP.items() if fn.__name__ in
       ("sum", "prod", "max", "min", "any", "all", "mean", "var", "std", "argmax", "argmin")},
    "reshape": _reshape, "transpose": _transpose, "ravel": _ravel, "flatten": _flatten,
    "copy": _copy_method, "astype": _astype, "clip": _clip, "dot": _dot, "squeeze": _squeeze,
    "conj": np.conjugate, "conjugate": np.conjugate, **numpy_scan.METHODS,
}


def array_method(array: SymArray, name: str) -> Callable:
    handler = METHODS.get(name)
    if handler is None:
        if hasattr(np.ndarray, name):
            raise _unsupported(f"ndarray.{name}")
        raise AttributeError(f"'numpy.ndarray' object has no attribute '{name}'")
    return lambda *args, **kwargs: handler(array, *args, **kwargs)

