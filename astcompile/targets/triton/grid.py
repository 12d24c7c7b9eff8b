"""Long reductions over many programs: a whole array's ``sum``/``max``/``mean`` on every SM.

A kernel with reductions runs one program per row (:mod:`astcompile.targets.triton.triton_kernel`).
When there are few rows and they are long (a full reduction, ``x.sum()``, has one row;
``X.mean(axis=0)`` of a tall ``(n, 8)`` array has eight), that uses a few streaming
multiprocessors' bandwidth. The launcher then runs the kernel instead as a few launches per
phase of the kernel plan (:mod:`astcompile.lower.plan`), over a grid of ``(parts, rows)``:

* ``{name}_part{k}``: program ``(p, row)`` walks part ``p`` of its row (``chunk`` elements of
  the flattened inner axes) in ``BLOCK``-sized steps. It folds phase ``k``'s reductions into
  lane accumulators (float sums in float64, max/min with a NaN flag, exactly as a row does),
  stores the elementwise outputs of phase ``k`` over its part, and writes one *partial* per
  reduction (``p{id}[row * parts + p]``, and ``p{id}_nan``) into a scratch buffer;
* ``{name}_finish{k}``: one program per row combining the row's partials in part order (a
  tree over one block, no atomics: the same bits every run for the same sizes) and finishing
  each reduction (the mean's division, the NaN flag, the truth value) into ``r{id}[row]``,
  which the later phases load. The last one also computes and stores the row-level outputs
  (the epilogue: ``x.sum() / n + 1``).

Elementwise prologues stay fused: each part program computes what it folds from the inputs it
loads. The launcher (:class:`astcompile.runtime.triton_runtime.KernelLauncher`) picks the
number of parts from the row length (``Blocks.parts``) and the rows, and keeps one program per
row (``_block`` or ``_loop``) for short rows or many rows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from astcompile.ir.graph import Node
from astcompile.lower import reduce as red
from astcompile.lower.ids import nid
from astcompile.lower.plan import KernelPlan, phase_parts
from astcompile.targets.triton.triton_kernel import (
    FOLDS,
    TritonEmitter,
    _row_start,
    _v,
    phase_loop,
)
from astcompile.targets.triton.triton_rules import SIGNATURE, literal


def is_grid_reduction(plan: KernelPlan) -> bool:
    """Whether the kernel gets part and finish functions: every kernel with reductions (the
    launcher decides by the sizes whether they run)."""
    return bool(plan.kernel.reduce_axes)


def reductions(plan: KernelPlan) -> list[Node]:
    return [n for n in plan.kernel.nodes if n.id in plan.phase_of]


def _partial_dtype(node: Node) -> np.dtype:
    """A partial's dtype: the accumulator's (int32 for truth folds, as their lanes)."""
    return np.dtype(np.int32) if red.rule(node).truth else red.acc_dtype(node)


def scratch(plan: KernelPlan) -> list[tuple[str, np.dtype, bool]]:
    """(parameter, dtype, one per part) of each scratch buffer, in parameter order: each
    reduction's partials, its NaN flags (float max/min), and its finished value (per row)."""
    bufs = []
    for node in reductions(plan):
        bufs.append((f"p{nid(node)}", _partial_dtype(node), True))
        if red.has_nan_flag(node):
            bufs.append((f"p{nid(node)}_nan", np.dtype(np.int64), True))
        bufs.append((f"r{nid(node)}", node.dtype, False))
    return bufs


