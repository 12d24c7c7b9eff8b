"""``warnings.warn(..., stacklevel=2)`` in the rewritten function names the user's caller.

Compiled, the user's function is called through frames of ours (the compiled function's
``__call__``, a region's call), so a level counted by ``warnings.warn`` from the user's frame
lands in one of them. Each call that may give a level (``warn(m, C, 2)``, ``stacklevel=k``,
``*args``, ``**kwargs``) of a function named ``warn`` is called through ``__ac_warn``
(:func:`astcompile.runtime.user_frames.warn`), which counts in the user's frames only::

    warnings.warn("late", stacklevel=2)    __ac_warn(warnings.warn, "late", stacklevel=2)

The callee is still evaluated first, where it was, and anything but ``warnings.warn`` itself is
called with the arguments as they are.
"""

from __future__ import annotations

import ast

WARN = "__ac_warn"


def route_warnings(module: ast.Module) -> ast.Module:
    """``module`` with its calls that may give ``warn`` a level routed through ``__ac_warn``
    (in place; nested functions too)."""
    return _Routed().visit(module)


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
    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        if may_give_a_level(node):
            router = ast.copy_location(ast.Name(WARN, ast.Load()), node.func)
            node.args = [node.func, *node.args]
            node.func = router
        return node
