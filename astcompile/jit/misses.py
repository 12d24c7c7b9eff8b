"""Why a call missed every compiled entry of a region: the guards that failed, in words.

A region holds several entries, one per kind of call it has seen. A recompile's reason is what
differs from the *closest* of them, the entry with the fewest failing guards, because that is
what the user changed: after calls with ``flag=False, mode="a"`` and ``flag=False, mode="b"``,
a call with ``flag=True, mode="b"`` changed ``flag``, though the entry for ``mode="a"`` may be
the newest. Each failing guard is named by the user's expression for the value (an argument,
``self.w``, a global, a closure cell) and says how it changed: ``self.w: dtype float64 →
float32``, ``flag: False → True``, ``k: 3 → 4``, ``x.shape[0] == y.shape[0] no longer holds``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from astcompile.ir.results import Predicate, is_leaf
from astcompile.ir.shapes import Rel, ShapeGuard, evaluate
from astcompile.jit.entries import Entry, dim_source
from astcompile.runtime import guards as G
from astcompile.runtime import pylists
from astcompile.runtime import reads as R


def closest_reason(
    entries: Iterable[Entry], key: tuple, args: tuple, names: tuple, root: Any
) -> str:
    """The failing guards of the entry closest to this call, joined; the newest entry wins a
    tie. ``names`` are the region's parameters, ``root`` the user's function."""
    best: list[str] | None = None
    for entry in entries:
        failed = failing_guards(entry, key, args, names, root)
        if best is None or len(failed) <= len(best):
            best = failed
    if not best:
        return "no guard failed (a value it reads could not be passed in as it was traced)"
    return "; ".join(best)


def failing_guards(entry: Entry, key: tuple, args: tuple, names: tuple, root: Any) -> list[str]:
    """Each guard of ``entry`` that a call with ``args`` (guard key ``key``) fails, in words:
    the arguments' keys, then the reads, then the specialised values and size relations."""
    leaves, arrays = named_leaves(args, names)
    failed = G.key_changes(names, entry.key, key, arrays)
    read_failures, complete = _read_failures(entry, args, names, root, leaves)
    failed += read_failures
    if failed or not complete:  # the trace's own guards are about leaves that no longer fit
        return failed
    values = [value for _, value in leaves]
    for index, traced in entry.result.value_guards:
        if values[index] != traced:
            failed.append(_value_change(leaves[index][0], traced, values[index]))
    shapes = [np.shape(v) for v in values]
    labels = [label for label, _ in leaves]
    failed += [
        _shape_change(guard, shapes, labels)
        for guard in entry.result.graph.guards
        if not guard.holds(shapes)
    ]
    return failed


def _value_change(name: str, traced: Any, now: Any) -> str:
    """``k: 2 → 0``, or for a guard on a comparison's outcome ``k > 1: True → False (k = 0)``."""
    if isinstance(traced, Predicate):
        return f"{name} {traced.symbol} {traced.other!r}: {traced.outcome} → {not traced.outcome} ({name} = {now!r})"
    return f"{name}: {traced!r} → {now!r}"


def _shape_change(guard: ShapeGuard, shapes: list, labels: list[str]) -> str:
    """A size the trace specialised, ``x.shape[0] // 2: 3 → 4``, or a relation between sizes
    that no longer holds, ``x.shape[0] >= y.shape[0]: now 3 and 5``."""
    lhs, rhs = (_bare(dim_source(d, labels, _shape_of)) for d in (guard.lhs, guard.rhs))
    now = [evaluate(d, shapes) for d in (guard.lhs, guard.rhs)]
    if guard.rel is Rel.EQ and isinstance(guard.rhs, int):
        return f"{lhs}: {guard.rhs} → {now[0]}"
    return f"{lhs} {guard.rel.value} {rhs}: no longer (now {now[0]} and {now[1]})"


def _read_failures(
    entry: Entry, args: tuple, names: tuple, root: Any, leaves: list[tuple[str, Any]]
) -> tuple[list[str], bool]:
    """The failing reads of ``entry``; the values its INPUT reads pass in join ``leaves`` (as
    the entry numbers them). The flag says whether every read could be evaluated."""
    failed: list[str] = []
    sizes: dict[int, int] = {}
    G.call_key(args, sizes)  # reads share the arguments' size classes, as in Entry.bind
    complete = True

    def value_at(path: tuple) -> Any:
        return R.evaluate(path, args, root)

    for read in entry.reads:
        shown = R.describe(read.path, names)
        try:
            value = value_at(read.path)
        except Exception as exc:  # noqa: BLE001 - whatever the user's object raises
            failed.append(f"{shown}: cannot be read now ({type(exc).__name__}: {exc})")
            complete = False
            continue
        if read.kind is R.ReadKind.INPUT:
            now = G.value_key(value, sizes)
            if now != read.expected:
                failed += [f"{shown}: {c}" for c in G.describe_changes(read.expected, now)]
            leaves.append((shown, value))
        elif not R.holds(read, value, value_at):
            failed.append(R.changed(read, value, names))
    return failed, complete


def named_leaves(args: tuple, names: tuple) -> tuple[list[tuple[str, Any]], tuple[str, ...]]:
    """:func:`entries.leaves_of` with the user's name of each leaf (``pair[1]`` for an item of
    a tuple argument): the same leaves, in the same order; and the name of every array
    among the arguments, the same one twice included (what the aliasing guard numbers)."""
    found: list[tuple[str, Any]] = []
    arrays: list[str] = []
    seen: set[int] = set()

    def visit(label: str, value: Any) -> None:
        kind = type(value)
        if kind is tuple or kind is list:
            for i, item in enumerate(value):
                visit(f"{label}[{i}]", item)
        elif kind is np.ndarray:
            arrays.append(label)
            if id(value) not in seen:
                seen.add(id(value))
                found.append((label, value))
        elif is_leaf(value):
            found.append((label, value))

    lists = pylists.classify(args)
    for i, value in enumerate(args):
        label = names[i] if i < len(names) else f"argument {i}"
        if i not in lists:
            visit(label, value)
        elif type(lists[i]) is tuple:  # a typed list: one leaf, its items' array
            found.append((label, pylists.unbox(value, lists[i])))
    return found, tuple(arrays)


def _bare(size: str) -> str:
    """``x.shape[0] // 2`` for ``(x.shape[0] // 2)``: ``dim_source`` brackets each operation."""
    return size[1:-1] if size.startswith("(") else size


def _shape_of(label: str) -> str:
    return f"{label}.shape"
