"""A whole module parsed by libcst once, shared by the analyses of all its functions.

The decorator parses one function's text at a time, but ``astcompile check`` analyses every
compiled function of a file (and the helpers they call). Parsing each def again, and resolving
positions for each (libcst's ``PositionProvider`` regenerates the code it measures), cost most of
the check's time. So the CLI parses the file once and analyses each def straight from this tree;
positions are generated per function, and only for functions that need them (those with a
break to report), in the file's own lines and columns.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from astcompile.frontend.source import FunctionSource

Positions = Mapping[cst.CSTNode, CodeRange]
_AST_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
T = TypeVar("T")


class cached(Generic[T]):
    """``functools.cached_property`` without the lock Python 3.11's holds while computing a
    value, one for every instance of the class: a child forked meanwhile (a pool started while
    another thread compiles) inherited it held and hung at its own first compile. Two threads
    computing one value at once both compute it, which only wastes the work."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute, self.__doc__ = compute, compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> T:
        if instance is None:
            return self  # type: ignore[return-value]
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


class ModuleTree:
    """One module's libcst tree and text; ``syntax`` is its ``ast`` when the caller has it.

    The decorator's tree is one def's dedented text: its line 1 is the file's ``first_line``
    and its columns lack the def's ``indent``.
    """

    def __init__(
        self, module: cst.Module, text: str | None = None, syntax: ast.Module | None = None
    ) -> None:
        self.module = module
        self.text = module.code if text is None else text
        self.one_def, self.first_line, self.indent = False, 1, 0  # see of_function
        self._syntax = syntax
        self._function_positions: dict[cst.FunctionDef, tuple[Positions, int]] = {}

    @classmethod
    def of_function(cls, src: FunctionSource) -> ModuleTree:
        """The tree of one def's own text (the decorator's case)."""
        tree = cls(cst.parse_module(src.text), src.text)
        tree.one_def, tree.first_line, tree.indent = True, src.def_line, src.indent
        return tree

    def locate(self, fdef: cst.FunctionDef) -> tuple[Positions, int]:
        """Positions for the nodes of ``fdef``, and what to add to their lines for the file's.

        A def's own tree gets the positions of all of it (the rewrite reads them); a module's
        def gets its own, generated on first use.
        """
        if self.one_def:
            return self.positions, self.first_line - 1
        return self.function_positions(fdef)

    @cached
    def positions(self) -> Positions:
        """Positions of every node of the module."""
        return node_positions(self.module)

    @cached
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached
    def _defs(self) -> dict[int, tuple[cst.FunctionDef, tuple[str, ...]]]:
        """Each top-level def and method by the line of its ``def``, with the indents above it.

        The ``ast`` knows the lines; its defs and classes come in the same order as libcst's.
        """
        syntax = self._syntax or ast.parse(self.text)
        found: dict[int, tuple[cst.FunctionDef, tuple[str, ...]]] = {}
        _match_defs(self.module.body, syntax.body, (), self.module.default_indent, found)
        return found

    def function_at(self, def_line: int) -> cst.FunctionDef | None:
        """The def whose ``def`` keyword is on ``def_line`` (decorators are above it)."""
        found = self._defs.get(def_line)
        return found[0] if found else None

    def function_positions(self, fdef: cst.FunctionDef) -> tuple[Positions, int]:
        """Positions of ``fdef``'s nodes, and what to add to their lines to get the file's.

        Generated from ``fdef`` alone, indented as in the file, so columns are the file's.
        """
        if fdef not in self._function_positions:
            def_line, indents = next((d, i) for d, (f, i) in self._defs.items() if f is fdef)
            provider = PositionProvider()
            provider._computed = {}
            state = PositionProvidingCodegenState(
                default_indent=self.module.default_indent,
                default_newline=self.module.default_newline,
                provider=provider,
                indent_tokens=list(indents),
            )
            fdef._codegen(state)
            shift = def_line - provider._computed[fdef].start.line
            self._function_positions[fdef] = (provider._computed, shift)
        return self._function_positions[fdef]


def _match_defs(
    body: Sequence[cst.CSTNode],
    syntax: list[ast.stmt],
    indents: tuple[str, ...],
    default_indent: str,
    found: dict[int, tuple[cst.FunctionDef, tuple[str, ...]]],
) -> None:
    defs = [s for s in body if isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    ast_defs = [s for s in syntax if isinstance(s, _AST_DEFS)]
    if len(defs) != len(ast_defs):
        return  # cannot happen for one text; then the defs are parsed on their own
    for node, syntax_node in zip(defs, ast_defs):
        if isinstance(node, cst.FunctionDef):
            found[syntax_node.lineno] = (node, indents)
        elif isinstance(node.body, cst.IndentedBlock) and isinstance(syntax_node, ast.ClassDef):
            indent = node.body.indent if node.body.indent is not None else default_indent
            _match_defs(node.body.body, syntax_node.body, (*indents, indent), default_indent, found)


def node_positions(module: cst.Module) -> Positions:
    """libcst's ``PositionProvider`` table for ``module``, at half the usual price.

    ``MetadataWrapper.resolve`` also runs a batched visit of the whole tree for batchable
    providers, even when there are none, and that visit rebuilds every node; asking the
    provider directly does only the code generation that records the positions.
    """
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return PositionProvider()._gen(wrapper)
