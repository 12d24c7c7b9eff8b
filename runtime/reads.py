"""Reads: the non-local values a compiled region depends on, and how each is kept current.

A region's statements read more than their arguments: ``self.w``, ``cfg["scale"]``, a closure
cell, a module global, the globals of a callee that was inlined. The tracer records each such
read as a :class:`Read`: a *path* from a root the region can reach at call time (an argument, or
the user's function for its globals and cells) and a *kind* saying how the compiled entry stays
valid for it:

- ``INPUT``: the value (array, number, NumPy scalar) is evaluated at every call and passed to the
  compiled code as an input, guarded like an argument by its key (dtype, rank, size class,
  layout; the type for numbers). ``self.lr`` may change every call without a recompile.
- ``VALUE``: what tracing specialised on (a string that steers a branch, a bool, ``None``, a
  container's length or keys): compared with ``==`` at every call.
- ``IDENTITY``: a callable, class or library module the trace called into: ``is`` at every call.
- ``SAME``: the value is the same object as the one at another path (``expected``), as it was
  when traced, so reads through either path saw one object.

A path is a tuple of steps; its first step is the root (``("arg", i)`` or ``("fn",)``).
:func:`evaluate` follows it in Python (the generic path); :func:`expression` renders it as
Python source for the generated guard function (the fast path). Both follow the same table.

This module is part of the runtime: it must not import the compiler.
"""

from __future__ import annotations

import enum
import keyword
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class ReadKind(enum.Enum):
    INPUT = "input"
    VALUE = "value"
    IDENTITY = "identity"
    SAME = "same"


Step = tuple  # ("attr", name) | ("item", key) | ("cell", i) | ("gdict",) | ...
Path = tuple  # (root step, step, ...)


@dataclass(frozen=True)
class Read:
    """One value a region read: where from (``path``), and how it is kept valid (``kind``).

    ``expected`` is the guard key for INPUT, the value for VALUE, the object for IDENTITY and
    the other path for SAME."""

    path: Path
    kind: ReadKind
    expected: Any = None

    def __str__(self) -> str:
        return self.describe()

    def describe(self, names: tuple[str, ...] = ()) -> str:
        """The guard in words, naming arguments by ``names``: ``self.s: read at every call``."""
        return _KIND_RULES[self.kind].words(describe(self.path, names), self, names)


def _attr(obj: Any, name: str) -> Any:
    return getattr(obj, name)


def _cell(fn: Any, index: int, name: str = "") -> Any:
    return fn.__closure__[index].cell_contents


# step name -> (how to take it in Python, how to write it as source over ``x``)
_STEPS: dict[str, tuple[Callable[..., Any], Callable[..., str]]] = {
    "attr": (
        _attr,
        lambda x, name: f"{x}.{name}" if _identifier(name) else f"getattr({x}, {name!r})",
    ),
    "item": (lambda obj, key: obj[key], lambda x, key: f"{x}[{key}]"),
    "cell": (_cell, lambda x, i, name="": f"{x}.__closure__[{i}].cell_contents"),
    "gdict": (lambda fn: fn.__globals__, lambda x: f"{x}.__globals__"),
    "defaults": (lambda fn: fn.__defaults__, lambda x: f"{x}.__defaults__"),
    "kwdefaults": (lambda fn: fn.__kwdefaults__, lambda x: f"{x}.__kwdefaults__"),
    "func": (lambda method: method.__func__, lambda x: f"{x}.__func__"),
    "self": (lambda method: method.__self__, lambda x: f"{x}.__self__"),
    "len": (len, lambda x: f"len({x})"),
    "type": (type, lambda x: f"type({x})"),
    "bool": (bool, lambda x: f"bool({x})"),
    "keys": (tuple, lambda x: f"tuple({x})"),
    "has": (hasattr, lambda x, name: f"hasattr({x}, {name!r})"),
    "contains": (lambda obj, key: key in obj, lambda x, key: f"({key} in {x})"),
}
_KEYED = ("item", "contains")  # steps whose argument is an arbitrary constant object


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("__")


def evaluate(path: Path, args: tuple, fn: Any) -> Any:
    """The value at ``path`` now, for a call with ``args`` of the function ``fn``."""
    root = path[0]
    value = args[root[1]] if root[0] == "arg" else fn
    for step in path[1:]:
        value = _STEPS[step[0]][0](value, *step[1:])
    return value


def expression(path: Path, arg_name: Callable[[int], str], const: Callable[[Any], str]) -> str:
    """``path`` as Python source; ``arg_name(i)`` names argument ``i``, ``const(obj)`` names a
    constant the source may refer to (the root function, keys that have no literal form)."""
    root, steps = path[0], path[1:]
    if root[0] == "arg":
        source = arg_name(root[1])
    elif steps[:1] == (("gdict",),):  # the function's globals: one dict, named once
        source, steps = const(_ROOT_GLOBALS), steps[1:]
    else:
        source = const(_ROOT_FN)
    for step in steps:
        name, *rest = step
        if name in _KEYED:
            rest = [_literal(rest[0], const)]
        source = _STEPS[name][1](source, *rest)
    return source


class _Root:
    """Stands for the root function (or its globals) in :func:`expression`'s ``const`` calls;
    bound when the guard function is made (see :func:`bind_root`)."""


_ROOT_FN, _ROOT_GLOBALS = _Root(), _Root()


