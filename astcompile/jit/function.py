"""A compiled function: the user's function rewritten into regions, built on its first call.

Building is lazy (callees defined later in the module resolve by then) and happens once per
function object; ``fullgraph=True`` also analyses at decoration time, so breaks visible in the
source raise immediately.
"""

from __future__ import annotations

import ast
import functools
import linecache
import threading
import types
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config, debug_dump, logs, registry, verify
from astcompile.backends import get_backend
from astcompile.errors import CompileError, GraphBreakError, NoSourceError, Unlowerable
from astcompile.frontend.breaks import BreakReason, GraphBreak
from astcompile.frontend.cache import CachedRewrite
from astcompile.jit import telemetry, tiering, warm
from astcompile.jit.regions import MISS, Region
from astcompile.jit.structured_calls import STRUCTURED_CALLS
from astcompile.runtime import errstate, forksafe
from astcompile.runtime.timing import phase

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph
    from astcompile.trace.context import TraceBreak

__all__ = ["STRUCTURED_CALLS", "CompiledFunction"]


def is_sole_region(source: str, region: str) -> bool:
    """Whether the rewritten function is exactly ``(__ac_ret,) = region(p0, p1, ...)`` and
    ``return __ac_ret`` over its own plain positional parameters, in order: a call with just
    those arguments may then call the region directly (0.5 us less on a small call)."""
    body = ast.parse(source).body
    if len(body) != 1 or not isinstance(body[0], ast.FunctionDef) or body[0].decorator_list:
        return False
    params = body[0].args
    if params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg or params.defaults:
        return False
    expected = f"__ac_ret, = {region}({', '.join(a.arg for a in params.args)})\nreturn __ac_ret"
    return "\n".join(ast.unparse(s) for s in body[0].body) == expected


def resolve_backend(name: str) -> str:
    """ "auto" is the C backend when it can build here, else eager (logged, not silent)."""
    if name != "auto":
        get_backend(name)  # validates the name early
        return name
    try:
        from astcompile.backends.c import c_backend_available
    except ImportError:
        return "eager"
    if c_backend_available():
        return "c"
    logs.root.info("no C compiler found: backend 'auto' uses 'eager'")
    return "eager"


