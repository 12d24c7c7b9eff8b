"""``np.searchsorted(a, v)`` of one value inside a C loop region: a binary search in C.

A loop that places each value in a table of edges (``j = np.searchsorted(edges, x[i])``, a
histogram by its bin edges, a lookup in a sorted grid) was a NumPy call per iteration, which
the loop emitter cannot write, so the whole loop ran as Python. The search is NumPy's own
(``astc_search_*`` in astc_math.h: the same probes, NaN sorted last), over an argument of the
region that the region does not write (a written one would need the search ordered against
the stores: the region then runs as written).
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

#: the dtypes searched in C (the array's and the value's, the same one)
DTYPES = frozenset(map(np.dtype, (np.float64, np.float32, np.int64, np.int32)))


def is_scalar_search(node: Node) -> bool:
    """``np.searchsorted(a, v)`` or with ``side=``, of a 1-D argument ``a`` and one value of
    its dtype (NumPy would convert either otherwise), without ``sorter``."""
    attr = node.attr
    if node.op is not Op.NUMPY or attr.name != "searchsorted" or node.shape != ():
        return False
    if attr.item is not None or attr.keywords or attr.lead or len(node.inputs) != 2:
        return False
    kwargs = dict(attr.kwargs)
    if set(kwargs) - {"side"} or kwargs.get("side", "left") not in ("left", "right"):
        return False
    array, value = node.inputs
    return (
        array.op is Op.INPUT
        and array.attr.input_kind is InputKind.ARRAY
        and array.ndim == 1
        and value.shape == ()
        and array.dtype == value.dtype
        and array.dtype in DTYPES
    )


def search_c(em: Emitter, node: Node) -> str:
    """The C call that computes ``node`` (an :func:`is_scalar_search` node)."""
    array, value = node.inputs
    if array.id in em.plan.written_inputs:
        raise StructuredUnsupported(f"np.searchsorted in an array the region writes ({node.loc})")
    view = em.view(array)
    side = dict(node.attr.kwargs).get("side", "left")
    args = [view.base_pointer(), view.strides[0], dim_c(array.shape[0]), em.element(value, [])]
    return f"astc_search_{side}_{ctype(array.dtype)}({', '.join(args)})"
