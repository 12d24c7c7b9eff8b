"""Array constants in loop regions: ``static const`` C tables.

``g = np.array([0.0, -9.81])`` or ``force[0] = 0, 0`` in a loop region reads its elements from
a table declared at the top of the region's function. The values are in the C source, so the
source (the compiled library's cache key) changes with them; each element is an exact C
literal of the constant's dtype (NaN, inf and -0.0 included).
"""

from __future__ import annotations

import numpy as np

from astcompile.ir.graph import Node
from astcompile.targets.c.ctypes import ctype, literal

#: Array constants of up to this many elements become C tables; larger ones are not lowered.
TABLE_LIMIT = 1 << 14


def can_tabulate(node: Node) -> bool:
    """Whether an array constant becomes a C table: a real or bool dtype (a complex literal is
    no constant expression in C) and at most :data:`TABLE_LIMIT` elements."""
    return node.dtype.kind in "biuf" and np.size(node.attr.value) <= TABLE_LIMIT


def table_decl(name: str, node: Node) -> str:
    """``static const T name[] = {...};``: the constant's elements in C order, each an exact
    C literal of the node's dtype."""
    flat = np.broadcast_to(np.asarray(node.attr.value), node.shape).astype(node.dtype).ravel()
    items = ", ".join(literal(v, node.dtype) for v in flat.tolist()) or "0"
    return f"static const {ctype(node.dtype)} {name}[{max(flat.size, 1)}] = {{{items}}};"