class CompiledFunction:
    """What ``astcompile.compile`` returns: callable like the original, compiled per region."""

    def __init__(
        self,
        fn: Callable,
        *,
        fullgraph: bool = False,
        backend: str = "auto",
        dynamic: bool | None = None,
        mode: str = "default",
        all_eager: bool = False,
        signatures: tuple = (),
    ) -> None:
        functools.update_wrapper(self, fn)
        setattr(self, registry.COMPILED_ATTR, True)
        self.fn = fn
        self.name = getattr(fn, "__qualname__", getattr(fn, "__name__", "function"))
        self.fullgraph = fullgraph
        self.backend_name = backend
        self.dynamic = dynamic
        self.mode = mode
        self.all_eager = all_eager
        self.signatures = signatures  # parsed ``signatures=``: what ``astcompile build`` compiles
        self.cache_digest: str | None = None  # the persisted rewrite this build used or wrote
        self.globals = getattr(fn, "__globals__", {})
        self.static_breaks: tuple[GraphBreak, ...] = ()
        self.regions: list[Region] = []
        self.rewritten_source: str | None = None
        self.python_loops: set[int] = set()  # lines of loops that failed to trace as loops
        self._impl: Callable | None = None
        self._sole_region: Region | None = None  # set when the function is just one region
        self._backend = None
        self._lock = forksafe.object_lock(self, factory=threading.RLock)  # unlocked after fork
        self._tier = tiering.for_function(self)
        if fullgraph:
            self._check_fullgraph_statically()

    # --- calling ---
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tier = self._tier  # measure, then choose: see jit/tiering.py
        n = tier.countdown - 1
        tier.countdown = n
        if n <= 0:
            return self._sampled_call(args, kwargs)
        if tier.plain:
            return self.fn(*args, **kwargs)
        return self._compiled_call(*args, **kwargs)

    def _sampled_call(self, args: tuple, kwargs: dict) -> Any:
        if telemetry.recording or config.verify:  # explain and verify see the compiled path
            self._tier.countdown = 1
            return self._compiled_call(*args, **kwargs)
        if self._tier.choice is None and not self._tier.pending and not tiering.applies(self):
            self._tier.countdown = tiering.NEVER
            return self._compiled_call(*args, **kwargs)
        return self._tier.sampled_call(self._compiled_call, self.fn, args, kwargs)

    def _compiled_call(self, *args: Any, **kwargs: Any) -> Any:
        sole = self._sole_region  # the function is one region: its guards straight away
        # (explain notes the function on the full path below)
        if (
            sole is not None
            and not kwargs
            and len(args) == len(sole.names)
            and not telemetry.recording
            and not config.verify
            and errstate.quiet()
        ):
            result = sole.guards(*args)
            return (sole.call(args) if result is MISS else result)[0]
        impl = self._impl or self._build()
        recorder = telemetry.active()
        if recorder is not None:
            recorder.note_function(self.name, self.static_breaks)
        if self.mode == "frozen":
            from astcompile.api import frozen

            with frozen(strict=False):
                return impl(*args, **kwargs)
        return impl(*args, **kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<astcompile compiled function {self.name}>"

    def reset(self) -> None:
        """Drop the rewrite and every compiled region; the next call builds again."""
        with self._lock:
            self._impl = None
            self._sole_region = None
            self.regions = []
            self._backend = None
            self.cache_digest = None
            self._tier.reset()

    # --- building ---
    def _build(self) -> Callable:
        with self._lock:
            if self._impl is None:
                self._impl = self._build_impl()
            return self._impl

    def _analyse(self) -> tuple[Any, list]:
        """The libcst analysis of ``fn`` and the look-ups its resolver made (for the cache)."""
        from astcompile.frontend.analysis import analyze_function
        from astcompile.frontend.resolve import RuntimeResolver
        from astcompile.frontend.source import function_source

        with phase("source"):
            src = function_source(self.fn)
        resolver = RuntimeResolver(self.fn)
        with phase("analysis"):
            return analyze_function(src, resolver), resolver.lookups

    def _rewrite(self) -> CachedRewrite | None:
        """The rewrite from the warm cache or ahead-of-time build, else made (and saved) now."""
        if not self.python_loops:  # the cache holds the plan with every loop lowered
            with phase("rewrite cache"):
                cached = warm.load_rewrite(self.fn, self.all_eager)
            if cached is not None:
                return cached
        from astcompile.frontend.rewrite import rewrite_function

        try:
            analysis, lookups = self._analyse()
        except NoSourceError as exc:
            warnings.warn(
                f"astcompile: {exc}; {self.name} runs eagerly", RuntimeWarning, stacklevel=4
            )
            return None
        with phase("rewrite"):
            rewritten = rewrite_function(
                analysis.source,
                analysis,
                all_eager=self.all_eager,
                python_loops=frozenset(self.python_loops),
            )
        args = (rewritten.source, rewritten.regions, analysis.breaks, lookups)
        digest = None if self.python_loops else warm.save_rewrite(self.fn, self.all_eager, *args)
        return CachedRewrite(
            rewritten.source,
            tuple(rewritten.regions),
            tuple(analysis.breaks),
            digest,
            analysis.source.filename,
        )

    def _build_impl(self) -> Callable:
        from astcompile.frontend.materialize import build_function

        rewrite = self._rewrite()
        if rewrite is None:
            return self.fn
        # A disable(recursive=False) function runs every statement eagerly on purpose: its
        # statements are not breaks to report.
        self.static_breaks = () if self.all_eager else rewrite.breaks
        if self.fullgraph and self.static_breaks:
            raise GraphBreakError(self.name, list(self.static_breaks))
        for graph_break in self.static_breaks:
            logs.graph_breaks.info("%s", graph_break.describe())
        self.rewritten_source = rewrite.source
        self.cache_digest = rewrite.digest
        free: dict[str, Any] = {"__ac_call": self.dispatch, "__ac_loop": self.python_loop}
        for spec in rewrite.regions:
            body = build_function(
                spec.body_source,
                spec.name,
                self.fn,
                STRUCTURED_CALLS,
                rewrite.filename,
                spec.structured,
            )
            region = Region(spec, body, self)
            self.regions.append(region)
            free[spec.name] = region
        impl = build_function(
            rewrite.source, self.fn.__code__.co_name, self.fn, free, rewrite.filename
        )
        self._dump_source(rewrite)
        sole = self.regions[0] if len(self.regions) == 1 else None
        if self.mode != "frozen" and sole and is_sole_region(rewrite.source, sole.spec.name):
            self._sole_region = sole
        return impl

    def _check_fullgraph_statically(self) -> None:
        """Breaks visible in the source raise now; names not yet defined are checked at call.

        A cached rewrite without breaks skips the analysis (the first call re-checks it)."""
        cached = warm.load_rewrite(self.fn, self.all_eager, validate=False)
        if cached is not None and not cached.breaks:
            return
        try:
            analysis, _ = self._analyse()
        except NoSourceError:
            return
        certain = [b for b in analysis.breaks if not self._maybe_unresolved(b)]
        if certain:
            raise GraphBreakError(self.name, certain)

    def _maybe_unresolved(self, graph_break: GraphBreak) -> bool:
        if graph_break.reason not in (BreakReason.UNKNOWN_CALL, BreakReason.STAR_ARGS):
            return False
        import builtins

        names = (
            set(self.globals)
            | set(getattr(self.fn.__code__, "co_freevars", ()))
            | set(dir(builtins))
        )
        root = graph_break.detail.split("(")[0].split(".")[0].strip("`' ")
        return root not in names

    # --- services for regions ---
    def compile_graph(self, graph: Graph, region: Region) -> Callable | None:
        """The backend's callable for ``graph``; None means the region runs as written."""
        backend = self._get_backend()
        try:
            with phase("backend"):
                run = backend.compile(graph)
        except Unlowerable as exc:
            region.note_unlowerable(backend.name, exc)
            return None
        except Exception as exc:  # CompileError or a backend bug: never lose the user's call
            if not config.suppress_errors:
                if isinstance(exc, CompileError):
                    raise
                raise CompileError(
                    f"{self.name}: backend {backend.name!r} failed on "
                    f"{region.spec.name}: {type(exc).__name__}: {exc}"
                ) from exc
            warnings.warn(
                f"astcompile: backend {backend.name!r} failed on {self.name} "
                f"(lines {region.spec.first_line}-{region.spec.last_line}): {exc}; "
                "running that region in NumPy (suppress_errors=True)",
                RuntimeWarning,
                stacklevel=5,
            )
            return None
        return verify.plant(run)  # plant: a test hook, else ``run`` as is

    def backend(self) -> str:
        """The backend this function compiles with ("auto" resolved)."""
        return self._get_backend().name

    def _get_backend(self) -> Any:
        if self._backend is None:
            self._backend = get_backend(resolve_backend(self.backend_name))
        return self._backend

    def keep_loops_in_python(self, spec: Any) -> None:
        """A region could not be traced: from the next call on, its loops (if it has any) run in
        Python and their bodies become regions of their own (the break stays local)."""
        from astcompile.frontend.spec import LoopSpec

        lines = {s.line for s in spec.structured if isinstance(s, LoopSpec)}
        with self._lock:
            if lines - self.python_loops:
                self.python_loops |= lines
                self._impl = None
                self._sole_region = None

    def trace_break(self, exc: TraceBreak) -> GraphBreak:
        filename = exc.loc.filename if exc.loc else "<unknown>"
        line = exc.loc.line if exc.loc else 0
        source_line = linecache.getline(filename, line).strip()
        graph_break = GraphBreak(
            exc.reason.code,
            f"{exc.reason.phrase}: {exc.detail}",
            filename,
            line,
            1,
            source_line,
            self.name,
        )
        if self.fullgraph:
            raise GraphBreakError(self.name, [graph_break])
        return graph_break

    def python_loop(self, first: int, last: int, iterable: Any) -> Any:
        """``__ac_loop``: a loop that runs in Python; ``explain`` counts its iterations."""
        recorder = telemetry.active()
        return iterable if recorder is None else recorder.loop(self.name, first, last, iterable)

    def dispatch(self, callee: Any, *args: Any, **kwargs: Any) -> Any:
        """``__ac_call``: a call from this function's eager code to a user function."""
        from astcompile.jit.dispatch import call_from_compiled

        return call_from_compiled(self, callee, args, kwargs)

    # --- debug output (astcompile/debug_dump.py) ---
    def _dump_source(self, rewritten: Any) -> None:
        debug_dump.rewritten(self.fn, self.name, rewritten)

    def dump_graph(self, region_name: str, graph: Graph, run: Callable | None = None) -> None:
        """The region's graph and, for a compiled entry ``run``, its C and wrapper."""
        debug_dump.region(self.fn, self.name, region_name, graph, run)
