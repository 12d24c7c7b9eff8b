"""NumPy functions with no kernel here, run by NumPy itself inside a compiled region.

``np.sort``, ``np.percentile``, ``np.interp``, ``np.linalg.solve``... have no fused-kernel form,
but the shape and dtype of their result follow from their inputs' shapes and dtypes. Rather
than break the region (running every statement around them as Python), the trace records a
NUMPY node: the wrapper calls NumPy's own function at that point, between the C kernels, on
the values the plain code would pass, so results, dtypes and errors are NumPy's. The static
arguments (an axis, ``q``, ``side``) are part of the node and guarded like any other constant.
In a loop region (one C function) such a node runs in the wrapper before the C function when
it reads only the region's arguments and comes before every store and loop (targets/c/
structured_plan.py); elsewhere it has no lowering, and its statement runs as written (GB023).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from astcompile import quiet
from astcompile.ir import shapes as S
from astcompile.ir.checks import RUN_PLAIN
from astcompile.ir.graph import Graph, InputKind, NumpyCallAttr
from astcompile.ir.ops import Op
from astcompile.trace import control as C
from astcompile.trace import handlers
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand, wrap

_PLAIN = (bool, int, float, str, type(None))


def static(value: Any, what: str) -> Any:
    """A static argument as a plain Python value (a traced int is guarded by value)."""
    if isinstance(value, SymArray):
        raise unsupported(f"{what} computed from array values")
    if isinstance(value, SymInt):
        return current().env.specialize(value.dim)
    if isinstance(value, SymScalar):
        return value._specialize()
    if isinstance(value, (list, tuple)):
        return tuple(static(v, what) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    if not isinstance(value, _PLAIN):
        raise unsupported(f"{what} of type {type(value).__name__}")
    return value


def _example(node: Any) -> np.ndarray:
    """A small array of the node's dtype and rank (each size at most 2) to ask NumPy for the
    result's dtype: ones, plus twice the identity on square matrices (solve needs them
    invertible)."""
    shape = tuple(min(S.hint(d), 2) for d in node.shape)
    example = np.ones(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        example = example + 2 * np.eye(shape[-1])
    return example.astype(node.dtype)


def step(
    name: str,
    arrays: Sequence[Any],
    kwargs: dict,
    shape: Callable[[list], tuple],
    keywords: tuple[str, ...] = (),
    item: int | None = None,
    lead: tuple = (),
    probe: dict | None = None,
    view_of: int | None = None,
) -> Any:
    """The NUMPY node for ``np.<name>(*lead, *arrays, **kwargs)``; ``shape`` maps the input
    nodes to the result's (symbolic) shape; ``keywords`` and ``item`` as in NumpyCallAttr.
    ``probe`` replaces keyword arguments that the small examples cannot take (``kth=5`` of
    ``np.partition``). ``view_of`` is the array NumPy may return (a view of) instead of a new
    array (``np.diag`` of a matrix: 0): a NUMPY_VIEW node, which no kernel writes over."""
    nodes = [operand(a).node for a in arrays]
    attr = NumpyCallAttr(name, tuple(sorted(kwargs.items())), keywords, item, lead, view_of or 0)
    raw = _try(attr, nodes, {**kwargs, **(probe or {})})
    example = np.asarray(raw)
    result_shape = shape(nodes)
    op = Op.NUMPY if view_of is None else Op.NUMPY_VIEW
    node = current().node(op, tuple(nodes), example.dtype, result_shape, attr)
    return wrap(node, is_scalar=node.ndim == 0 and not isinstance(raw, np.ndarray))


def results(
    name: str,
    arrays: Sequence[Any],
    kwargs: dict,
    shapes: Callable[[list], Sequence[tuple]],
    keywords: tuple[str, ...] = (),
    views: dict[int, int] | None = None,
) -> tuple:
    """Each result of a function that returns several (``np.linalg.eigh``'s eigenvalues and
    eigenvectors) as a step of its own, in the tuple type NumPy returns (``EighResult``);
    ``views`` maps a result to the array it may be (``view_of`` of :func:`step`)."""
    nodes = [operand(a).node for a in arrays]
    raw = _try(NumpyCallAttr(name, tuple(sorted(kwargs.items())), keywords), nodes, kwargs)
    items = [
        step(
            name,
            arrays,
            kwargs,
            lambda n, k=k: tuple(shapes(n)[k]),
            keywords,
            k,
            view_of=(views or {}).get(k),
        )
        for k in range(len(raw))
    ]
    kind = type(raw)
    return kind(*items) if hasattr(kind, "_fields") else tuple(items)


def _try(attr: NumpyCallAttr, nodes: list, kwargs: dict) -> Any:
    """The call on small examples of the inputs: the result's dtype and Python type, or
    NumPy's error (the region then runs as written, and the plain code raises it). The
    examples are not the user's data: their warnings (``np.polyfit``'s RankWarning) are not
    shown."""
    try:
        with quiet.hidden(), np.errstate(all="ignore"):
            return attr.function()(*map(_example, nodes), **kwargs)
    except Exception as exc:  # noqa: BLE001 - NumPy's error on this call is the user's error
        raise unsupported(f"np.{attr.name} here ({type(exc).__name__}: {exc})") from None


def axes_of(axis: Any, ndim: int) -> tuple[int, ...] | None:
    axis = static(axis, "an axis")
    if axis is None:
        return None
    axes = axis if isinstance(axis, tuple) else (axis,)
    found = tuple(sorted(operator.index(a) % max(ndim, 1) for a in axes))
    if any(not -ndim <= operator.index(a) < max(ndim, 1) for a in axes):
        raise unsupported("an axis out of range")  # NumPy's AxisError, from the plain code
    return found


def _reduced(shape: tuple, axes: tuple[int, ...] | None, keepdims: bool) -> tuple:
    if axes is None:
        return (1,) * len(shape) if keepdims else ()
    return tuple(1 if a in axes else d for a, d in enumerate(shape) if keepdims or a not in axes)


def _sorting(name: str) -> Callable:
    def handler(a: Any, axis: Any = -1, kind: Any = None, stable: Any = None) -> Any:
        ndim = np.ndim(a) if not isinstance(a, SymArray) else a.ndim
        axes = axes_of(axis, ndim)
        kwargs = {"axis": None if axes is None else axes[0], "kind": static(kind, "kind")}
        if stable is not None:
            kwargs["stable"] = static(stable, "stable")
        flat = axes is None
        return step(name, [a], kwargs, lambda n: (S.prod(n[0].shape),) if flat else n[0].shape)

    return handler


def _quantile(name: str) -> Callable:
    def handler(a: Any, q: Any, axis: Any = None, method: Any = "linear", keepdims: Any = False):
        q = static(q, "q")
        q_shape = np.shape(q)
        ndim = a.ndim if isinstance(a, SymArray) else np.ndim(a)
        axes, keep = axes_of(axis, ndim), bool(static(keepdims, "keepdims"))
        kwargs = {"q": q, "axis": axes, "method": static(method, "method"), "keepdims": keep}
        return step(name, [a], kwargs, lambda n: (*q_shape, *_reduced(n[0].shape, axes, keep)))

    return handler


def _median(a: Any, axis: Any = None, keepdims: Any = False) -> Any:
    """``np.median``; in a loop, a float one is checked not NaN: C computes a window's median
    (a rolling median) where the check hands NaN, and what C cannot match, to the plain code."""
    ndim = a.ndim if isinstance(a, SymArray) else np.ndim(a)
    axes, keep = axes_of(axis, ndim), bool(static(keepdims, "keepdims"))
    lines = _window_lines(a, axes, keep)
    if lines is not None:
        return handlers.stack([_median(line) for line in lines])
    kwargs = {"axis": axes, "keepdims": keep}
    median = step("median", [a], kwargs, lambda n: _reduced(n[0].shape, axes, keep))
    window = isinstance(a, SymArray) and a.ndim == 1 and a.dtype.kind == "f"
    if current().loop_depth and window and median.ndim == 0:
        # C's median of a window in a loop (targets/c/structured_numpy.py) gives NaN where
        # it cannot be NumPy's: a NaN, an empty window, inf - inf, a sum that overflows
        C.rerun_on_failure(TraceReason.NOT_SUPPORTED, "np.median of a window with a NaN")
        C.check(median == median, RUN_PLAIN, "a NaN median: the region's statements")
    return median


#: The most columns (or rows) of a 2-D window whose medians a loop computes one by one.
_WINDOW_LINES = 16


def _window_lines(a: Any, axes: tuple | None, keep: bool) -> list | None:
    """The columns of ``w`` for ``np.median(w, axis=0)`` (the rows for ``axis=1``) of a 2-D
    float window a loop moves (``x[i:i + k]``, a rolling median of each column), at most
    :data:`_WINDOW_LINES` of them, their count guarded; else None. NumPy's median along an
    axis is each line's own (the middle values, ``(0 + a + b) / 2``), so each is a window's
    median, which C computes (targets/c/structured_numpy.py) where the whole call would break
    the loop (GB023); a window the loop does not move stays one NumPy call before it."""
    if not (current().loop_depth and isinstance(a, SymArray) and a.ndim == 2):
        return None
    if a.dtype.kind != "f" or axes is None or len(axes) != 1 or keep or not _moves(a):
        return None
    count = a.node.shape[1 - axes[0]]
    if S.hint(count) > _WINDOW_LINES or S.hint(count) < 1:
        return None
    if not isinstance(count, int):
        count = current().env.specialize(count)
    return [a[:, j] if axes[0] == 0 else a[j, :] for j in range(count)]


def _moves(a: SymArray) -> bool:
    """Whether ``a`` depends on a loop's variable or carried values."""
    loop_inputs = (InputKind.LOOP_VAR, InputKind.CARRIED)
    return any(
        n.op is Op.INPUT and n.attr.input_kind in loop_inputs
        for n in Graph("window", [], [a.node]).nodes()
    )


