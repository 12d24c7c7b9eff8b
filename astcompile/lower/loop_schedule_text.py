"""A loop schedule as pseudo-code, for people (debugging a target, tests).

    for t in range(0, steps, 1):  # sequential, heat.py:14
        carried u: u0 -> %4
        store u[1:-1] = %3  over (n - 2) [parallel -, simd 0]
    s = sum(%5) axes (0,)  over (n)

Values the user named keep their names; computed values are ``%k``, numbered in order of
appearance; scalar constants are their value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from astcompile.ir.graph import ConstAttr, DynIndex, IndexItem, InputAttr, Node
from astcompile.ir.ops import Op

if TYPE_CHECKING:  # the statements are told apart by class name: loop_schedule imports this
    from astcompile.lower import loop_schedule as ls


class _Names:
    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}

    def __call__(self, node: Node) -> str:
        if isinstance(node.attr, InputAttr):
            return node.attr.name
        if node.op is Op.DIM:
            return str(node.attr)
        if isinstance(node.attr, ConstAttr) and node.shape == ():
            return repr(node.attr.value)
        return f"%{self.numbers.setdefault(node.id, len(self.numbers))}"


def render(schedule: ls.Schedule) -> str:
    lines: list[str] = []
    _block(schedule.body, _Names(), lines, 0)
    return "\n".join(lines) + "\n"


def _block(stmts: tuple[ls.Stmt, ...], name: _Names, lines: list[str], depth: int) -> None:
    for stmt in stmts:
        _RENDER[type(stmt).__name__](stmt, name, lines, depth)


def _put(lines: list[str], depth: int, text: str) -> None:
    lines.append("    " * depth + text)


def _over(elements: ls.ElementLoop) -> str:
    if not elements.shape:
        return ""
    shape = ", ".join(str(d) for d in elements.shape)
    par = ",".join(map(str, elements.parallel)) or "-"
    simd = ",".join(map(str, elements.simd)) or "-"
    return f"  over ({shape}) [parallel {par}, simd {simd}]"


def _call(node: Node, name: _Names) -> str:
    return f"{node.op.name.lower()}({', '.join(name(i) for i in node.inputs)})"


def _index(node: Node, items: tuple[IndexItem, ...], name: _Names) -> str:
    def bound(b: object) -> str:
        if isinstance(b, DynIndex):
            return name(node.inputs[b.input])
        return "" if b is None else str(b)

    parts = []
    for item in items:
        kind = str(getattr(item.kind, "value", item.kind))
        if kind == "int":
            parts.append(bound(item.start))
        elif kind == "newaxis":
            parts.append("None")
        elif kind == "dslice":
            parts.append(f"{bound(item.start)}:{bound(item.stop)}:{item.step}")
        else:
            parts.append(f"{bound(item.start)}:+{item.length}:{item.step}")
    return f"[{', '.join(parts)}]"


def _assign(stmt: ls.Assign, name: _Names, lines: list[str], depth: int) -> None:
    _put(lines, depth, f"{name(stmt.node)} = {_call(stmt.node, name)}")


def _buffer(stmt: ls.Buffer, name: _Names, lines: list[str], depth: int) -> None:
    text = f"buffer {name(stmt.node)} = {_call(stmt.node, name)}"
    _put(lines, depth, text + _over(stmt.elements))


def _reduce(stmt: ls.Reduce, name: _Names, lines: list[str], depth: int) -> None:
    how = f"fold {stmt.rule.fold.name.lower()}" if stmt.rule else "first best"
    into = "buffer " if stmt.into_buffer else ""
    text = f"{into}{name(stmt.node)} = {_call(stmt.node, name)} axes {stmt.axes} ({how})"
    _put(lines, depth, text + _over(stmt.elements))


def _store(stmt: ls.Store, name: _Names, lines: list[str], depth: int) -> None:
    target = f"{name(stmt.target)}{_index(stmt.node, stmt.index, name)}"
    _put(lines, depth, f"store {target} = {name(stmt.value)}{_over(stmt.elements)}")


def _check(stmt: ls.Stmt, name: _Names, lines: list[str], depth: int) -> None:
    kind = type(stmt).__name__
    _put(
        lines, depth, f"{kind.lower().replace('check', ' check').strip()} {_call(stmt.node, name)}"
    )


def _result(stmt: ls.LoopResult, name: _Names, lines: list[str], depth: int) -> None:
    _put(lines, depth, f"{name(stmt.node)} = final value {stmt.node.attr}")


def _loop(stmt: ls.UserLoop, name: _Names, lines: list[str], depth: int) -> None:
    how = "independent" if stmt.independent else "sequential"
    where = f", {stmt.line}" if stmt.line else ""
    if stmt.is_while:
        head = f"while {name(stmt.bounds[0])}:"
    else:
        head = f"for {stmt.var} in range({', '.join(name(b) for b in stmt.bounds)}):"
    _put(lines, depth, f"{head}  # {how}{where}")
    for c in stmt.carried:
        kind = "scalar" if c.scalar else "array"
        text = f"carried {kind} {name(c.holder)}: {name(c.init)} -> {name(c.out)}"
        _put(lines, depth + 1, text)
    _block(stmt.body, name, lines, depth + 1)
    if stmt.exits:
        _put(lines, depth + 1, f"continue while {name(stmt.node.attr.body.outputs[-1])}")


def _branch(stmt: ls.Branch, name: _Names, lines: list[str], depth: int) -> None:
    _put(lines, depth, f"if {name(stmt.node.inputs[0])}:")
    _block(stmt.then, name, lines, depth + 1)
    _put(lines, depth, "else:")
    _block(stmt.orelse, name, lines, depth + 1)
    for k, result in stmt.results:
        _put(lines, depth, f"{name(result)} = branch value {k}")


_RENDER: dict[str, Callable] = {
    "Assign": _assign,
    "Buffer": _buffer,
    "Reduce": _reduce,
    "Store": _store,
    "IndexCheck": _check,
    "SizeCheck": _check,
    "Check": _check,
    "LoopResult": _result,
    "UserLoop": _loop,
    "Branch": _branch,
}
