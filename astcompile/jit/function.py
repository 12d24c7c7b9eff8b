"""A compiled function: the user's function rewritten into regions, built on its first call.

Building is lazy (callees defined later in the module resolve by then) and happens once per
function object; ``fullgraph=True`` also analyses at decoration time, so breaks visible in the
source raise immediately.
"""

from __future__ import annotations

import functools
import linecache
import sys
import threading
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config, logs, registry
from astcompile.errors import GraphBreakError
from astcompile.frontend.breaks import GraphBreak
from astcompile.ir.checks import RunPlain
from astcompile.jit import (
    fullgraph_check,
    outgrown,
    pickling,
    preload,
    region_tiering,
    routes,
    scalar_calls,
    telemetry,
    tiering,
)
from astcompile.jit.budget import Budget
from astcompile.jit.dispatch import call_from_compiled, calls_of_itself
from astcompile.jit.entries import MISS
from astcompile.jit.freshness import Freshness, with_defaults
from astcompile.jit.frozen import frozen
from astcompile.jit.function_object import FunctionObject
from astcompile.jit.regions import Region, guarded
from astcompile.jit.sole_region import alone, declined, finish, is_sole_region
from astcompile.jit.structured_calls import STRUCTURED_CALLS
from astcompile.jit.warn_twin import plain_caller, plain_of
from astcompile.runtime import errstate, fastcall, forksafe, fpflags
from astcompile.targets import Backend, get_backend, resolve_backend, resolve_for_call

if TYPE_CHECKING:
    from astcompile.frontend.spec import RegionSpec
    from astcompile.trace.context import TraceBreak

__all__ = ["STRUCTURED_CALLS", "CompiledFunction", "is_sole_region"]


