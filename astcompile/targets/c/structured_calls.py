"""NumPy calls of one value inside a C loop region, written as C: ``np.searchsorted(a, v)``.

A loop that places each value in a table of edges (``j = np.searchsorted(edges, x[i])``, a
histogram by its bin edges, a lookup in a sorted grid) was a NumPy call per iteration, which
the loop emitter could not write, so the whole loop ran as Python. The C helper
(``astc_search_*`` in astc_math.h) computes what NumPy computes: the same probes of the table,
NaN sorted last. The array is an argument the region does not write (a written one would need
the call ordered against the stores: the region then runs as written).

Not here: ``np.polyval(c, x)`` (NumPy returns a 0-d array, not a scalar, for no coefficients,
which a C double cannot be), ``np.interp`` (its search's guesses decide NaN and unsorted
tables).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from astcompile.ir.graph import InputKind, Node
from astcompile.ir.ops import Op
from astcompile.lower.structured_plan import StructuredUnsupported
from astcompile.targets.base import dim_c
from astcompile.targets.c.ctypes import ctype

if TYPE_CHECKING:
    from astcompile.targets.c.structured import Emitter

#: name -> (the dtypes of the array and value, the same one; the keywords and their values)
CALLS: dict[str, tuple[frozenset, dict[str, tuple]]] = {
    "searchsorted": (
        frozenset(map(np.dtype, (np.float64, np.float32, np.int64, np.int32))),
        {"side": ("left", "right")},
    ),
}


def is_scalar_call(node: Node) -> bool:
    """A NumPy call of :data:`CALLS` on a 1-D argument and one value of its dtype (NumPy would
    convert either otherwise), with only the keywords listed."""
    attr = node.attr
    if node.op is not Op.NUMPY or attr.name not in CALLS or node.shape != ():
        return False
    if attr.item is not None or attr.keywords or attr.lead or len(node.inputs) != 2:
        return False
    dtypes, keywords = CALLS[attr.name]
    if any(value not in keywords.get(key, ()) for key, value in attr.kwargs):
        return False
    array, value = node.inputs
    return (
        array.op is Op.INPUT
        and array.attr.input_kind is InputKind.ARRAY
        and array.ndim == 1
        and value.shape == ()
        and array.dtype == value.dtype
        and array.dtype in dtypes
    )


def call_c(em: Emitter, node: Node) -> str:
    """The C call that computes ``node`` (an :func:`is_scalar_call` node)."""
    array, value = node.inputs
    name = node.attr.name
    if array.id in em.plan.written_inputs:
        raise StructuredUnsupported(f"np.{name} of an array the region writes ({node.loc})")
    view = em.view(array)
    helper = f"search_{dict(node.attr.kwargs).get('side', 'left')}"  # the one call in CALLS
    args = [view.base_pointer(), view.strides[0], dim_c(array.shape[0]), em.element(value, [])]
    return f"astc_{helper}_{ctype(array.dtype)}({', '.join(args)})"
