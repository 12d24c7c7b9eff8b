"""The one catalogue of graph-break reasons, and the located diagnostic built from it.

Every place that refuses to put code into a graph (static analysis, the tracer, the CLI) names a
member of :class:`BreakReason`, so a user sees the same code, wording and fix wherever the break
was found, and ``docs/graph-breaks.md`` is generated from this table instead of drifting from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class BreakReason(Enum):
    """Why a statement runs in plain Python. Value: (code, title, message template, fix)."""

    NO_SOURCE = (
        "GB001",
        "no source",
        "no Python source for {name}",
        "define the function in a .py file (not a REPL, exec or a C extension)",
    )
    UNKNOWN_CALL = (
        "GB002",
        "unknown or non-NumPy call",
        "{callee}() is not a NumPy, math or user function",
        "use NumPy operations, or mark a pure function with astcompile.allow_in_graph",
    )
    BREAKING_USER_CALL = (
        "GB003",
        "call to a function with graph breaks",
        "{callee}() has graph breaks of its own; it is compiled separately",
        "remove the breaks inside the callee so it can be inlined",
    )
    DISABLED_CALL = (
        "GB004",
        "call to a disabled function",
        "{callee}() is marked astcompile.disable and runs eagerly",
        "remove astcompile.disable from the callee if it can be compiled",
    )
    DISALLOWED_CALL = (
        "GB005",
        "call to an op marked disallow_in_graph",
        "{callee}() is marked disallow_in_graph and runs in NumPy",
        "undo the mark with astcompile.allow_in_graph",
    )
    EXPLICIT_BREAK = (
        "GB006",
        "explicit graph break",
        "explicit {callee}()",
        "remove the graph_break() call to fuse the code around it",
    )
    DATA_DEPENDENT = (
        "GB007",
        "data-dependent control flow",
        "`{keyword}` test `{test}` depends on array values",
        "compute both branches and select with np.where, or test only shapes and dtypes",
    )
    TRY_RAISE = (
        "GB008",
        "try/except/raise",
        "`{keyword}` statement runs in Python",
        "move error handling out of the compiled function",
    )
    WITH = (
        "GB009",
        "with statement",
        "`with` statement runs in Python; its body is compiled in pieces",
        "move the with statement to the caller",
    )
    GENERATOR = (
        "GB010",
        "yield/await/async",
        "{name}() is {kind}; every statement runs eagerly",
        "compile a plain function that the generator calls",
    )
    GLOBAL_NONLOCAL = (
        "GB011",
        "global/nonlocal",
        "{what} `{names}`",
        "pass the value in and return the new value instead of rebinding it",
    )
    SIDE_EFFECT = (
        "GB012",
        "side-effect call",
        "{callee}() has side effects",
        "move it out or use astcompile.disable",
    )
    ATTRIBUTE_STORE = (
        "GB013",
        "attribute store",
        "store to attribute `{target}`",
        "return the value and store it in the caller",
    )
    INPLACE_STORE = (
        "GB014",
        "in-place or subscript store",
        "in-place write to `{target}` is not modelled yet",
        "build a new array (np.where, np.concatenate) instead of writing into one",
    )
    DELETE = (
        "GB015",
        "del statement",
        "`del {target}` runs in Python",
        "let the variable go out of scope instead of deleting it",
    )
    LOOP = (
        "GB016",
        "loop",
        "`{keyword}` loop runs in Python; its body is compiled in regions",
        "vectorise the loop with NumPy operations",
    )
    NESTED_JUMP = (
        "GB017",
        "return/break/continue in a nested block",
        "`{keyword}` inside a nested block cannot be moved into a region",
        "end the function with a single return, or restructure the loop",
    )
    NESTED_DEF = (
        "GB018",
        "nested function or class",
        "nested {kind} `{name}` {why}",
        "define it at module level, or keep it to a graph-able body that is only called",
    )
    STAR_ARGS = (
        "GB019",
        "star-args call to an unknown callee",
        "{callee}(*args/**kwargs) calls an unknown function",
        "call a NumPy or user function with explicit arguments",
    )
    IMPORT = (
        "GB020",
        "import inside the function",
        "`{what}` inside the function runs in Python",
        "move the import to module level",
    )
    TRACE_UNSUPPORTED = (
        "GB021",
        "NumPy feature not supported by the tracer",
        "{feature} is not supported by the tracer",
        "rewrite it with supported NumPy operations, or accept the eager fallback",
    )
    LOCAL_CALL = (
        "GB022",
        "call to a nested function that cannot be inlined",
        "{callee}() is a nested function that cannot be inlined; it runs in Python",
        "fix what its GB018 or its own breaks report, or define it at module level",
    )
    TARGET_UNSUPPORTED = (
        "GB023",
        "traced, but the backend cannot lower it",
        "the {backend} backend does not support {feature}; the region runs as written",
        "move that operation out of the loop or region, or accept that the region runs as Python",
    )

    def __init__(self, code: str, title: str, message: str, fix: str) -> None:
        self.code = code
        self.title = title
        self.message = message
        self.fix = fix

    def format(self, **fields: object) -> str:
        """Fill the message template; missing fields show as ``?`` rather than failing a report."""
        return self.message.format_map(_Lenient(fields))


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "?"


@dataclass(frozen=True)
class GraphBreak:
    """One break at one place in the user's file. Lines and columns are 1-based, in ``filename``."""

    reason: BreakReason
    detail: str
    filename: str
    line: int
    col: int
    source_line: str
    function: str

    @property
    def code(self) -> str:
        return self.reason.code

    @property
    def fix(self) -> str:
        return self.reason.fix

    def describe(self) -> str:
        """The line editors and pre-commit parse: ``path:line:col: CODE detail (fix: ...)``."""
        return (
            f"{self.filename}:{self.line}:{self.col}: {self.code} {self.detail} (fix: {self.fix})"
        )


def no_source(fn: object, name: str, why: Exception) -> GraphBreak:
    """GB001 for ``fn``, whose source cannot be read (``fullgraph=True`` raises it): at its
    code's first line where it has code, else nowhere."""
    code = getattr(fn, "__code__", None)
    where = (code.co_filename, code.co_firstlineno) if code else ("<unknown>", 0)
    detail = f"{BreakReason.NO_SOURCE.format(name=name)} ({why})"
    return GraphBreak(BreakReason.NO_SOURCE, detail, *where, 1, "", name)


def catalogue_markdown() -> str:
    """The catalogue as a markdown table, so ``docs/graph-breaks.md`` cannot drift from the code."""
    rows = ["| Code | Reason | Fix |", "|---|---|---|"]
    rows += [f"| {r.code} | {r.title} | {r.fix} |" for r in BreakReason]
    return "\n".join(rows) + "\n"
