"""The state of one trace: the shape environment, value guards and where each node came from."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.graph import Loc, Node, SizeCheckAttr, SizeCheckKind
from astcompile.ir.ops import Kind, Op, is_reduction
from astcompile.ir.results import Predicate, same_guard
from astcompile.ir.shapes import Dim, ShapeEnv
from astcompile.trace.reasons import TraceReason

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))
#: Frames that are never the user's line: ours, NumPy's, and the standard library's context
#: managers (a break raised when a ``with`` block closes would otherwise point into contextlib).
_NOT_USER = (_PACKAGE_DIR, _NUMPY_DIR, "<frozen", os.path.abspath(contextlib.__file__))
_local = threading.local()
#: What one line of the user's code may add to one trace: (reductions, nodes). Python
#: iteration the tracer runs as Python (a comprehension, ``sum(... for ...)``, a helper called
#: in such a loop) copies its line once per item, and every copy fuses into one kernel whose
#: build time grows faster than the count (16 window means: 1.7 s of gcc, 56: a minute). A line
#: past its budget breaks the trace, and the region runs as written. Loops the tracer lowers
#: trace their body once (trace/loops.py); its own short unrolls stay far below these.
LINE_BUDGET = (12, 400)


class TraceBreak(Exception):
    """The tracer met something it cannot model; the region runs in NumPy instead.

    ``reason`` says why (its phrase starts the message, its ``code`` is the graph break a user
    sees); ``detail`` says what, in the user's terms; ``loc`` is the user's line that the trace
    was running; ``origin``, where the break is reported when that is elsewhere (a callee's own
    line that the trace never ran: frontend/callees.py).
    """

    def __init__(
        self,
        reason: TraceReason,
        detail: str,
        loc: Loc | None = None,
        origin: Loc | None = None,
    ) -> None:
        if not isinstance(reason, TraceReason):
            raise TypeError(f"TraceBreak needs a TraceReason, not {reason!r}")
        self.reason = reason
        self.detail = detail
        self.loc = loc if loc is not None else user_location()
        self.origin = origin or self.loc
        where = f"{self.loc}: " if self.loc else ""
        super().__init__(f"{where}{reason.phrase}: {detail}")


def user_location() -> Loc | None:
    """The innermost stack frame that belongs to user code (not astcompile, not NumPy)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_NOT_USER):
            return Loc(filename, frame.f_lineno)
        frame = frame.f_back
    return None


def _user_lines() -> tuple[tuple[str, int], ...]:
    """The user's lines on the stack, innermost first (a node's line and its callers')."""
    frame, lines = sys._getframe(1), []
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_NOT_USER):
            lines.append((filename, frame.f_lineno))
        frame = frame.f_back
    return tuple(lines)