class CompiledFunction(FunctionObject):
    """What ``astcompile.compile`` returns: callable like the original, compiled per region."""

    waiting: Any = None  # its path while none of its code can run compiled: jit/waiting.py

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
        self._live_regions: list[Region] = []
        self.rewritten_source: str | None = None  # set by the materialise stage
        self.python_loops: set[int] = set()  # lines of loops that failed to trace as loops
        self.python_lines: set[int] = set()  # lines of statements that failed outside loops
        self.loop_reasons: dict[int, str] = {}  # why a graph-able loop runs in Python, by line
        self._impl: Callable | None = None
        self._fresh = Freshness(fn)  # what the rewrite was made from
        self._outgrown: Callable | None = None  # the rewrite before loops went to Python
        self._sole_region: Region | None = None  # set when the function is just one region
        self._backend: Backend | None = None
        self._target_name: str | None = None
        self._lock = forksafe.object_lock(self, factory=threading.RLock)  # unlocked after fork
        self._measured_class = type(self)
        self._plain_class: type | None = None  # made on the first run_plain
        self.twin_of: tuple | None = None  # (code, names, twin): the plain route's (routes.py)
        self._tier = tiering.for_function(self)
        self.budget = Budget(fullgraph)  # what compiling may cost its calls (jit/budget.py)
        self.run_measured()
        if fullgraph:
            fullgraph_check.breaks_in_source(self)

    def __new__(cls, *args: Any, **kwargs: Any) -> CompiledFunction:
        return routes.new(cls, CompiledFunction)

    # --- calling ---
    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        tier = self._tier  # measure, then choose: see jit/tiering.py
        n = tier.countdown - 1
        tier.countdown = n
        if n <= 0:
            return self._sampled_call(args, kwargs)
        if tier.plain:
            return plain_of(self.fn)(*args, **kwargs)
        sole = self._sole_region  # _compiled_call's fast path, inlined: one frame less per call
        if (
            sole is not None
            and not kwargs
            and len(args) == sole.positional == len(sole.names)
            and not (telemetry.recording or config.verify)
            and (errstate.current() is errstate.quiet_state or errstate.quiet())
        ):
            try:  # free unless raised (ir/checks.py): the body decides, first calls too
                fpflags.clear()  # what NumPy would warn of: jit/fp_errors.py
                result = sole.guards(*args)
            except Exception as error:  # noqa: BLE001 - RunPlain, or an error after a flag
                result = declined(error)
            if result is MISS or result is None or fpflags.raised():
                return finish(self, sole, args, result)  # runtime/fastcall_sole.c: the same
            return result[0]
        return self._full_call(args, kwargs)

    def run_plain(self) -> None:
        """From now on a call is the user's function and nothing else: the instance moves to a
        subclass whose ``__call__`` is ``fn`` (its warn twin's caller where it has one), as a
        staticmethod: no frame of ours runs (about 30 ns over the plain call, more for keywords
        and methods). Where the C-level call path was loaded when the function was made, its
        class is routed instead (``jit/routes.py``: about 10 ns). Measuring moves it back to
        sample a call (``jit/resample.py``); ``reset`` too."""
        routes.take_c_path(self, CompiledFunction)  # where it was made before it was loaded
        if self._plain_class is None:
            self._plain_class = pickling.calling(self._measured_class, plain_caller(self.fn))
        routes.move(self, self._plain_class)

    def run_measured(self) -> None:
        """Back to ``__call__`` above: counted, sampled, compiled where that was faster."""
        self.waiting = None  # whatever moves it there ends its waiting path (jit/waiting.py)
        routes.take_c_path(self, CompiledFunction)
        routes.move(self, self._measured_class)

    def settle(self, plain: bool) -> bool:
        """Tiering's choice (``jit/tiering.Switch``): plain waits for a wake, compiled counts."""
        if plain:
            self.run_plain()
            if self.mode != "frozen":  # frozen mode never runs a compiler
                fastcall.build_in_background(config.cache_dir)  # for functions compiled later
        else:
            self.run_measured()
        return plain

    def compare_again(self, cheaper: bool = False) -> None:
        """The compiled path changed: compare again (``Tier.reopen``)."""
        self._tier.reopen(cheaper)

    def _sampled_call(self, args: tuple, kwargs: dict) -> Any:
        if telemetry.recording or config.verify:  # explain and verify see the compiled path
            self._tier.countdown = 1
            return self._compiled_call(*args, **kwargs)
        tier = self._tier
        if tier.choice is None and not tier.pending:
            if not tiering.applies(self):
                tier.countdown = tiering.NEVER
                return self._compiled_call(*args, **kwargs)
            regions = () if self._sole_region else self._live_regions  # a sole one: measured here
            if region_tiering.settling(regions, tier):  # time the path they settle on
                tier.countdown = 1
                return self._compiled_call(*args, **kwargs)
        compiled = self._compiled_call if self._sole_region is None else self._sole_call
        return tier.sampled_call(compiled, plain_of(self.fn), args, kwargs, self._running())

    def _running(self) -> bool:
        """Whether this thread is inside a call of this function already (by its name)."""
        twin = self.twin_of[2] if self.twin_of else None
        running = (self.fn, self._impl, self._outgrown, twin, plain_of(self.fn))
        codes = {getattr(f, "__code__", None) for f in running}
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code in codes:
                return True
            frame = frame.f_back
        return False

    def recurse(self, args: tuple, kwargs: dict, compiled: bool = True) -> Any:
        """A call of itself from its compiled path (``__ac_call``): that path again, neither
        counted nor sampled, so that samples time the program's own calls, whole."""
        if not compiled:  # past its compiled levels: the user's function, on the plain path
            return self._tier.plain_meanwhile(plain_of(self.fn), args, kwargs)
        return self._compiled_call(*args, **kwargs)

    def _compiled_call(self, /, *args: Any, **kwargs: Any) -> Any:
        """The compiled path (what sampled calls time); ``__call__`` inlines its fast path."""
        sole = self._sole_region  # the function is one region: its guards straight away
        if sole is not None and not kwargs and alone(sole, args):
            try:
                result = guarded(sole, args)  # __call__ inlines it
                if result is MISS:
                    result = (self._full_call(args, {}),)  # a miss: the code may be new
            except RunPlain:
                return sole.run_body(args)[0]
            return result[0]
        return self._full_call(args, kwargs)

    _sole_call = _compiled_call  # what samples time for one region (in C: jit/routes.py)

    def _full_call(self, args: tuple, kwargs: dict) -> Any:
        """The rewritten function (explain notes the function here)."""
        impl = self._impl or self._rebuild_or_not()
        if impl is None:  # as written, timed, while the front end is imported; on the plain
            plain = (plain_of(self.fn), args, kwargs)  # path: its calls of itself by name go
            return self.budget.wait_with(self._tier.plain_meanwhile, plain)  # as deep as plain
        if impl is not self.fn:
            impl = self._current(impl)
        recorder = telemetry.active()
        if recorder is not None:
            recorder.note_function(self.name, self.static_breaks)
        if self.mode == "frozen":
            with frozen(strict=False):
                return impl(*args, **kwargs)
        return impl(*args, **kwargs)

    def _current(self, impl: Callable) -> Callable:
        """The rewrite, made again if the code was swapped (autoreload), with fn's defaults."""
        if self._fresh.swapped(self.fn):
            self.reset()
            self.python_loops.clear()  # lines of the old code
            self.python_lines.clear()
            impl = self._build()
        return impl if impl is self.fn else with_defaults(self.fn, impl)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else types.MethodType(self, obj)

    def __repr__(self) -> str:
        return f"<astcompile compiled function {self.name}>"

    def __reduce__(self) -> str | tuple:
        return pickling.reduce(self)  # by module and name, or by value: see jit/pickling.py

    def reset(self) -> None:
        """Drop the rewrite and every compiled region; the next call builds again."""
        with self._lock:
            self._impl = self._outgrown = self._sole_region = None
            self.regions, self._live_regions = [], []
            self._backend = self._target_name = self.cache_digest = None
            self.waiting = None  # its waiting path (jit/waiting.py) ends: measured again
            self._tier.reset()

    # --- building ---
    def _build(self) -> Callable:
        with self._lock:
            if self._impl is None:
                self._impl, self._outgrown = self._build_impl(), None
            return self._impl

    def _rebuild_or_not(self) -> Callable | None:
        """A rewrite that sent loops to Python is used once compiling may go on; until then
        the one before it runs (its failed regions run their statements: jit/budget.py)."""
        outgrown = self._outgrown
        if outgrown is None or self.budget.may_trace():
            return preload.build_when_ready(self, self._build)  # None: imported meanwhile
        return outgrown

    def _build_impl(self) -> Callable:
        """The function stages of the pipeline, then the breaks they found reported."""
        from astcompile import pipeline  # the compiler, imported on the first call

        self._fresh.built(self.fn)
        with self.budget.spending():
            work = pipeline.build_function(self)
        if work.impl is None:  # no source: it runs as it is, with nothing of ours on the call
            self._tier.countdown = tiering.NEVER
            self.run_plain()
            return self.fn
        rewrite = work.rewrite
        # A disable(recursive=False) function runs every statement eagerly on purpose: its
        # statements are not breaks to report.
        self.static_breaks = () if self.all_eager else rewrite.breaks
        if self.fullgraph and self.static_breaks:
            raise GraphBreakError(self.name, list(self.static_breaks))
        for graph_break in self.static_breaks:
            logs.graph_breaks.info("%s", graph_break.describe())
        self.cache_digest = rewrite.digest
        self._fresh.built(self.fn, rewrite.lookups)
        self.regions.extend(work.regions)  # a rebuild keeps the regions it replaces
        self._live_regions = list(work.regions)  # those the rewrite calls
        logs.output_code.info("%s rewritten:\n%s", self.name, rewrite.source.lstrip("\n"))
        recursion = calls_of_itself(rewrite.source, self)
        scalar = scalar_calls.for_function(self) if recursion else None
        if scalar is not None:  # a recursion on scalars: one C function, regions unused
            return scalar
        if recursion is not None and not work.regions:  # nothing of ours to run
            self._tier.countdown = tiering.NEVER
            self.run_plain()
            return plain_of(self.fn)
        sole = self.regions[0] if len(self.regions) == 1 else None
        if self.mode != "frozen" and sole and is_sole_region(rewrite.source, sole.spec.name):
            sole.positional = self.fn.__code__.co_argcount  # the rest by keyword (sole_region)
            self._sole_region = sole
        return work.impl

    def analysis_changed(self) -> bool:
        """Before a trace: a callee changed (jit/freshness.py)? Then the next call rewrites."""
        if not self._fresh.analysis_changed(self.fn, self.name):
            return False
        with self._lock:
            self._impl = self._sole_region = None
        return True

    def new_region(
        self, spec: RegionSpec, body: Callable[..., tuple], traced: Callable[..., tuple]
    ) -> Region:
        return region_tiering.attach(Region(spec, body, self, traced))

    # --- services for regions ---
    def target(self, args: tuple | None = None) -> Backend:
        """The backend that compiles this function's graphs (resolved on first use); with a
        region's ``args``, ``"auto"`` picks Triton for device arrays."""
        picked = resolve_for_call(self.backend_name, args) if args else None
        if picked is not None:
            return get_backend(picked)
        if self._backend is None:
            self._backend = get_backend(self.target_name())
        return self._backend

    def target_name(self) -> str:
        """The name of the backend :meth:`target` gives, without importing it: measuring asks
        on a warm process's second call, which must not import a code generator."""
        if self._target_name is None:
            self._target_name = resolve_backend(self.backend_name)
        return self._target_name

    def keep_loops_in_python(
        self, spec: RegionSpec, line: int | None = None, only_holding: bool = False
    ) -> bool:
        """A region could not be traced (or lowered): from the next call on, its loops run in
        Python and their bodies become regions of their own (the break stays local). When the
        failing file ``line`` is known and inside some of its loops, only those loops fall
        back; a known line outside them is a statement of its own that runs as written, and
        the loops stay native. True when that changes the rewrite (the next call rebuilds)."""
        from astcompile.frontend.loop_extents import loops_holding
        from astcompile.frontend.spec import LoopSpec

        lines = {s.line for s in spec.structured if isinstance(s, LoopSpec)}
        holding = loops_holding(self.fn, line, lines) if line else set()
        if line and not holding and lines and spec.first_line <= line <= spec.last_line:
            return self._keep_in_python(self.python_lines, {line})
        return self._keep_in_python(
            self.python_loops, holding if holding or only_holding else lines
        )

    def keep_lines_in_python(self, first: int, last: int) -> bool:
        """The statements on file lines ``first``..``last`` run as written from the next call
        on, with no region around them (``frontend/loop_extents.in_a_loop`` says when)."""
        return self._keep_in_python(self.python_lines, set(range(first, last + 1)))

    def _keep_in_python(self, kept: set[int], lines: set[int]) -> bool:
        with self._lock:
            if not lines - kept:
                return False
            kept |= lines
            self._outgrown, self._impl, self._sole_region = self._impl, None, None
            outgrown.rewrite_at_exit(self)  # the next process starts from the new rewrite
            return True

    def trace_break(self, exc: TraceBreak) -> GraphBreak:
        filename, line = (exc.origin.filename, exc.origin.line) if exc.origin else ("<unknown>", 0)
        source_line = linecache.getline(filename, line).strip()
        detail = f"{exc.reason.phrase}: {exc.detail}"
        graph_break = GraphBreak(exc.reason.code, detail, filename, line, 1, source_line, self.name)
        if self.fullgraph:
            raise GraphBreakError(self.name, [graph_break])
        return graph_break

    def python_loop(self, first: int, last: int, iterable: Any) -> Any:
        """``__ac_loop``: a loop that runs in Python; ``explain`` counts its iterations."""
        recorder = telemetry.active()
        if recorder is None:
            return iterable
        if first in self.loop_reasons:
            recorder.loop_reasons[(self.name, first, last)] = self.loop_reasons[first]
        return recorder.loop(self.name, first, last, iterable)

    def dispatch(self, callee: Any, /, *args: Any, **kwargs: Any) -> Any:
        """``__ac_call``: a call from this function's eager code to a user function."""
        return call_from_compiled(self, callee, args, kwargs)

    def compile_callee(self, fn: Callable) -> CompiledFunction:
        """A user function this one calls from eager code, compiled with the same backend."""
        return CompiledFunction(fn, backend=self.backend_name)
