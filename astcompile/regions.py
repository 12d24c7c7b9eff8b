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

import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from astcompile import config, logs, telemetry, warm
from astcompile.graph.context import TraceBreak
from astcompile.graph.build import index_shape
from astcompile.graph.ops import Kind, Op
from astcompile.graph.shapes import DimOp, ShapeGuard
from astcompile.graph.trace import OutSpec, TraceResult, is_leaf, trace
from astcompile.runtime import guards as G
from astcompile.runtime.timing import phase

_local = threading.local()


def frozen_mode() -> str | None:
    """None normally; "frozen" or "strict" inside ``astcompile.run`` (no new compiles)."""
    return getattr(_local, "frozen", None)


class FrozenMiss(Exception):
    """A strict frozen call met a region with no compiled entry for its arguments."""


def leaves_of(args: tuple) -> list[Any]:
    """Flattened array/scalar leaves, each distinct array once (as the tracer numbered them)."""
    leaves: list[Any] = []
    seen: set[int] = set()
    stack = list(reversed(args))
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is tuple or kind is list:
            stack.extend(reversed(value))
        elif kind is np.ndarray:
            if id(value) not in seen:
                seen.add(id(value))
                leaves.append(value)
        elif is_leaf(value):
            leaves.append(value)
    return leaves


def _box(value: Any, box: Any) -> Any:
    if box == "array":
        return value
    if box == "scalar":
        return value[()] if isinstance(value, np.ndarray) else value
    return box(value)


def _rebuild(spec: Any, outputs: list, leaves: list) -> Any:
    if isinstance(spec, OutSpec):
        if spec.kind == "graph":
            return _box(outputs[spec.index], spec.box)
        return leaves[spec.index] if spec.kind == "leaf" else spec.value
    return type(spec)(_rebuild(s, outputs, leaves) for s in spec)


def _is_plain_arrays(template: Any) -> bool:
    """The common case: the region returns graph outputs 0..n-1 as arrays, in order."""
    return type(template) is tuple and all(
        isinstance(s, OutSpec) and s.kind == "graph" and s.box == "array" and s.index == i
        for i, s in enumerate(template)
    )


@dataclass
class Entry:
    """One compiled version of a region, valid while its guards hold."""

    key: tuple
    result: TraceResult
    run: Callable[[list], list]

    globals_seen: tuple = ()  # (name, object) of each global the region reads, at trace time

    def __post_init__(self) -> None:
        self.unguarded = not self.result.value_guards and not self.result.graph.guards
        self.plain = _is_plain_arrays(self.result.template)

    def checks(self, nargs: int, prefix: str = "") -> tuple[G.KeyChecks, list[int]] | None:
        """Every check this entry needs, as Python source over ``_a0..``: the key's, then the
        value and shape guards of the trace. None when the generic path must decide."""
        if len(self.key) != nargs + len(self.globals_seen):  # aliased arrays: generic path
            return None
        checks = G.key_checks(self.key[:nargs], nargs, prefix)
        if checks is None:
            return None
        for (name, value), key in zip(self.globals_seen, self.key[nargs:]):
            if not G.global_checks(checks, name, key, value):
                return None
        leaf_args = [i for i, k in enumerate(self.key[:nargs]) if _is_leaf_key(k)]
        for index, value in self.result.value_guards:
            checks.conds.append(f"_a{leaf_args[index]} == {checks.const(value)}")
        checks.conds += [_guard_source(g, leaf_args) for g in self.result.graph.guards]
        return checks, leaf_args

    def matches(self, leaves: list) -> bool:
        if self.unguarded:
            return True
        for index, value in self.result.value_guards:
            if leaves[index] != value:
                return False
        graph_guards = self.result.graph.guards
        if graph_guards:
            shapes = [np.shape(v) for v in leaves]
            return all(g.holds(shapes) for g in graph_guards)
        return True

    def __call__(self, leaves: list) -> Any:
        if self.plain:
            return tuple(self.run(leaves))
        return _rebuild(self.result.template, self.run(leaves), leaves)


