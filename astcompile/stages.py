"""What each stage of the compile pipeline does (the order is in ``astcompile/pipeline.py``).

Every stage is ``run(work)`` on the :class:`FunctionWork` or :class:`RegionWork` the stages
share, and may set ``work.done`` to finish early (a cached entry found, a region left to NumPy).
A stage's ``when`` is a predicate ``(stage name, work)``; its ``dump`` returns the file name and
text a person reads in ``ASTCOMPILE_DEBUG_DIR``. Imports of the frontend, tracer and code
generator happen inside the stages: a warm process that loads everything from the caches runs
only ``rewrite_cache``, ``materialise`` and ``entry_cache`` and never imports them.
"""

from __future__ import annotations

import enum
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astcompile import config, logs, quiet, verify
from astcompile.errors import CompileError, Unlowerable
from astcompile.jit import fp_errors, preload, remembered, warm, warm_rewrite
from astcompile.jit.entries import Entry
from astcompile.jit.failures import SIZED_REASONS, failure_class
from astcompile.runtime import user_frames

if TYPE_CHECKING:
    from types import ModuleType

    from cffi import FFI

    from astcompile.frontend.analysis import FunctionAnalysis
    from astcompile.frontend.rewrite_cache import CachedRewrite
    from astcompile.frontend.source import FunctionSource
    from astcompile.ir.graph import Graph
    from astcompile.ir.results import TraceResult
    from astcompile.jit.protocols import CompilingRegion, Owner
    from astcompile.passes.pass_list import Pass
    from astcompile.passes.schedule import Schedule
    from astcompile.targets import Backend, CompiledGraph, Lowered
    from astcompile.targets.triton.triton_backend import Form, Plan

Run = Callable[[Any], None]


class GraphKind(enum.Enum):
    FLAT = "flat"  # array expressions only: scheduled into fused kernels
    LOOP = "loop"  # loops, branches, stores or run-time indices: one structured function


def graph_kind(graph: Graph) -> GraphKind:
    """Loops, branches, stores and run-time indices (``x[i]``, ``i`` a run-time value) make a
    loop graph; the kernel scheduler handles the rest."""
    from astcompile.ir.graph import walk
    from astcompile.ir.ops import Kind, Op

    for node in walk(graph.nodes()):
        if node.kind is Kind.CONTROL or (node.op is Op.INDEX and len(node.inputs) > 1):
            return GraphKind.LOOP
    return GraphKind.LOOP if graph.effects else GraphKind.FLAT


@dataclass(kw_only=True, repr=False, eq=False)  # only __init__: a warm start pays for this
class FunctionWork:
    owner: Owner
    done: bool = False  # a stage finished the job early: the stages after it do not run
    rewrite: CachedRewrite | None = None
    source: FunctionSource | None = None
    analysis: FunctionAnalysis | None = None
    lookups: list = field(default_factory=list)  # what the analysis resolved (cache key)
    regions: list[CompilingRegion] = field(default_factory=list)
    impl: Callable[..., Any] | None = None


@dataclass(kw_only=True, repr=False, eq=False)
class RegionWork:
    target: Backend | None = None  # who compiles the graph: set unless only caches are read
    region: CompilingRegion | None = None  # None: a bare graph (``backend.compile``)
    done: bool = False
    key: tuple = ()
    args: tuple = ()
    result: TraceResult | None = None
    graph: Graph | None = None
    kind: GraphKind = GraphKind.FLAT
    changed: bool = False  # whether the last graph pass changed the graph
    scans: Graph | None = None  # the graph with its scan loops as scan steps (``scans``)
    schedule: Schedule | Plan | None = None  # a flat graph's kernels, or a form's plan
    form: Form | None = None  # what the plan is (Triton's forms), set by the ``accept`` stage
    handed_over: str | None = None  # why the target refused the graph and C compiles it
    code: Lowered | None = None  # what the target's lower made, for its load and wrap
    library: tuple[FFI, object] | ModuleType | None = None  # C: cffi's (ffi, lib); Triton: module
    run: CompiledGraph | None = None
    entry: Entry | None = None
    leaves: list | None = None  # the arguments' leaves bound to a cached entry
    observed: dict = field(default_factory=dict)  # path -> the value the trace read there
    dump_number: int = 0  # this trace's number among the region's dumps

    @property
    def owner(self) -> Owner | None:
        return None if self.region is None else self.region.owner


