"""``explain(fn, *args)``: run ``fn`` compiled and report graphs, breaks and where time went."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from astcompile.jit import dispatch, region_tiering, telemetry
from astcompile.jit.function import CompiledFunction

#: Warn in ``str(explain(...))`` when eager segments take more than this share of the call.
EAGER_SHARE_WARNING = 0.5


@dataclass
class ExplainOutput:
    graphs: list = field(default_factory=list)
    graph_count: int = 0
    graph_break_count: int = 0
    break_reasons: list = field(default_factory=list)
    ops_per_graph: list = field(default_factory=list)
    guards: list = field(default_factory=list)
    regions: list = field(default_factory=list)
    compiled_functions: list = field(default_factory=list)
    eager_seconds: float = 0.0
    total_seconds: float = 0.0
    python_loops: list = field(default_factory=list)  # "loop over n iterations runs in ..."
    performance: list = field(default_factory=list)  # what measuring earlier calls chose
    targets: dict = field(default_factory=dict)  # (function, region) -> targets of its entries
    out: Any = None

    def __iter__(self) -> Iterator[Any]:
        """``explanation, out_guards, graphs, ops_per_graph = explain(fn, ...)``: the four
        values torch's ``dynamo.explain`` returned as a tuple, in its order."""
        return iter((str(self), self.guards, self.graphs, self.ops_per_graph))

    def __str__(self) -> str:
        ops = sum(self.ops_per_graph)
        lines = [
            (
                f"astcompile produced {self.graph_count} graph(s), with "
                f"{self.graph_break_count} graph break(s) and {ops} op(s)."
            )
        ]
        if self.break_reasons:
            lines.append(" Break reasons:")
        for number, b in enumerate(self.break_reasons, 1):
            lines.append(f"  {number}. {b.code} {b.reason.title}: {b.detail}")
            lines.append(f'     File "{b.filename}", line {b.line}, in {b.function}')
            lines.append(f"       {b.source_line}")
            lines.append(f"     fix: {b.reason.fix}")
        if self.python_loops:
            lines.append(" Loops in Python:")
            lines += [f"  {text}" for text in self.python_loops]
        lines.append(" Regions:")
        for run in self.regions:
            state = (
                "compiled"
                if run.eager_calls == 0
                else ("plain" if run.compiled_calls == 0 else "mixed")
            )
            state += f" as dask {run.dask}" if run.dask else ""
            lines.append(
                f"  {run.function} {run.region} (lines {run.lines[0]}-{run.lines[1]}): "
                f"{state}, {run.compiled_calls} compiled / {run.eager_calls} plain call(s), "
                f"{_time(run)}{_on(self.targets.get((run.function, run.region)))}"
            )
        if self.guards:
            lines.append(" Guards (checked at every call; a read value is passed in):")
            lines += [f"  {guard}" for guard in dict.fromkeys(self.guards)]
        if self.performance:
            lines.append(" Performance (measured on earlier calls of the compiled function):")
            lines += [f"  {text}" for text in self.performance]
        lines.extend(self._eager_warning())
        return "\n".join(lines)

    def _eager_warning(self) -> list[str]:
        if self.total_seconds <= 0 or self.eager_seconds / self.total_seconds < EAGER_SHARE_WARNING:
            return []
        share = 100 * self.eager_seconds / self.total_seconds
        return [
            (
                f" Warning: {share:.0f}% of the call ran as plain Python (regions that did not compile); "
                "see the break reasons above."
            )
        ]


def explain(fn: Callable, /, *args: Any, **kwargs: Any) -> ExplainOutput:
    """Compile ``fn`` afresh, run it on the arguments, and report what happened."""
    from astcompile.jit.callables import explained_call

    original, args, kwargs, made = explained_call(fn, args, kwargs)  # methods, partials...
    options = {}
    if isinstance(made, CompiledFunction):
        options = {"fullgraph": made.fullgraph, "backend": made.backend_name}
    compiled = CompiledFunction(original, **options)
    with dispatch.fresh_cache(), telemetry.Recorder() as recorder:
        out = compiled(*args, **kwargs)
    summary = _summarise(recorder, out)
    summary.targets = region_targets(compiled)
    if isinstance(made, CompiledFunction):
        summary.performance += performance_notes(made, recorder)
    return summary


def region_targets(compiled: CompiledFunction) -> dict[tuple[str, str], list[str]]:
    """The targets each region's entries run on (a Triton function's loop regions: "c")."""
    default = compiled.target().name
    return {
        (compiled.name, r.spec.name): sorted(
            {getattr(e.run, "target", default) for es in r.entries.values() for e in es}
        )
        for r in compiled.regions
    }


def _time(run: telemetry.RegionRun) -> str:
    """A region's time in the call, with what compiling it took (traces and builds) apart."""
    if run.compile_seconds <= 0:
        return f"{run.seconds * 1e3:.3f} ms"
    compiling = min(run.compile_seconds, run.seconds)
    return f"{run.seconds * 1e3:.3f} ms ({compiling * 1e3:.3f} ms of it compiling)"


def _on(targets: list[str] | None) -> str:
    return f", on {'/'.join(targets)}" if targets else ""


def performance_notes(fn: CompiledFunction, recorder: telemetry.Recorder) -> list[str]:
    """What measuring ``fn``'s earlier calls chose, for the function and each region; a
    region's calls are counted in the explained call where it ran there."""
    notes = [f"{fn.name} {fn._tier.choice.describe()}"] if fn._tier.choice is not None else []
    calls = {run.lines: run.compiled_calls + run.eager_calls for run in recorder.runs.values()}
    for region in fn.regions:
        spec = region.spec
        note = region_tiering.describe(region, calls.get((spec.first_line, spec.last_line)))
        if note is not None:
            notes.append(note)
    return notes


def _summarise(recorder: telemetry.Recorder, out: Any) -> ExplainOutput:
    graphs = [g for _, _, g in recorder.graphs]
    breaks = sorted(recorder.breaks, key=lambda b: (b.filename, b.line))
    return ExplainOutput(
        graphs=graphs,
        graph_count=len(graphs),
        graph_break_count=len(breaks),
        break_reasons=breaks,
        ops_per_graph=[g.op_count() for g in graphs],
        guards=list(recorder.guards),
        regions=list(recorder.runs.values()),
        compiled_functions=list(recorder.functions),
        python_loops=python_loop_notes(recorder.loops, breaks, recorder.loop_reasons),
        eager_seconds=recorder.eager_seconds,
        total_seconds=recorder.total_seconds,
        out=out,
    )


def python_loop_notes(loops: dict, breaks: list, reasons: dict | None = None) -> list[str]:
    """Why each loop that ran in Python did: the first graph break inside it, else what kept
    a graph-able loop in Python (frontend/loop_plan.py: a variable unbound before it, ...)."""
    notes = []
    for (function, first, last), count in sorted(loops.items(), key=lambda kv: kv[0][1]):
        inside = [b for b in breaks if b.function == function and first <= b.line <= last]
        reason = (reasons or {}).get((function, first, last))
        if not inside and reason:
            notes.append(f"{function}: loop over {count} iterations runs in Python: {reason}")
        if not inside:
            continue
        cause = min(inside, key=lambda b: b.line)
        notes.append(
            f"{function}: loop over {count} iterations runs in Python because of "
            f"line {cause.line} ({cause.code} {cause.detail})"
        )
    return notes