def _scalar_only(graph: Any) -> bool:
    """A graph that touches O(1) elements (scalar arithmetic, element reads ``x[i]``, element
    stores ``out[i] = v``) and has no loop or branch: Python runs it faster than a call into
    compiled code can (the call alone costs microseconds). Typical of a loop left in Python."""
    for node in graph.nodes():
        if node.kind is Kind.CONTROL:
            return False
        if node.op is Op.INPUT:
            continue
        if node.op is Op.STORE:
            target, value = node.inputs[:2]
            if index_shape(target.shape, node.attr.index) != () or value.shape != ():
                return False
        elif node.shape != ():
            return False
    return True


_MISS = object()  # what a specialised guard function returns when no entry's guards hold


def _miss_all(*args: Any) -> object:
    return _MISS


def _is_leaf_key(k: Any) -> bool:
    """Whether an argument with guard key ``k`` is a graph leaf (see ``trace.is_leaf``)."""
    if k is float or k is complex:
        return True
    return type(k) is tuple and (k[0] is np.ndarray or k[0] is int or (
        len(k) == 1 and isinstance(k[0], type) and issubclass(k[0], np.generic)))


def _dim_source(d: Any, leaf_args: list[int]) -> str:
    if isinstance(d, int):
        return str(d)
    if d.op is DimOp.SYM:
        leaf, axis = d.source
        return f"{G.KeyChecks.shape(leaf_args[leaf])}[{axis}]"
    a, b = (_dim_source(x, leaf_args) for x in d.args)
    return f"max({a}, {b})" if d.op is DimOp.MAX else f"({a} {d.op.value} {b})"


def _guard_source(guard: ShapeGuard, leaf_args: list[int]) -> str:
    return f"{_dim_source(guard.lhs, leaf_args)} {guard.rel.value} {_dim_source(guard.rhs, leaf_args)}"


def specialised_guards(name: str, params: tuple[str, ...], entries: list[Entry],
                       module_globals: dict[str, Any], stats: "RegionStats",
                       eager_keys: tuple = (), eager: Callable | None = None) -> Callable:
    """A function of the region's arguments that runs the first entry whose guards hold, or
    returns ``_MISS``: the whole per-call check, specialised to exactly the guards these
    entries need (types, dtypes, ranks, size classes, layouts, globals, value and shape
    guards), with no generic walk over the arguments. Entries it cannot check are left to the
    generic path. Calls whose key is in ``eager_keys`` go to ``eager`` (the user's statements)
    after the entries, as on the generic path: a region that runs in Python inside a Python
    loop must not pay for a generic key on every iteration."""
    args = [f"_a{i}" for i in range(len(params))]
    lines = [f"def guards_{name}({', '.join(args)}):", f"    # {', '.join(params)}"]
    namespace: dict[str, Any] = {"_MISS": _MISS, "_ndarray": np.ndarray, "_tuple": tuple,
                                 "_int_class": G.int_class, "_globals": module_globals,
                                 "_stats": stats, "_eager": eager}
    for n, entry in enumerate(entries):
        found = entry.checks(len(params), prefix=f"e{n}")
        if found is None:
            continue
        checks, leaf_args = found
        namespace.update(checks.consts)
        conds = checks.conds or ["True"]
        leaves = "[" + ", ".join(f"_a{i}" for i in leaf_args) + "]"
        call = f"_tuple(_run{n}({leaves}))" if entry.plain else f"_entry{n}({leaves})"
        namespace[f"_run{n}"], namespace[f"_entry{n}"] = entry.run, entry
        lines += [f"    if ({(chr(10) + '            and ').join(conds)}):",
                  "        _stats.compiled_calls += 1", f"        return {call}"]
    for n, key in enumerate(eager_keys):
        checks = G.key_checks(key, len(params), prefix=f"x{n}")
        if checks is None:
            continue
        namespace.update(checks.consts)
        conds = checks.conds or ["True"]
        lines += [f"    if ({(chr(10) + '            and ').join(conds)}):",
                  f"        return _eager(({', '.join(args)}{',' if len(args) == 1 else ''}))"]
    lines.append("    return _MISS")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<astcompile guards {name}>", "exec"), namespace)  # noqa: S102
    fn = namespace[f"guards_{name}"]
    fn.py_source = source
    return fn


