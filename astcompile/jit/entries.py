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

from astcompile.ir.checks import RunPlain
from astcompile.ir.results import OutSpec, TraceResult
from astcompile.ir.shapes import DimOp, ShapeGuard
from astcompile.jit.leaves import current_leaves, leaves_of, rebuilder
from astcompile.runtime import fastcall, pylists
from astcompile.runtime import guards as G
from astcompile.runtime import reads as R


def _is_plain_arrays(template: Any, outputs: int) -> bool:
    """The common case: the region returns graph outputs 0..n-1 as arrays, in order, and
    nothing else (values nothing reads that may warn are outputs too: trace/unread_values.py)."""
    return (
        type(template) is tuple
        and len(template) == outputs
        and all(
            isinstance(s, OutSpec) and s.kind == "graph" and s.box == "array" and s.index == i
            for i, s in enumerate(template)
        )
    )


@dataclass
class Entry:
    """One compiled version of a region, valid while its guards hold."""

    key: tuple
    result: TraceResult
    run: Callable[[list], list]
    #: its run raises the CPU's floating-point flags without a warning (C kernels; the eager
    #: interpreter of a region that can run again): the caller reruns the statements so that
    #: NumPy warns (jit/fp_errors.py). Triton's kernels report their own (or nothing, on a GPU)
    silent: bool = True

    def __post_init__(self) -> None:
        self.unguarded = not self.result.value_guards and not self.result.graph.guards
        self.written = getattr(self.result, "written_lists", ())
        outputs = len(self.result.graph.outputs)
        self.plain = _is_plain_arrays(self.result.template, outputs) and not self.written
        self.reads = self.result.reads
        self.rebuild = rebuilder(self.result.template)

    def checks(self, nargs: int, root: Any, prefix: str = "") -> _Checks | None:
        """Every check this entry needs, as Python source over ``_a0..``: the key's, the
        reads', then the value and shape guards of the trace. None when the generic path must
        decide. ``root`` is the user's function (where global and cell reads start)."""
        if len(self.key) != nargs:  # aliased arrays: generic path
            return None
        checks = G.key_checks(self.key, nargs, prefix)
        if checks is None:
            return None
        leaf_names = [f"_a{i}" for i, k in enumerate(self.key) if _is_leaf_key(k)]
        bindings = _read_checks(self.reads, checks, root, leaf_names)
        if bindings is None:
            return None
        for index, value in self.result.value_guards:
            checks.conds.append(f"{leaf_names[index]} == {checks.const(value)}")
        checks.conds += [_guard_source(g, leaf_names) for g in self.result.graph.guards]
        return _Checks(checks, leaf_names, bindings)

    def bind(self, args: tuple, root: Any, known: dict | None = None) -> list | None:
        """The leaves to run this entry on for ``args`` (the arguments' and the reads'), or
        None when a guard fails: the generic path's version of :meth:`checks`. ``known``
        holds values already read at some paths (by the trace): they are not read again."""
        leaves = leaves_of(args)
        if self.reads:
            extra = _read_leaves(self.reads, args, root, leaves, known or {})
            if extra is None:
                return None
            leaves += extra
        return leaves if self.matches(leaves) else None

    def current_leaves(self, args: tuple, root: Any) -> list:
        """The leaves this entry would see now, guards unchecked (reads that fail are left
        out): for comparing specialised values with the ones traced."""
        return current_leaves(args, self.reads, root)

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

    def __call__(self, leaves: list, args: tuple = ()) -> Any:
        if self.plain:
            return tuple(self.run(leaves))
        if not self.written:
            return self.rebuild(self.run(leaves), leaves, args)
        try:
            outputs = self.run(leaves)
        except RunPlain:  # the region's statements run instead: the lists stay as they were
            raise
        except BaseException:  # Python's error: the lists hold what was stored before it
            self._write_back(leaves, args)
            raise
        self._write_back(leaves, args)
        return self.rebuild(outputs, leaves, args)

    def _write_back(self, leaves: list, args: tuple) -> None:
        for leaf, position in self.written:
            pylists.box(args[position], leaves[leaf])


@dataclass
class _Checks:
    keys: G.KeyChecks
    leaf_names: list[str]  # the leaves in graph-input order: arguments', then reads'
    bindings: list[tuple[str, str]]  # (local, source) of each read, evaluated before the checks


def _read_checks(
    reads: tuple, checks: G.KeyChecks, root: Any, leaf_names: list[str]
) -> list[tuple[str, str]] | None:
    """Bind each read to a local and add its check; INPUT reads join ``leaf_names``."""
    const = R.bind_root(checks.const, root)
    bound: dict[tuple, str] = {}
    bindings = []

    def source_of(path: tuple) -> str:  # a read bound before, or an argument
        return bound.get(path) or R.expression(path, lambda i: f"_a{i}", const)

    for j, read in enumerate(reads):
        if read.path not in bound:
            bindings.append((f"_{checks.prefix}r{j}", source_of(read.path)))
            bound[read.path] = bindings[-1][0]
        var = bound[read.path]
        if read.kind is R.ReadKind.INPUT:
            before = len(checks.arrays)
            if not G.value_checks(checks, var, read.expected):
                return None
            if len(checks.arrays) > before:  # a distinct buffer, as when traced
                checks.conds += [f"{var} is not {other}" for other in checks.arrays[:before]]
            leaf_names.append(var)
        else:
            checks.conds.append(R.check_source(read, var, const, source_of))
    return bindings


