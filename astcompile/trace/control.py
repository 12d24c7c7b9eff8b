"""Truth values inside traced loops: ``and``/``or``/``not``, ``assert`` and run-time checks.

Python asks ``bool(x)`` for ``a and b``, ``not a`` and ``assert a``, which a value known only
at run time (a loop variable, an array element) cannot answer while tracing. The frontend lowers
these, in the tests and statements of lowered loops, to calls of the functions below::

    while err > tol and it < maxit:   ->   while __ac_and(err > tol, lambda: it < maxit):
    assert s >= 0, "negative"         ->   __ac_assert(s >= 0, "negative")
    assert s >= 0, f"at {i}"          ->   __ac_assert(s >= 0, lambda: f"at {i}")

Run as plain Python they do what the original did (the right operand only when needed). While
tracing, a run-time left operand makes ``and``/``or`` an IF node (so the right operand is only
evaluated, in C too, when Python would evaluate it), and ``assert`` a CHECK node: the compiled
code stops with ``AssertionError`` where Python would.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.checks import RUN_PLAIN, make_error
from astcompile.ir.graph import CheckAttr, Node
from astcompile.ir.ops import Op
from astcompile.trace import handlers
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, TraceContext, current, is_tracing, user_location
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, SymScalar, operand, plain


def is_runtime(value: Any) -> bool:
    """A value whose truth is only known when the compiled code runs."""
    return isinstance(value, SymArray) or (isinstance(value, SymScalar) and value.dynamic)


def truth_node(value: Any) -> Node:
    """``bool(value)`` as a bool node (a constant for a concrete value)."""
    if not is_runtime(value):
        return B.const_operand(bool(value)).node
    node = operand(plain(value)).node  # a Python number and its NumPy twin: the same truth
    if node.ndim:
        raise ValueError(
            "The truth value of an array with more than one element is ambiguous. "
            "Use a.any() or a.all()"
        )
    if node.dtype != np.bool_:
        node = B.elementwise(Op.NE, [node_operand(node), B.const_operand(0)])
    return node


def node_operand(node: Node) -> B.Operand:
    """``node`` as an operand whose example has its dtype (NumPy's promotion sees the type)."""
    return B.Operand(node, False, np.ones((), node.dtype))


def _flag(node: Node, what: str) -> SymScalar:
    return SymScalar(node, True, what, dynamic=True)


def never() -> SymScalar:
    """A run-time False: a CHECK on it fails only if the code holding it runs (a division by
    a zero constant inside a loop body raises only when the body runs, as in Python)."""
    return _flag(B.const_operand(False).node, "a failed check")


def negate(value: Any) -> Any:
    """``not value``."""
    if not is_runtime(value):
        return not value
    node = B.elementwise(Op.LOGICAL_NOT, [node_operand(truth_node(value))])
    return _flag(node, "a negated test")


def ac_not(value: Any) -> Any:
    return negate(value)


def ac_and(left: Any, right: Callable[[], Any]) -> Any:
    """``left and right()`` as a test: ``right`` runs only when ``left`` is true."""
    if not is_runtime(left):
        return left and right()
    return _select(left, lambda: (_as_bool(right()),), lambda: (False,))


def ac_or(left: Any, right: Callable[[], Any]) -> Any:
    """``left or right()`` as a test: ``right`` runs only when ``left`` is false."""
    if not is_runtime(left):
        return left or right()
    return _select(left, lambda: (True,), lambda: (_as_bool(right()),))


def _as_bool(value: Any) -> Any:
    return _flag(truth_node(value), "a test") if is_runtime(value) else bool(value)


def _select(test: Any, then_fn: Callable, else_fn: Callable) -> Any:
    return handlers.ac_if(test, then_fn, else_fn, ())[0]


def ac_assert(test: Any, message: str | Callable[[], Any] | None = None) -> None:
    """``assert test, message``: ``message`` is the literal text, or a function making it.

    A run-time test becomes a CHECK. With literal text (or none) the compiled code raises the
    AssertionError itself; a message computed in Python (``f"step {i}"``, a tuple) is made as
    Python makes it: a failed check runs the region's own statements, which raise it. That is
    only right where running them again repeats nothing, so the trace records the need and
    refuses a region that stores into arrays (:func:`require_no_stores`)."""
    if not __debug__:
        return
    if not is_runtime(test):
        if not test:
            raise AssertionError(*_message_args(message))
        return
    if message is None or isinstance(message, str):
        check(test, "AssertionError", message or "")
        return
    rerun_on_failure(TraceReason.ASSERT_MESSAGE, "an assert message computed from loop values")
    check(test, RUN_PLAIN, "the assert failed: the region's statements raise it")


def _message_args(message: str | Callable[[], Any] | None) -> tuple:
    if message is None:
        return ()
    return (message,) if isinstance(message, str) else (message(),)


def rerun_on_failure(reason: TraceReason, what: str) -> None:
    """The next CHECK hands a failing call to the region's own statements (RunPlain): legal
    only in a region that stores into no array, which :func:`require_no_stores` checks."""
    current().plain_reruns.append((user_location(), reason, what))


def require_no_stores(ctx: TraceContext, effects: list[Node]) -> None:
    """A region whose failed check re-runs its statements (an assert with a computed message,
    an int outgrowing int64) must have done nothing a second run would do again: it stores
    into no array. Otherwise it runs as Python (and its loops with it)."""
    if not ctx.plain_reruns or handlers.repeatable(effects):
        return
    loc, reason, what = ctx.plain_reruns[0]
    detail = f"{what}, in a region that stores into arrays"
    raise TraceBreak(reason, detail, loc)


def ac_raise_if(raised: Any, make: Callable[[], BaseException]) -> None:
    """After a loop whose body raised (it set ``raised`` and broke out): raise ``make()``, the
    user's exception. Compiled code cannot make it (its message is Python's), so a traced
    ``raised`` becomes a check whose failure hands the call to the region's own statements
    (RunPlain), which raise it; only where nothing the region did would be done twice."""
    if not is_runtime(raised):
        if raised:
            raise make()
        return

    if not handlers.nothing_done_yet(loops_allowed=True):
        raise TraceBreak(
            TraceReason.NOT_SUPPORTED, "a raise in a loop that stores into arrays runs in Python"
        )
    check(negate(raised), RUN_PLAIN, "the loop raised: the region's statements raise it")


def ac_builtin(value: Any, name: str) -> None:
    """A ``sum``/``max``/... of a comprehension lowered to a loop (frontend/comprehensions.py)
    is that builtin's only where the name means it: else the region runs as written."""
    if value is not getattr(builtins, name):
        raise TraceBreak(TraceReason.NOT_SUPPORTED, f"`{name}` is not Python's builtin {name}()")


def check(ok: Any, exception: str, message: str) -> None:
    """Raise ``exception(message)`` at run time where ``ok`` is false (an effect in order)."""
    if not is_tracing() or not is_runtime(ok):
        if not ok:
            raise make_error(exception, message)
        return
    ctx = current()
    node = ctx.node(Op.CHECK, (truth_node(ok),), np.dtype(bool), (), CheckAttr(exception, message))
    ctx.add_effect(node)
