"""Run-time index work of structured C: checked element indices, clipped slices, size checks.

``x[i]`` with a runtime ``i`` counts from the end once and raises NumPy's IndexError when still
out of range; ``x[i:i + k]`` is clipped like a Python slice into a start and a length local
(``lo3``, ``len3``) that views and loop bounds use; a CHECK node (or a store whose sizes are known
only at run time) returns a status the wrapper turns into NumPy's ValueError.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.ir.checks import SIZE_CHECKS, axis_code
from astcompile.ir.graph import DynIndex, IndexItem, Node, SizeCheckAttr
from astcompile.ir.shapes import Dim
from astcompile.lower.ids import nid
from astcompile.lower.index_ranges import bounds, in_range
from astcompile.lower.names import location as loc
from astcompile.lower.source_notes import error_site
from astcompile.lower.structured_plan import StructuredUnsupported
from astcompile.targets.base import dim_c
from astcompile.targets.c.views import slice_start

Emitter = Any  # structured.Emitter (it imports this module)

PRELUDE = """\
static int astc_index_error(int64_t* err, int64_t index, int64_t axis, int64_t size,
                            int64_t site)
{
    err[0] = index; err[1] = axis; err[2] = size; err[3] = site;
    return 1;  /* IndexError */
}

/* Python's slice(start, stop, step).indices(n) for a slice taken in a loop: clips the bounds
   (negative ones count from the end) and returns the length; the clipped start goes to *lo. */
static int64_t astc_slice(int64_t start, int has_start, int64_t stop, int has_stop,
                          int64_t step, int64_t n, int64_t* lo)
{
    const int64_t low = step > 0 ? 0 : -1, high = step > 0 ? n : n - 1;
    if (!has_start) start = step > 0 ? 0 : n - 1;
    else if (start < 0) start = start + n < 0 ? low : start + n;
    else if (start > high) start = high;
    if (!has_stop) stop = step > 0 ? n : -1;
    else if (stop < 0) stop = stop + n < 0 ? low : stop + n;
    else if (stop > high) stop = high;
    *lo = start;
    if (step > 0) return stop > start ? (stop - start + step - 1) / step : 0;
    return start > stop ? (start - stop - step - 1) / -step : 0;
}
"""


def dyn_name(node: Node, k: int) -> str:
    """The C local holding the checked value of runtime index ``k`` of ``node``."""
    return f"l{nid(node)}_{k}"


def dyn_index(em: Emitter, node: Node, k: int) -> str:
    """C for runtime index ``k`` of ``node``: the index itself when it needs no check (so two
    accesses at ``x[i]`` read alike, and stores see they touch the same element), else the
    checked local."""
    return em.direct.get((node.id, k), dyn_name(node, k))


def dyn_checks(
    em: Emitter, node: Node, items: tuple[IndexItem, ...], shape: tuple[Dim, ...]
) -> None:
    """Locals for the runtime indices and slices of ``items`` (applied to ``shape``), checked
    or clipped as NumPy does, before anything reads through them."""
    axis = 0
    for item in items:
        if item.kind == "newaxis":
            continue
        if item.kind == "dslice":
            _dyn_slice(em, node, item, shape[axis])
        elif isinstance(item.start, DynIndex):
            src = node.inputs[item.start.input]
            if src.dtype.kind not in "iu":
                raise StructuredUnsupported(f"an index of dtype {src.dtype}")
            name, raw, size = (
                dyn_name(node, item.start.input),
                em.scalar(src),
                dim_c(shape[axis]),
            )
            if in_range(bounds(src, em.ranges), shape[axis]):
                # provably within [0, size): no check (see lower/index_ranges.py)
                em.direct[node.id, item.start.input] = (
                    raw if src.dtype == np.int64 else f"((int64_t){raw})"
                )
                axis += 1
                continue
            em.emit(f"int64_t {name} = (int64_t){raw};{loc(node)}")
            em.emit(f"if ({name} < 0) {name} += {size};")
            site, code = error_site(em.sites, node), axis_code(item.start.message, axis)
            em.bail(
                f"if ({name} < 0 || {name} >= {size}) return astc_index_error(err, (int64_t){raw}, {code}, {size}, {site});"
            )
        axis += 1


def _dyn_slice(em: Emitter, node: Node, item: IndexItem, size: Dim) -> None:
    """The clipped start and the length of a slice with runtime bounds, as locals."""
    bounds = []
    for b in (item.start, item.stop):
        if b is None:
            bounds += ["0", "0"]
        elif isinstance(b, DynIndex):
            bounds += [f"(int64_t){em.scalar(node.inputs[b.input])}", "1"]
        else:
            bounds += [dim_c(b), "1"]
    lo, length = slice_start(item), dim_c(item.length)
    em.emit(f"int64_t {lo};{loc(node)}")
    args = ", ".join([*bounds, str(item.step), dim_c(size), f"&{lo}"])
    em.emit(f"const int64_t {length} = astc_slice({args});")


def size_check(em: Emitter, node: Node, check: SizeCheckAttr | None = None) -> None:
    """A CHECK node (or a store's ``check``): NumPy's ValueError (status code and sizes in
    ``err``) when it fails."""
    check = node.attr if check is None else check
    _, condition, status = SIZE_CHECKS[check.kind]
    sizes = [dim_c(d) for d in check.dims]
    report = " ".join(f"err[{k}] = {v};" for k, v in enumerate(sizes))
    report += f" err[3] = {error_site(em.sites, node)};"
    em.bail(f"if (!({condition.format(*sizes)})) {{ {report} return {status}; }}{loc(node)}")
