"""The attributes IR nodes carry, and the kinds that tell their variants apart.

Kept apart from :mod:`astcompile.ir.graph` so that the op table (:mod:`astcompile.ir.ops`) can
name the attribute type each op carries without importing the graph. Kinds are enums that are
also strings (``IndexKind.SLICE == "slice"``): code that compares with the old strings keeps
working, and a kind prints as its word in graph listings and generated code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph, Node
    from astcompile.ir.shapes import Dim


class NamedKind(str, Enum):
    """An enum whose members are their own (string) values: equal to, hashed as and printed as
    the word, so tables keyed by the word and ``kind == "word"`` tests need no change."""

    def __str__(self) -> str:
        return str.__str__(self)


def coerce_kind(attr: Any, kinds: type[NamedKind], field: str = "kind") -> None:
    """Store ``attr.<field>`` as its enum member: code that still passes the word
    (``IndexItem("slice", ...)``) builds the same attribute as code that passes the member."""
    object.__setattr__(attr, field, kinds(getattr(attr, field)))


class IndexKind(NamedKind):
    """What one :class:`IndexItem` selects along its axis."""

    SLICE = "slice"  # a strided range: start/length/step
    INT = "int"  # one element (start); the axis is dropped
    NEWAXIS = "newaxis"  # a new size-1 axis
    DSLICE = "dslice"  # a slice whose bounds are known only at run time


class ArithKind(NamedKind):
    """How NumPy computes an elementwise op, where it computes it two ways: a complex
    ``MUL`` of NumPy scalars or Python numbers (``s * t``, NumPy's scalar operators) uses the
    textbook formula, where its array loops (and any ufunc call) may fuse each part into one
    multiply-add (targets/c/complex_rules.py). The attribute is None for the array way.
    ``EVERY``: np.where, whose sides NumPy computes on every element before it picks (their
    floating-point flags count: targets/c/c_rules.py); a masked store's or a branch's select
    computes a side only where it is picked. ``INDEXED``: maximum/minimum in the indexed loop
    of ``np.maximum.at`` (gather.py), whose compare raises the invalid flag on NaN ("invalid
    value encountered in maximum"), where the array loop is quiet."""

    SCALAR = "scalar"
    EVERY = "every"
    INDEXED = "indexed"


class SizeCheckKind(NamedKind):
    """Which fact a SIZE_CHECK asserts about RUN sizes (see :mod:`astcompile.ir.checks`)."""

    BROADCAST = "broadcast"  # a == b, or either is 1
    STORE = "store"  # value size a fits target size b: equal, or a is 1
    EQUAL = "equal"  # a == b
    NONEMPTY = "nonempty"  # a > 0: max's axis holds something (NumPy's message names the op)
    NONEMPTY_MIN = "nonempty_min"
    NONEMPTY_ARGMAX = "nonempty_argmax"
    NONEMPTY_ARGMIN = "nonempty_argmin"


class InputKind(Enum):
    ARRAY = "array"  # an ndarray argument
    SCALAR = "scalar"  # a Python or NumPy scalar passed by value (never guarded by value)
    LOOP_VAR = "loop_var"  # a LOOP body's induction variable (int64)
    CARRIED = "carried"  # a LOOP body's loop-carried value at the start of an iteration


@dataclass(frozen=True)
class InputAttr:
    index: int  # position among the region's flattened array/scalar leaves
    name: str  # the user's variable name, for generated code and printing
    input_kind: InputKind
    weak: bool = False  # a Python scalar: NEP 50 "weak" promotion


@dataclass(frozen=True)
class ReduceAttr:
    axes: tuple[int, ...]  # normalised, sorted, non-negative
    keepdims: bool
    ddof: int = 0


@dataclass(frozen=True)
class IndexItem:
    """One entry of a basic index, already normalised against the input's axis.

    ``kind`` is SLICE (``start``/``length``/``step`` select a strided range of the axis),
    INT (``start`` picks one element; the axis is dropped), NEWAXIS (adds a size-1 axis) or
    DSLICE: a slice whose bounds are known only at run time (``x[i:i + k]`` in a loop);
    ``start``/``stop`` are then the raw bounds (None when omitted) that NumPy clips when the
    code runs, and ``length`` is a RUN size (:func:`astcompile.ir.shapes.runtime_dim`).
    """

    kind: IndexKind
    start: Dim | DynIndex | None = 0  # a DynIndex only for INT and DSLICE items
    length: Dim = 0
    step: int = 1
    stop: Dim | DynIndex | None = None  # DSLICE only

    def __post_init__(self) -> None:
        coerce_kind(self, IndexKind)


@dataclass(frozen=True)
class DynIndex:
    """An index known only at run time: the value of ``node.inputs[input]`` (an int64 scalar).

    Used as ``IndexItem.start`` of an INT item (``x[i]`` with ``i`` a loop variable). NumPy's
    rules apply when it runs: a negative index counts from the end once, and anything still
    out of range raises ``IndexError``: NumPy's, or ``message`` where the indexed array holds
    the items of a Python list or tuple (``xs[i]``, trace/lists.py), whose own check it is.
    """

    input: int
    message: str | None = None  # one of checks.SEQUENCE_ERRORS

    def __str__(self) -> str:
        return f"${self.input}"


@dataclass(frozen=True)
class SizeCheckAttr:
    """A run-time check of RUN sizes (a SIZE_CHECK effect): ``kind`` says which (BROADCAST,
    STORE, EQUAL, NONEMPTY; see :class:`SizeCheckKind`). A failed check raises NumPy's
    ValueError."""

    kind: SizeCheckKind
    dims: tuple[Dim, ...]

    def __post_init__(self) -> None:
        coerce_kind(self, SizeCheckKind)


@dataclass(frozen=True)
class StoreAttr:
    index: tuple[IndexItem, ...]  # where in the target; () means the whole target


@dataclass(frozen=True)
class LoopAttr:
    """``for i in range(start, stop, step)`` or ``while test`` with loop-carried state.

    A ``for`` LOOP node's inputs are ``(start, stop, step, *initial_carried, *captured)``;
    ``body`` takes ``(i, *carried)`` and returns the next ``carried``. With ``exits`` the body
    returns one more value, a bool: run another iteration (False after a ``break``). A ``while``
    LOOP (``is_while``) has inputs ``(go, *initial_carried, *captured)``, where ``go`` is the
    test on the initial values; its body takes ``(*carried)`` and always ``exits``: its last
    output is the test on the next values (False after a ``break``).
    """

    body: Graph
    carried: int
    parallel: bool = False
    exits: bool = False
    is_while: bool = False

    @property
    def heads(self) -> int:
        """How many control inputs come before the initial carried values."""
        return 1 if self.is_while else 3

    @property
    def holders(self) -> list[Node]:
        """The body inputs that stand for the carried values."""
        return self.body.inputs[0 if self.is_while else 1 :]


@dataclass(frozen=True)
class CheckAttr:
    """A CHECK raises ``exception(message)`` when its first input is false (``assert``, domain
    errors of ``math`` functions, Python's division by zero on loop values). Its further
    inputs are run-time ints the message names, filled into its ``{}`` in order (NumPy's
    ``Python integer 300 out of bounds for int8``)."""

    exception: str  # a builtin exception's name: "AssertionError", "ValueError", ...
    message: str


@dataclass(frozen=True)
class IfAttr:
    """``if cond`` on a scalar: inputs ``(cond, *captured)``; both graphs take ``captured``."""

    then_graph: Graph
    else_graph: Graph


@dataclass(frozen=True)
class ConstAttr:
    """A constant. ``weak`` marks a Python scalar literal: NEP 50 lets the other operand's dtype
    win (``x_f32 * 2.0`` stays float32), so backends must not widen it to the node's dtype early."""

    value: Any
    weak: bool = False

    def __repr__(self) -> str:
        return repr(self.value)


@dataclass(frozen=True)
class NumpyCallAttr:
    """A NUMPY node: NumPy's own ``np.<name>`` (``linalg.solve``: a submodule's) applied to the
    node's array inputs with the static keyword arguments ``kwargs`` (sorted pairs). The last
    ``len(keywords)`` array inputs go in by those keywords (``weights=``); ``item`` picks one
    result of a function that returns several (``np.histogram``'s counts or edges); ``lead``
    are static positional arguments before the arrays (``np.einsum``'s subscripts). A
    NUMPY_VIEW node's result may be (a view of) its array input ``view_of`` (``np.diag(A)``:
    0; ``np.histogram(x, edges)``'s edges: 1, the edges array itself)."""

    name: str
    kwargs: tuple[tuple[str, Any], ...] = ()
    keywords: tuple[str, ...] = ()
    item: int | None = None
    lead: tuple[Any, ...] = ()
    view_of: int = 0

    def function(self) -> Any:
        import functools

        import numpy

        found: Any = numpy
        for part in self.name.split("."):
            found = getattr(found, part)
        if not self.keywords and self.item is None and not self.lead:
            return found
        return functools.partial(_call_numpy, found, self.keywords, self.item, self.lead)


def _call_numpy(
    fn: Any, keywords: tuple[str, ...], item: int | None, lead: tuple, *args: Any, **kw: Any
) -> Any:
    """``fn`` with its static leading arguments, its last array arguments passed by keyword,
    and one of its results picked."""
    split = len(args) - len(keywords)
    result = fn(*lead, *args[:split], **dict(zip(keywords, args[split:])), **kw)
    return result if item is None else result[item]


def index_shape(shape: Sequence[Dim], items: Sequence[IndexItem]) -> tuple[Dim, ...]:
    """The shape of ``x[items]`` for ``x`` of ``shape``; axes past the items are kept whole."""
    result: list[Dim] = []
    axis = 0
    for item in items:
        if item.kind is IndexKind.NEWAXIS:
            result.append(1)
            continue
        if item.kind in (IndexKind.SLICE, IndexKind.DSLICE):
            result.append(item.length)
        axis += 1
    return (*result, *shape[axis:])
