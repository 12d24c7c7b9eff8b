"""The kinds of values that flow through loops and branches, and when two kinds may meet.

A carried value's *kind* is ``("array", dtype, shape, is_scalar)``, ``("scalar", dtype,
python_type)`` (a weak Python number), ``("union", dtype, python_type)``: a Python number or
its NumPy twin of the same value (trace/unions.py), carried as the value and a flag, or
``("optional", kind)``: None or a number of ``kind`` (trace/optionals.py), carried as the
number and a flag "is None"; ``("none",)`` is None itself, carried as nothing. A LOOP or
IF node gives each result one kind, but Python gives a variable the type of whatever was last
assigned to it::

    acc = -3                        # a Python int
    for i in range(n):
        if x[i] > 100:
            acc = x[i]              # a NumPy uint8, only if this branch runs
        if acc < 0:                 # -3 < 0 for the Python int; 253 < 0 for np.uint8(-3)
            break

Where the two types hold the same values (a float and a float64, an int and an int64, bools)
the variable becomes a union; otherwise an IF whose branches give it different kinds has a type
known only at run time, and runs in NumPy (a trace break). A loop that turns a Python number
into another NumPy type from its first iteration on (``s = 0.0; for ...: s = s + x32[i]``) is
exact when that first iteration is traced on its own (trace/loops.py peels it); if the loop may
also run zero times, the variable's type depends on that: it runs in NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.frontend.spec import UNBOUND, UNSEEN
from astcompile.ir.graph import InputAttr, InputKind, Node
from astcompile.ir.ops import Op
from astcompile.trace import memory_order as order
from astcompile.trace import nodes as B
from astcompile.trace import optionals as OP
from astcompile.trace import unions
from astcompile.trace.context import TraceBreak
from astcompile.trace.lists import SymList
from astcompile.trace.local_lists import NAME
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand, wrap
from astcompile.trace.user_names import BodyNames

_FLAG = ("array", np.dtype(bool), (), True, None)
_UNBOUND = ("unbound",)
_NONE = ("none",)


def kind_of(value: Any) -> tuple:
    if type(value) is SymList and _is_local(value):  # travels as its array (local_lists.py)
        array = value.array
        return ("list", array.dtype, array.node.shape, value.item, value.rows)
    if value is UNBOUND or value is UNSEEN:  # the body binds it (frontend/loop_plan.py)
        return _UNBOUND
    if value is None:
        return _NONE
    if OP.is_optional(value):
        return ("optional", kind_of(value.value))
    if unions.is_union(value):
        return ("union", value.dtype, value.python[0])
    if isinstance(value, SymArray):  # and NumPy's memory order (trace/memory_order.py)
        return ("array", value.dtype, value.node.shape, value.is_scalar, order.order_of(value))
    if isinstance(value, SymScalar):
        return ("scalar", value.node.dtype, type(value.hint))
    if isinstance(value, SymInt):
        return ("scalar", np.dtype(np.int64), int)
    if isinstance(value, np.generic):  # before Python's types: np.float64 is a float
        return ("array", B.check_dtype(value.dtype), (), True, None)
    if isinstance(value, (bool, int, float, complex)):
        return ("scalar", np.result_type(value), type(value))
    raise TraceBreak(
        TraceReason.LOOP_CARRIED_VALUE,
        f"a {type(value).__name__} carried through a loop runs in Python",
    )


def unify(before: tuple, after: tuple) -> tuple:
    """The kind a carried value keeps over all iterations (NumPy's promotion of the two)."""
    if before == after:
        return before
    if before is _UNBOUND:
        return after
    if after is _UNBOUND:
        raise TraceBreak(
            TraceReason.LOOP_CARRIED_TYPE, "a variable may be left unbound: runs in Python"
        )
    if _NONE in (before, after) or "optional" in (before[0], after[0]):
        return _optional_of(before, after)
    union = _union_of(before, after)
    if union is not None:
        return union
    if "list" in (before[0], after[0]):
        raise TraceBreak(
            TraceReason.LOOP_CARRIED_TYPE,
            "a list made in the region changes its length or item type from one iteration "
            "to the next, or is another value on one path",
        )
    if "union" in (before[0], after[0]):
        raise TraceBreak(
            TraceReason.LOOP_CARRIED_TYPE,
            f"a variable is {_describe(before)} or {_describe(after)}: runs in NumPy",
        )
    if before[0] == "array" and after[0] == "array":
        if before[2] != after[2] or before[3] != after[3]:
            raise TraceBreak(
                TraceReason.LOOP_CARRIED_SHAPE,
                "an array changes shape from one iteration to the next",
            )
        # a layout that changes between iterations is C's (a gap: NumPy's is the last one)
        kept = before[4] if before[4] == after[4] else None
        return ("array", np.promote_types(before[1], after[1]), before[2], before[3], kept)
    if before[0] == "array" and after[0] == "scalar":
        return unify(after, before)  # branches meet in either order
    if before[0] == "scalar" and after[0] == "array" and after[2] == () and after[3]:
        return ("array", np.result_type(before[2](0), after[1].type(0)), (), True, None)
    if before[0] == "scalar" and after[0] == "scalar":
        python = after[2] if after[2] in (float, complex) else before[2]
        return ("scalar", np.promote_types(before[1], after[1]), python)
    raise TraceBreak(
        TraceReason.LOOP_CARRIED_TYPE, "a loop-carried value changes from array to scalar"
    )


def widened(kinds: list, out_kinds: list) -> list:
    """The kinds the body is traced with next: each carried kind widened by what the body
    made of it (:func:`unify`), or, once none widens, the body's own kind where it is a
    narrower one (``t = np.zeros_like(u8)`` then ``t = u8 > 1``: the variable is a bool array
    after each iteration, not the uint8 both promote to; the first iteration is then traced on
    its own, trace/loops.py)."""
    wider = [unify(k, out) for k, out in zip(kinds, out_kinds)]
    if wider != kinds:
        return wider
    return [_narrower(k, out) for k, out in zip(kinds, out_kinds)]


def _narrower(kind: tuple, out: tuple) -> tuple:
    """``out`` where it is the same sort of value as ``kind`` with another dtype or Python
    type (a layout that differs is C's)."""
    if kind[0] != out[0] or kind[0] not in ("array", "scalar") or kind[:4] == out[:4]:
        return kind
    return out


def _optional_of(a: tuple, b: tuple) -> tuple:
    """The kind of a variable that is None or a number: the numbers' kind, flagged. Only a
    number (a Python one or a NumPy scalar) travels so; an array that may be None does not."""
    inner = [k[1] if k[0] == "optional" else k for k in (a, b) if k != _NONE]
    kind = inner[0] if len(inner) == 1 else unify(*inner)
    if kind[0] in ("scalar", "union") or (kind[0] == "array" and kind[2] == () and kind[3]):
        return ("optional", kind)
    raise TraceBreak(
        TraceReason.LOOP_CARRIED_VALUE, f"a variable is None or {_describe(kind)}: runs in Python"
    )


def _union_of(a: tuple, b: tuple) -> tuple | None:
    """The union kind of a Python number and its NumPy twin (or a union), if they are."""
    python = {k[2] for k in (a, b) if k[0] in ("scalar", "union")}
    dtypes = {k[1] for k in (a, b)}
    if len(python) != 1 or len(dtypes) != 1 or unions.NATURAL[next(iter(python))] not in dtypes:
        return None
    if any(k[0] == "array" and not (k[3] and k[2] == ()) for k in (a, b)):
        return None
    if {a[0], b[0]} == {"scalar"}:
        return None
    return ("union", a[1], python.pop())


def same_kinds(then_kinds: list, else_kinds: list) -> list:
    """The kinds of an IF's results: each variable must have one kind in both branches (or be
    a union), or its type (NumPy's next promotions, the Python type it returns) would depend
    on which ran."""
    kinds = []
    for a, b in zip(then_kinds, else_kinds):
        kind = unify(a, b)  # shape changes: their own message
        if kind[0] == "optional":  # the numbers of both sides have one type
            numbers = [k[1] if k[0] == "optional" else k for k in (a, b) if k != _NONE]
            same_kinds(numbers[:1], numbers[1:])
        elif a[:4] != b[:4] and kind[0] != "union":  # (a layout that differs is C's)
            raise TraceBreak(
                TraceReason.VALUE_DEPENDENT_TYPE,
                f"a variable is {_describe(a)} after one "
                f"branch and {_describe(b)} after the other: runs in NumPy "
                "(give it one type before the if, e.g. np.float64(0.0))",
            )
        kinds.append(kind)
    return kinds


def _describe(kind: tuple) -> str:
    if kind[0] == "optional":
        return f"None or {_describe(kind[1])}"
    if kind == _NONE:
        return "None"
    if kind[0] == "scalar":
        return f"a Python {kind[2].__name__}"
    if kind[0] == "union":
        return f"a Python {kind[2].__name__} or a NumPy {kind[1]}"
    return f"a NumPy {kind[1]} {'scalar' if kind[3] else 'array'}"


def placeholders(
    ctx: Any, kinds: list, first: int, names: BodyNames | None = None
) -> tuple[list, list[Node]]:
    """The values a loop body starts from, and their INPUT nodes (a union has two), named
    after the user's variables where ``names`` (trace/user_names.py) knows them."""
    values, nodes = [], []
    for position, kind in enumerate(kinds):
        index = first + len(nodes)
        name = f"c{index}" if names is None else names.carried_name(position, f"c{index}")
        kinds_of_parts = _parts(kind)
        parts = [
            _placeholder(ctx, k, index + j, _part_name(kind, j, len(kinds_of_parts), name))
            for j, k in enumerate(kinds_of_parts)
        ]
        nodes += [p.node for p in parts]
        if kind is _UNBOUND:
            values.append(UNBOUND)
            continue
        values.append(_value(parts, kind))
    return values, nodes


def _part_name(kind: tuple, j: int, count: int, name: str) -> str:
    if j == 0:
        return name
    return f"{name}_is_none" if kind[0] == "optional" and j == count - 1 else f"{name}_is_py"


def typed_start(kind: tuple) -> Any:
    """A start value of ``kind`` for a variable the loop binds before reading it (it is never
    seen; the loop is checked to run): a scalar's zero, None for an array (no value to make)."""
    if kind[0] == "scalar":
        return kind[2](0)
    if kind[0] == "array" and kind[2] == () and kind[3]:
        return kind[1].type(0)
    return None


def _parts(kind: tuple) -> list[tuple]:
    """The node kinds a value of ``kind`` travels as: a union is its value and its flag; an
    unbound start value travels as nothing (the body binds it before reading it)."""
    if kind is _UNBOUND or kind == _NONE:
        return []
    if kind[0] == "optional":
        return [*_parts(kind[1]), _FLAG]
    if kind[0] == "list":
        return [("array", kind[1], kind[2], False, None)]
    return [("array", kind[1], (), True, None), _FLAG] if kind[0] == "union" else [kind]


def _placeholder(ctx: Any, kind: tuple, index: int, name: str) -> Any:
    if kind[0] == "array":
        attr = InputAttr(index, name, InputKind.CARRIED)
        node = ctx.node(Op.INPUT, (), kind[1], _held_shape(kind), attr)
        holder = SymArray(node, kind[3])
        holder.is_input = True  # in-place updates write through to the buffer it stands for
        return holder
    weak = kind[2] in (int, float, bool, complex)
    node = ctx.node(Op.INPUT, (), kind[1], (), InputAttr(index, name, InputKind.CARRIED, weak=weak))
    return SymScalar(node, kind[2](1), f"loop-carried value {index}", dynamic=True)


def narrowed(kinds: list, out_kinds: list) -> bool:
    """Whether the body makes an array of a narrower dtype than it is carried in (``u = (u *
    0.1).astype(np.float32)`` of a float64 ``u``): it has that dtype after the loop, and the
    next iteration computes in it: carried in the wider dtype, neither would be NumPy's. The
    loop is traced from its second iteration (trace/loops.py peels the first); one that
    narrows again there (a line of arrays handed down) runs in NumPy."""
    return any(
        kind[0] == out[0] == "array" and kind[1] != out[1] for kind, out in zip(kinds, out_kinds)
    )


def start_holds(values: tuple, kinds: list) -> bool:
    """Whether a loop can start from ``values`` in ``kinds``: the same kinds, or a union
    holding a start value (the Python number, flagged) exactly."""
    return all(
        k == kind_of(v)
        or (k[0] == "array" and k[:4] == kind_of(v)[:4])  # a layout that differs is C's
        or (k[0] == "union" and _union_of(kind_of(v), k) == k)
        or (k[0] == "optional" and _starts_optional(v, k))
        for v, k in zip(values, kinds)
    )


def _starts_optional(value: Any, kind: tuple) -> bool:
    """Whether an optional of ``kind`` can start from ``value``: None, or a number of its kind."""
    number = value.value if OP.is_optional(value) else value
    return value is None or start_holds((number,), [kind[1]])


def layout(kinds: list) -> list[tuple]:
    """(dtype, shape) of each node values of ``kinds`` travel as."""
    parts = [p for kind in kinds for p in _parts(kind)]
    return [(p[1], _held_shape(p) if p[0] == "array" else ()) for p in parts]


def _held_shape(kind: tuple) -> tuple:
    """The shape an array of ``kind`` is carried in: its axes in its memory order, so the
    buffer the loop keeps it in is laid out as NumPy's (memory_order.py)."""
    perm = kind[4]
    return tuple(kind[2]) if perm is None else tuple(kind[2][a] for a in perm)


def _in_order(held: SymArray, kind: tuple) -> SymArray:
    """The value of ``kind`` a carried buffer ``held`` holds: its transpose back, if any."""
    if kind[4] is None:
        return held
    value = wrap(B.transpose(held.node, order.inverse(kind[4])), held.is_scalar, base=held)
    value.is_input = held.is_input
    return value


def as_nodes(value: Any, kind: tuple) -> list[Node]:
    """``value`` as the nodes of ``kind`` (a union: its value, and the flag "a Python number")."""
    if kind[0] == "list":
        return [as_kind(value.array, _parts(kind)[0])]
    if kind[0] == "optional":
        if value is None:
            return [*as_nodes(OP.zero_of(kind[1]), kind[1]), OP.flag_const(True)]
        if OP.is_optional(value):
            return [*as_nodes(value.value, kind[1]), value.flag.node]
        return [*as_nodes(value, kind[1]), OP.flag_const(False)]
    if kind == _NONE:
        return []
    if kind[0] != "union":
        return [as_kind(value, kind)]
    if unions.is_union(value):
        return [value.node, value.python[1].node]
    is_python = kind_of(value)[0] == "scalar"
    return [as_kind(value, _parts(kind)[0]), B.const_operand(np.bool_(is_python)).node]


def from_nodes(nodes: list[Node], kinds: list) -> list:
    """The values of ``kinds`` that ``nodes`` (from :func:`as_nodes`) compute at run time."""
    values, at = [], 0
    for kind in kinds:
        parts = [runtime_value(nodes[at + j], k) for j, k in enumerate(_parts(kind))]
        at += len(parts)
        values.append(_value(parts, kind))
    return values


def _value(parts: list, kind: tuple) -> Any:
    """The value of ``kind`` whose nodes' values are ``parts``."""
    if kind == _NONE:
        return None
    if kind[0] == "optional":
        return OP.SymOptional(_value(parts[:-1], kind[1]), parts[-1])
    if kind[0] == "union":
        return unions.make(parts[0], kind[2], parts[1])
    if kind[0] == "list":
        return SymList(parts[0], kind[3], NAME, kind[4])
    return _in_order(parts[0], kind) if kind[0] == "array" else parts[0]


def _is_local(value: SymList) -> bool:
    """A whole list the region made, of a fixed length: its array is all there is to it."""
    return value.position is None and value.owner is value and value.growth is None


def results(nodes: list[Node], kinds: list) -> list:
    """The values a LOOP's or IF's RESULT ``nodes`` give back. An array among them may be the
    start value's buffer (a body that updated it in place, a branch that kept it), so an
    in-place update after the loop (``acc *= 0.5``) writes into it, as NumPy does, instead of
    rebinding ``acc`` to a new array the caller never sees."""
    values = from_nodes(nodes, kinds)
    for value in values:
        array = value.array if type(value) is SymList else value
        if isinstance(array, SymArray):
            array.is_input = True
            if array.view_of is not None:  # the buffer under a carried layout (_in_order)
                array.view_of.is_input = True
    return values


def as_kind(value: Any, kind: tuple) -> Node:
    node = B.cast_node(operand(value).node, kind[1])
    if kind[0] == "array" and node.shape != tuple(kind[2]):
        node = B.broadcast_to(node, kind[2])
    if kind[0] == "array" and kind[4] is not None:
        node = order.to_order(node, tuple(kind[2]), kind[4])
    return node


def runtime_value(node: Node, kind: tuple) -> Any:
    """A value of ``kind`` computed by ``node``, unknown until run time."""
    if kind[0] == "array":
        return SymArray(node, kind[3])
    return SymScalar(node, kind[2](1), "a value computed in a loop", dynamic=True)
