"""Compiled entries of a region and the guard function generated for them.

An :class:`Entry` is one traced-and-compiled version of a region, valid while its guards hold.
:func:`specialised_guards` turns a region's entries into one Python function that checks
exactly their guards inline: the per-call cost of a compiled region on small arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from astcompile.graph.results import OutSpec, TraceResult, is_leaf
from astcompile.graph.shapes import DimOp, ShapeGuard
from astcompile.runtime import guards as G


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


def _box(value: Any, box: Any, outputs: list) -> Any:
    if type(box) is tuple:  # ("python", type, flag): a Python number where the flag holds
        value = value[()] if isinstance(value, np.ndarray) else value
        return box[1](value) if outputs[box[2]] else value
    if box == "array":
        return value
    if box == "scalar":
        return value[()] if isinstance(value, np.ndarray) else value
    if box == "0d":
        return value if isinstance(value, np.ndarray) else np.asarray(value)
    return box(value)


def _rebuild(spec: Any, outputs: list, leaves: list) -> Any:
    if isinstance(spec, OutSpec):
        if spec.kind == "graph":
            return _box(outputs[spec.index], spec.box, outputs)
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


MISS = object()  # what a specialised guard function returns when no entry's guards hold


def _miss_all(*args: Any) -> object:
    return MISS


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
                       module_globals: dict[str, Any], stats: Any,
                       eager_keys: tuple = (), eager: Callable | None = None) -> Callable:
    """A function of the region's arguments that runs the first entry whose guards hold, or
    returns ``MISS``: the whole per-call check, specialised to exactly the guards these
    entries need (types, dtypes, ranks, size classes, layouts, globals, value and shape
    guards), with no generic walk over the arguments. Entries it cannot check are left to the
    generic path. Calls whose key is in ``eager_keys`` go to ``eager`` (the user's statements)
    after the entries, as on the generic path: a region that runs in Python inside a Python
    loop must not pay for a generic key on every iteration."""
    args = [f"_a{i}" for i in range(len(params))]
    lines = [f"def guards_{name}({', '.join(args)}):", f"    # {', '.join(params)}"]
    namespace: dict[str, Any] = {"_MISS": MISS, "_ndarray": np.ndarray, "_tuple": tuple,
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
    exec(compile(source, f"<astcompile guards {name}>", "exec"), namespace)
    fn = namespace[f"guards_{name}"]
    fn.py_source = source
    return fn