# -- function stages ---------------------------------------------------------------------------


def load_rewrite(work: FunctionWork) -> None:
    """The cached rewrite; a new process starts with the loops and lines that earlier ones
    found would not compile already in Python (never traced again: ``jit/failures.py``)."""
    owner = work.owner
    if not owner.python_loops and not owner.python_lines and remembered.keeps_failures(owner):
        loops, lines = remembered.load_kept(owner.fn, owner.all_eager)
        owner.python_loops.update(loops)
        owner.python_lines.update(lines)
    work.rewrite = warm_rewrite.load_rewrite(owner.fn, owner.all_eager, kept=kept_lines(owner))


def kept_lines(owner: Owner) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(sorted(owner.python_loops)), tuple(sorted(owner.python_lines))


def read_source(work: FunctionWork) -> None:
    from astcompile.frontend.source import function_source

    work.source = function_source(work.owner.fn)  # NoSourceError: the caller runs fn as is


def import_frontend(work: FunctionWork) -> None:
    """libcst and the analyses: waited for within the function's budget (``jit/preload.py``)."""
    owner = work.owner
    preload.import_frontend(None if owner is None else owner.budget)


def analyse(work: FunctionWork) -> None:
    from astcompile.frontend.analysis import analyze_function
    from astcompile.frontend.resolve import RuntimeResolver

    resolver = RuntimeResolver(work.owner.fn)
    work.analysis = analyze_function(work.source, resolver)
    work.lookups = resolver.lookups


def rewrite(work: FunctionWork) -> None:
    from astcompile.frontend.rewrite import rewrite_function
    from astcompile.frontend.rewrite_cache import CachedRewrite

    owner, analysis = work.owner, work.analysis
    loops, lines = frozenset(owner.python_loops), frozenset(owner.python_lines)
    done = rewrite_function(
        analysis.source,
        analysis,
        all_eager=owner.all_eager,
        python_loops=loops,
        python_lines=lines,
    )
    owner.loop_reasons = dict(done.loop_reasons)  # explain: why a loop runs in Python
    saved = (done.source, done.regions, analysis.breaks, work.lookups)
    kept = kept_lines(owner)
    moved = analysis.source.moved  # found away from its code's lines: never saved
    digest = (
        None if moved else warm_rewrite.save_rewrite(owner.fn, owner.all_eager, *saved, kept=kept)
    )
    if (loops or lines) and not moved and remembered.keeps_failures(owner):
        remembered.save_kept(owner.fn, owner.all_eager, kept)  # where the next process starts
    breaks = tuple(analysis.breaks)
    filename = analysis.source.filename
    lookups = tuple(work.lookups)
    work.rewrite = CachedRewrite(
        done.source, tuple(done.regions), breaks, digest, filename, lookups
    )


def materialise(work: FunctionWork) -> None:
    from astcompile.frontend.lowering import routed_calls
    from astcompile.frontend.materialize import build_function
    from astcompile.frontend.spec import UNBOUND, UNBOUND_NAME, def_name
    from astcompile.frontend.warn_calls import WARN, WARNER
    from astcompile.jit.structured_calls import STRUCTURED_CALLS
    from astcompile.runtime import user_frames

    owner, made = work.owner, work.rewrite
    owner.rewritten_source = made.source  # the loops around each region are read from it
    unbound: dict[str, Any] = {UNBOUND_NAME: UNBOUND}  # the marker of a name a loop left unbound
    unbound[WARN] = user_frames.warn  # warn(..., stacklevel=2) counted in the user's frames,
    unbound[WARNER] = user_frames.warn  # a helper's too, as its twin (jit/warn_twin.py)
    free: dict[str, Any] = {"__ac_call": owner.dispatch, "__ac_loop": owner.python_loop, **unbound}
    for spec in made.regions:
        traced = build_function(
            spec.body_source, spec.name, owner.fn, STRUCTURED_CALLS, made.filename, spec.structured
        )
        body = traced
        if spec.structured or routed_calls(spec.body_source):  # run plain as written: a loop
            body = build_function(  # as calls of its body costs a call per iteration, a call
                spec.body_source, spec.name, owner.fn, unbound, made.filename, spec.structured
            )  # routed through the tracer's helpers puts our frame in warnings and tracebacks
        user_frames.REGION_CODES.update((body.__code__, traced.__code__))
        free[spec.name] = region = owner.new_region(spec, body, traced)
        work.regions.append(region)
    name = def_name(owner.fn)
    work.impl = build_function(made.source, name, owner.fn, free, made.filename)


