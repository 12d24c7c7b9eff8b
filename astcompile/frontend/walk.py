"""A read-only walk over libcst trees, an order of magnitude cheaper than ``node.visit``.

libcst's ``node.visit(visitor)`` rebuilds every node it passes (``_visit_and_replace_children``
constructs and validates a copy, even for a read-only ``CSTVisitor``), and that rebuilding was
most of the time ``astcompile check`` spent. Analysis only reads trees, so it walks them here:
the same ``visit_<Type>`` / ``leave_<Type>`` callbacks, a ``visit_`` returning ``False`` skips
the children, and children come in libcst's own (source) order, which is learned once per node
type from libcst and then read straight from the node's fields.

Whitespace, comments, brackets, commas and operator tokens are never entered: they hold no
names, calls or statements, and no visitor here has callbacks for them.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable

import libcst as cst

#: Node types with nothing an analysis looks for inside.
_SKIPPED: tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Comment,
    cst.Newline,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
    cst.Asynchronous,
)
_SKIPPED_SET = frozenset(_SKIPPED)

_FieldOrder = tuple[str, ...]
_field_names: dict[type, tuple[str, ...]] = {}
_orders: dict[tuple[type, _FieldOrder], _FieldOrder] = {}
_callbacks: dict[tuple[type, type], tuple[Callable | None, Callable | None]] = {}


class Visitor:
    """Base of read-only visitors: subclasses define ``visit_<Type>`` / ``leave_<Type>``."""

    def walk(self, node: cst.CSTNode) -> None:
        walk(node, self)


def walk(node: cst.CSTNode, visitor: object) -> None:
    """Call ``visitor``'s callbacks on ``node`` and everything below it, in source order."""
    key = (type(visitor), type(node))
    found = _callbacks.get(key)
    if found is None:
        name = type(node).__name__
        found = (getattr(visitor, f"visit_{name}", None), getattr(visitor, f"leave_{name}", None))
        found = tuple(getattr(f, "__func__", None) for f in found)  # unbound: cached per class
        _callbacks[key] = found
    visit, leave = found
    if visit is None or visit(visitor, node) is not False:
        for child in children(node):
            walk(child, visitor)
    if leave is not None:
        leave(visitor, node)


def find(node: cst.CSTNode, types: type | tuple[type, ...]) -> list[cst.CSTNode]:
    """Every node of ``types`` in ``node`` (itself included), in source order."""
    found = [node] if isinstance(node, types) else []
    for child in children(node):
        found += find(child, types)
    return found


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The children of ``node`` that can hold code, in libcst's (source) order."""
    present = []
    for name in _fields(type(node)):
        value = getattr(node, name)
        kind = _kinds.get(type(value))
        if kind is None:
            kind = _kind(type(value))
        if kind is _NODE or (kind is _MANY and value):
            present.append(name)
    if not present:
        return []
    key = (type(node), tuple(present))
    order = _orders.get(key) or _learn_order(node, key)
    found: list[cst.CSTNode] = []
    for name in order:
        value = getattr(node, name)
        if _kinds[type(value)] is _NODE:
            found.append(value)
        else:
            found += [v for v in value if _kind(type(v)) is _NODE]
    return found


_NODE, _MANY, _OTHER = "node", "many", "other"
_kinds: dict[type, str] = {list: _MANY, tuple: _MANY}


def _kind(kind: type) -> str:
    """A node to enter, a sequence to look into, or anything else (skipped nodes included)."""
    found = _kinds.get(kind)
    if found is None:
        found = _kinds[kind] = _NODE if _holds_code(kind) else _OTHER
    return found


def _holds_code(kind: type) -> bool:
    """``issubclass(kind, cst.CSTNode) and not issubclass(kind, _SKIPPED)``, read off the MRO:
    libcst's bases are ABCs, whose ``issubclass`` that fails asks every subclass in turn (50 ms
    for libcst's node types, most of a process's first analysis). libcst registers no virtual
    subclasses, so the MRO says the same."""
    mro = kind.__mro__
    return cst.CSTNode in mro and _SKIPPED_SET.isdisjoint(mro)


def _fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold code, by their annotations (as libcst's modules
    evaluated them: no ``typing.get_type_hints``, which costs a process's first analysis a
    millisecond per few node types)."""
    names = _field_names.get(kind)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(kind) if _may_hold_code(f.type))
        _field_names[kind] = names
    return names


def _may_hold_code(annotation: object) -> bool:
    """``Sequence[LeftParen]`` or ``str`` never hold code; ``BaseExpression`` may, and so may
    a name not resolved (``Optional["If"]``): the walk then looks at the value itself."""
    if isinstance(annotation, (str, typing.ForwardRef)):
        return True
    if typing.get_origin(annotation) is typing.Literal:  # Literal["*", "**"]: text
        return False
    if isinstance(annotation, type):
        return _holds_code(annotation)
    return any(_may_hold_code(a) for a in typing.get_args(annotation))


def _learn_order(node: cst.CSTNode, key: tuple[type, _FieldOrder]) -> _FieldOrder:
    """Order the fields present by where their nodes appear in libcst's ``children``.

    Remembered for the node type unless a field's node was not found on its own (a node
    shared by two fields of a built tree), which says nothing about the type's order.
    """
    present = key[1]
    owner: dict[int, str] = {}
    for name in present:
        value = getattr(node, name)
        for item in value if isinstance(value, (list, tuple)) else [value]:
            owner.setdefault(id(item), name)
    first: dict[str, int] = {}
    for index, child in enumerate(node.children):
        name = owner.get(id(child))
        if name is not None:
            first.setdefault(name, index)
    order = tuple(sorted(present, key=lambda n: first.get(n, len(first))))
    if len(first) == len(present):
        _orders[key] = order
    return order
