"""Indented C text: what every C emitter writes with."""

from __future__ import annotations

from collections.abc import Callable


class CText:
    """Lines of C at an indentation depth; ``open``/``close`` a brace block."""

    lines: list[str]
    depth: int

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def open(self, text: str) -> None:
        self.emit(text + " {")
        self.depth += 1

    def close(self, tail: str = "") -> None:
        self.depth -= 1
        self.emit("}" + tail)

    def scratch(self, write: Callable[[], None]) -> list[str]:
        """The lines ``write()`` emits, kept out of the output (to inspect what it would be)."""
        lines, depth = self.lines, self.depth
        self.lines = []
        try:
            write()
            return self.lines
        finally:
            self.lines, self.depth = lines, depth