def bind_root(const: Callable[[Any], str], fn: Any) -> Callable[[Any], str]:
    """A ``const`` for :func:`expression` that names ``fn`` (or its globals) at a path's root."""

    def named(obj: Any) -> str:
        if obj is _ROOT_FN:
            return const(fn)
        return const(fn.__globals__ if obj is _ROOT_GLOBALS else obj)

    return named


def _literal(key: Any, const: Callable[[Any], str]) -> str:
    if type(key) in (str, int) or key is None or type(key) is bool:
        return repr(key)
    return const(key)


def describe(path: Path, names: tuple[str, ...] = ()) -> str:
    """A path in the user's words: ``self.cfg['k']``, ``K``, ``K (global of helper)``, ``c``."""
    root = path[0]
    text: str | None = None
    if root[0] == "arg":
        text = names[root[1]] if root[1] < len(names) else f"argument {root[1]}"
    steps = path[1:]
    for i, step in enumerate(steps):
        kind = step[0]
        if kind == "gdict" and i + 1 < len(steps) and steps[i + 1][0] == "item":
            continue  # named by the item that follows: a global
        if kind == "item" and i > 0 and steps[i - 1][0] == "gdict":
            text = step[1] if text is None else f"{step[1]} (global of {text})"
        elif kind == "cell":
            name = step[2] if len(step) > 2 else f"cell {step[1]}"
            text = name if text is None else f"{name} (closure of {text})"
        elif kind == "attr":
            text = f"{text}.{step[1]}"
        elif kind == "item":
            text = f"{text}[{step[1]!r}]"
        else:
            text = f"{kind}({text})" if len(step) == 1 else f"{kind}({text}, {step[1]!r})"
    return text or "<function>"


@dataclass(frozen=True)
class _KindRule:
    """How one kind of read is checked: as Python source over the local bound to its path
    (the generated guard function), in Python (the generic path), and in words."""

    source: Callable[[str, Read, Callable[[Any], str], Callable[[Path], str]], str | None]
    holds: Callable[[Any, Read, Callable[[Path], Any]], bool]
    words: Callable[[str, Read, tuple[str, ...]], str]
    #: how the read failed, in words, given the value found now (a recompile's reason)
    changed: Callable[[str, Read, Any, tuple[str, ...]], str]


def _is_singleton(expected: Any) -> bool:
    return expected is None or type(expected) is bool


def _value_source(value: str, read: Read, const: Callable[[Any], str], _: Any) -> str:
    if _is_singleton(read.expected):
        return f"{value} is {read.expected!r}"
    return f"type({value}) is {const(type(read.expected))} and {value} == {const(read.expected)}"


def _value_holds(value: Any, read: Read, _: Any) -> bool:
    if _is_singleton(read.expected):
        return value is read.expected
    return type(value) is type(read.expected) and bool(value == read.expected)


def _named(obj: Any) -> str:
    """``function relu``, ``module numpy``: an object a read holds by identity, in words."""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", "")
    return f"{type(obj).__name__} {name}".rstrip()


def _identity_words(shown: str, read: Read, _: Any) -> str:
    return f"{shown} is the {_named(read.expected)}"


def _identity_changed(shown: str, read: Read, value: Any, _: Any) -> str:
    was, now = _named(read.expected), _named(value)
    return f"{shown}: {was} → {now}" if was != now else f"{shown}: another {now}"


_KIND_RULES: dict[ReadKind, _KindRule] = {
    # an INPUT is checked through its key, like an argument (jit/entries.py)
    ReadKind.INPUT: _KindRule(
        lambda *_: None,
        lambda *_: True,
        lambda shown, read, names: f"{shown}: read at every call",
        lambda shown, read, value, names: f"{shown}: changed",  # its key says how (entries)
    ),
    ReadKind.VALUE: _KindRule(
        _value_source,
        _value_holds,
        lambda shown, read, names: f"{shown} == {read.expected!r}",
        lambda shown, read, value, names: f"{shown}: {read.expected!r} → {value!r}",
    ),
    ReadKind.IDENTITY: _KindRule(
        lambda value, read, const, path: f"{value} is {const(read.expected)}",
        lambda value, read, value_at: value is read.expected,
        _identity_words,
        _identity_changed,
    ),
    ReadKind.SAME: _KindRule(
        lambda value, read, const, path: f"{value} is {path(read.expected)}",
        lambda value, read, value_at: value is value_at(read.expected),
        lambda shown, read, names: f"{shown} is {describe(read.expected, names)}",
        lambda shown, read, value, names: (
            f"{shown}: no longer the same object as {describe(read.expected, names)}"
        ),
    ),
}


def check_source(
    read: Read, value: str, const: Callable[[Any], str], path_source: Callable[[Path], str]
) -> str | None:
    """The condition that ``read`` still holds, over the variable ``value`` bound to its path;
    None for INPUT (checked through its argument key by the caller)."""
    return _KIND_RULES[read.kind].source(value, read, const, path_source)


def changed(read: Read, value: Any, names: tuple[str, ...] = ()) -> str:
    """How ``read`` fails for ``value``, in words: ``self.mode: 'a' → 'b'``."""
    return _KIND_RULES[read.kind].changed(describe(read.path, names), read, value, names)


def holds(read: Read, value: Any, value_at: Callable[[Path], Any]) -> bool:
    """:func:`check_source`'s condition, evaluated in Python (the generic path)."""
    return _KIND_RULES[read.kind].holds(value, read, value_at)