def grid_parameters(plan: KernelPlan, base: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``base`` (the row kernel's parameters) with ``chunk``, ``parts`` and the scratch
    buffers before the flags and ``BLOCK`` (keywords at a launch): every part and finish
    function takes the same list."""
    extra = [("chunk", "i64"), ("parts", "i64")]
    extra += [(name, f"*{SIGNATURE[dtype]}") for name, dtype, _ in scratch(plan)]
    return [*base[:-3], *extra, *base[-3:]]


def variants(plan: KernelPlan) -> list[tuple[str, Callable[[TritonEmitter], None]]]:
    """(function suffix, body) of each part and finish function, in launch order."""
    out: list[tuple[str, Callable[[TritonEmitter], None]]] = []
    for k in range(plan.nphases):
        reduces = any(p == k for p in plan.phase_of.values())
        if reduces or any(plan.avail[o.id] == k for o in plan.kernel.outputs):
            out.append((f"_part{k}", lambda e, k=k: part_body(e, k)))
        if reduces:
            out.append((f"_finish{k}", lambda e, k=k: finish_body(e, k)))
    return out


def _finished_before(e: TritonEmitter, k: int) -> None:
    """Reductions of the phases before ``k`` are loaded from their ``r`` buffers when used."""
    e.finished = {n.id for n in reductions(e.plan) if e.plan.phase_of[n.id] < k}


def _needed_row_values(e: TritonEmitter, roots: list[Node], k: int) -> None:
    """The row-level values that ``roots`` use, emitted before the loop (once per program)."""
    members, seen, stack = e.members, set(), [i for n in roots for i in n.inputs]
    while stack:
        n = stack.pop()
        if n.id not in members or n.id in seen:
            continue
        if n.id in e.finished:
            seen.add(n.id)
        elif n.id not in e.plan.phase_of:
            seen.add(n.id)
            stack += n.inputs
    for n in e.kernel.nodes:
        if n.id in seen and n.id not in e.plan.elem and e.plan.avail[n.id] <= k:
            e.value(n)


def _slot(e: TritonEmitter) -> str:
    """This program's partial: its part of its row."""
    return "row * parts + program" if e.plan.rows else "program"


def part_body(e: TritonEmitter, k: int) -> None:
    """Phase ``k`` over this program's part of its row: partials of its reductions, its
    outputs."""
    reds, outs = phase_parts(e.plan, e.out_maps, k)
    e.emit("program = tl.program_id(0).to(tl.int64)")
    if e.plan.rows:
        _row_start(e, grid_axis=1)
    e.emit("start = program * chunk")
    e.emit(f"stop = tl.minimum(start + chunk, {e.count(e.plan.inner)})")
    _finished_before(e, k)
    _needed_row_values(e, reds + outs, k)
    e.emit(f"# phase {k}: {', '.join(_v(n) for n in reds + outs) or 'nothing'}")
    phase_loop(e, reds, outs, "start", "stop")
    for r in reds:
        combine = FOLDS[red.rule(r).fold][1].format(a=f"a{nid(r)}")
        e.emit(f"tl.store(p{nid(r)} + {_slot(e)}, {combine})")
        if red.has_nan_flag(r):
            e.emit(f"tl.store(p{nid(r)}_nan + {_slot(e)}, tl.max(a{nid(r)}_nan, axis=0))")


def finish_body(e: TritonEmitter, k: int) -> None:
    """Phase ``k``'s reductions of one row from its partials; after the last phase with
    reductions, the row-level outputs too."""
    at = " + row" if e.plan.rows else ""
    if e.plan.rows:
        _row_start(e)
    e.emit("j = tl.arange(0, BLOCK)")
    e.emit("mp = j < parts")
    first = "row * parts + j" if e.plan.rows else "j"
    reds = [n for n in reductions(e.plan) if e.plan.phase_of[n.id] == k]
    for r in reds:
        ident = red.identity(r)
        dtype = _partial_dtype(r)
        other = literal(int(bool(ident)) if red.rule(r).truth else ident, dtype)
        e.emit(f"p{nid(r)}_all = tl.load(p{nid(r)} + {first}, mask=mp, other={other})")
        nan = None
        if red.has_nan_flag(r):
            e.emit(f"p{nid(r)}_nans = tl.load(p{nid(r)}_nan + {first}, mask=mp, other=-1)")
            nan = f"p{nid(r)}_nans"
        e.finish(r, f"p{nid(r)}_all", nan)
        e.emit(f"tl.store(r{nid(r)}{at}, {_v(r)})")
    if k != max(e.plan.phase_of.values()):
        return
    _finished_before(e, k)
    for o in e.kernel.outputs:
        if not e.plan.touches_inner(e.out_maps[o.id]):
            e.value(o)
            e.store(o)