def _read_leaves(reads: tuple, args: tuple, root: Any, leaves: list, known: dict) -> list | None:
    """The INPUT reads' values now, if every read still holds."""
    try:
        values = {
            read.path: known[read.path] if read.path in known else R.evaluate(read.path, args, root)
            for read in reads
        }
    except Exception:  # an attribute or key that is gone: this entry does not apply
        return None
    sizes: dict[int, int] = {}
    G.call_key(args, sizes)
    arrays = {id(v) for v in leaves if type(v) is np.ndarray}
    extra = []

    def value_at(path: tuple) -> Any:
        return values[path] if path in values else R.evaluate(path, args, root)

    for read in reads:
        value = values[read.path]
        if read.kind is not R.ReadKind.INPUT:
            if not R.holds(read, value, value_at):
                return None
            continue
        if G.value_key(value, sizes) != read.expected:
            return None
        if type(value) is np.ndarray:
            if id(value) in arrays:
                return None
            arrays.add(id(value))
        extra.append(value)
    return extra


MISS = object()  # what a specialised guard function returns when no entry's guards hold


def _miss_all(*args: Any) -> object:
    return MISS


def _is_leaf_key(k: Any) -> bool:
    """Whether an argument with guard key ``k`` is a graph leaf (see ``trace.is_leaf``)."""
    if k is float or k is complex or pylists.is_key(k):
        return True
    return type(k) is tuple and (
        k[0] is np.ndarray
        or k[0] is int
        or (len(k) == 1 and isinstance(k[0], type) and issubclass(k[0], np.generic))
    )


def dim_source(
    d: Any, leaf_names: list[str], shape: Callable[[str], str] = G.KeyChecks.shape
) -> str:
    """A size as Python over the leaves' shapes (``shape(name)`` names a leaf's shape)."""
    if isinstance(d, int):
        return str(d)
    if d.op is DimOp.SYM:
        leaf, axis = d.source
        return f"{shape(leaf_names[leaf])}[{axis}]"
    a, b = (dim_source(x, leaf_names, shape) for x in d.args)
    return f"max({a}, {b})" if d.op is DimOp.MAX else f"({a} {d.op.value} {b})"


def _guard_source(guard: ShapeGuard, leaf_names: list[str]) -> str:
    return (
        f"{dim_source(guard.lhs, leaf_names)} {guard.rel.value} {dim_source(guard.rhs, leaf_names)}"
    )


def specialised_guards(
    name: str,
    params: tuple[str, ...],
    entries: list[Entry],
    root: Any,
    stats: Any,
    eager_keys: tuple = (),
    eager: Callable | None = None,
    promote: Callable[[], None] | None = None,
) -> Callable:
    """A function of the region's arguments that runs the first entry whose guards hold, or
    returns ``MISS``: the whole per-call check, specialised to exactly the guards these
    entries need (types, dtypes, ranks, size classes, layouts, the values the region reads,
    value and shape guards), with no generic walk over the arguments. Entries it cannot check
    are left to the generic path. Calls whose key is in ``eager_keys`` go to ``eager`` (the
    user's statements) after the entries, as on the generic path: a region that runs in Python
    inside a Python loop must not pay for a generic key on every iteration; only while
    ``root`` still runs the code the statements were made from (a ``__code__`` swapped since
    misses, so the function is rewritten: the entries check it as one of their reads).
    ``root`` is the user's function, where reads of its globals and closure cells start. ``promote`` is
    called once the entries have run ``fastcall.PROMOTE_AFTER`` compiled calls (the region
    then asks for the C-level call path)."""
    args = [f"_a{i}" for i in range(len(params))]
    argv = f"({', '.join(args)}{',' if len(args) == 1 else ''})"
    lines = [f"def guards_{name}({', '.join(args)}):", f"    # {', '.join(params)}"]
    namespace: dict[str, Any] = {
        "_MISS": MISS,
        "_ndarray": np.ndarray,
        "_tuple": tuple,
        "_int_class": G.int_class,
        "_list_kind": pylists.kind_function(),
        "_list_unbox": pylists.unbox,
        "_list_overlap": pylists.overlap,
        "_stats": stats,
        "_eager": eager,
        "_promote": promote,
        "_root": root,
        "_code": getattr(root, "__code__", None),
    }
    lines += [
        f"    {line}" for line in G.list_kinds([e.key for e in entries] + list(eager_keys), args)
    ]
    count = ["_stats.compiled_calls += 1"]
    if promote is not None:
        count.append(f"if _stats.compiled_calls >= {fastcall.PROMOTE_AFTER}: _promote()")
    for n, entry in enumerate(entries):
        found = entry.checks(len(params), root, prefix=f"e{n}")
        if found is None:
            continue
        namespace.update(found.keys.consts)
        leaves = "[" + ", ".join(map(found.keys.leaf, found.leaf_names)) + "]"
        namespace[f"_run{n}"], namespace[f"_entry{n}"] = entry.run, entry
        namespace[f"_rebuild{n}"] = entry.rebuild
        lines += _guarded_block(found, [*count, *_entry_call(entry, n, leaves, argv)])
    if eager_keys and namespace["_code"] is not None:
        lines.append("    if _root.__code__ is not _code:\n        return _MISS")
    for n, key in enumerate(eager_keys):
        checks = G.key_checks(key, len(params), prefix=f"x{n}")
        if checks is None:
            continue
        namespace.update(checks.consts)
        call = f"return _eager({argv})"
        lines += _guarded_block(_Checks(checks, [], []), [call])
    lines.append("    return _MISS")
    source = "\n".join(lines) + "\n"
    # the guard function is generated from the entries' keys and reads (never user text)
    exec(compile(source, f"<astcompile guards {name}>", "exec"), namespace)  # noqa: S102
    fn = namespace[f"guards_{name}"]
    fn.py_source = source
    return fn


