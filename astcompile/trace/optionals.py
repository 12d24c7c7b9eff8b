"""A variable that is None or a number: ``best = None`` before a loop that may set it.

    found = None
    i = 0
    while found is None and i < len(x):
        if x[i] > t:
            found = i                # a Python int, only if this branch runs
        i += 1
    return found                     # None, or the int

A loop or an ``if`` carries such a variable as its value and a flag, "is None"
(trace/carried.py's kind ``("optional", kind)``), so the loop stays native. The frontend
routes ``v is None`` and ``v is not None`` through ``__ac_is_none`` (frontend/lowering.py),
which reads the flag. Any other use of the value needs it to be a number: the trace knows
that inside a branch whose test was the flag (``best is None or v < best``: the right side
runs only where ``best`` is not None), and there the value is used; elsewhere the use is a
trace break (Python would compare or add None, or raise TypeError), and the region runs as
written. Returned, the value is boxed as None where the flag holds (``Box.OPTIONAL``,
jit/leaves.py).
"""

from __future__ import annotations

import contextlib
import functools
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.trace import callable_kinds
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current, is_tracing
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymScalar


class SymOptional:
    """None where the 0-d bool ``flag`` holds at run time, else ``value`` (a traced number)."""

    __array_ufunc__ = None  # NumPy's operators give way to ours: ``np.float64(1) < best``
    __hash__ = object.__hash__

    def __init__(self, value: Any, flag: Any) -> None:
        self.value, self.flag = value, flag

    def not_none(self) -> Any:
        """The value, where the branches being traced show it is not None."""
        if known(self.flag.node) is False:
            return self.value
        raise TraceBreak(
            TraceReason.VALUE_DEPENDENT_TYPE,
            "a variable that may be None (it starts as None and a loop or an if may set it) "
            "is used as a number where no test shows it is not None",
        )

    def __bool__(self) -> bool:
        return bool(self.not_none())

    def __format__(self, spec: str = "") -> str:  # f"{best}", "%s" % best: "None" or not
        raise TraceBreak(TraceReason.DATA_DEPENDENT_VALUE, "a value that may be None as text")

    __str__ = __format__


def _delegate(name: str) -> Any:
    def method(self: SymOptional, *args: Any) -> Any:
        return getattr(self.not_none(), name)(*args)

    method.__name__ = name
    return method


_OPERATORS = (
    "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift "
    "radd rsub rmul rtruediv rfloordiv rmod rpow rmatmul rand ror rxor rlshift rrshift "
    "lt le gt ge eq ne neg pos abs invert float int index complex getitem"
)
for _name in _OPERATORS.split():
    setattr(SymOptional, f"__{_name}__", _delegate(f"__{_name}__"))


def is_optional(value: Any) -> bool:
    return type(value) is SymOptional


def numbers(args: tuple) -> tuple:
    """``args`` with each :class:`SymOptional` its number (``min(best, v)`` where a test
    shows ``best`` is not None), or a trace break."""
    return tuple(a.not_none() if type(a) is SymOptional else a for a in args)


def ac_is_none(value: Any) -> Any:
    """``value is None``: the flag of a :class:`SymOptional` (a Python bool where the branches
    traced so far decide it), else Python's own test."""
    if not is_optional(value):
        return value is None
    outcome = known(value.flag.node)
    if outcome is not None:
        return outcome
    return SymScalar(value.flag.node, True, "a test of None", dynamic=True)


def refusing(clone: Callable, fn: types.FunctionType) -> Callable:
    """``clone`` (the trace's copy of the user's function ``fn``), refusing a variable that
    may be None where ``fn`` tests ``is None`` or ``is``: run as Python, its test would see our
    stand-in, never None."""
    if not callable_kinds.asks_is_none(fn.__code__):
        return clone

    @functools.wraps(clone)
    def call(*args: Any, **kwargs: Any) -> Any:
        if any(map(_holds_optional, (*args, *kwargs.values()))):
            raise TraceBreak(
                TraceReason.IDENTITY_COMPARISON,
                f"{fn.__qualname__} tests 'is None' of a variable that may be None",
            )
        return clone(*args, **kwargs)

    call.__dict__ = clone.__dict__  # its attributes are the clone's (trace/reads.py)
    return call


def _holds_optional(value: Any) -> bool:
    if type(value) in (tuple, list):
        return any(map(_holds_optional, value))
    if type(value) is dict:
        return any(map(_holds_optional, value.values()))
    return is_optional(value)


# -- what the branches being traced show ------------------------------------------------------


def known(node: Node) -> bool | None:
    """The truth of the bool ``node`` where a constant or an enclosing branch decides it."""
    if node.op is Op.CONST:
        return bool(node.attr.value)
    if not is_tracing():
        return None
    return current().facts.get(node.id)


@contextlib.contextmanager
def assuming(test: Node, outcome: bool) -> Iterator[None]:
    """Inside a branch of an IF on ``test``: ``test`` is ``outcome``, and so is what it
    implies (``not t``; ``a and b()``, an IF whose other side gives False)."""
    facts = current().facts
    before = dict(facts)
    _imply(facts, test, outcome)
    try:
        yield
    finally:
        facts.clear()
        facts.update(before)


def _imply(facts: dict[int, bool], node: Node, outcome: bool) -> None:
    facts[node.id] = outcome
    if node.op is Op.LOGICAL_NOT:
        _imply(facts, node.inputs[0], not outcome)
    elif node.op is Op.RESULT and node.inputs[0].op is Op.IF:
        owner = node.inputs[0]
        then_side = owner.attr.then_graph.outputs[node.attr]
        else_side = owner.attr.else_graph.outputs[node.attr]
        for side, took_then in ((else_side, True), (then_side, False)):
            if side.op is Op.CONST and bool(side.attr.value) is not outcome:
                _imply(facts, owner.inputs[0], took_then)  # that side could not give it


def zero_of(inner: tuple) -> Any:
    """A zero of the kind ``inner``: what an optional that is None carries as its value."""
    if inner[0] in ("scalar", "union"):
        return inner[2](0)
    return inner[1].type(0)


def flag_const(is_none: bool) -> Node:
    return B.const_operand(np.bool_(is_none)).node