def _interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None) -> Any:
    kwargs = {"left": static(left, "left"), "right": static(right, "right")}
    return step("interp", [x, xp, fp], kwargs, lambda n: n[0].shape)


def searchsorted(a: Any, v: Any, side: Any = "left", sorter: Any = None) -> Any:
    """``np.searchsorted`` and ``a.searchsorted``: ``sorter`` goes in by keyword."""
    keywords = ("sorter",) if sorter is not None else ()
    arrays = [a, v] + ([sorter] if sorter is not None else [])
    kwargs = {"side": static(side, "side")}
    return step("searchsorted", arrays, kwargs, lambda n: n[1].shape, keywords)


def _solve(a: Any, b: Any) -> Any:
    return step("linalg.solve", [a, b], {}, lambda n: n[1].shape)


def _inv(a: Any) -> Any:
    return step("linalg.inv", [a], {}, lambda n: n[0].shape)


def _det(a: Any) -> Any:
    return step("linalg.det", [a], {}, lambda n: n[0].shape[:-2])


def _histogram(
    a: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None
) -> tuple:
    """``np.histogram``: two steps, the counts and the edges, whose lengths follow from
    ``bins`` (a number, or the edges themselves); ``bins='auto'`` (a number the data decides)
    runs in NumPy."""
    kwargs = {"range": static(range, "range"), "density": static(density, "density")}
    arrays = [a]
    if isinstance(bins, (SymArray, np.ndarray, list, tuple)):
        arrays.append(bins)
    else:
        kwargs["bins"] = static(bins, "bins")
        if not isinstance(kwargs["bins"], int) or isinstance(kwargs["bins"], bool):
            raise unsupported(f"np.histogram with bins={kwargs['bins']!r}")
    keywords = ("weights",) if weights is not None else ()
    arrays += [weights] if weights is not None else []

    def shapes(nodes: list) -> list[tuple]:
        edges = nodes[1].shape[0] if "bins" not in kwargs else kwargs["bins"] + 1
        return [(S.dim_sub(edges, 1),), (edges,)]

    # edges given as an array: NumPy returns that very array as the edges
    views = {1: 1} if "bins" not in kwargs else None
    return results("histogram", arrays, kwargs, shapes, keywords, views)


#: np functions that dispatch through ``__array_function__``.
FUNCTIONS: dict[Callable, Callable] = {
    np.sort: _sorting("sort"),
    np.argsort: _sorting("argsort"),
    np.percentile: _quantile("percentile"),
    np.quantile: _quantile("quantile"),
    np.median: _median,
    np.interp: _interp,
    np.searchsorted: searchsorted,
    np.linalg.solve: _solve,
    np.linalg.inv: _inv,
    np.linalg.det: _det,
    np.histogram: _histogram,
}
