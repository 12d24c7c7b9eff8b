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


def team(clauses: str, fp: str, body: list[str], setup: tuple[str, ...] = ()) -> list[str]:
    """An OpenMP team running ``body`` on every thread (``setup``: its locals, first). Each
    thread hands the floating-point flags it raised to the calling thread's ``fp``
    (``astc_fp_leave``, astc_math.h), which the caller joins with ``astc_fp_join`` and the
    region tests (runtime/fpflags.py). Kernels' entries and loop regions open teams alike."""
    inner = [*setup, "astc_fp_enter();", *body, f"astc_fp_leave(&{fp});"]
    return [f"#pragma omp parallel{clauses}", "{", *("    " + line for line in inner), "}"]
