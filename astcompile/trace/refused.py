"""Callables the trace reached but must not run (``print``, ``np.random.rand``, a user
function with side effects or graph breaks): the one callee analysis (frontend/callees.py)
judges them, and a call of one is a trace break, reported at the callee's own first break,
so the region runs as Python and calls it there."""

from __future__ import annotations

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
    the one callee analysis does not let the trace run: the trace would read it once for
    every ``target.name`` in the region (a getter that counts its calls, caches, logs), so
    the break comes before the getter runs and the region runs as Python."""
    for klass in type(target).__mro__:
        if name in vars(klass):
            held = vars(klass)[name]
            if isinstance(held, property) and held.fget is not None:
                verdict = judge(held.fget)
                if not verdict.traceable:
                    refuse_call(f"{type(target).__name__}.{name}", verdict)
            break
    return getattr(target, name)


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
