"""Run a function through source -> analysis -> rewrite -> materialize, regions run as Python.

This is the frontend's end-to-end check: each region is the region body itself (no tracing), so
any difference from the original function is the frontend's fault.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from astcompile.frontend.analysis import FunctionAnalysis, analyze_function
from astcompile.frontend.materialize import build_function
from astcompile.frontend.resolve import RuntimeResolver
from astcompile.frontend.rewrite import RegionSpec, RewriteResult, rewrite_function
from astcompile.frontend.source import function_source
from astcompile.frontend.spec import UNBOUND, UNBOUND_NAME


def analyse(fn: Callable) -> FunctionAnalysis:
    return analyze_function(function_source(fn), RuntimeResolver(fn))


def rewrite(fn: Callable, all_eager: bool = False) -> RewriteResult:
    analysis = analyse(fn)
    return rewrite_function(analysis.source, analysis, all_eager=all_eager)


class Region:
    """Stands in for the runtime's region object: calls the body and checks the contract."""

    def __init__(self, spec: RegionSpec, body: Callable) -> None:
        self.spec, self.body, self.calls = spec, body, 0

    def __call__(self, *args: Any) -> tuple:
        assert len(args) == len(self.spec.params), (self.spec.name, args)
        self.calls += 1
        result = self.body(*args)
        assert isinstance(result, tuple) and len(result) == len(self.spec.outputs)
        return result


class Routed:
    """``__ac_call``: records which user functions eager code called, then calls them."""

    def __init__(self) -> None:
        self.callees: list[str] = []

    def __call__(self, callee: Callable, *args: Any, **kwargs: Any) -> Any:
        self.callees.append(getattr(callee, "__name__", repr(callee)))
        return callee(*args, **kwargs)


def materialize(fn: Callable, all_eager: bool = False):
    """The rewritten ``fn`` as a live function, plus its regions and call router."""
    result = rewrite(fn, all_eager)
    filename = result.analysis.source.filename
    routed = Routed()
    free: dict[str, Any] = {
        "__ac_call": routed,
        "__ac_loop": lambda first, last, it: it,
        UNBOUND_NAME: UNBOUND,
    }
    regions = []
    for spec in result.regions:
        body = build_function(spec.body_source, spec.name, fn, {}, filename)
        regions.append(Region(spec, body))
        free[spec.name] = regions[-1]
    compiled = build_function(result.source, fn.__name__, fn, free, filename)
    return compiled, regions, routed, result


def line_of(fn: Callable, snippet: str) -> int:
    """The file line (1-based) of the first line of ``fn``'s source containing ``snippet``."""
    src = function_source(fn)
    for offset, line in enumerate(src.text.splitlines()):
        if snippet in line:
            return src.def_line + offset
    raise AssertionError(f"{snippet!r} not in {fn.__name__}")


def where(fn: Callable, snippet: str, token: str | None = None) -> tuple[int, int]:
    """(line, col) of ``token`` (default: ``snippet``) on the line containing ``snippet``."""
    src = function_source(fn)
    for offset, line in enumerate(src.text.splitlines()):
        if snippet in line:
            return src.def_line + offset, src.indent + line.index(token or snippet) + 1
    raise AssertionError(f"{snippet!r} not in {fn.__name__}")
