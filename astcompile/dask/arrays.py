"""A region called with Dask arrays returns Dask arrays: the operation its :class:`Plan` names.

The region is traced once per kind of arguments on stand-ins of the Dask arrays' shapes (views
of one element: no data, no computing), :func:`plan.classify` reads the form off the graph, and
:data:`BUILDERS` turn it into Dask operations whose tasks call the compiled region on NumPy
chunks (:mod:`tasks`). The region's other results (its arguments, constants) come back as they
are. Nothing is computed here: the caller gets lazy arrays, as from Dask's own NumPy API.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import dask.array as da
import numpy as np

from astcompile.dask import tasks
from astcompile.dask.operation import Form, Plan, classify, numpy_plan
from astcompile.ir.graph import Node
from astcompile.ir.ops import Op, info
from astcompile.ir.results import OutKind, TraceResult
from astcompile.jit import telemetry
from astcompile.runtime import guards as G

if TYPE_CHECKING:
    from astcompile.jit.regions import Region

#: Per region, per kind of arguments: the plan and the trace it was read from.
_plans: weakref.WeakKeyDictionary[Region, dict[tuple, tuple[Plan, TraceResult | None]]] = (
    weakref.WeakKeyDictionary()
)
_combines: dict[tuple, Callable] = {}
_lock = threading.Lock()


def combine(region: Region, op: Op, axes: tuple[int, ...]) -> Callable:
    """The combine step of ``op`` over ``axes``, compiled with the region's backend (once per
    process and kind of reduction)."""
    key = (op, axes, region.owner.backend_name)
    with _lock:
        if key not in _combines:
            step = tasks.combine_step(info(op).numpy, axes)  # the op table's NumPy function
            _combines[key] = region.owner.compile_callee(step)
        return _combines[key]


def region_call(region: Region, args: tuple) -> tuple:
    """What ``region(*args)`` returns when some of ``args`` are Dask arrays: lazy results."""
    plan, result = plan_for(region, args)
    recorder = telemetry.active()
    if recorder is not None:
        lines = (region.spec.first_line, region.spec.last_line)
        recorder.region_run(region.owner.name, region.spec.name, lines).dask = plan.describe()
    if plan.form is Form.NUMPY or result is None:
        region.stats.eager_calls += 1
        return region.body(*args)  # the user's statements on Dask's NumPy API
    node = result.graph.outputs[result.template[plan.output].index]
    built = BUILDERS[plan.form](plan, region, args, node)
    if built is None:  # the chunks do not allow it (an overlap deeper than a chunk)
        region.stats.eager_calls += 1
        return region.body(*args)
    region.stats.compiled_calls += 1
    return _results(result, region, args, built)


def plan_for(region: Region, args: tuple) -> tuple[Plan, TraceResult | None]:
    """The region's plan for arguments of this kind, traced once per kind."""
    key = tuple(_kind(a) for a in args)
    known = _plans.setdefault(region, {})
    if key not in known:
        start = time.perf_counter()
        known[key] = _traced_plan(region, args)
        recorder = telemetry.active()  # explain: the trace is compiling, apart from the call
        if recorder is not None:
            lines = (region.spec.first_line, region.spec.last_line)
            run = recorder.region_run(region.owner.name, region.spec.name, lines)
            run.compile_seconds += time.perf_counter() - start
    return known[key]


def _kind(value: Any) -> Any:
    if isinstance(value, da.Array):
        return (da.Array, value.dtype, value.shape)
    return G.value_key(value, {})


def _traced_plan(region: Region, args: tuple) -> tuple[Plan, TraceResult | None]:
    from astcompile.trace.context import TraceBreak

    try:
        stand_ins = tuple(_stand_in(a) for a in args)  # raises on unknown sizes (nan)
        result = region.trace(region.key(stand_ins), stand_ins)
    except TraceBreak as exc:
        return numpy_plan(f"not traced: {exc.detail}"), None
    except Exception as exc:  # noqa: BLE001 - the statements then run as written, as NumPy would
        return numpy_plan(f"not traced: {type(exc).__name__}: {exc}"), None
    region.record_graph(result)  # explain lists it; the guards log shows it
    return classify(result.graph, result.template, region.names), result


