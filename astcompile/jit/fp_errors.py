"""What a region does when its compiled run raised a floating-point flag (divide by zero,
overflow, underflow, invalid value) that NumPy's error state does not ignore.

Compiled code runs only while every error mode is "ignore" or "warn" (``runtime/errstate.py``).
A raised flag is no proof that NumPy would warn: Python floats overflow without a word, a
select computes both sides of an if/else. So compiled code never warns itself: a region that stored nothing the
caller can see runs its own statements again, and NumPy decides (its message, the user's line,
a warnings filter that makes RuntimeWarning an error raises it); so does one whose only visible
stores are into arguments it never reads (an ``out`` parameter: the rerun stores the same
values), unless a warnings filter would raise. One that stores into arguments it also reads
keeps copies of them while a flag could be seen (:func:`restoring`): they get their values
back and the statements run. Any other region that stored returns silently (documented).

C's ``<`` on NaN is a signalling compare too, but the C rules compare floats quietly, as
NumPy does (``astc_less_double`` in astc_math.h): data with missing values stays compiled.
Data that raises a flag on every call (a Python float that overflows in a loop) would make
such a region pay for its compiled run and its statements each time. Once compiled runs raised loud
flags on two calls in a row, the region runs its statements directly for its next
``PLAIN_CALLS`` calls (exact, at the plain code's speed), then tries compiled code again (a
loud try counts as the second in a row: another ``PLAIN_CALLS``). Calls whose flags stay clear
pay nothing for this: it happens only after a loud one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from astcompile.ir.checks import RunPlain
from astcompile.ir.graph import Graph, Node, walk
from astcompile.ir.ops import NUMPY_CALLS, Kind, Op, is_fresh, is_view
from astcompile.jit.entries import MISS
from astcompile.runtime import errstate, fpflags

if TYPE_CHECKING:
    from astcompile.ir.results import TraceResult
    from astcompile.jit.regions import Region

#: Calls that run the statements directly after loud flags on two compiled calls in a row.
PLAIN_CALLS = 64


def guarded(region: Region, args: tuple) -> Any:
    """``region.guards(*args)`` (a compiled run, or MISS), flags checked."""
    fpflags.clear()
    try:
        result = region.guards(*args)
    except Exception:  # noqa: BLE001 - re-raised by after_error unless the statements return
        return after_error(region, args)
    if result is not MISS and fpflags.raised():
        return after_compiled(region, args, result)
    return result


def run_entry(region: Region, entry: Any, leaves: list, args: tuple) -> tuple:
    """A compiled call of ``entry`` through the region's generic path, flags checked."""
    region.stats.compiled_calls += 1
    fpflags.clear()
    try:
        result = entry(leaves, args)
    except Exception:  # noqa: BLE001 - re-raised by after_error unless the statements return
        return after_error(region, args)
    return after_compiled(region, args, result) if fpflags.raised() else result


def after_error(region: Region, args: tuple) -> Any:
    """Called while a compiled run's error (``int(inf)``) is handled: after a loud flag, the
    statements run again where that repeats nothing, so NumPy warns before the same error
    (``out[i] = a[i] / b[i]`` of ints: "divide by zero", then OverflowError); else the
    error is raised as it is."""
    if not fpflags.raised():
        raise  # noqa: PLE0704 - the error being handled, in the caller's except block
    result = after_compiled(region, args, MISS)  # the statements raise NumPy's error
    if result is MISS:
        raise  # noqa: PLE0704
    fpflags.clear()  # they returned: their result, checked once
    return result


def after_compiled(region: Region, args: tuple, result: Any) -> Any:
    """``result`` of a compiled run that raised floating-point flags, or what NumPy's errstate
    makes of them: the region's statements run as written where that repeats nothing."""
    modes = np.geterr()
    kinds = fpflags.kinds(fpflags.raised())
    loud = [kind for kind in kinds if modes[kind] != "ignore"]
    key = region.key(args)  # the entries that may have run: those of this call's key
    entries = region.entries.get(key) or [e for group in region.entries.values() for e in group]
    if not entries or key in region.eager_keys:
        return result  # the guards ran the statements themselves: NumPy has warned already
    if not loud and not (
        "invalid" in kinds and any(_warns_empty(entry.result.graph) for entry in entries)
    ):
        return result
    if all(entry.silent and _may_rerun(entry, region, args) for entry in entries):
        _back_off(region)
        return region.run_body(args)
    return result  # it stored (or Triton ran: NumPy's ops warned): as the docs say


