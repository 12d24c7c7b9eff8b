"""Lists a loop appends to: ``out = []`` then ``out.append(v)`` in a ``for`` loop, compiled.

A Python list the region made (empty, or of one kind of Python number) that a ``for`` loop
body reads through its closure becomes, for that loop, a typed list with a *length*: a buffer
of ``len(out) + trips * k`` items (``k``: the appends one iteration may make, counted while
the body is traced; an append inside a branch counts, so the bound holds on every path), and
the length carried round the loop like a variable (and through each traced ``if``).
``out.append(v)`` stores ``v`` at the length and adds one (``out.extend([a, b])`` or of a
tuple: one append per item, in order); ``len(out)``, ``out[i]`` and
``out[i] = v`` see the items up to the length only, so an index past it raises IndexError as
Python's does. Where the list leaves the region it is a new Python list of those items, of
the exact Python types (``Box.LIST`` with the length's output).

The item type of an empty list is the type of what the body appends: the body is traced
again when the first append says another type than the one guessed (float), or more appends
per iteration than the buffer was made for. ``range(n)`` of an int argument ``n`` makes room
for a bound on ``n`` (:func:`_at_most`). An append of another type than the items', in a
nested loop, or with a trip count that is no size (a ``while``): the loop runs as written.
"""

from __future__ import annotations

import operator
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.checks import SEQUENCE_ERRORS
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace import handlers, user_names
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.control import check
from astcompile.trace.lists import NUMPY_ITEMS, SymList, item_dtype, python_type
from astcompile.trace.local_lists import DTYPES, NAME, item_type
from astcompile.trace.numpy_fill import new_array
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymInt, SymScalar

#: Traces of one loop that may restart for a list's item type or appends per iteration.
_RESTARTS = 4
_HELD_ONCE = 3  # the cell, ``value`` and getrefcount's argument


class Growth:
    """What makes a typed list growable: its length, the loop depth it grows at, the appends
    one iteration may make and how many the body made so far in this trace."""

    def __init__(self, size: int, depth: int, per_iteration: int, guessed: bool) -> None:
        self.size: Any = size
        self.depth = depth
        self.per_iteration = per_iteration
        self.guessed = guessed  # the item type of an empty list, not yet seen
        self.count = 0
        self.index = 0  # which of the loop's lists (for a restart's hint)


class Restart(Exception):
    """The body must be traced again with a list's item type or appends per iteration."""

    def __init__(self, index: int, item: type | None = None, per_iteration: int = 0) -> None:
        super().__init__(index)
        self.index, self.item, self.per_iteration = index, item, per_iteration


def run_for(
    body: Callable, cells: list[types.CellType], bounds: tuple, init: tuple, trace: Callable
) -> tuple:
    """``trace(body, init, names)`` with the lists in ``cells`` (:func:`cells`) growable."""
    if not cells:
        return trace(body, init, None)
    trips = _trips(bounds)
    originals = [cell.cell_contents for cell in cells]
    hints: dict[int, tuple] = {}
    spent = dict(current().per_line)
    for _ in range(_RESTARTS):
        current().per_line = dict(spent)  # a restarted trace's nodes are not kept
        grown = [_adopt(cell, k, trips, hints.get(k)) for k, cell in enumerate(cells)]
        try:
            return _carry(body, init, [g for g in grown if g is not None], trace)
        except Restart as restart:
            for cell, value in zip(cells, originals):
                cell.cell_contents = value
            hint = hints.get(restart.index, (None, 1))
            hints[restart.index] = (restart.item or hint[0], max(restart.per_iteration, hint[1]))
    raise TraceBreak(TraceReason.SIDE_EFFECT, "a list keeps changing what the loop appends")


@handlers.register
def append(target: SymList, value: Any) -> None:
    """``target.append(value)`` on a growable list, while its loop's body is traced."""
    growth = target.growth
    if target.owner.position is not None:
        raise TraceBreak(
            TraceReason.SIDE_EFFECT,
            f"{target.name}.append(): the region grows a list it was given; runs as written",
        )
    if growth is None or current().loop_depth != growth.depth:
        raise TraceBreak(
            TraceReason.SIDE_EFFECT,
            "the loop body appends to a list made outside it: that compiles in the body of a "
            "for loop over a sequence or a size, not a while or a loop nested in it; the "
            "loop runs as written",
        )
    kind = python_type(value)
    if kind is not target.item:
        if growth.guessed and (kind in DTYPES or kind in NUMPY_ITEMS):
            raise Restart(growth.index, item=kind)
        raise TraceBreak(
            TraceReason.SIDE_EFFECT,
            f"a list of {target.item.__name__}s would get a {kind.__name__}: runs as written",
        )
    growth.count += 1
    if growth.count > growth.per_iteration:
        raise Restart(growth.index, per_iteration=growth.count)
    target.array[growth.size] = value
    growth.size = growth.size + 1


@handlers.register
def position(index: Any, size: Any, store: bool) -> Any:
    """Where item ``index`` of a list of ``size`` items is, an IndexError (at run time where
    either is known only then) where Python's list raises one."""
    what = SEQUENCE_ERRORS[store]
    if type(index) is int and type(size) is int:
        if not -size <= index < size:
            raise IndexError(what)
        return index + size if index < 0 else index
    if isinstance(index, SymInt):  # a size: never negative
        at = index.as_scalar()
    elif type(index) is int:
        at = index + size if index < 0 else index
    else:
        at = index + size * (index < 0)
    if type(at) is not int or at < 0:
        check(at >= 0, "IndexError", what)
    check(at < size, "IndexError", what)
    return at


def active(ctx: Any) -> list[SymList]:
    """The lists growing in the loop body being traced (carried through its ``if``\\ s)."""
    return [sl for sl in ctx.growing if sl.growth.depth == ctx.loop_depth]


