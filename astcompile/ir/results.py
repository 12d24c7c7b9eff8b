"""What a trace leaves behind for the run time: the graph's output template and value guards.

Kept apart from the tracer (trace/tracer.py) so that a process loading compiled entries from the
warm cache unpickles these without importing the tracer.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from astcompile.ir.attrs import NamedKind, coerce_kind

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph

LEAF_TYPES = (np.ndarray, np.generic, int, float, complex)


def is_leaf(value: Any) -> bool:
    return isinstance(value, LEAF_TYPES) and not isinstance(value, bool)


class OutKind(NamedKind):
    """Where one output of a region comes from."""

    GRAPH = "graph"  # graph output ``index``, boxed by ``box``
    LEAF = "leaf"  # argument leaf ``index``, returned as the same object
    CONST = "const"  # ``value`` itself
    ARG = "arg"  # argument ``index`` itself (a typed list, runtime/pylists.py)


class Box(NamedKind):
    """How a graph output is handed back to the caller."""

    ARRAY = "array"  # the array as computed
    SCALAR = "scalar"  # a NumPy scalar
    ZERO_D = "0d"  # a 0-d array (backends may compute it as a scalar)
    LIST = "list"  # a new Python list of the items (``tolist()``: Python's own number types)
    ITEMS = "items"  # a new Python list of the items as NumPy scalars (``list(array)``)
    PYTHON = "python"  # tag of ``(Box.PYTHON, type, flag)``, see :class:`OutSpec`
    OPTIONAL = "optional"  # tag of ``(Box.OPTIONAL, box, flag)``, see :class:`OutSpec`


@dataclass(frozen=True)
class OutSpec:
    """How one output of the region is produced at run time (see :class:`OutKind`).

    ``box`` is a :class:`Box`, a Python type (the Python number the graph output converts to),
    or ``(Box.PYTHON, type, flag)``: a NumPy scalar that is the Python number where graph output
    ``flag`` holds (see trace/unions.py), or ``(Box.OPTIONAL, box, flag)``: None where graph
    output ``flag`` holds, else the output boxed by ``box`` (see trace/optionals.py).
    """

    kind: OutKind
    index: int = 0
    box: Any = Box.ARRAY
    value: Any = None

    def __post_init__(self) -> None:
        coerce_kind(self, OutKind)
        if isinstance(self.box, str):
            coerce_kind(self, Box, "box")


_SYMBOLS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


@dataclass(frozen=True, eq=False)
class Predicate:
    """A value guard on the outcome of a comparison, not on the value: ``if t > 0`` on a
    float argument holds for every ``t`` of the same side, so a new ``t`` each call does not
    trace again (a guard on ``t`` traced every value up to ``cache_size_limit``). It stands
    where a value guard's value does (``leaf == guard``): comparing a number with it asks
    the comparison, so the generated guards, the C-level call path and the miss report
    need nothing of their own."""

    op: str  # the comparison's name in ``operator`` ("gt", ...)
    other: int | float  # the Python number the argument is compared with
    outcome: bool  # what the comparison gave in the trace

    def __eq__(self, value: object) -> bool:
        if isinstance(value, Predicate):
            return (self.op, self.other, self.outcome) == (value.op, value.other, value.outcome)
        if type(value) not in (int, float, bool):
            return False
        return bool(getattr(operator, self.op)(value, self.other)) is self.outcome

    def __hash__(self) -> int:
        return hash((self.op, self.other, self.outcome))

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self.op]

    def __repr__(self) -> str:
        return f"a value with (value {self.symbol} {self.other!r}) {self.outcome}"


def same_guard(guards: list, leaf: int, value: Any) -> bool:
    """Whether ``(leaf, value)`` is among ``guards`` already, a :class:`Predicate` only as
    itself (``value == predicate`` asks the comparison, which the traced value passes)."""
    return any(i == leaf and type(v) is type(value) and v == value for i, v in guards)


@dataclass
class TraceResult:
    graph: Graph
    template: Any  # the output structure with OutSpec leaves
    value_guards: list[tuple[int, Any]] = field(default_factory=list)
    leaf_names: list[str] = field(default_factory=list)
    reads: tuple = ()  # runtime.reads.Read: what the region read besides its arguments
    #: (leaf index, argument position) of each typed list the region stores into: its array
    #: goes back into the list when the region returns or raises (runtime/pylists.py)
    written_lists: tuple[tuple[int, int], ...] = ()
