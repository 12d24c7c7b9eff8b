"""NumPy calls of one value inside a C loop region, written as C: ``np.searchsorted(a, v)``,
``np.interp(x, xp, fp)``, ``np.polyval(c, x)`` and ``np.median(x[i:i + k])``.

A loop that places each value in a table of edges (``j = np.searchsorted(edges, x[i])``, a
histogram by its bin edges) or reads a tabulated function (``np.interp(t, ts, forcing)`` at
each step) made a NumPy call per iteration, which the loop emitter could not write, so the
whole loop ran as Python. Each C helper (``astc_search_*``, ``astc_interp_double``,
``astc_polyval_double`` in astc_math.h) computes what NumPy's own C loop computes for one value: the same probes of the
table (so an unsorted one gives NumPy's answer too), the same arithmetic. The arrays are
arguments (or NumPy's results of arguments, made before the loops) the region does not write (a written one would need the call ordered against the
stores: the region then runs as written); sizes where NumPy raises or answers otherwise (an
empty ``xp``, ``fp`` of another length; no coefficients, where ``np.polyval`` gives a 0-d
array) fail the wrapper's checks, and its fallback runs NumPy's call.

A rolling median (``out[i] = np.median(x[i:i + k])``, a median filter) ran its whole loop as
Python: ``astc_median_*`` (astc_median.h) copies the window, selects its middle and averages
as NumPy's mean does, or gives NaN where it cannot be NumPy's answer, which the region's check
hands to the plain statements (trace/numpy_steps.py). The window is a view of an argument the
region does not write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from astcompile.ir.graph import InputKind, Node
from astcompile.ir.ops import Op
from astcompile.lower.structured_plan import VIEW_OPS, StructuredUnsupported
from astcompile.targets.base import dim_c
from astcompile.targets.c.ctypes import ctype

if TYPE_CHECKING:
    from astcompile.targets.c.structured import Emitter


class Call(NamedTuple):
    arrays: tuple[int, ...]  # the inputs that are 1-D arguments, of one length
    value: int  # the input that is the one value
    dtypes: frozenset  # the arrays' and the value's dtype (one, NumPy converts others)
    keywords: dict[str, tuple]  # the keywords allowed, and their values
    nonempty: bool  # NumPy raises for empty arrays, or answers otherwise


_F64 = frozenset({np.dtype(np.float64)})
CALLS = {
    "searchsorted": Call(
        (0,),
        1,
        frozenset(map(np.dtype, ("f8", "f4", "i8", "i4"))),
        {"side": ("left", "right")},
        False,
    ),
    "interp": Call((1, 2), 0, _F64, {"left": (None,), "right": (None,)}, True),
    # y = zeros_like(x), then y = y * x + c[k]: the same float64 operations, in order
    "polyval": Call((0,), 1, _F64, {}, True),
}


def is_scalar_call(node: Node) -> bool:
    """A NumPy call of :data:`CALLS` on its 1-D arguments and one value, with only the
    keywords listed, or :func:`is_window_median`."""
    attr = node.attr
    if is_window_median(node):
        return True
    call = CALLS.get(attr.name) if node.op is Op.NUMPY else None
    if call is None or node.shape != () or attr.item is not None or attr.keywords or attr.lead:
        return False
    if any(value not in call.keywords.get(key, ()) for key, value in attr.kwargs):
        return False
    if len(node.inputs) != len(call.arrays) + 1 or node.inputs[call.value].shape != ():
        return False
    arrays = [node.inputs[k] for k in call.arrays]
    return node.inputs[call.value].dtype in call.dtypes and all(
        (a.op is Op.NUMPY or (a.op is Op.INPUT and a.attr.input_kind is InputKind.ARRAY))
        and a.ndim == 1
        and a.dtype == node.inputs[call.value].dtype
        for a in arrays
    )


_FLOATS = frozenset(map(np.dtype, ("f8", "f4")))


def is_window_median(node: Node) -> bool:
    """``np.median`` of a 1-D float32/float64 array, a value of its dtype."""
    attr = node.attr
    return (
        node.op is Op.NUMPY
        and attr.name == "median"
        and dict(attr.kwargs) == {"axis": None, "keepdims": False}
        and (attr.item, attr.keywords, attr.lead) == (None, (), ())
        and node.shape == ()
        and len(node.inputs) == 1
        and node.inputs[0].ndim == 1
        and node.inputs[0].dtype in _FLOATS
        and node.dtype == node.inputs[0].dtype
    )


def _median_c(em: Emitter, node: Node) -> str:
    """``astc_median_double(x + lo3, x_3_s0, len3)``: the window's address, stride and length."""
    window = root = node.inputs[0]
    while root.op in VIEW_OPS:
        root = root.inputs[0]
    if root.op is not Op.INPUT or root.id in em.plan.written_inputs:
        raise StructuredUnsupported(f"np.median of an array the region writes ({node.loc})")
    if not _nan_checked(em, node):
        raise StructuredUnsupported(f"np.median whose NaN no check hands to Python ({node.loc})")
    view = em.view(window)
    args = (view.base_pointer(), view.strides[0], dim_c(window.shape[0]))
    return f"astc_median_{ctype(node.dtype)}({', '.join(args)})"


def _nan_checked(em: Emitter, node: Node) -> bool:
    """Whether a check beside ``node`` fails where it is NaN (``median == median``): the C
    helper's NaN means "not NumPy's answer" (trace/numpy_steps.py adds the check in loops)."""
    level = em.plan.levels[id(em.plan.owner[node.id])]
    return any(
        n.op is Op.CHECK and n.inputs[0].op is Op.EQ and n.inputs[0].inputs == (node, node)
        for n in level
    )


def call_c(em: Emitter, node: Node) -> str:
    """The C call that computes ``node`` (an :func:`is_scalar_call` node); the sizes NumPy
    refuses become conditions of the wrapper's checks (``em.sizes``)."""
    if is_window_median(node):
        return _median_c(em, node)
    call = CALLS[node.attr.name]
    arrays = [node.inputs[k] for k in call.arrays]
    if any(a.id in em.plan.written_inputs for a in arrays):
        raise StructuredUnsupported(
            f"np.{node.attr.name} of an array the region writes ({node.loc})"
        )
    if any(a.op is Op.NUMPY and a not in em.plan.hoisted for a in arrays):
        # NumPy's result is passed in where the wrapper makes it, before the loops
        # (``np.polyfit`` of the arguments, then ``np.polyval`` of it in a loop)
        raise StructuredUnsupported(f"np.{node.attr.name} of an array made in a loop ({node.loc})")
    n = arrays[0].shape[0]
    em.sizes += [("eq", a.shape[0], n) for a in arrays[1:]]
    if call.nonempty:
        em.sizes.append(("rows", n, 1))
    args = [part for a in arrays for part in (em.view(a).base_pointer(), em.view(a).strides[0])]
    args += [dim_c(n), em.element(node.inputs[call.value], [])]
    kwargs = dict(node.attr.kwargs)
    helper = f"search_{kwargs['side']}" if "side" in kwargs else node.attr.name
    return f"astc_{helper}_{ctype(arrays[0].dtype)}({', '.join(args)})"
