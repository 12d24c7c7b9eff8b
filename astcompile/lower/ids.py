"""Per-region numbers for the names generated code gives graph values.

Node ids (and the keys of run-time lengths) come from process-wide counters: the hundredth
graph traced in a process has ids in the thousands. Written into the C source they would make
the same function's source, and so its kernel library's cache key, depend on what the process
happened to compile before it: a new process would miss the disk cache, and the cache would
fill with one ``.so`` per history. While a region's code is generated (inside
:func:`numbering`), :func:`nid` maps each id to the order in which the generator first names
it, which depends only on the graph. Outside (a test calling an emitter directly) ids are used
as they are.

Before: ``double* x_25`` after 24 nodes traced elsewhere; after: ``double* x_0`` always.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from astcompile.ir.graph import Node

_table: ContextVar[dict[str, dict[int, int]] | None] = ContextVar("astcompile_ids", default=None)


@contextmanager
def numbering() -> Iterator[None]:
    """Number the names of one region's generated code from 0 (nested uses share one table)."""
    if _table.get() is not None:
        yield
        return
    token = _table.set({})
    try:
        yield
    finally:
        _table.reset(token)


def _local(kind: str, number: int) -> int:
    table = _table.get()
    if table is None:
        return number
    numbers = table.setdefault(kind, {})
    return numbers.setdefault(number, len(numbers))


def nid(node: Node) -> int:
    """The number that names ``node`` in generated code."""
    return _local("node", node.id)


def run_key(key: int) -> int:
    """The number that names the run-time length with key ``key`` (``len3``)."""
    return _local("run", key)