#: Reductions whose NumPy code warns of an empty slice whatever the error state ("Mean of
#: empty slice", "Degrees of freedom <= 0"): 0/0 raises the invalid flag in compiled code.
_EMPTY_WARNS = frozenset({Op.MEAN, Op.VAR, Op.STD})


def _warns_empty(graph: Graph) -> bool:
    return any(node.op in _EMPTY_WARNS for node in walk(graph.nodes()))


def _may_rerun(entry: Any, region: Region, args: tuple) -> bool:
    """Whether the statements may run again after ``entry``'s run: it stored nothing the caller
    sees, or it only wrote into arguments it never reads, whose memory no other array it reads
    shares (the rerun stores the same values over them), while no warnings filter makes the
    rerun raise (NumPy would have raised before the first store: not undone)."""
    if repeatable(entry.result):
        return True
    written = _walk(entry.result.graph).out_only
    if not written or entry.written or errstate.warnings_raise():
        return False
    leaves = entry.current_leaves(args, region.owner.fn)
    if len(leaves) != len(entry.result.graph.inputs):  # a read failed: not this entry's call
        return False
    others = [leaf for k, leaf in enumerate(leaves) if k not in written]
    return all(
        type(leaves[k]) is np.ndarray
        and not any(np.may_share_memory(leaves[k], other) for other in others)
        for k in written
    )


class _Walk(NamedTuple):
    """What one walk of a region's graph finds (:func:`_walk`)."""

    #: the positions among its inputs of the arrays its stores write into (through views, in
    #: loops and branches too); None where one writes into an array that is neither an input
    #: nor made by the graph (a loop's carried array)
    stored: set[int] | None
    #: those, where it never reads them (through a view, a store's value or index, a loop's
    #: bounds or carried values) and has no effect but stores and checks; else none. Running
    #: its statements again stores the same values into them
    out_only: set[int]
    only_stores: bool  # its effects (loop and branch bodies too) are stores and checks
    may_flag: bool  # a run may raise a floating-point flag (:func:`_flags`)
    empty_warns: bool  # NumPy warns of an empty slice (:data:`_EMPTY_WARNS`)
    #: the eager interpreter runs NumPy functions (its steps that may hand the call to the
    #: statements: ir/checks.py's rerun_where_numpy_warns)
    numpy_calls: bool


def _walk(graph: Graph) -> _Walk:
    """One walk over ``graph`` and its loop and branch bodies (which name the arrays they
    capture; a node's inputs come before it), following each input array and each array the
    graph makes (-1) through its views and the stores into it to what reads it."""
    reach = {id(node): k for k, node in enumerate(graph.inputs)}  # node id -> its array
    stored: set[int] | None = set()
    read: set[int] = set()
    may_flag = empty_warns = numpy_calls = False
    for node in walk(graph.nodes()):
        may_flag = may_flag or _flags(node)
        empty_warns = empty_warns or node.op in _EMPTY_WARNS
        numpy_calls = numpy_calls or node.op in NUMPY_CALLS
        if is_fresh(node.op):
            reach[id(node)] = -1
        if node.op is Op.LOOP:
            reach.update(_carried_reach(node, reach))
        elif node.op is Op.RESULT and node.inputs[0].op is Op.LOOP:  # what it carried out
            holder = node.inputs[0].attr.holders[node.attr]
            if (k := reach.get(id(holder))) is not None:
                reach[id(node)] = k
        for position, value in enumerate(node.inputs):
            if (k := reach.get(id(value))) is None:
                continue
            if position == 0 and (node.op is Op.STORE or is_view(node.op)):
                reach[id(node)] = k
            elif not (node.op is Op.LOOP and position >= node.attr.heads + node.attr.carried):
                read.add(k)  # (a loop's captured value is read in its body instead)
        if node.op is Op.STORE and stored is not None:
            k = reach.get(id(node))
            stored = None if k is None else stored | ({k} - {-1})
    only_stores = _only_stores(graph.effects)
    out_only = stored if stored and only_stores and not stored & read else set()
    return _Walk(stored, out_only, only_stores, may_flag, empty_warns, numpy_calls)


