"""What kind of callable a region read, for the read rules of trace/reads.py: a function of
the user's, whose body the trace runs (its reads seen), or a compiled one; and whether a
function compares values by identity, which stand-ins would change."""

from __future__ import annotations

import dis
import enum
import functools
import types
from typing import Any

from astcompile import registry
from astcompile.frontend.callee_rules import _is_library


def is_user_function(value: Any) -> bool:
    """A function of the user's whose body the trace runs: its reads are seen. Black boxes
    (``allow_in_graph``: the user promised it is pure; ``disable``) are kept by identity."""
    if type(value) is not types.FunctionType or registry.is_compiled(value):
        return False
    if registry.is_allowed_in_graph(value) or registry.disable_mode(value) is not None:
        return False
    if (value.__module__ or "").split(".")[0] == "astcompile":
        return False

    return not _is_library(value)


def is_compiled_user_function(value: Any) -> bool:
    """A compiled function of the user's itself (a bound method of one is a method)."""
    if type(value) is types.MethodType or not registry.is_compiled(value):
        return False
    return is_user_function(getattr(value, "__wrapped__", None))


def compares_identity(fn: types.FunctionType) -> bool:
    """Whether ``fn``'s code (or a comprehension or lambda in it) compares two values with
    ``is``. Stand-ins are not the objects they stand for, so such a comparison could take
    another branch than Python would; ``x is None`` (a constant operand) is safe and common,
    and so is ``mode is Mode.FAST`` with ``Mode`` a global Enum class: a member is read as
    itself (trace/reads.py), and no stand-in stands for one."""
    names = _identity_operands(fn.__code__)
    return names is None or not all(_is_enum_class(fn.__globals__.get(n)) for n in names)


def _is_enum_class(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, enum.Enum)


@functools.cache
def _identity_operands(code: types.CodeType) -> tuple[str, ...] | None:
    """The global names ``code``'s ``is`` comparisons take a member of (``x is G.m``), or
    None where one compares two values that are neither a constant nor such a member."""
    names: list[str] = []
    instructions = list(dis.get_instructions(code))
    for k, instruction in enumerate(instructions):
        if instruction.opname != "IS_OP" or instructions[k - 1].opname == "LOAD_CONST":
            continue
        if [i.opname for i in instructions[max(k - 2, 0) : k]] != ["LOAD_GLOBAL", "LOAD_ATTR"]:
            return None
        names.append(instructions[k - 2].argval)
    for inner in code.co_consts:
        found = _identity_operands(inner) if isinstance(inner, types.CodeType) else ()
        if found is None:
            return None
        names += found
    return tuple(names)


@functools.cache
def asks_is_none(code: types.CodeType) -> bool:
    """Whether ``code`` (or a comprehension or lambda in it) tests ``v is None``: Python's
    answer for a traced variable that may be None (trace/optionals.py) is not the run's."""
    names = {i.opname for i in dis.get_instructions(code)}
    if "IS_OP" in names or any(n.endswith(("IF_NONE", "IF_NOT_NONE")) for n in names):
        return True  # ``v is None`` as a value, or as a jump (``if v is None:``)
    return any(asks_is_none(c) for c in code.co_consts if isinstance(c, types.CodeType))
