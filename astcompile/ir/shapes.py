"""Symbolic array sizes.

Sizes are kernel parameters, so a region traced once with ``n == 1000`` must run for ``n == 7``
too. A dimension is either a plain ``int`` (0 and 1 are always specialised, because they change
broadcasting) or a :class:`SymDim`: a small expression over symbols that stand for input sizes.
Every expression carries its *hint*, the value it had while tracing; when a trace decision
depends on a size (slice clamping, ``if n > 3``), the decision is recorded as a
:class:`ShapeGuard` that the runtime re-checks on every call.

Equal input sizes share one symbol ("duck sizing", as torch.compile does): the guard key of a
call records which sizes were equal, so broadcasting two dims of one symbol needs no check.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Union

from astcompile.ir.attrs import SizeCheckKind

Dim = Union[int, "SymDim"]


class DimOp(Enum):
    SYM = "sym"
    ADD = "+"
    SUB = "-"
    MUL = "*"
    FLOORDIV = "//"
    MOD = "%"
    MAX = "max"
    RUN = "run"  # a length known only at run time (``x[i:i + k]`` in a loop); args (key, bound)
    BCAST = "bcast"  # NumPy's broadcast of two sizes, one of them RUN: ``b if a == 1 else a``


_EVAL: dict[DimOp, Callable[[int, int], int]] = {
    DimOp.ADD: operator.add,
    DimOp.SUB: operator.sub,
    DimOp.MUL: operator.mul,
    DimOp.FLOORDIV: operator.floordiv,
    DimOp.MOD: operator.mod,
    DimOp.MAX: max,
    DimOp.BCAST: lambda a, b: b if a == 1 else a,
}


@dataclass(frozen=True)
class SymDim:
    """A size expression. ``source`` is ``(input_index, axis)`` for a bare symbol."""

    op: DimOp
    args: tuple = ()
    hint: int = field(default=0, compare=False)
    name: str = ""
    source: tuple[int, int] | None = None

    def __str__(self) -> str:
        if self.op in (DimOp.SYM, DimOp.RUN):
            return self.name
        a, b = (str(x) for x in self.args)
        if self.op in (DimOp.MAX, DimOp.BCAST):
            return f"{self.op.value}({a}, {b})"
        return f"({a} {self.op.value} {b})"

    def __repr__(self) -> str:
        return f"SymDim({self}={self.hint})"

    def symbols(self) -> set[SymDim]:
        if self.op is DimOp.SYM:
            return {self}
        found: set[SymDim] = set()
        for arg in self.args:
            if isinstance(arg, SymDim):
                found |= arg.symbols()
        return found


def symbol(name: str, hint: int, source: tuple[int, int] | None = None) -> SymDim:
    return SymDim(DimOp.SYM, (), hint, name, source)


def hint(d: Dim) -> int:
    """The traced value of a dim."""
    return d if isinstance(d, int) else d.hint


def _fold(op: DimOp, a: Dim, b: Dim) -> Dim | None:
    """Constant folding and the few identities that keep printed shapes short."""
    if isinstance(a, int) and isinstance(b, int):
        return _EVAL[op](a, b)
    if (op is DimOp.ADD and b == 0) or (op is DimOp.SUB and b == 0):
        return a
    if op is DimOp.ADD and a == 0:
        return b
    if op is DimOp.ADD and isinstance(a, int) and isinstance(b, SymDim):
        return dim_add(b, a)  # one spelling per size: ``n + 2``, never ``2 + n``
    if op in (DimOp.ADD, DimOp.SUB) and isinstance(b, int) and b < 0 and isinstance(a, SymDim):
        return (dim_sub if op is DimOp.ADD else dim_add)(a, -b)  # ``n - 2``, never ``n + -2``
    if op is DimOp.MUL and (b == 1 or a == 1):
        return a if b == 1 else b
    if op is DimOp.MUL and (a == 0 or b == 0):
        return 0
    if op is DimOp.FLOORDIV and b == 1:
        return a
    if op is DimOp.SUB and a == b:
        return 0
    if op is DimOp.SUB and _base(a)[0] == _base(b)[0]:
        return _base(a)[1] - _base(b)[1]  # ``n - (n - 1)`` (the slice ``-1:``) is 1
    if (
        op in (DimOp.ADD, DimOp.SUB)
        and isinstance(b, int)
        and isinstance(a, SymDim)
        and a.op in (DimOp.ADD, DimOp.SUB)
        and isinstance(a.args[1], int)
    ):
        inner = a.args[1] if a.op is DimOp.ADD else -a.args[1]
        total = inner + (b if op is DimOp.ADD else -b)
        return dim_add(a.args[0], total) if total >= 0 else dim_sub(a.args[0], -total)
    return None


def _base(d: Dim) -> tuple[Dim, int]:
    """``d`` as a size plus a constant offset: ``n - 1`` is ``(n, -1)``, ``n`` is ``(n, 0)``."""
    if isinstance(d, SymDim) and d.op in (DimOp.ADD, DimOp.SUB) and isinstance(d.args[1], int):
        return d.args[0], d.args[1] if d.op is DimOp.ADD else -d.args[1]
    return d, 0


def _binary(op: DimOp, a: Dim, b: Dim) -> Dim:
    folded = _fold(op, a, b)
    if folded is not None:
        return folded
    return SymDim(op, (a, b), _EVAL[op](hint(a), hint(b)))


def dim_add(a: Dim, b: Dim) -> Dim:
    return _binary(DimOp.ADD, a, b)


def dim_sub(a: Dim, b: Dim) -> Dim:
    return _binary(DimOp.SUB, a, b)


def dim_mul(a: Dim, b: Dim) -> Dim:
    return _binary(DimOp.MUL, a, b)


def dim_floordiv(a: Dim, b: Dim) -> Dim:
    return _binary(DimOp.FLOORDIV, a, b)


def dim_mod(a: Dim, b: Dim) -> Dim:
    return _binary(DimOp.MOD, a, b)


def dim_max(a: Dim, b: Dim) -> Dim:
    if a == b:
        return a
    return _binary(DimOp.MAX, a, b)


def evaluate(
    d: Dim, shapes: Sequence[tuple[int, ...]], runtime: dict[int, int] | None = None
) -> int:
    """Value of ``d`` for a call whose array inputs have ``shapes`` (indexed like sources);
    ``runtime`` holds the RUN lengths seen so far in this call, by key."""
    if isinstance(d, int):
        return d
    if d.op is DimOp.SYM:
        index, axis = d.source
        return shapes[index][axis]
    if d.op is DimOp.RUN:
        return runtime[d.args[0]]
    a, b = (evaluate(x, shapes, runtime) for x in d.args)
    return _EVAL[d.op](a, b)


_run_keys = itertools.count()


def runtime_dim(bound: Dim) -> SymDim:
    """A fresh length known only at run time, at most ``bound`` (what buffers are sized by)."""
    key = next(_run_keys)
    return SymDim(DimOp.RUN, (key, bound), hint(bound), f"len{key}")


def is_runtime(d: Dim) -> bool:
    """Whether ``d`` depends on a RUN length (then no trace-time decision may rely on it)."""
    if isinstance(d, int):
        return False
    return d.op is DimOp.RUN or any(is_runtime(a) for a in d.args if d.op is not DimOp.SYM)


def upper_bound(d: Dim) -> Dim:
    """A size the wrapper can compute that is at least ``d``: RUN lengths by their bound."""
    if not is_runtime(d):
        return d
    if d.op is DimOp.RUN:
        return upper_bound(d.args[1])
    if d.op in (DimOp.BCAST, DimOp.MAX):
        return dim_max(upper_bound(d.args[0]), upper_bound(d.args[1]))
    if d.op in (DimOp.ADD, DimOp.MUL):
        return _binary(d.op, upper_bound(d.args[0]), upper_bound(d.args[1]))
    raise ValueError(f"no upper bound for the size {d}")


def never_one(d: Dim) -> bool:
    """Sizes that cannot be 1 at run time: other literals, and input sizes (0 and 1 are
    specialised, so an input's symbol is at least 2)."""
    return d != 1 if isinstance(d, int) else d.op is DimOp.SYM


def prod(dims: Sequence[Dim]) -> Dim:
    total: Dim = 1
    for d in dims:
        total = dim_mul(total, d)
    return total


class Rel(Enum):
    EQ = "=="
    GE = ">="
    LT = "<"


@dataclass(frozen=True)
class ShapeGuard:
    """A fact about sizes that a trace relied on: ``lhs rel rhs``."""

    lhs: Dim
    rel: Rel
    rhs: Dim

    def __str__(self) -> str:
        return f"{self.lhs} {self.rel.value} {self.rhs}"

    def holds(self, shapes: Sequence[tuple[int, ...]]) -> bool:
        a, b = evaluate(self.lhs, shapes), evaluate(self.rhs, shapes)
        if self.rel is Rel.EQ:
            return a == b
        return a >= b if self.rel is Rel.GE else a < b


class ShapeEnv:
    """Collects the guards of one trace. Deciding a comparison records the outcome."""

    def __init__(self) -> None:
        self.guards: list[ShapeGuard] = []
        #: records a run-time size check (its kind and dims)
        self.on_check: Callable[[SizeCheckKind, tuple[Dim, ...]], None] | None = None

    def check(self, kind: SizeCheckKind, *dims: Dim) -> None:
        """A fact about RUN sizes the compiled code must verify each time it gets there."""
        if self.on_check is None:
            _runtime_break(dims[0])
        self.on_check(kind, dims)

    def _record(self, guard: ShapeGuard) -> None:
        is_trivial = isinstance(guard.lhs, int) and isinstance(guard.rhs, int)
        if not is_trivial and guard not in self.guards:
            self.guards.append(guard)

    def is_ge(self, a: Dim, b: Dim) -> bool:
        """Decide ``a >= b`` by the hints and remember which way it went."""
        _no_runtime(a, b)
        outcome = hint(a) >= hint(b)
        self._record(ShapeGuard(a, Rel.GE, b) if outcome else ShapeGuard(a, Rel.LT, b))
        return outcome

    def is_eq(self, a: Dim, b: Dim) -> bool:
        if a == b:
            return True
        _no_runtime(a, b)
        outcome = hint(a) == hint(b)
        if outcome:
            self._record(ShapeGuard(a, Rel.EQ, b))
        else:
            self._record(
                ShapeGuard(a, Rel.LT, b) if hint(a) < hint(b) else ShapeGuard(b, Rel.LT, a)
            )
        return outcome

    def specialize(self, d: Dim) -> int:
        """A size used as a plain Python int (``range(n)``, ``if n > 3``): guard its value."""
        _no_runtime(d)
        if isinstance(d, SymDim):
            self._record(ShapeGuard(d, Rel.EQ, d.hint))
        return hint(d)


def _no_runtime(*dims: Dim) -> None:
    for d in dims:
        if is_runtime(d):
            _runtime_break(d)


class RuntimeSizeUsed(Exception):
    """A size known only when the code runs is used where its value is needed.

    The IR knows nothing of tracing: the tracer turns this into the RUNTIME_SIZE graph break
    at the user's line (trace/tracer.py)."""


def _runtime_break(d: Dim) -> None:
    raise RuntimeSizeUsed(
        f"the size {d} of a slice with loop-dependent bounds is used where the "
        "compiler needs its value (a shape, len(), reshape or a further slice)"
    )


def _broadcast_runtime(env: ShapeEnv, a: Dim, b: Dim) -> Dim:
    """Broadcast with a RUN size: checked when the code runs; a length that turns out to be 1
    broadcasts, as in NumPy."""
    env.check(SizeCheckKind.BROADCAST, a, b)
    if never_one(a) or never_one(b):
        return a if never_one(a) else b
    return SymDim(DimOp.BCAST, (a, b), hint(a))


def broadcast_dims(env: ShapeEnv, a: Dim, b: Dim) -> Dim:
    """NumPy's broadcasting of one axis; raises ValueError as NumPy does on a mismatch."""
    if a == 1:
        return b
    if b == 1 or a == b:
        return a
    if is_runtime(a) or is_runtime(b):
        return _broadcast_runtime(env, a, b)
    if env.is_eq(a, b):
        return a
    raise ValueError(f"operands could not be broadcast together: sizes {hint(a)} and {hint(b)}")


def broadcast_shapes(env: ShapeEnv, *shapes: tuple[Dim, ...]) -> tuple[Dim, ...]:
    ndim = max((len(s) for s in shapes), default=0)
    result: list[Dim] = [1] * ndim
    for shape in shapes:
        padded = (1,) * (ndim - len(shape)) + tuple(shape)
        result = [broadcast_dims(env, r, d) for r, d in zip(result, padded)]
    return tuple(result)


def _clamp_index(env: ShapeEnv, value: Dim | None, n: Dim, default: Dim, step: int) -> Dim:
    """Normalise a slice bound like ``slice.indices`` does, recording the branch taken."""
    if value is None:
        return default
    lower: Dim = 0 if step > 0 else -1
    negative = value < 0 if isinstance(value, int) else not env.is_ge(value, 0)  # a size: guarded
    if negative:
        shifted = dim_add(n, value)
        return shifted if env.is_ge(shifted, 0) else lower
    upper: Dim = n if step > 0 else dim_sub(n, 1)
    return value if env.is_ge(upper, value) else upper


def slice_extent(env: ShapeEnv, s: slice, n: Dim) -> tuple[Dim, Dim]:
    """Start and length of ``s`` applied to an axis of size ``n`` (Python slice semantics)."""
    step = 1 if s.step is None else s.step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step > 0:
        start = _clamp_index(env, s.start, n, 0, step)
        stop = _clamp_index(env, s.stop, n, n, step)
        span = dim_sub(stop, start)
        if not env.is_ge(span, 1):
            return start, 0
        return start, dim_floordiv(dim_add(span, step - 1), step)
    start = _clamp_index(env, s.start, n, dim_sub(n, 1), step)
    stop = _clamp_index(env, s.stop, n, -1, step)
    span = dim_sub(start, stop)
    if not env.is_ge(span, 1):
        return start, 0
    return start, dim_floordiv(dim_add(span, -step - 1), -step)


def store_checks(value: Sequence[Dim], target: Sequence[Dim]) -> list[tuple[Dim, Dim]]:
    """The (value size, target size) pairs a store must check when it runs: those that
    involve a size known only at run time (the value size must equal the target's, or be 1)."""
    pairs = zip(reversed(value), reversed(target))
    return [(v, t) for v, t in pairs if v != 1 and v != t and (is_runtime(v) or is_runtime(t))]
