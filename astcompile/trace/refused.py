"""Callables the trace reached but must not run (``print``, ``np.random.rand``, a user
function with side effects or graph breaks): the one callee analysis (frontend/callees.py)
judges them, and a call of one is a trace break, reported at the callee's own first break,
so the region runs as Python and calls it there."""

from __future__ import annotations

import dis
from collections.abc import Callable
from typing import Any, NoReturn

from astcompile.frontend.callees import judge
from astcompile.ir.graph import Loc
from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason


def refused_or_itself(value: Any, label: str) -> Any:
    """``value``, or a :class:`Refused` stand-in where the one callee analysis
    (frontend/callees.py) does not let the trace call it."""
    if not callable(value):
        return value

    verdict = judge(value)
    return value if verdict.traceable else Refused(value, label, verdict)


class Refused:
    """A callable traced code reached but must not run: calling it breaks the trace."""

    __slots__ = ("__wrapped__", "label", "verdict")

    def __init__(self, real: Callable, label: str, verdict: Any) -> None:
        self.__wrapped__, self.label, self.verdict = real, label, verdict

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        refuse_call(self.label, self.verdict)


def refuse_call(label: str, verdict: Any) -> NoReturn:
    """The trace break for a call of a callee the trace must not run (a ``CalleeVerdict``),
    reported at the callee's own first break where its analysis found one."""
    first = verdict.first_break
    origin = Loc(first.filename, first.line) if first is not None else None
    detail = f"{label} is {verdict.describe()}; the region runs as Python"
    raise _CALLEE_BREAKS.get(verdict.kind.value, _unknown_callee)(detail, origin)


def checked_getattr(target: Any, name: str) -> Any:
    """``getattr(target, name)``, unless the attribute is a property of its class whose getter
    may change state: the getter runs outside the trace, as often as the guards and the
    binding read ``target.name``, not once for every read in the region (a getter that counts
    its calls, caches, logs). The break comes before the getter runs and the region runs as
    Python. A getter the callee analysis refuses, or whose code stores or calls a mutating
    method (:func:`_changes_state`), may."""
    for klass in type(target).__mro__:
        if name in vars(klass):
            held = vars(klass)[name]
            if isinstance(held, property) and held.fget is not None:
                label = f"{type(target).__name__}.{name}"
                verdict = judge(held.fget)
                if not verdict.traceable:
                    refuse_call(label, verdict)
                if _changes_state(getattr(held.fget, "__code__", None)):
                    raise TraceBreak(
                        TraceReason.SIDE_EFFECT,
                        f"the property {label} may change state; the region runs as Python",
                    )
            break
    return getattr(target, name)


#: What a getter's code may do to change state: its own stores, and the usual mutating
#: methods by name (``self.log.append(n)``; the callee analysis lets the trace inline those,
#: where a stand-in catches the write, but a property's getter runs on the real object).
_STORES = frozenset(
    f"{kind}_{what}"
    for kind in ("STORE", "DELETE")
    for what in ("ATTR", "GLOBAL", "SUBSCR", "DEREF")
)
_MUTATORS = frozenset(
    [
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "update",
        "setdefault",
        "popitem",
        "add",
        "discard",
        "sort",
        "reverse",
        "fill",
        "put",
        "resize",
        "setflags",
        "send",
        "write",
        "next",
        "seed",
        "setattr",
        "delattr",
        "__setitem__",
    ]
)


def _changes_state(code: Any) -> bool:
    if code is None:
        return True
    if set(code.co_names) & _MUTATORS:
        return True
    if any(i.opname in _STORES for i in dis.get_instructions(code)):
        return True
    return any(_changes_state(c) for c in code.co_consts if hasattr(c, "co_code"))


def _unknown_callee(detail: str, origin: Loc | None) -> TraceBreak:
    return TraceBreak(TraceReason.PASSED_CALLEE, detail, origin=origin)


#: The break for a refused callee, by its call kind (a ``CallKind`` value).
_CALLEE_BREAKS: dict[str, Callable[[str, Loc | None], TraceBreak]] = {
    "side_effect": lambda d, o: TraceBreak(TraceReason.CALLEE_SIDE_EFFECT, d, origin=o),
    "break_user": lambda d, o: TraceBreak(TraceReason.CALLEE_WITH_BREAKS, d, origin=o),
    "disabled": lambda d, o: TraceBreak(TraceReason.CALLEE_DISABLED, d, origin=o),
    "disallowed": lambda d, o: TraceBreak(TraceReason.CALLEE_DISALLOWED, d, origin=o),
    "graph_break": lambda d, o: TraceBreak(TraceReason.CALLEE_EXPLICIT_BREAK, d, origin=o),
}
