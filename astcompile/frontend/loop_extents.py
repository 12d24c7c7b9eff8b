"""Which loops of a function hold a given line: where a trace failure inside a loop region
happened, so that only the loops around it fall back to Python.

A region whose trace fails inside one of its loops used to send every loop of the region to
Python. A Gauss elimination whose back substitution cannot trace would then lose its native
elimination loop too. Only the loops that hold the failing line need to run in Python; the
others stay native, in regions of their own.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

from astcompile.errors import NoSourceError
from astcompile.frontend.source import function_source


def loop_extents(fn: Callable) -> dict[int, int]:
    """Each ``for``/``while`` of ``fn``: its first file line -> its last file line."""
    try:
        src = function_source(fn)
    except NoSourceError:
        return {}
    offset = src.def_line - 1
    return {
        node.lineno + offset: (node.end_lineno or node.lineno) + offset
        for node in ast.walk(ast.parse(src.text))
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor))
    }


def loops_holding(fn: Callable, line: int, loop_lines: Iterable[int]) -> set[int]:
    """Those of ``loop_lines`` (first file lines of loops of ``fn``) whose loop holds file
    line ``line``; empty when none does or the source cannot be read."""
    extents = loop_extents(fn)
    return {first for first in loop_lines if first <= line <= extents.get(first, -1)}


def in_a_loop(fn: Callable, line: int) -> bool:
    """Whether a loop of ``fn`` holds file line ``line`` past its own first line. A region
    there, called by a loop left in Python, that needs a changing value concretely (``s[j]``
    of a string, ``if j > 0``) would be specialised once per iteration, a trace and a build
    each, up to the cache limit (a DP table over two strings ran 2000x slower than plain)."""
    return any(first < line <= last for first, last in loop_extents(fn).items())