def _carried_reach(loop: Node, reach: dict[int, int]) -> dict[int, int]:
    """The arrays ``loop``'s carried holders are (:func:`_walk`'s ``reach``): the one each
    starts as, where every iteration passes on that holder or a new array (``acc =
    np.zeros(n)``, then ``acc -= y`` in the loop); others are unknown."""
    attr, found = loop.attr, {}
    starts = loop.inputs[attr.heads : attr.heads + attr.carried]
    for holder, start, after in zip(attr.holders, starts, attr.body.outputs):
        while is_view(after.op) or after.op is Op.STORE:
            after = after.inputs[0]
        if (k := reach.get(id(start))) is not None and (after is holder or is_fresh(after.op)):
            found[id(holder)] = k
    return found


def _only_stores(effects: list[Node]) -> bool:
    """Whether ``effects`` (loop and branch bodies too) are stores and checks only."""
    for node in effects:
        if node.op is Op.LOOP or node.op is Op.IF:
            attr = node.attr
            bodies = [attr.body] if node.op is Op.LOOP else [attr.then_graph, attr.else_graph]
            if not all(_only_stores(graph.effects) for graph in bodies):
                return False
        elif node.op not in (Op.STORE, Op.CHECK, Op.SIZE_CHECK):
            return False
    return True


def repeatable(result: TraceResult) -> bool:
    """Whether a second run of the region's statements after a run of the graph traced as
    ``result`` repeats nothing: it stored into no typed list and no array the caller sees."""
    from astcompile.trace.loop_starts import stores_nothing_seen

    written = getattr(result, "written_lists", ())
    return not written and stores_nothing_seen(result.graph.effects)


def restoring(
    run: Callable[[list], list], result: TraceResult, region: Region
) -> Callable[[list], list]:
    """``run`` of a region that stores into arrays it also reads (``x /= y``, a loop's
    ``a[i] = a[i] / b[i]``), keeping copies of them while NumPy's error state could show a
    flag the run raises: after a loud one they get their values back and the region's
    statements run instead (RunPlain), so NumPy warns as it does, or raises and leaves them as
    it does. Free while every mode is "ignore" (bar reductions warning of an empty slice);
    the C-level call path does the same (``fastcall.c``'s KEEP and UNDO). Loud runs back off
    as after_compiled's do (:func:`_back_off`): data that flags on every call ran compiled,
    restored and ran as written each time (``a /= b`` with zeros in b: 4x the plain call)."""
    found = _walk(result.graph)
    stored, out_only, empty_warns = _kept(found), found.out_only, found.empty_warns
    if not stored:
        return run
    read = sorted(stored - out_only)
    aside = empty_warns or (getattr(run, "fp_silent", False) and found.numpy_calls)

    def run_restoring(leaves: list) -> list:
        if errstate.ignored() and not aside:
            return run(leaves)
        kept = (
            sorted(stored)
            if out_only and errstate.warnings_raise()
            else read + _shared(out_only, leaves)
        )
        # a read-only array is never stored into (the store raises NumPy's ValueError first),
        # and a copy of a broadcast one would hold every element it repeats
        saved = [(a, a.copy(order="K")) for k in kept if (a := leaves[k]).flags.writeable]
        try:
            outputs = run(leaves)
        except RunPlain:  # the statements run: from the arrays as they were
            _restore(saved)
            raise
        except Exception:  # NumPy's warning comes before the error: the statements raise it
            if not (saved and _loud(empty_warns)):
                raise
            _restore(saved)
            _back_off(region)
            raise RunPlain("an error after a loud floating-point flag") from None
        if saved and _loud(empty_warns):
            _restore(saved)
            _back_off(region)
            raise RunPlain("a loud floating-point flag")
        return outputs

    functools.update_wrapper(run_restoring, run)  # its parts and sources, for caches and dumps
    # what the C-level call path keeps copies of (entries._fast_program), None: it leaves the
    # call to this function; out parameters it keeps only here: it leaves calls under
    # warnings as errors to this function (fast_outs)
    run_restoring.fast_keeps = None if read and aside else read
    run_restoring.fast_outs = bool(out_only)
    return run_restoring


