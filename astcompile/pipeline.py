"""The compile pipeline: every step from a function's first call to compiled code, in order.

Two ordered lists of named stages, each with the reason it exists (what each does is in
``astcompile/stages.py``):

* :data:`FUNCTION_STAGES` run once per compiled function, on its first call: its source becomes
  plain Python that calls one region per compiled span (``jit/function.py``).
* :data:`REGION_STAGES` run for a region on a guard miss: its body becomes a graph, the graph a
  callable (``jit/regions.py``). Before them the miss looks in :data:`ENTRY_CACHE`; frozen
  mode, the cache size limit and the region's lock sit between that look-up and the stages.

Loop graphs (loops, branches, stores) and flat graphs go through the same list; a stage's
``when`` says, as data, which graphs and targets it is for. A *target* (C, eager, Triton)
plugs in as the ``schedule``, ``stores``, ``host_loops``, ``accept``, ``lower``, ``load`` and
``wrap`` stages (``backend.steps``, see ``targets/__init__.py``); a target without one skips it.
``schedule``, ``stores`` and ``host_loops`` each plan the graph in a form (Triton's forms:
which function transforms which graph is a table in docs/internals.md), the first that can
taking it; a target whose ``accept`` refuses a graph hands it to C there.

:func:`run_stages` times each stage under its name: ``astcompile.compile_times()`` reports
these names, never overlapping (the C compiler is ``build``, timed inside ``load``), and they
add up to the time spent compiling. With ``ASTCOMPILE_DEBUG_DIR`` set, what a stage made for
people is written there under the stage's name (``rewrite.py``, ``<region>.<n>.trace.txt``,
``<region>.<n>.cse.txt``, ...).
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from astcompile import config, debug_dump, stages
from astcompile.passes.pass_list import PIPELINE as GRAPH_PASSES
from astcompile.runtime.timing import phase
from astcompile.stages import FunctionWork, RegionWork

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph
    from astcompile.jit.entries import Entry
    from astcompile.jit.protocols import CompilingRegion, Owner
    from astcompile.targets import Backend, CompiledGraph


def always(stage: str, work: Any) -> bool:
    return True


class Stage(NamedTuple):  # a NamedTuple: cheaper to define than a frozen dataclass
    name: str
    run: stages.Run
    why: str
    when: Callable[[str, Any], bool] = always  # (stage name, work): whether it runs
    on_error: Callable[[Any, Exception], None] | None = None  # None: the error propagates
    dump: Callable[[str, Any], tuple[str, str] | None] | None = None  # (file name, text)
    inner: tuple[str, ...] = ()  # phases timed inside it, reported under their own names


#: Once per compiled function, on its first call.
FUNCTION_STAGES: tuple[Stage, ...] = (
    Stage(
        "rewrite_cache",
        stages.load_rewrite,
        "a warm start reuses the rewrite an earlier process or `astcompile build` saved",
        dump=debug_dump.rewrite_dump,
    ),
    Stage(
        "source",
        stages.read_source,
        "the function's own text is what gets analysed (a function without any runs as it is)",
        when=stages.not_rewritten,
    ),
    Stage(
        "frontend",
        stages.import_frontend,
        "libcst and the analyses, imported by a process's first analysis (once, most of a "
        "first call's front end): apart, so that `analysis` is the function's own cost",
        when=stages.not_rewritten,
    ),
    Stage(
        "analysis",
        stages.analyse,
        "names resolved against the function's globals; graph breaks found before any trace",
        when=stages.not_rewritten,
    ),
    Stage(
        "rewrite",
        stages.rewrite,
        "regions become calls `__ac_region_k(...)`, breaks stay Python; saved for next time",
        when=stages.not_rewritten,
        dump=debug_dump.rewrite_dump,
    ),
    Stage(
        "materialise",
        stages.materialise,
        "the rewritten function and each region's body become functions beside the original",
    ),
)

#: On a region miss, before anything is compiled (frozen mode uses what it finds).
ENTRY_CACHE = Stage(
    "entry_cache",
    stages.load_entry,
    "an entry another process compiled for the same guard key: no trace, no compiler",
)

_PASSES = tuple(
    Stage(
        name,
        stages.graph_pass(fn),
        why,
        when=stages.for_codegen,
        on_error=stages.codegen_failed,
        dump=debug_dump.pass_dump,
    )
    for name, fn, why in GRAPH_PASSES
)


def _target(name: str, why: str, when: Callable[[str, Any], bool], **more: Any) -> Stage:
    return Stage(name, stages.target_step(name), why, when, stages.codegen_failed, **more)


#: From a graph to a callable: the graph passes, then the target's own stages.
TARGET_STAGES: tuple[Stage, ...] = (
    Stage(
        "target",
        stages.resolve_target,
        "the backend that compiles the graph; its code generator is imported on first use",
        when=stages.target_unset,
    ),
    *_PASSES,
    Stage(
        "scans",
        stages.fold_scans,
        "np.cumsum/np.cumprod loops as scan steps, for a target that picks its form at accept",
        stages.wants_scans,
        stages.codegen_failed,
        debug_dump.scans_dump,
    ),
    _target(
        "schedule",
        "nodes grouped into fused kernels and NumPy steps",
        stages.flat_target_step,
    ),
    _target(
        "stores",
        "stores into views and checks, no loop: phases of kernels, each then its store kernels",
        stages.unplanned,
        dump=debug_dump.plan_dump,
    ),
    _target(
        "host_loops",
        "user loops run by the host: each level cut at its loops into segments of kernels",
        stages.unplanned,
        dump=debug_dump.plan_dump,
    ),
    _target(
        "matmuls",
        "products of 2-D arrays as tiled matmul kernels, fused with the one kernel reading them",
        stages.planned,
    ),
    Stage(
        "accept",
        stages.accept,
        "the target takes the graph in one of its forms, or hands it to C, saying why",
        stages.target_has,
        stages.codegen_failed,
        debug_dump.accept_dump,
    ),
    _target(
        "lower",
        "the target's source (C kernels) and the Python wrapper that calls it",
        stages.target_has,
    ),
    _target(
        "load",
        "the kernel library from memory or the disk cache, else built (`build`: the compiler)",
        stages.target_has,
        inner=("build",),
    ),
    _target(
        "wrap",
        "the callable that takes the region's leaves and returns its outputs",
        stages.target_has,
    ),
)

#: On a region miss that the entry cache did not answer, under the region's lock. The trace
#: comes first (``compile_region`` may finish the rest in the background).
REGION_STAGES: tuple[Stage, ...] = (
    Stage(
        "trace",
        stages.trace,
        "the body run on symbolic values: one graph, its guards and reads (or a break)",
        dump=debug_dump.trace_dump,
    ),
    *TARGET_STAGES,
    Stage(
        "guards",
        stages.add_entry,
        "the entry joins the region's specialised guard function (the fast call path)",
    ),
    Stage(
        "record",
        stages.record,
        "the entry saved for the next process; its graph and guards reported (explain, logs)",
    ),
)


def run_stages(stage_list: Sequence[Stage], work: Any) -> Any:
    """Run each stage of ``stage_list`` that applies, in order, each timed under its name; with
    ``config.verify_ir`` (the tests set it) the graphs a stage leaves are verified, so a broken
    invariant names the stage that broke it."""
    for stage in stage_list:
        if work.done:
            break
        if not stage.when(stage.name, work):
            continue
        with phase(stage.name):
            try:
                stage.run(work)
            except Exception as exc:
                if stage.on_error is None:
                    raise
                stage.on_error(work, exc)
                continue
            if config.verify_ir:  # the graph, its scans folded beside it, the plan's graphs
                from astcompile.ir.graph import verify_between  # a broken IR: raised as is

                plan = getattr(getattr(work, "schedule", None), "parts", list)()
                graphs = (getattr(work, "graph", None), getattr(work, "scans", None))
                for graph in (*graphs, *(g for g, _ in plan)):
                    if graph is not None:
                        verify_between(graph, stage.name)
            if stage.dump is not None and config.debug_dir and work.owner is not None:
                debug_dump.write_stage(stage.dump(stage.name, work), work.owner)
    return work


def stage_names() -> tuple[str, ...]:
    """Every name ``compile_times()`` may report, in pipeline order."""
    every = (*FUNCTION_STAGES, ENTRY_CACHE, *REGION_STAGES)
    return tuple(dict.fromkeys(n for s in every for n in (s.name, *s.inner)))


# -- entry points ------------------------------------------------------------------------------


def build_function(owner: Owner) -> FunctionWork:
    """The function stages for ``owner``; ``impl`` stays None when it has no source."""
    from astcompile.errors import NoSourceError

    if not _builtins_of_its_module(owner.fn):
        return FunctionWork(owner=owner)  # what we rebuild it into would look up others
    try:
        return run_stages(FUNCTION_STAGES, FunctionWork(owner=owner))
    except NoSourceError as exc:
        stages.warn_user(f"astcompile: {exc}; {owner.name} runs eagerly")
        return FunctionWork(owner=owner)


def _builtins_of_its_module(fn: Callable) -> bool:
    """Whether ``fn`` looks names up as its rewrite would: builtins where a function made now
    from its globals would (it took them from its module's ``__builtins__`` when it was made;
    one bound there since, by ``exec``'d code or a sandbox, is not what plain ``fn`` sees),
    in globals that are a ``dict`` (a subclass's ``__missing__`` the front end cannot see)."""
    own, scope = getattr(fn, "__builtins__", None), getattr(fn, "__globals__", {})
    if own is None:
        return True
    if type(scope) is not dict:
        return False
    found = scope.get("__builtins__", builtins)
    return (vars(found) if isinstance(found, types.ModuleType) else found) is own


def save_rewrite(owner: Owner) -> FunctionWork:
    """The function stages but ``materialise``: ``owner``'s rewrite for what it keeps in Python
    now, saved by the ``rewrite`` stage unless the cache has it (``jit/outgrown.py``)."""
    if not _builtins_of_its_module(owner.fn):
        return FunctionWork(owner=owner)
    wanted = [s for s in FUNCTION_STAGES if s.name != "materialise"]
    return run_stages(wanted, FunctionWork(owner=owner))


def analyse(owner: Owner) -> FunctionWork:
    """Only the source and analysis stages (``fullgraph=True`` checks breaks at decoration)."""
    wanted = [s for s in FUNCTION_STAGES if s.name in ("source", "frontend", "analysis")]
    return run_stages(wanted, FunctionWork(owner=owner))


def cached_entry(region: CompilingRegion, key: tuple, args: tuple) -> tuple[Entry, list] | None:
    """A persisted entry for these arguments and their leaves bound to it, or None."""
    work = RegionWork(region=region, key=key, args=args)  # no target: a warm process
    run_stages((ENTRY_CACHE,), work)  # never imports the code generator
    return None if work.entry is None else (work.entry, work.leaves)


def compile_region(
    region: CompilingRegion,
    key: tuple,
    args: tuple,
    later: Callable[[RegionWork], bool] | None = None,
) -> tuple[Entry, list | None] | None:
    """The region stages for one miss: the new entry and the leaves to run it on for ``args``
    (bound from the values the trace read: nothing is read twice; None when a guard fails),
    or None (the key now runs in NumPy, or ``later`` took the stages after the trace to
    finish them elsewhere: ``jit/budget.py``)."""
    work = RegionWork(region=region, key=key, args=args)  # the ``target`` stage sets target
    run_stages(REGION_STAGES[:1], work)  # the trace: always here, on the user's objects
    if not work.done and later is not None and later(work):
        return None
    entry = finish_region(work).entry
    return None if entry is None else (entry, entry.bind(args, region.owner.fn, work.observed))


def finish_region(work: RegionWork) -> RegionWork:
    """The region stages after the trace: from the traced graph to an entry of the region."""
    return run_stages(REGION_STAGES[1:], work)


def compile_graph(graph: Graph, target: Backend) -> CompiledGraph:
    """``target``'s callable for a bare graph (``backend.compile``): the target stages."""
    run = run_target_stages(graph, target).run
    if run is None:
        raise AssertionError(f"target {target.name!r} made no callable for {graph.name}")
    return run


def run_target_stages(graph: Graph, target: Backend, stop_before: str | None = None) -> RegionWork:
    """The target stages on a bare graph, all of them or those before the stage named
    ``stop_before``: the work holds what they made (the graph after the passes, the schedule,
    the code), which tests read from the one pipeline a compile runs."""
    work = RegionWork(graph=graph, kind=stages.graph_kind(graph), target=target)
    names = [stage.name for stage in TARGET_STAGES]
    end = len(names) if stop_before is None else names.index(stop_before)
    return run_stages(TARGET_STAGES[:end], work)