def not_rewritten(stage: str, work: FunctionWork) -> bool:
    return work.rewrite is None


# -- region stages -----------------------------------------------------------------------------


def load_entry(work: RegionWork) -> None:
    found = warm.load_entry(work.region, work.key, work.args)
    if found is not None:
        work.entry, work.leaves = found
        work.done = True
    else:  # an earlier process failed on the arguments' class: the region runs its statements
        classes = (failure_class(work.args), failure_class(work.args, sized=True))
        work.done = remembered.load_plain(work.region, classes, work.args)


def trace(work: RegionWork) -> None:
    with quiet.hidden():  # the tracer imports libcst (a warm process): as above
        from astcompile.trace.context import TraceBreak
        from astcompile.trace.tracer import scalar_only

    region = work.region
    if region.owner.analysis_changed():  # a callee rebound or swapped: its statements run
        work.done = True
        return
    try:
        result = region.trace(work.key, work.args, work.observed)
    except TraceBreak as exc:  # fails again for any arguments of the class: jit/failures.py
        sized = exc.reason.name in SIZED_REASONS
        region.give_up(work.key, work.args, region.on_trace_break(work.key, exc), sized=sized)
        work.done = True
        return
    except Exception as exc:  # noqa: BLE001 - a user error (NumPy raises it again) or a tracer gap
        graph_break = region.on_trace_failure(work.key, exc)
        region.give_up(work.key, work.args, graph_break, certain=False)  # the eager run decides
        work.done = True
        return
    work.result, work.graph, work.kind = result, result.graph, graph_kind(result.graph)
    if scalar_only(result.graph):
        logs.recompiles.info(
            "%s: %s computes only scalars: it runs as Python (a compiled "
            "call would cost more than the arithmetic)",
            region.owner.name,
            region.spec.name,
        )
        region.give_up(work.key, work.args, f"{region.spec.name} computes only scalars")
        region.keep_body_in_its_loop()
        work.done = True


def resolve_target(work: RegionWork) -> None:
    work.target = work.region.owner.target(work.args)  # "auto": by the arguments' kind


def target_unset(stage: str, work: RegionWork) -> bool:
    return work.target is None


def graph_pass(fn: Pass) -> Run:
    def run(work: RegionWork) -> None:
        work.graph, work.changed = fn(work.graph)

    return run


def target_step(name: str) -> Run:
    def run(work: RegionWork) -> None:
        work.target.steps[name](work)

    return run


def for_codegen(stage: str, work: RegionWork) -> bool:
    """Graph passes run for a target that generates code, on flat and loop graphs alike
    (``passes/rebuild.py`` rebuilds loop bodies and branches too). Not for the eager target:
    it is the reference, and runs the graph exactly as traced."""
    return work.target.graph_passes


def wants_scans(stage: str, work: RegionWork) -> bool:
    """Scan loops make a loop graph; a target that picks its form at ``accept`` may take them."""
    return work.kind is GraphKind.LOOP and "accept" in work.target.steps


def fold_scans(work: RegionWork) -> None:
    """Beside the graph, the graph with its scan loops as scan steps (``passes/scans.py``):
    a target that refuses both hands C the graph as traced, loops and all."""
    from astcompile.passes.scans import fold_scans

    work.scans = fold_scans(work.graph)