def _carry(body: Callable, init: tuple, grown: list[SymList], trace: Callable) -> tuple:
    n = len(init)
    ctx = current()

    def sized(i: Any, *values: Any) -> tuple:
        for sl, size in zip(grown, values[n:]):
            sl.growth.size, sl.growth.count = size, 0
        outs = tuple(body(i, *values[:n]))
        return (*outs, *(sl.growth.size for sl in grown))

    ctx.growing.extend(grown)
    try:
        results = trace(sized, (*init, *(sl.growth.size for sl in grown)), user_names.of_for(body))
    finally:
        del ctx.growing[len(ctx.growing) - len(grown) :]
    for sl, size in zip(grown, results[n:]):
        sl.growth.size, sl.growth.depth = size, -1  # grown: no more appends
    return tuple(results[:n])


def cells(body: Callable, bounds: tuple) -> list[types.CellType]:
    """Closure cells of ``body`` holding a Python list the region made, held there alone,
    empty or of one kind of Python number, when the loop's trip count is a size."""
    found: list[types.CellType] = []
    if not takes(body, bounds):
        return found
    for cell in body.__closure__ or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if type(value) is not list or current().given(value):
            continue
        if sys.getrefcount(value) <= _HELD_ONCE and (not value or item_type(value)):
            found.append(cell)
    return found


def _adopt(cell: types.CellType, index: int, trips: S.Dim, hint: tuple | None) -> SymList:
    items: list = cell.cell_contents
    item, per_iteration = hint or (None, 1)
    guessed = not items and item is None
    item = item or (item_type(items) if items else float)
    capacity = S.dim_max(S.dim_add(S.dim_mul(trips, per_iteration), len(items)), 2)
    array = new_array((capacity,), item_dtype(item), 0)
    if items:
        array[: len(items)] = np.array(items, dtype=DTYPES[item])
    typed = SymList(array, item, NAME)
    typed.growth = Growth(len(items), current().loop_depth + 1, per_iteration, guessed)
    typed.growth.index = index
    cell.cell_contents = typed
    return typed


def takes(body: Callable, bounds: tuple) -> bool:
    """Whether this loop makes the lists its body reads growable: it calls ``append`` (or
    ``extend``) and its trip count is a size (else a list it reads keeps its length:
    local_lists.py)."""
    return _trips(bounds) is not None and _calls_append(body.__code__)


def _calls_append(code: types.CodeType) -> bool:
    if "append" in code.co_names or "extend" in code.co_names:
        return True
    return any(isinstance(c, types.CodeType) and _calls_append(c) for c in code.co_consts)


def _trips(bounds: tuple) -> S.Dim | None:
    """How many times ``range(*bounds)`` runs at most, as a size; None unless its bounds are
    sizes or ints (a loop over a list or an array, ``range(len(xs))``, ``range(n)``)."""
    parts = tuple(bounds) if len(bounds) != 1 else (0, bounds[0])
    start, stop, step = (*parts, 1)[:3]
    dims = [_as_dim(b) for b in (start, stop)]
    if type(step) is int and step > 0 and getattr(stop, "leaf", None) is not None:
        dims[1] = _at_most(stop)
    if not all(type(d) is int or isinstance(d, S.SymDim) for d in dims) or type(step) is not int:
        return None
    if step == 0:
        return None
    span = S.dim_sub(dims[1], dims[0]) if step > 0 else S.dim_sub(dims[0], dims[1])
    span = S.dim_max(span, 0)
    return S.dim_floordiv(S.dim_add(span, abs(step) - 1), abs(step))


def _at_most(stop: Any) -> Any:
    """An int argument ``n`` as the end of ``range(n)``: the buffer holds as many items as the
    power of two at or above ``n`` (16 at least), under a guard that ``n`` is at most that, so
    a new ``n`` runs the same entry (a guard on its value compiled each ``n`` again), a larger
    one traces again with twice the room."""
    hint = stop.hint
    if type(hint) is not int:
        return stop
    room = max(16, 1 << max(hint - 1, 0).bit_length())
    current().guard_outcome(stop.leaf, operator.le, hint, room)
    return room


#: Int operations a bound computed from sizes and int arguments may use, as size operations.
_DIM_OPS = {Op.ADD: S.dim_add, Op.SUB: S.dim_sub, Op.MUL: S.dim_mul}


def _as_dim(bound: Any) -> Any:
    """A loop bound as a size: ``len(x) - k + 1`` with ``k`` an int argument is the size
    ``x_0 - 5 + 1`` under a guard on ``k``'s value (as ``np.zeros(k)`` is); anything else is
    returned as it is (and has no size). A bound of int arguments alone (``range(n)``) stays
    one: guarded by value, each new ``n`` would compile again."""
    if isinstance(bound, SymInt):
        return bound.dim
    if not isinstance(bound, SymScalar) or type(bound.hint) is not int or bound.dynamic:
        return bound
    dim = _node_dim(bound.node, bound.sources)
    if dim is None or type(dim) is int:
        return bound
    current().guard_values(bound.sources)
    return dim


def _node_dim(node: Node, sources: dict) -> Any:
    if node.op is Op.DIM:
        return node.attr
    if node.op is Op.CONST and node.dtype.kind in "iu":
        return int(node.attr.value)
    if node.op is Op.INPUT and node.attr.index in sources:
        return sources[node.attr.index]
    if node.op is Op.CAST and node.dtype.kind in "iu":
        return _node_dim(node.inputs[0], sources)
    if node.op not in _DIM_OPS or node.dtype.kind not in "iu":
        return None
    a, b = (_node_dim(n, sources) for n in node.inputs)
    return None if a is None or b is None else _DIM_OPS[node.op](a, b)
