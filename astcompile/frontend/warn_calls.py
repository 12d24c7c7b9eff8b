"""``warnings.warn(..., stacklevel=2)`` in the rewritten function names the user's caller.

Compiled, the user's function is called through frames of ours (the compiled function's
``__call__``, a region's call), so a level counted by ``warnings.warn`` from the user's frame
lands in one of them. Each call that may give a level (``warn(m, C, 2)``, ``stacklevel=k``,
``*args``, ``**kwargs``) of a function named ``warn`` is called through ``__ac_warn``
(:func:`astcompile.runtime.user_frames.warn`), which counts in the user's frames only::

    warnings.warn("late", stacklevel=2)    __ac_warn(warnings.warn, "late", stacklevel=2)

The callee is still evaluated first, where it was, and anything but ``warnings.warn`` itself is
called with the arguments as they are. A helper of the user's that may give ``warn`` a level
(``check(x)`` warning with ``stacklevel=3``, its caller's caller) is called through
``__ac_warner``, as is a name meaning ``warnings.warn`` (``w``): the same router, which decides at
each call what the callee is and runs a helper as its twin (``jit/warn_twin.py``), whose own
warn calls are routed.
"""

from __future__ import annotations

import ast
import types
import warnings
from collections.abc import Callable

WARN = "__ac_warn"
WARNER = "__ac_warner"


def route_warnings(module: ast.Module, helpers: frozenset[str] = frozenset()) -> ast.Module:
    """``module`` with its calls that may give ``warn`` a level routed through ``__ac_warn``,
    and its calls of the names in ``helpers`` through ``__ac_warner`` (in place; nested
    functions too)."""
    return _Routed(helpers).visit(module)


def warn_helpers(fn: Callable) -> frozenset[str]:
    """The names ``fn`` reads (globals, closure cells) that mean a Python function naming
    ``warn``, or ``warnings.warn`` itself (``from warnings import warn as w``), now: its calls
    of them are routed (what they mean at a call is checked then)."""
    code = fn.__code__
    cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
    found = set()
    for name in (*code.co_names, *code.co_freevars):
        value = fn.__globals__.get(name) if name in code.co_names else _content(cells[name])
        if value is warnings.warn or _names_warn(value):
            found.add(name)
    return frozenset(found)


def _names_warn(value: object) -> bool:
    return type(value) is types.FunctionType and "warn" in value.__code__.co_names


def _content(cell: types.CellType) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def may_give_a_level(node: ast.Call) -> bool:
    """A call of something named ``warn`` with a third positional argument, a ``stacklevel``
    keyword, or arguments unpacked (which may hold either)."""
    func = node.func
    named = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if named != "warn":
        return False
    unpacked = any(isinstance(a, ast.Starred) for a in node.args)
    keywords = {k.arg for k in node.keywords}
    return len(node.args) >= 3 or unpacked or "stacklevel" in keywords or None in keywords


class _Routed(ast.NodeTransformer):
    def __init__(self, helpers: frozenset[str]) -> None:
        self.helpers = helpers

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        func = node.func
        helper = isinstance(func, ast.Name) and func.id in self.helpers
        if helper or may_give_a_level(node):
            router = ast.copy_location(ast.Name(WARNER if helper else WARN, ast.Load()), func)
            node.args = [func, *node.args]
            node.func = router
        return node
