"""Searching, selecting and counting as NumPy steps (see trace/numpy_steps.py), and the array
methods that sort and search.

``np.isin``, ``np.digitize`` and ``np.partition``/``np.argpartition`` have results whose
shape follows from their inputs' shapes, so the statements around them still compile;
``np.bincount`` with a ``minlength`` is NumPy's loop, traced. ``a.sort()`` sorts the caller's
array in place: it is ``a[...] = np.sort(a)``, a store of the step's result::

    x.sort()         ->  %1 = numpy sort(%0)        # NumPy's own np.sort
                         store %0[...] = %1         # into the caller's x, as x.sort() does
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.checks import RUN_PLAIN
from astcompile.trace import control as C
from astcompile.trace import handlers, numpy_fill
from astcompile.trace.context import current
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.numpy_steps import FUNCTIONS as SORTING
from astcompile.trace.numpy_steps import axes_of, searchsorted, static, step
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand


def _ndim(a: Any) -> int:
    return a.ndim if isinstance(a, SymArray) else np.ndim(a)


def _dtype(a: Any) -> np.dtype:
    return a.dtype if isinstance(a, SymArray) else np.asarray(a).dtype


def _isin(
    element: Any,
    test_elements: Any,
    assume_unique: Any = False,
    invert: Any = False,
    *,
    kind: Any = None,
) -> Any:
    kwargs = {
        "assume_unique": static(assume_unique, "assume_unique"),
        "invert": static(invert, "invert"),
        "kind": static(kind, "kind"),
    }
    return step("isin", [element, test_elements], kwargs, lambda n: n[0].shape)


def _digitize(x: Any, bins: Any, right: Any = False) -> Any:
    return step("digitize", [x, bins], {"right": static(right, "right")}, lambda n: n[0].shape)


def _selecting(name: str) -> Callable:
    """``np.partition``/``np.argpartition`` (and their methods): the result has ``a``'s shape
    (flattened with ``axis=None``). A ``kth`` the trace computed (``len(x) // 2``, an int
    argument) is a run-time operand, so a new length or ``k`` does not recompile; a constant
    one (or a tuple) is static. An out-of-range ``kth`` is NumPy's ValueError, from the step."""

    def handler(a: Any, kth: Any, axis: Any = -1, kind: Any = "introselect") -> Any:
        axes = axes_of(axis, _ndim(a))
        kwargs = {"axis": None if axes is None else axes[0], "kind": static(kind, "kind")}
        dims = operand(a).node.shape
        flat = axes is None
        shape = lambda n: (S.prod(n[0].shape),) if flat else n[0].shape
        length = S.prod(dims) if flat else dims[axes[0]]
        if isinstance(kth, (SymInt, SymScalar)) and not isinstance(length, int):
            # probed with kth=1 on examples of length 2
            return step(name, [a, kth], kwargs, shape, keywords=("kth",))
        kwargs["kth"] = kth = static(kth, "kth")
        probe = {"kth": tuple(0 for _ in kth) if isinstance(kth, tuple) else 0}
        return step(name, [a], kwargs, shape, probe=probe)

    return handler


def _bincount(x: Any, weights: Any = None, minlength: Any = 0) -> Any:
    """``np.bincount`` with a ``minlength`` as NumPy's loop: ``counts[x[k]] += weights[k]``
    into zeros of that length, int64 counts or float64 sums (a weight converts exactly, as
    NumPy's cast to float64 does). A value at or past ``minlength`` makes NumPy's result longer and a
    negative one is NumPy's ValueError: a CHECK hands such a call to the region's own
    statements (RunPlain), which the region allows where it stores only into arrays it made
    (trace/control.py); an unsigned dtype whose every value is below ``minlength`` (uint8
    data, 256) needs none. Other arguments (no ``minlength``, weights NumPy would not cast) run in NumPy."""
    dtype, top = _bincount_dtype(x, weights)
    if dtype is None or minlength is None or (isinstance(minlength, int) and minlength < 0):
        raise unsupported("np.bincount whose length depends on the data")
    if weights is not None and not current().env.is_ge(x.node.shape[0], 1):
        dtype = np.dtype(np.int64)  # no values: NumPy's intp zeros, whatever the weights
    counts = numpy_fill.CREATION[np.zeros]((minlength,), dtype)
    index = x if x.dtype == np.int64 else x.astype(np.int64)
    if top is None or not (isinstance(minlength, int) and top < minlength):
        C.rerun_on_failure(TraceReason.NOT_SUPPORTED, "np.bincount of values past minlength")
        fits = ((index >= 0) & (index < counts.shape[0])).all()
        C.check(fits, RUN_PLAIN, "np.bincount of a value past minlength: NumPy's own call")

    def add(k: Any) -> tuple:  # the checks above leave nothing to check, nothing to copy
        at = index[k]
        counts[at] = counts[at] + (1 if weights is None else weights[k])
        return ()

    handlers.ac_for(add, (0, index.shape[0], 1), ())
    return counts


def _bincount_dtype(x: Any, weights: Any) -> tuple[np.dtype | None, int | None]:
    """The result's dtype (None: NumPy decides, or refuses) and the largest value ``x`` can
    hold (None where it holds negative ones): a 1-D integer or bool array NumPy casts safely to intp, weights of its length that
    it casts safely to float64."""
    if not isinstance(x, SymArray) or x.ndim != 1 or x.dtype.kind not in "biu":
        return None, None
    if x.dtype == np.uint64:
        return None, None
    top = 1 if x.dtype == np.bool_ else np.iinfo(x.dtype).max if x.dtype.kind == "u" else None
    if weights is None:
        return np.dtype(np.int64), top
    castable = isinstance(weights, SymArray) and np.can_cast(weights.dtype, np.float64)
    if not castable or weights.node.shape != x.node.shape:
        return None, None
    return np.dtype(np.float64), top


def _sort_in_place(a: Any, axis: Any = -1, kind: Any = None, stable: Any = None) -> None:
    """``a.sort()``: NumPy's sort stored back into ``a`` (the caller's array, or the view it
    was called on). ``axis=None`` is NumPy's TypeError, from the plain code."""
    if not isinstance(a, SymArray) or a.is_scalar or static(axis, "an axis") is None:
        raise unsupported("ndarray.sort of this value")
    a[...] = SORTING[np.sort](a, axis, kind, stable)


FUNCTIONS: dict[Callable, Callable] = {
    np.isin: _isin,
    np.digitize: _digitize,
    np.partition: _selecting("partition"),
    np.argpartition: _selecting("argpartition"),
    np.bincount: _bincount,
}

METHODS: dict[str, Callable] = {
    "sort": _sort_in_place,
    "argsort": SORTING[np.argsort],
    "argpartition": _selecting("argpartition"),
    "searchsorted": searchsorted,
}
