"""Whether a function's text, as read from its file now, is the text its live code was made from.

The source of a function is read from disk at its first compiled call, which may be long after
the module was imported: the file may have been edited since (its body changed, or lines added
above it, so that the lines the code object names now hold another function). The rewrite must
never be made from text the running code was not compiled from, so the text is compiled again
here and its code compared with the live ``__code__``: instructions, constants (nested code
objects recursively), names, variables and flags; never line numbers, which move when only the
lines above change, nor what the code's module imports (see :func:`_instructions`).

The text is compiled in a scope like the original's, rebuilt from the code object: a class
named as in ``co_qualname`` (private names are mangled with it; ``super()`` makes a
``__class__`` cell) inside a function that binds the code's free variables (closures read
cells, not globals).

Example: ``def forward(self, x): return x * self.w`` of class ``B`` is compiled as::

    class B:
        def forward(self, x): return x * self.w

and matches ``B.forward.__code__`` until someone edits the body.
"""

from __future__ import annotations
import __future__

import ast
import dis
import inspect
import sys
import types
from collections.abc import Callable

_FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    _FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag
#: Flags the text does not decide: where the def sits, and ``types.coroutine``'s mark.
_SCOPE_FLAGS = inspect.CO_NESTED | inspect.CO_ITERABLE_COROUTINE


def compiles_to(text: str, code: types.CodeType, module: object = None) -> bool:
    """Whether ``text``, one ``def``, compiles to ``code`` (line numbers aside), as the import
    of ``module`` compiles it (see :func:`import_rewrite`)."""
    try:
        tree = _in_scope(ast.parse(text).body[0], code)
        import_rewrite(module, code)(tree, text)
        compiled = compile(
            tree, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True
        )
    except (SyntaxError, ValueError, IndexError):
        return False
    found = _find_code(compiled, code.co_name)
    return found is not None and same_code(found, code)


def import_rewrite(module: object, code: types.CodeType) -> Callable[[ast.Module, str], None]:
    """What the import of ``module`` did to its tree before compiling it: pytest rewrites the
    ``assert`` statements of test modules (``_pytest.assertion.rewrite``), so a function in a
    test file runs code its plain text does not compile to."""
    loader = getattr(getattr(module, "__spec__", None), "loader", None)
    if type(loader).__name__ != "AssertionRewritingHook":
        return lambda tree, text: None
    from _pytest.assertion.rewrite import rewrite_asserts

    config = getattr(loader, "config", None)
    return lambda tree, text: rewrite_asserts(tree, text.encode(), code.co_filename, config)


def _in_scope(fdef: ast.stmt, code: types.CodeType) -> ast.Module:
    """``fdef`` inside the class and the function scope its code object says it had."""
    body: list[ast.stmt] = [fdef]
    owner = class_of(code)
    if owner is not None:  # a method: mangling, ``__class__``
        body = [ast.ClassDef(owner, [], [], body, [])]
    free = [name for name in code.co_freevars if name != "__class__"]
    if free:
        binds = [ast.Assign([ast.Name(name, ast.Store())], ast.Constant(None)) for name in free]
        no_args = ast.arguments([], [], None, [], [], None, [])
        body = [ast.FunctionDef("__ac_scope", no_args, [*binds, *body], [], None, None)]
    module = ast.Module(body, [])
    ast.fix_missing_locations(module)
    return module


def class_of(code: types.CodeType) -> str | None:
    """The innermost class around the ``def`` of ``code`` (its qualname says), or None: a
    function nested in a method (``Net.fit.<locals>.step``) mangles by ``Net`` too."""
    parts = code.co_qualname.split(".")[:-1]
    while parts and parts[-1] == "<locals>":
        del parts[-2:]  # ``<locals>`` and the function whose locals they are
    return parts[-1] if parts else None


def _find_code(code: types.CodeType, name: str) -> types.CodeType | None:
    """The function code named ``name`` among the constants of ``code``, depth first (a class
    body may have the name too: ``class cls: def cls(self)``)."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_flags & inspect.CO_OPTIMIZED:
                return const
            inner = _find_code(const, name)
            if inner is not None:
                return inner
    return None


_SAME_FIELDS = (
    "co_names",
    "co_varnames",
    "co_freevars",
    "co_cellvars",
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_name",
)


def same_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Whether two code objects run the same instructions on the same constants and names."""
    if any(getattr(a, f) != getattr(b, f) for f in _SAME_FIELDS):
        return False
    if _instructions(a) != _instructions(b):
        return False
    if (a.co_flags ^ b.co_flags) & ~_SCOPE_FLAGS:
        return False
    if len(a.co_consts) != len(b.co_consts):
        return False
    return all(_same_const(x, y) for x, y in zip(a.co_consts, b.co_consts))


_NO_DATA = ("PUSH_NULL", "EXTENDED_ARG")  # EXTENDED_ARG: dis joins it to the next argument
_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)
_NULL_BIT = {dis.opmap["LOAD_GLOBAL"]}  # the low bit of the argument: push NULL for a call
if sys.version_info >= (3, 12):
    _NULL_BIT.add(dis.opmap["LOAD_ATTR"])  # the low bit: a method call


def _instructions(code: types.CodeType) -> list[tuple[str, object]]:
    """The instructions in a form that the module around the code does not change: a method
    call on a name the module binds by ``import`` compiles as an attribute load and a call
    (``LOAD_GLOBAL NULL + np; LOAD_ATTR abs``, ``PUSH_NULL; LOAD_FAST m; LOAD_ATTR f``),
    elsewhere as ``LOAD_METHOD`` (CPython's ``is_import_originated``), and which names the
    module imports is not in the function's text. ``PUSH_NULL`` carries no data and is left
    out (``EXTENDED_ARG`` too: long jumps need it where short ones do not); jump targets are counted in instructions, since the two forms differ in size."""
    index: dict[int, int] = {}  # offset -> the number of the next instruction kept
    listed = []
    for ins in dis.get_instructions(code):
        index[ins.offset] = len(listed)
        if ins.opname not in _NO_DATA:
            listed.append(ins)
    out: list[tuple[str, object]] = []
    for ins in listed:
        name, arg = ins.opname, ins.arg
        if name == "LOAD_METHOD":
            name = "LOAD_ATTR"
        if ins.opcode in _NULL_BIT and arg is not None:
            arg >>= 1
        elif ins.opcode in _JUMPS:
            arg = index.get(ins.argval, ins.argval)
        out.append((name, arg))
    return out


def _same_const(x: object, y: object) -> bool:
    if type(x) is not type(y):  # 1 == 1.0 == True, but they are different constants
        return False
    if isinstance(x, types.CodeType):
        return same_code(x, y)  # type: ignore[arg-type]
    if isinstance(x, tuple):
        return len(x) == len(y) and all(map(_same_const, x, y))  # type: ignore[arg-type]
    if isinstance(x, (float, complex)):
        return repr(x) == repr(y)  # -0.0 and 0.0 differ, nan equals nan
    return x == y