def _shared(out_only: set[int], leaves: list) -> list[int]:
    """The out arguments sharing memory with another argument: a rerun would read what the run
    stored (``_may_rerun`` refuses it), so they are kept too."""
    return [
        k
        for k in sorted(out_only)
        if any(j != k and np.may_share_memory(leaves[k], leaf) for j, leaf in enumerate(leaves))
    ]


def may_rerun(result: TraceResult) -> bool:
    """Whether the statements of a region whose run raised a loud flag may run after it: it
    stored nothing the caller sees, or it keeps copies of what it stores into (:func:`restoring`)."""
    return repeatable(result) or bool(_kept(_walk(result.graph)))


def _kept(found: _Walk) -> set[int] | None:
    """The inputs :func:`restoring` keeps copies of: those a region stores into, where it may
    raise a flag and has no effect but stores (none where it stores only into arrays it made:
    ``repeatable``, whose import a warm process need not pay)."""
    if not fpflags.KINDS or not found.only_stores or not found.may_flag:
        return None
    return found.stored


def _restore(saved: list[tuple[np.ndarray, np.ndarray]]) -> None:
    """The kept arrays' values back, and the flags cleared: the statements run from there."""
    for array, copy in saved:
        np.copyto(array, copy)
    fpflags.clear()


def _loud(empty_warns: bool) -> bool:
    """Whether after_compiled runs a repeatable region's statements after the flags raised."""
    modes, noted = np.geterr(), fpflags.kinds(fpflags.raised())
    return any(modes[kind] != "ignore" for kind in noted) or (empty_warns and "invalid" in noted)


#: Ops on floats that raise no flag in NumPy (its comparisons are quiet on NaN, and C's are
#: made quiet: structured_signals.py); control nodes compute nothing themselves (their bodies
#: are walked). A clip into an out parameter copied ``out`` on every call without this.
_QUIET = frozenset({Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.STORE})


def _flags(node: Node) -> bool:
    """Whether ``node`` may raise a floating-point flag: an op on or to floats or complex
    numbers, or an integer division or remainder (NumPy's "divide by zero")."""
    if node.kind in (Kind.LEAF, Kind.CONTROL) or node.op in _QUIET or is_view(node.op):
        return False
    return node.op in (Op.FLOORDIV, Op.MOD, Op.TRUEDIV) or any(
        getattr(value.dtype, "kind", "") in ("f", "c") for value in (node, *node.inputs)
    )


def _back_off(region: Region) -> None:
    """On the second compiled call in a row with loud flags (no compiled call between them),
    the region's next ``PLAIN_CALLS`` calls run its statements without the compiled run."""
    calls = region.stats.compiled_calls
    if region.stats.loud_at == calls - 1:
        region.guards = _Plain(region, region.guards, PLAIN_CALLS)
    region.stats.loud_at = calls


class _Plain:
    """Stands for a region's guard function for ``calls`` calls, each running the statements;
    then the guard function is back (unless the region has made a new one meanwhile)."""

    def __init__(self, region: Region, guards: Any, calls: int) -> None:
        self.region, self.guards, self.left = region, guards, calls

    def __call__(self, *args: Any) -> tuple:
        self.left -= 1
        if self.left <= 0 and self.region.guards is self:
            self.region.guards = self.guards
        try:
            return self.region.run_body(args)
        finally:  # raised by NumPy or Python, which warned as they do (a raising run too)
            fpflags.clear()


def noting_errors(run: Callable[[Sequence[Any]], list]) -> Callable[[Sequence[Any]], list]:
    """``run`` with NumPy's floating-point errors noted, not reported, then raised as the CPU's
    flags (the eager backend's interpreter): Python floats computed as NumPy scalars warn where
    Python is silent, and NumPy's warning would name targets/eager.py. The region tests the
    flags as after a C run, and its statements run again where the user's error state reports
    one. A step whose NumPy code warns by ``warnings.warn`` (``x.std(ddof=1)`` of one value:
    "Degrees of freedom <= 0") hands the call to the statements before it runs
    (``fpflags.rerun_instead``): held back process-wide, such warnings were lost to other
    threads, or came twice."""

    def noting(leaves: Sequence[Any]) -> list:
        return fpflags.call_noted(run, leaves, clear=True, reruns=True)

    noting.fp_silent = True  # its errors are the flags' (stages.add_entry)
    return noting