def location_in_traceback(tb: Any) -> Loc | None:
    """The innermost user-code frame of a traceback (where the tracer failed in user terms)."""
    found = None
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if not filename.startswith(_NOT_USER):
            found = Loc(filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


class TraceContext:
    """Created per trace; symbolic values reach it through :func:`current`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.env = ShapeEnv()
        self.inputs: list[Node] = []
        self.value_guards: list[tuple[str, Any]] = []  # (description, value) of specialised scalars
        self.effect_frames: list[list[Node]] = [[]]  # STORE/LOOP/IF nodes per (nested) graph
        #: checks whose failure re-runs the region: (the user's line, why, what)
        self.plain_reruns: list[tuple[Loc | None, TraceReason, str]] = []
        #: INPUT arrays of typed lists (trace/lists.py): stores reach the list only at the end
        self.private: set[Node] = set()
        #: whether the region was handed an object (trace/local_lists.py adopts only its own)
        self.given: Callable[[Any], bool] = lambda value: True
        #: node id -> the truth the branches being traced give it (trace/optionals.py)
        self.facts: dict[int, bool] = {}
        self.loop_depth = 0  # loop bodies being traced, one in another
        self.growing: list[Any] = []  # lists loops append to (trace/growing_lists.py)
        #: (value, the check of NumPy's error for it, effect frame, position): kept where
        #: nothing reads the value (trace/limits.py, keep_unread_checks)
        self.unread_checks: list[tuple[Node, Node, list[Node], int]] = []
        #: (value, effect frame, position) of each elementwise op and reduction, in the order
        #: made: those nothing reads may still warn in NumPy (trace/unread_values.py)
        self.made: list[tuple[Node, list[Node], int]] = []
        self.python_numbers: set[int] = set()  # ids of those of Python numbers only
        self.per_line: dict[tuple, tuple[int, int]] = {}  # (reductions, nodes): _spend
        self.env.on_check = self._check

    def _check(self, kind: SizeCheckKind, dims: tuple) -> None:
        self.add_effect(
            self.node(Op.SIZE_CHECK, (), np.dtype(bool), (), SizeCheckAttr(kind, tuple(dims)))
        )

    def guard_values(self, values: dict[int, Any]) -> None:
        """Guard each argument (leaf index) by its value, or by a comparison's outcome (a
        ``Predicate``), once."""
        for leaf, value in values.items():
            if not same_guard(self.value_guards, leaf, value):
                self.value_guards.append((leaf, value))

    def guard_outcome(self, leaf: int, fn: Callable, value: Any, other: Any) -> bool:
        """``fn(value, other)`` (``t > 0`` of argument ``t``), guarded by its outcome, not by
        ``t``: another ``t`` on the same side runs the same entry (a guard on ``t`` traced
        each new value up to ``cache_size_limit``)."""
        outcome = bool(fn(value, other))
        self.guard_values({leaf: Predicate(fn.__name__, other, outcome)})
        return outcome

    def add_effect(self, node: Node) -> None:
        """Record an effect in the graph being traced (a loop body's, while one is open)."""
        self.effect_frames[-1].append(node)

    def node(
        self, op: Op, inputs: tuple, dtype: np.dtype, shape: tuple[Dim, ...], attr: Any = None
    ) -> Node:
        lines = _user_lines()  # one walk of the stack: the node's line and the budget's key
        loc = Loc(*lines[0]) if lines else None
        self._spend(lines, loc, is_reduction(op))
        node = Node(op, tuple(inputs), np.dtype(dtype), tuple(shape), attr, loc)
        if node.kind in (Kind.ELEMENTWISE, Kind.REDUCTION):
            frame = self.effect_frames[-1]
            self.made.append((node, frame, len(frame)))
        return node

    def _spend(self, lines: tuple, loc: Loc | None, reduction: bool) -> None:
        """Count a node against its line's LINE_BUDGET; past it, the line was unrolled. The
        line is keyed with the user's lines that called it (``lines``), so a helper called from
        many places is not one line copied; a helper called per item of a comprehension is."""
        if loc is None:
            return
        reductions, nodes = self.per_line.get(lines, (0, 0))
        spent = (reductions + reduction, nodes + 1)
        self.per_line[lines] = spent
        if any(n > most for n, most in zip(spent, LINE_BUDGET)):
            raise TraceBreak(
                TraceReason.UNROLLED,
                f"this line was traced into more than {LINE_BUDGET[0]} reductions or "
                f"{LINE_BUDGET[1]} operations, a copy per item of a comprehension or generator; "
                "it runs in Python (a for loop storing into an array, out[i] = ..., compiles "
                "as one loop)",
                loc,
            )

    def __enter__(self) -> TraceContext:
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _local.stack.pop()


def current() -> TraceContext:
    stack = getattr(_local, "stack", None)
    if not stack:
        raise RuntimeError("symbolic value used outside of a trace (an astcompile bug)")
    return stack[-1]


def is_tracing() -> bool:
    return bool(getattr(_local, "stack", None))
