"""Exceptions users can catch. Every message names the user's file:line where one is known."""

from __future__ import annotations


class Unsupported(Exception):
    """Base class: something astcompile cannot compile (it would otherwise run it in NumPy)."""


class GraphBreakError(Unsupported):
    """Raised with ``fullgraph=True`` when a function cannot be captured as one graph.

    ``breaks`` holds every :class:`~astcompile.frontend.breaks.GraphBreak` found, so a user sees
    all of them at once instead of fixing them one by one.
    """

    def __init__(self, function_name: str, breaks: list) -> None:
        self.breaks = list(breaks)
        lines = [f"{function_name}() has {len(self.breaks)} graph break(s) with fullgraph=True:"]
        lines += [f"  {b.describe()}" for b in self.breaks]
        super().__init__("\n".join(lines))


class CompileError(Unsupported):
    """A backend failed to build a region (a C compiler error, a missing compiler, ...)."""


class NoSourceError(Unsupported):
    """The function has no retrievable Python source (builtins, REPL lambdas, exec'd code)."""


class Unlowerable(Exception):
    """A backend cannot lower a traced graph (an op or a pattern it has no code for). Not a
    user error: the region runs the user's own statements, and ``explain`` lists it (GB023).
    ``loc``: the user's line at fault, when known."""

    def __init__(self, message: str, loc: object = None) -> None:
        super().__init__(message)
        self.loc = loc