def flat_target_step(stage: str, work: RegionWork) -> bool:
    """Scheduling into fused kernels is for flat graphs, and loop graphs the ``scans`` stage
    made flat; other loop graphs are planned by the target's own stages (Triton's ``stores``,
    ``host_loops``) or as they are lowered (C: one structured function)."""
    flat = work.kind is GraphKind.FLAT or (work.scans is not None and not work.scans.effects)
    return flat and stage in work.target.steps


def planned(stage: str, work: RegionWork) -> bool:
    """A target's stage that rewrites what a planning stage made runs once one did."""
    return work.schedule is not None and stage in work.target.steps


def unplanned(stage: str, work: RegionWork) -> bool:
    """A target's planning stage for loop graphs runs while no earlier stage planned it."""
    return work.kind is GraphKind.LOOP and work.schedule is None and stage in work.target.steps


def target_has(stage: str, work: RegionWork) -> bool:
    return stage in work.target.steps


def accept(work: RegionWork) -> None:
    """The target takes the graph, or hands it to the C target, which compiles it from here on
    (the graph_breaks log says why now, ``explain`` with the entry: ``CBackend.wrap``), made
    by name in the backend registry: no target imports another."""
    from astcompile.targets import get_backend

    reason = work.target.steps["accept"](work)
    if reason is not None:
        logs.graph_breaks.info("%s: %s: it runs on the C target (CPU)", work.graph.name, reason)
        fallback = get_backend(work.target.fallback, work.target.cache_dir)
        work.target, work.handed_over = fallback, reason


def add_entry(work: RegionWork) -> None:
    silent = work.target.name == "c" or getattr(work.run, "fp_silent", False)  # fp_errors.py
    run = verify.plant(work.run)  # plant: a test hook
    run = fp_errors.restoring(run, work.result, work.region) if silent else run
    work.entry = Entry(work.key, work.result, run, silent=silent)
    work.region.add_entry(work.entry)


def record(work: RegionWork) -> None:
    warm.save_entry(work.region, work.key, work.args, work.entry)
    work.region.record_graph(work.result)
    number = work.dump_number if config.debug_dir else None
    work.region.record_code(work.graph, work.entry.run, number)


# -- errors and dumps --------------------------------------------------------------------------


def codegen_failed(work: RegionWork, exc: Exception) -> None:
    """A graph pass or the target failed on a region: ``CompileError``, or with
    ``suppress_errors`` a warning and the region's key runs in NumPy. Never the user's call.
    ``Unlowerable`` is no failure: the target has no code for the graph, so the region runs
    as written and says so (GB023)."""
    region = work.region
    if region is None:
        raise exc
    if isinstance(exc, Unlowerable):  # not an error: the region runs the user's statements
        chosen = region.owner.target(work.args).name  # a target that handed it over: named
        graph_break = region.note_unlowerable(chosen, exc)
        region.keep_loops_around(exc.loc, only_holding=True)  # the rest may compile next call
        region.give_up(work.key, work.args, graph_break)
        work.done = True
        return
    owner, spec = region.owner, region.spec
    backend = owner.target().name
    if not config.suppress_errors:
        if isinstance(exc, CompileError):
            raise exc
        raise CompileError(
            f"{owner.name}: backend {backend!r} failed on {spec.name}: {type(exc).__name__}: {exc}"
        ) from exc
    warn_user(
        f"astcompile: backend {backend!r} failed on {owner.name} "
        f"(lines {spec.first_line}-{spec.last_line}): {exc}; "
        "running that region in NumPy (suppress_errors=True)"
    )
    region.give_up(work.key, work.args, f"backend {backend!r} failed: {exc}")
    work.done = True


def warn_user(message: str) -> None:
    """A RuntimeWarning attributed to the first caller outside astcompile (the user's line)."""
    frame, level = sys._getframe(0), 1
    while frame.f_back is not None and user_frames.ours(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, RuntimeWarning, stacklevel=level)