@dataclass
class RegionStats:
    traces: int = 0
    compiled_calls: int = 0
    eager_calls: int = 0
    breaks: list = field(default_factory=list)


class Region:
    """Callable standing for ``spec``'s statements; ``owner`` supplies backend and options."""

    def __init__(self, spec: Any, body: Callable, owner: Any) -> None:
        self.spec = spec
        self.body = body
        self.owner = owner
        self.names = tuple(spec.params)
        self.entries: dict[tuple, list[Entry]] = {}
        self.eager_keys: set[tuple] = set()
        self.stats = RegionStats()
        self._lock = threading.Lock()
        self._limit_warned = False
        self._globals = owner.globals
        self.dynamic_leaves: frozenset[int] = frozenset()  # scalars seen to change: not guarded
        self._guards: Callable = _miss_all  # specialised to the entries; see specialised_guards

    def key(self, args: tuple) -> tuple:
        key = G.call_key(args)
        if self.spec.globals_read:
            g = self._globals
            key += tuple(G.global_key(g.get(name)) for name in self.spec.globals_read)
        return key

    def __call__(self, *args: Any) -> tuple:
        if telemetry.recording:  # 0 unless some thread runs explain: one read on the hot path
            recorder = telemetry.active()
            if recorder is not None:
                return self._recorded_call(recorder, args)
        result = self._guards(*args)
        if result is _MISS:
            return self._call(args)
        return result

    def _call(self, args: tuple) -> tuple:
        """The generic path: guard key, entries for it, else eager or a new compile."""
        key = self.key(args)
        entries = self.entries.get(key)
        if entries:
            leaves = leaves_of(args)
            for entry in entries:
                if entry.matches(leaves):
                    self.stats.compiled_calls += 1
                    return entry(leaves)
        if key in self.eager_keys:
            return self._eager(args)
        return self._miss(key, args)

    def _recorded_call(self, recorder: telemetry.Recorder, args: tuple) -> tuple:
        lines = (self.spec.first_line, self.spec.last_line)
        run = recorder.region_run(self.owner.name, self.spec.name, lines)
        compiled_before = self.stats.compiled_calls
        start = time.perf_counter()
        try:
            return self._call(args)
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
        # [warm start / ahead-of-time hook] an entry persisted by another process, if any
        entry = warm.load_entry(self, key, args)
        if entry is not None:
            self.stats.compiled_calls += 1
            return entry(leaves_of(args))
        mode = frozen_mode()
        if mode is not None:
            if mode == "strict":
                raise FrozenMiss(f"{self.owner.name}: no compiled entry for region "
                                 f"{self.spec.name} (lines {self.spec.first_line}-"
                                 f"{self.spec.last_line}) in frozen mode")
            return self._eager(args)
        with self._lock:
            if self._count() >= config.cache_size_limit:
                self._warn_limit(key, args)
                return self._eager(args)
            entry = self._compile(key, args)
        if entry is None:
            return self._eager(args)
        self.stats.compiled_calls += 1
        return entry(leaves_of(args))

    def _count(self) -> int:
        return sum(len(v) for v in self.entries.values())

    def _compile(self, key: tuple, args: tuple) -> Entry | None:
        if self.entries:
            logs.recompiles.info("%s: recompiling %s: %s", self.owner.name, self.spec.name,
                                 self._miss_reason(key, args))
        try:
            result = self._trace(key, args)
        except TraceBreak as exc:
            self._on_trace_break(key, exc)
            return None
        except Exception as exc:  # a user error (NumPy will raise it again) or a tracer gap
            logs.graph_breaks.info("%s: tracing %s failed (%s: %s); running it in NumPy",
                                   self.owner.name, self.spec.name, type(exc).__name__, exc)
            self.owner.keep_loops_in_python(self.spec)
            self._add_eager_key(key)
            return None
        self.stats.traces += 1
        if _scalar_only(result.graph):
            logs.recompiles.info("%s: %s computes only scalars: it runs as Python (a compiled "
                                 "call would cost more than the arithmetic)", self.owner.name,
                                 self.spec.name)
            self._add_eager_key(key)
            return None
        run = self.owner.compile_graph(result.graph, self)
        if run is None:
            self._add_eager_key(key)
            return None
        seen = tuple((name, self._globals.get(name)) for name in self.spec.globals_read)
        entry = Entry(key, result, run, seen)
        self._add_entry(entry)
        warm.save_entry(self, key, args, entry)  # [warm start hook] persist it for new processes
        self._record_graph(result)
        return entry

    def _trace(self, key: tuple, args: tuple) -> TraceResult:
        """Trace the body. A Python scalar whose value guard failed before is traced as a
        run-time value (like torch.compile's automatic dynamic shapes), so a loop index passed
        in on every iteration compiles once, not once per value; where the body needs that
        value (``range(n)``, ``if n > 0``) the trace specialises it as before."""
        name = f"{self.owner.name}_{self.spec.name[5:]}"
        dynamic = self.dynamic_leaves | self._changed_scalars(key, args)
        with phase("trace"):
            if dynamic:
                try:
                    result = trace(self.body, args, self.names, name, dynamic)
                    self.dynamic_leaves = dynamic
                    return result
                except TraceBreak:
                    pass
            return trace(self.body, args, self.names, name)

    def _changed_scalars(self, key: tuple, args: tuple) -> frozenset[int]:
        """Leaves whose specialised value differs from an entry traced for the same key."""
        leaves = leaves_of(args)
        return frozenset(
            index
            for entry in self.entries.get(key, ())
            for index, value in entry.result.value_guards
            if type(leaves[index]) in (int, float, complex) and leaves[index] != value
        )

    def _add_entry(self, entry: Entry) -> None:
        """Make ``entry`` reachable: from the generic path and the specialised guards."""
        self.entries.setdefault(entry.key, []).append(entry)
        self._specialise()

    def _add_eager_key(self, key: tuple) -> None:
        self.eager_keys.add(key)
        self._specialise()

    def _specialise(self) -> None:
        entries = [e for found in self.entries.values() for e in found]
        eager_keys = () if self.spec.globals_read else tuple(self.eager_keys)
        self._guards = specialised_guards(self.spec.name, self.names, entries, self._globals,
                                          self.stats, eager_keys, self._eager)

    def _record_graph(self, result: TraceResult) -> None:
        recorder = telemetry.active()
        if recorder is not None:
            recorder.graphs.append((self.owner.name, self.spec.name, result.graph))
            recorder.guards.extend(str(g) for g in result.graph.guards)
        logs.guards.info("%s %s guards: %s", self.owner.name, self.spec.name,
                         [str(g) for g in result.graph.guards] + result.value_guards)
        self.owner.dump_graph(self.spec.name, result.graph)

    def _on_trace_break(self, key: tuple, exc: TraceBreak) -> None:
        self.owner.keep_loops_in_python(self.spec)  # a loop region retries with Python loops
        graph_break = self.owner.trace_break(exc)
        self.stats.breaks.append(graph_break)
        self._add_eager_key(key)
        recorder = telemetry.active()
        if recorder is not None:
            recorder.add_break(graph_break)
        logs.graph_breaks.info("%s", graph_break.describe())

    def _miss_reason(self, key: tuple, args: tuple) -> str:
        previous = next(reversed(self.entries))  # the most recent entry: the likeliest match
        if previous == key:
            return "a shape relation or a specialised scalar changed"
        return G.describe_difference(self.names, previous, key)

    def _warn_limit(self, key: tuple, args: tuple) -> None:
        if self._limit_warned:
            return
        self._limit_warned = True
        warnings.warn(
            f"astcompile: {self.owner.name} (lines {self.spec.first_line}-{self.spec.last_line}) "
            f"hit cache_size_limit={config.cache_size_limit}; last guard failure: "
            f"{self._miss_reason(key, args)}. New argument kinds now run in NumPy. Raise "
            "astcompile.config.cache_size_limit or make the arguments more uniform.",
            RuntimeWarning,
            stacklevel=4,
        )
