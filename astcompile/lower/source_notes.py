"""Notes in generated C that quote the user's source line each statement came from.

Emitters end a statement with :func:`marker` (``const double t9 = ...;  //@ /abs/heat.py:10``);
once a region's C is complete, :func:`annotate` turns the markers into one comment before the
first statement of each run of statements from the same line, quoting it::

    /* total = total + u[t]  (heat.py:10) */
    const double t9 = u_0[l9_1 * u_0_s0];
    const double t10 = ((double)(total_1 + t9));

The notes name the file by its basename: the C (and so the kernel's cache key) stays the same
when the project moves to another folder. They depend only on the source text, so keys stay
deterministic.
"""

from __future__ import annotations

import linecache
import os
import re
from collections.abc import Iterable

from astcompile.ir.graph import Loc, Node

MARK = "  //@ "
_MARKED = re.compile(r"^(?P<indent>\s*)(?P<code>.*?)  //@ (?P<file>.+):(?P<line>\d+)$")


def marker(node: Node) -> str:
    """What an emitter appends to a statement computed for ``node`` ("" without a location)."""
    return f"{MARK}{node.loc.filename}:{node.loc.line}" if node.loc else ""


def short(loc: Loc) -> str:
    """``heat.py:10``: a location as notes and headers name it."""
    return f"{os.path.basename(loc.filename)}:{loc.line}"


def lines_of(nodes: Iterable[Node]) -> str:
    """The user's lines ``nodes`` came from, per file: ``heat.py:8-10, 14`` ("" for none)."""
    by_file: dict[str, set[int]] = {}
    for node in nodes:
        if node.loc:
            by_file.setdefault(os.path.basename(node.loc.filename), set()).add(node.loc.line)
    return "; ".join(f"{name}:{_spans(lines)}" for name, lines in sorted(by_file.items()))


def _spans(lines: set[int]) -> str:
    """``{8, 9, 10, 14}`` -> ``8-10, 14``."""
    runs: list[list[int]] = []
    for line in sorted(lines):
        if runs and line == runs[-1][1] + 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def note(filename: str, line: int) -> str:
    """``/* u[1:-1] = 0.5 * (u[:-2] + u[2:])  (heat.py:14) */`` (the location alone when the
    source text cannot be read). ASCII (``\\xe9`` for é), whatever encoding writes the C."""
    text = linecache.getline(filename, line).strip().replace("*/", "* /")
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    where = f"({short(Loc(filename, line))})"
    return f"/* {text}  {where} */" if text else f"/* {where} */"


def error_site(sites: list[tuple[str, int]], node: Node) -> int:
    """The number naming ``node``'s line among a region's error sites (``sites``, grown as
    needed; -1 without a location). Code that fails stores it in ``err[3]``, so the error is
    raised at the user's line (:func:`astcompile.runtime.user_frames.raise_at`)."""
    if node.loc is None:
        return -1
    site = (node.loc.filename, node.loc.line)
    if site not in sites:
        sites.append(site)
    return sites.index(site)


def annotate(source: str) -> str:
    """``source`` with its markers replaced by notes before the statements they mark."""
    out: list[str] = []
    last: tuple[str, str] | None = None
    for text in source.split("\n"):
        found = _MARKED.match(text)
        if found is None:
            if text[:1] not in ("", " ", "#"):  # a new top-level item: notes start again
                last = None
            out.append(text)
            continue
        indent, code, filename, line = found.group("indent", "code", "file", "line")
        if (filename, line) != last:
            out.append(indent + note(filename, int(line)))
            last = (filename, line)
        out.append(indent + code)
    return "\n".join(out)
