"""Searching, selecting and counting as NumPy steps (see trace/numpy_steps.py), and the array
methods that sort and search.

``np.isin``, ``np.digitize``, ``np.partition``/``np.argpartition`` and ``np.bincount`` with a
``minlength`` that covers its dtype's range have results whose shape follows from their
inputs' shapes, so the statements around them still compile. ``a.sort()`` sorts the caller's
array in place: it is ``a[...] = np.sort(a)``, a store of the step's result::

    x.sort()         ->  %1 = numpy sort(%0)        # NumPy's own np.sort
                         store %0[...] = %1         # into the caller's x, as x.sort() does
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.trace.numpy_construct import unsupported
from astcompile.trace.numpy_steps import FUNCTIONS as SORTING
from astcompile.trace.numpy_steps import axes_of, searchsorted, static, step
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
    """``np.bincount`` whose length is ``minlength``: every value of ``x``'s dtype (bool,
    uint8, int8...) is below it, so the data cannot make the result longer. A negative value
    is NumPy's ValueError, raised by the step."""
    minlength = static(minlength, "minlength")
    dtype = _dtype(x)
    top = 1 if dtype == np.bool_ else np.iinfo(dtype).max if dtype.kind in "iu" else None
    if top is None or not isinstance(minlength, int) or top >= minlength or _ndim(x) != 1:
        raise unsupported("np.bincount whose length depends on the data")
    keywords = ("weights",) if weights is not None else ()
    arrays = [x] + ([weights] if weights is not None else [])
    return step("bincount", arrays, {"minlength": minlength}, lambda n: (minlength,), keywords)


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
