"""The words of a fast plan's ``view`` step (``lower/fastplan.py``): ``OP_VIEW`` of
``fastcall_views.c``, which makes a returned view (``y[::2]``, ``y.T``, ``y.real``,
``np.broadcast_to(y, s)``, ``y.reshape(s)``) as NumPy does.

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

from typing import Any

# keep in step with the enums in fastcall.c
VIEW_INDEX, VIEW_TRANSPOSE, VIEW_PART, VIEW_BROADCAST, VIEW_RESHAPE = range(5)
ITEM_SLICE, ITEM_INT, ITEM_NEWAXIS = range(3)


def view_words(p: Any, step: tuple) -> list[int]:
    """``dst, src, kind, n, ...`` of ``("view", ref, of, kind, items)`` in program ``p``
    (``fastcall_program._Program``): an index's items as ``(item kind, start register,
    length register, step)``, a transpose's axes, the attribute ``.real``/``.imag`` reads, a
    broadcast's or reshape's sizes in registers."""
    _, ref, of, kind, items = step
    src = p.slot(of)
    if kind == "index":
        head, words = [VIEW_INDEX, len(items)], []
        for item in items:
            if item[0] == "newaxis":
                words += [ITEM_NEWAXIS, 0, 0, 1]
            elif item[0] == "int":
                words += [ITEM_INT, p.expr(item[1]), 0, 1]
            else:
                words += [ITEM_SLICE, p.expr(item[1]), p.expr(item[2]), item[3]]
    elif kind == "transpose":
        head, words = [VIEW_TRANSPOSE, len(items)], list(items)
    elif kind in ("broadcast", "reshape"):
        code = VIEW_BROADCAST if kind == "broadcast" else VIEW_RESHAPE
        head, words = [code, len(items)], [p.expr(e) for e in items]
    else:  # "real", "imag": NumPy's own attribute
        head, words = [VIEW_PART, 1], [p.const(kind)]
    return [p.slot(ref, new=True), src, *head, *words]
