"""The user's names for a loop body's inputs: its induction variable and carried variables.

The frontend lowers ``for t in range(n): total = total + u[t]`` into a body function
``def __ac_loop_9(t, total): ...; return (total,)`` (frontend/lowering.py), so the body's
parameters are the user's own names. The tracer gives them to the body graph's INPUT nodes,
and generated code is named after them: ``t_4`` and ``total_1`` in the C, not ``i_4`` and
``c1_1``. Names the frontend made up (``__ac_k_9`` for ``enumerate``'s counter,
``__ac_brk_9`` for a ``break`` flag) read as ``k`` and ``brk``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_MADE_UP = re.compile(r"__ac_([A-Za-z]+)(?:_\d+)*")


@dataclass(frozen=True)
class BodyNames:
    """``ivar`` names the induction variable (None for a ``while`` body, which has none);
    ``carried`` names the carried variables in order (shorter when unknown)."""

    ivar: str | None
    carried: tuple[str, ...] = ()

    def carried_name(self, position: int, fallback: str) -> str:
        return self.carried[position] if position < len(self.carried) else fallback


def readable(name: str) -> str:
    """``__ac_brk_9`` -> ``brk``; a user's name as it is."""
    made_up = _MADE_UP.fullmatch(name)
    return made_up.group(1) if made_up else name


def _parameters(body: Callable) -> tuple[str, ...]:
    """The positional parameter names of a plain function (none for ``*args`` bodies)."""
    code = getattr(body, "__code__", None)
    if code is None:
        return ()
    return tuple(readable(n) for n in code.co_varnames[: code.co_argcount])


def of_for(body: Callable) -> BodyNames:
    """Names for ``body(i, *carried)`` of a ``for`` loop."""
    params = _parameters(body)
    return BodyNames(params[0] if params else "i", params[1:])


def of_while(body: Callable) -> BodyNames:
    """Names for ``body(*carried)`` of a ``while`` loop."""
    return BodyNames(None, _parameters(body))
