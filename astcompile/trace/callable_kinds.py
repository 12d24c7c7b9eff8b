"""What kind of callable a region read, for the read rules of trace/reads.py: a function of
the user's, whose body the trace runs (its reads seen), or a compiled one; and whether a
function compares values by identity, which stand-ins would change."""

from __future__ import annotations

import dis
import functools
import types
from typing import Any

from astcompile import registry
from astcompile.frontend.resolve import _is_library


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


@functools.cache
def compares_identity(code: types.CodeType) -> bool:
    """Whether ``code`` (or a comprehension or lambda in it) compares two values with ``is``.
    Stand-ins are not the objects they stand for, so such a comparison could take another
    branch than Python would; ``x is None`` (a constant operand) is safe and common."""
    previous = None
    for instruction in dis.get_instructions(code):
        if instruction.opname == "IS_OP" and previous not in ("LOAD_CONST",):
            return True
        previous = instruction.opname
    return any(compares_identity(c) for c in code.co_consts if isinstance(c, types.CodeType))