def _stand_in(value: Any) -> Any:
    """A Dask array's shape and dtype with one element of memory (a broadcast view)."""
    if isinstance(value, da.Array):
        return np.broadcast_to(np.zeros((), value.dtype), value.shape)
    return value


def _results(result: TraceResult, region: Region, args: tuple, built: da.Array) -> tuple:
    """The region's result tuple: the Dask array where the graph's output was, arguments and
    constants where the trace found them."""
    out = []
    for spec in result.template:
        if spec.kind is OutKind.GRAPH:
            out.append(built)
        elif spec.kind is OutKind.LEAF:
            out.append(args[region.names.index(result.leaf_names[spec.index])])
        else:
            out.append(spec.value)
    return tuple(out)


def _task(plan: Plan, region: Region, args: tuple) -> tuple[tasks.RegionTask, list[da.Array]]:
    """The task calling the region on chunks, and the arrays whose chunks it gets."""
    arrays = [da.asarray(a) for a in args if _chunked(a)]
    bound = tuple(tasks.CHUNK if _chunked(a) else a for a in args)
    return tasks.RegionTask(region.owner, region.spec.name, bound, plan.output), arrays


def _chunked(value: Any) -> bool:
    return isinstance(value, da.Array) or (isinstance(value, np.ndarray) and value.ndim > 0)


def _meta(node: Node) -> np.ndarray:
    return np.empty((0,) * node.ndim, node.dtype)


def _indexed(arrays: list[da.Array], ndim: int) -> list:
    """``array, index`` pairs aligned from the right, as NumPy broadcasts."""
    pairs: list = []
    for array in arrays:
        pairs += [array, tuple(range(ndim - array.ndim, ndim))]
    return pairs


def _blockwise(plan: Plan, region: Region, args: tuple, node: Node) -> da.Array:
    task, arrays = _task(plan, region, args)
    ndim = node.ndim
    return da.blockwise(
        task, tuple(range(ndim)), *_indexed(arrays, ndim), dtype=node.dtype, meta=_meta(node)
    )


def _reduction(plan: Plan, region: Region, args: tuple, node: Node) -> da.Array:
    """Each chunk reduced by the compiled region, the partial results folded by the compiled
    combine step (a tree, ``split_every`` at a time, as Dask's own reductions)."""
    task, arrays = _task(plan, region, args)
    ndim = node.inputs[0].ndim
    partials = da.blockwise(
        tasks.PartialTask(task, plan.axes, plan.keepdims),
        tuple(range(ndim)),
        *_indexed(arrays, ndim),
        adjust_chunks=dict.fromkeys(plan.axes, 1),
        dtype=node.dtype,
        meta=np.empty((0,) * ndim, node.dtype),
    )
    step = combine(region, plan.reduce, plan.axes)
    return da.reduction(
        partials,
        tasks.already_reduced,
        step,
        combine=step,
        axis=plan.axes,
        keepdims=plan.keepdims,
        dtype=node.dtype,
        meta=_meta(node),
    )


def _overlap(plan: Plan, region: Region, args: tuple, node: Node) -> da.Array | None:
    """Each chunk extended on its right by the slices' trim: the compiled stencil on it gives
    exactly that chunk's share of the result (the last chunk's share is ``trim`` shorter)."""
    task, arrays = _task(plan, region, args)
    arrays = list(da.core.unify_chunks(*_indexed(arrays, node.ndim))[1])
    chunks = arrays[0].chunks
    if any(t and (min(c) < t or c[-1] <= t) for c, t in zip(chunks, plan.trims)):
        return None
    out_chunks = tuple(c[:-1] + (c[-1] - t,) for c, t in zip(chunks, plan.trims))
    return da.map_overlap(
        task,
        *arrays,
        depth={axis: (0, t) for axis, t in enumerate(plan.trims)},
        boundary="none",
        trim=False,
        align_arrays=False,
        allow_rechunk=False,
        chunks=out_chunks,
        dtype=node.dtype,
        meta=_meta(node),
    )


#: How each compiled form becomes Dask operations (None: the chunks do not allow it).
BUILDERS: dict[Form, Callable[[Plan, Region, tuple, Node], da.Array | None]] = {
    Form.BLOCKWISE: _blockwise,
    Form.REDUCTION: _reduction,
    Form.OVERLAP: _overlap,
}