def _entry_call(entry: Entry, n: int, leaves: str, argv: str) -> list[str]:
    """The lines that run entry ``n`` and return its results: what :meth:`Entry.__call__`
    does, without its frame where no list is written back (a tenth of a loop's call on the
    Python path)."""
    if entry.plain:
        return [f"return _tuple(_run{n}({leaves}))"]
    if entry.written:
        return [f"return _entry{n}({leaves}, {argv})"]
    return [f"_leaves = {leaves}", f"return _rebuild{n}(_run{n}(_leaves), _leaves, {argv})"]


def _guarded_block(found: _Checks, then: list[str]) -> list[str]:
    """``if <checks>: <then>``, after binding the reads; a read that raises (an attribute or
    key that is gone) skips the block, as a failed check does."""
    conds = found.keys.conds or ["True"]
    block = [f"if ({(chr(10) + '        and ').join(conds)}):"] + [f"    {t}" for t in then]
    if not found.bindings:
        return [f"    {line}" for line in block]
    reads = [f"        {var} = {source}" for var, source in found.bindings]
    return [
        "    try:",
        *reads,
        "    except Exception:",
        "        pass",
        "    else:",
        *(f"        {line}" for line in block),
    ]


def fast_programs(entries: list[Entry], root: Any) -> list[tuple[bytes, tuple, int]]:
    """The C-level call path's programs (``runtime/fastcall_program.py``) for the leading
    entries it can run: it stops at the first it cannot, so that it never runs a later entry
    where the Python guard function would have run an earlier one."""
    programs = []
    for entry in entries:
        program = _fast_program(entry, root)
        if program is None:
            break
        programs.append(program)
    return programs


def _fast_program(entry: Entry, root: Any) -> tuple[bytes, tuple, int] | None:
    from astcompile.lower.fastplan import NoFastPlan, dim_plan
    from astcompile.runtime.fastcall_program import assemble
    from astcompile.runtime.fastcall_reads import global_reads

    kept = getattr(entry.run, "fast_keeps", ())  # fp_errors.restoring's copies (None: no C)
    run = getattr(entry.run, "__wrapped__", entry.run)
    plan = getattr(getattr(run, "parts", None), "fast", None)
    reads = global_reads(entry.reads, root)
    boxes = None if entry.plain else _boxes(entry)
    if plan is None or kept is None or (boxes is None and not entry.plain) or reads is None:
        return None
    namespace = getattr(run, "__globals__", {})
    ffi, lib = namespace.get("_ffi"), namespace.get("_lib")
    kernels = {}
    try:
        for step in plan["calls"]:
            if step[0] in ("call", "callrc"):
                fn = getattr(lib, f"{step[1]}_packed")
                kernels[step[1]] = int(ffi.cast("uintptr_t", fn))
        guards = [
            (g.rel.value, dim_plan(g.lhs), dim_plan(g.rhs)) for g in entry.result.graph.guards
        ]
    except (AttributeError, NoFastPlan):  # a library built before packed entries, a RUN size
        return None
    found = (entry.result.value_guards, guards, reads)
    raiser = tuple(namespace.get(name) for name in ("_raise", "_checks", "_sites"))
    outs = getattr(entry.run, "fast_outs", False)
    return assemble(entry.key, plan, found, kernels, boxes, raiser, kept, outs)


def _boxes(entry: Entry) -> list[tuple] | None:
    """``(kind, index, box, value)`` of each item of a result template (a loop's sum returned
    as a Python float, an argument it filled, None), for the C-level call path to box; a
    returned tuple of them (``return L, U``) is ``("tuple", n, None, None)`` and its ``n``
    items; else None."""
    template = entry.result.template
    if entry.written or type(template) is not tuple:
        return None
    boxes = []
    for item in template:
        specs = item if type(item) is tuple else (item,)
        if not all(isinstance(s, OutSpec) for s in specs):
            return None
        if specs is item:
            boxes.append(("tuple", len(item), None, None))
        boxes += [(s.kind.value, s.index, s.box, s.value) for s in specs]
    return boxes
