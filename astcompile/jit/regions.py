"""A region: one run of graph-able statements, traced per guard key and run compiled.

The rewritten function calls ``__ac_region_k(live_in...)``; that is a :class:`Region`. On a call
it computes the guard key of its arguments, finds an entry traced for that key whose shape and
value guards hold, and runs it. Repeated calls take a shortcut: a Python function generated for
the region's entries (:func:`specialised_guards`) checks exactly those guards, inline, and falls
back to the generic key only when none holds. A miss traces the region's body (the user's
statements as a plain function) with symbolic values and compiles the graph with the backend. When
tracing breaks, the body itself runs: exactly the user's statements in NumPy, so the answer is
right.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astcompile import config, debug_dump, logs, verify
from astcompile import dask as dask_arrays
from astcompile.ir.checks import RunPlain
from astcompile.jit import background, telemetry
from astcompile.jit.entries import (
    MISS,
    Entry,
    _miss_all,
    fast_programs,
    leaves_of,
    specialised_guards,
)
from astcompile.jit.failures import Failing, Failures
from astcompile.jit.fp_errors import after_compiled, guarded, run_entry  # noqa: F401 (function.py)
from astcompile.jit.frozen import FrozenMiss, frozen_mode
from astcompile.runtime import errstate, fastcall, forksafe, fpflags
from astcompile.runtime import guards as G

if TYPE_CHECKING:
    from astcompile.frontend.spec import RegionSpec
    from astcompile.ir.graph import Graph
    from astcompile.ir.results import TraceResult
    from astcompile.jit.protocols import Owner

__all__ = ["MISS", "Entry", "Region", "leaves_of", "specialised_guards"]


@dataclass
class RegionStats:
    traces: int = 0
    compiled_calls: int = 0
    eager_calls: int = 0
    loud_at: int = -2  # compiled_calls at the last run with loud FP flags: jit/fp_errors.py
    breaks: list = field(default_factory=list)


class Region(Failing, background.Builds):
    """Callable standing for ``spec``'s statements; ``owner`` supplies backend and options."""

    def __init__(
        self,
        spec: RegionSpec,
        body: Callable[..., tuple],
        owner: Owner,
        traced: Callable[..., tuple],
    ) -> None:
        self.spec = spec
        self.body = body  # the user's statements: what every plain run of the region runs
        self.traced = traced  # the same with its loops and branches as calls to trace
        self.owner = owner
        self.names = tuple(spec.params)
        self.positional = len(self.names)  # by position: the rest by keyword (sole_region.py)
        self.entries: dict[tuple, list[Entry]] = {}
        self.eager_keys: set[tuple] = set()
        self.failures = Failures()  # argument classes it failed on: never traced again
        self.superseded = False  # its failure made the function rewrite some loops as Python
        self.pending: set[tuple] = set()  # keys being built in the background
        self.handoffs: dict[tuple, background.Handoff] = {}  # builds a call waits for
        self.stats = RegionStats()
        self._lock = forksafe.object_lock(self)  # a forked child gets it back unlocked
        self.past_limit = False  # cache_size_limit reached (and warned): new kinds run as written
        self.dynamic_leaves: frozenset[int] = frozenset()  # scalars seen to change: not guarded
        self.guards: Callable = _miss_all  # specialised to the entries; see specialised_guards

    def key(self, args: tuple) -> tuple:
        """The arguments' guard key; what the region reads besides them (globals, attributes,
        cells) is checked per entry (see Entry.bind)."""
        return G.call_key(args)

    def __call__(self, *args: Any) -> tuple:
        try:  # free unless raised: a RunPlain check failed (ir/checks.py), the body decides
            # compiled code must not run alone (quiet() inlined: see runtime/errstate.py)
            if config.verify or not (
                errstate.current() is errstate.quiet_state or errstate.quiet()
            ):
                return verify.region_call(self, args)
            if telemetry.recording:  # 0 unless some thread runs explain: one read when hot
                recorder = telemetry.active()
                if recorder is not None:
                    return self._recorded_call(recorder, args)
            fpflags.clear()  # what NumPy would warn of: see jit/fp_errors.py
            result = self.guards(*args)
            if result is MISS:
                return self.call(args)
            return after_compiled(self, args, result) if fpflags.raised() else result
        except RunPlain:
            return self.run_body(args)

    def run_body(self, args: tuple) -> tuple:
        """The region's own statements, for a call its compiled code declined (RunPlain)."""
        self.stats.eager_calls += 1
        return self.body(*args)

    def call(self, args: tuple) -> tuple:
        """The generic path: guard key, entries for it, else eager or a new compile. A region
        with no entry knows without a key (a list's key walks the whole list) when a call runs
        its statements: their class failed, or compiling is put off (``jit/budget.py``)."""
        if not self.entries:
            if self.failures.plain and self.failures.runs_plain(args):
                return self._eager(args)
            if not self.owner.budget.may_trace():
                return self._wait(args)
        key = self.key(args)
        entries = self.entries.get(key)
        if entries:
            root = self.owner.fn
            for entry in entries:
                leaves = entry.bind(args, root)
                if leaves is not None:
                    return run_entry(self, entry, leaves, args)
        if key in self.eager_keys or self.past_limit or self.failures.runs_plain(args):
            return self._eager(args)  # (past cache_size_limit, a new kind runs as written)
        if key in self.pending:
            return self._wait(args, pending=True)
        return self._miss(key, args)

    def _recorded_call(self, recorder: telemetry.Recorder, args: tuple) -> tuple:
        lines = (self.spec.first_line, self.spec.last_line)
        run = recorder.region_run(self.owner.name, self.spec.name, lines)
        compiled_before = self.stats.compiled_calls
        start = time.perf_counter()
        try:
            return self.call(args)
        finally:
            elapsed = time.perf_counter() - start
            run.seconds += elapsed
            if self.stats.compiled_calls > compiled_before:
                run.compiled_calls += 1
            else:
                run.eager_calls += 1
                recorder.eager_seconds += elapsed

    def _eager(self, args: tuple) -> tuple:
        self.stats.eager_calls += 1
        return self.body(*args)

    def _miss(self, key: tuple, args: tuple) -> tuple:
        from astcompile import pipeline  # the compiler, imported on the first miss

        if dask_arrays.holds_dask(args):  # Dask arrays in, Dask arrays out: astcompile/dask
            return dask_arrays.region_call(self, args)
        found = pipeline.cached_entry(self, key, args)  # persisted by another process, if any
        if found is not None:
            entry, leaves = found
            return run_entry(self, entry, leaves, args)
        if self.failures.runs_plain(args):  # another process failed on this class
            return self._eager(args)
        mode = frozen_mode()
        if mode is not None:
            if mode == "strict":
                raise FrozenMiss(
                    f"{self.owner.name}: no compiled entry for region "
                    f"{self.spec.name} (lines {self.spec.first_line}-"
                    f"{self.spec.last_line}) in frozen mode"
                )
            return self._eager(args)
        if not self.owner.budget.may_trace():  # compiling is put off: see jit/budget.py
            return self._wait(args)
        with self._lock:
            settled = self._settled(key, args)  # by another thread while this one waited
            if not settled and self._count() >= config.cache_size_limit:
                self._warn_limit(key, args)
                return self._eager(args)
            compiled = None if settled else self._compile(key, args)
        if settled:
            return self.call(args)
        if compiled is None:  # put off: its build may be done already (then not pending)
            built = key in self.pending or key in self.handoffs
            return self._built(key, args) if built else self.run_after_failure(key, args)
        if compiled[1] is None:  # a guard of the new entry fails already
            return self._eager(args)
        entry, leaves = compiled
        return run_entry(self, entry, leaves, args)

    def _settled(self, key: tuple, args: tuple) -> bool:
        """Whether ``args`` now have an entry, run eagerly or are being built: threads that
        missed together wait for the region's lock, and all but the first find the first one's
        work (one trace and one build for any number of concurrent first calls)."""
        root = self.owner.fn
        return (
            key in self.eager_keys
            or key in self.pending
            or any(entry.bind(args, root) is not None for entry in self.entries.get(key, ()))
        )

    def _count(self) -> int:
        """Traces spent: compiled entries and argument kinds given up (a string steering the
        trace is a kind of its own: a loop over 5,000 lines must not trace 5,000 times)."""
        return sum(len(v) for v in self.entries.values()) + len(self.eager_keys)

    def _compile(self, key: tuple, args: tuple) -> tuple[Entry, list | None] | None:
        from astcompile import pipeline

        if self.entries:
            logs.recompiles.info(
                "%s: recompiling %s: %s",
                self.owner.name,
                self.spec.name,
                self._miss_reason(key, args),
            )
        start = time.perf_counter()
        try:
            with self.owner.budget.spending():
                return pipeline.compile_region(self, key, args, later=self._build_later)
        finally:  # explain reports a region's time with its compiling apart
            recorder = telemetry.active()
            if recorder is not None:
                lines = (self.spec.first_line, self.spec.last_line)
                run = recorder.region_run(self.owner.name, self.spec.name, lines)
                run.compile_seconds += time.perf_counter() - start

    def trace(self, key: tuple, args: tuple, observed: dict | None = None) -> TraceResult:
        """Trace the body (the pipeline's ``trace`` stage). A Python scalar whose value guard
        failed before is traced as a run-time value (like torch.compile's automatic dynamic
        shapes), so a loop index passed in on every iteration compiles once, not once per
        value; where the body needs that value (``range(n)``, ``if n > 0``) the trace
        specialises it as before, unless a loop left in Python calls the region: then its
        statements run as written, region and all (``loop_extents.in_a_loop``)."""
        from astcompile.frontend.loop_extents import in_a_loop
        from astcompile.trace.context import TraceBreak
        from astcompile.trace.tracer import trace

        name = f"{self.owner.name}_{self.spec.name[5:]}"
        dynamic = self.dynamic_leaves | self._changed_scalars(key, args)
        root = self.owner.fn
        result = None
        if dynamic:
            try:
                result = trace(self.traced, args, self.names, name, dynamic, root, observed)
                self.dynamic_leaves = dynamic
            except TraceBreak:  # needed as a value: specialised, unless it is per iteration
                spec = self.spec
                if in_a_loop(root, spec.first_line):  # a loop in Python calls this region
                    self.superseded |= self.owner.keep_lines_in_python(
                        spec.first_line, spec.last_line
                    )
                    raise
        if result is None:
            result = trace(self.traced, args, self.names, name, root=root, observed=observed)
        self.stats.traces += 1
        return result

    def _changed_scalars(self, key: tuple, args: tuple) -> frozenset[int]:
        """Leaves whose specialised value differs from an entry traced for the same key."""
        changed = set()
        for entry in self.entries.get(key, ()):
            leaves = entry.current_leaves(args, self.owner.fn)
            changed.update(
                index
                for index, value in entry.result.value_guards
                if index < len(leaves)
                and type(leaves[index]) in (int, float, complex)
                and leaves[index] != value
            )
        return frozenset(changed)

    def add_entry(self, entry: Entry) -> None:
        """Make ``entry`` reachable: from the generic path and the specialised guards."""
        self.entries.setdefault(entry.key, []).append(entry)
        self._specialise()

    def add_loaded(self, entries: Iterable[Entry]) -> None:
        """Entries the warm cache loaded, added under the region's lock."""
        with self._lock:
            for entry in entries:
                self.add_entry(entry)

    def add_eager_key(self, key: tuple) -> None:
        self.eager_keys.add(key)
        self._specialise()

    def _specialise(self) -> None:
        """Generate the guard function of the entries; where the C-level call path can run
        some of them (``runtime/fastcall.py``), it stands in front of that function."""
        entries = [e for found in self.entries.values() for e in found]
        programs = fast_programs(entries, self.owner.fn) if entries else []
        if programs and not fastcall.tried():  # built by an earlier process: no compiler run
            fastcall.extension(config.cache_dir, build_it=False)
        wait = bool(programs) and not fastcall.asked()
        python_guards = specialised_guards(
            self.spec.name,
            self.names,
            entries,
            self.owner.fn,
            self.stats,
            tuple(self.eager_keys),
            self._eager,
            promote=self._promote if wait else None,
        )
        self.guards = fastcall.guards(programs, python_guards, self.stats)
        if entries:
            logs.guards.info("%s:\n%s", self.owner.name, python_guards.py_source)

    def _promote(self) -> None:
        """The entries ran compiled ``fastcall.PROMOTE_AFTER`` times: the C-level call path is
        built in the background (once per machine: no call waits for it), and put in front of
        the guard function once it is loaded (:meth:`_promoted`)."""
        fastcall.build_in_background(config.cache_dir)
        with self._lock:
            self._specialise()  # the same guards, without the call that asks
        fastcall.when_loaded(self._promoted)

    def _promoted(self) -> None:
        """The C-level call path is loaded: it goes in front of the guard function, and the
        compiled path, cheaper now, is measured again."""
        with self._lock:
            self._specialise()
        tier = getattr(self, "tier", None)  # region tiering's, where it measures this one
        if tier is not None:
            tier.reopen(cheaper=True)
        self.owner.compare_again(cheaper=True)

    def record_graph(self, result: TraceResult) -> None:
        reads = [read.describe(self.names) for read in result.reads]
        names = result.leaf_names
        values = [
            f"{names[i] if i < len(names) else f'leaf {i}'} == {value!r}"
            for i, value in result.value_guards
        ]
        recorder = telemetry.active()
        if recorder is not None:
            recorder.graphs.append((self.owner.name, self.spec.name, result.graph))
            recorder.guards.extend(str(g) for g in result.graph.guards)
            recorder.guards.extend(reads)
        logs.guards.info(
            "%s %s guards: %s",
            self.owner.name,
            self.spec.name,
            [str(g) for g in result.graph.guards] + values + reads,
        )

    def record_code(self, graph: Graph, run: Callable | None, number: int | None = None) -> None:
        """The graph, C and wrapper of an entry, for people: the output_code log and the debug
        folder (``astcompile/debug_dump.py``); ``number`` is the trace stage's dump number
        (None for an entry loaded on a warm start, which no trace stage dumped)."""
        debug_dump.region(self.owner.fn, self.owner.name, self.spec.name, graph, run, number)

    def _miss_reason(self, key: tuple, args: tuple) -> str:
        """What differs from the closest entry (``jit/misses.py``), in the user's words."""
        from astcompile.jit.misses import closest_reason

        entries = [entry for group in self.entries.values() for entry in group]
        return closest_reason(entries, key, args, self.names, self.owner.fn)

    def _warn_limit(self, key: tuple, args: tuple) -> None:
        if self.past_limit:
            return
        self.past_limit = True
        warnings.warn(
            f"astcompile: {self.owner.name} (lines {self.spec.first_line}-{self.spec.last_line}) "
            f"hit cache_size_limit={config.cache_size_limit} ({self._count() - len(self.eager_keys)} "
            f"compiled, {len(self.eager_keys)} that could not compile); last guard failure: "
            f"{self._miss_reason(key, args)}. New argument kinds now run in NumPy. Raise "
            "astcompile.config.cache_size_limit or make the arguments more uniform.",
            RuntimeWarning,
            stacklevel=4,
        )
