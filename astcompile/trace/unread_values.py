"""Values nothing reads whose computation NumPy warns about.

A graph keeps only what its outputs and effects read, but NumPy computes every statement:
``t = x % y`` of ints with a zero in ``y``, ``t`` never read, still warns "divide by zero
encountered in remainder"; ``x.astype(np.int32)`` of a NaN, "invalid value encountered in
cast". Compiled code never warns itself: a raised floating-point flag makes the region's
statements run again, and NumPy warns (jit/fp_errors.py). So such a value must still be
computed: made in the region's own graph, it becomes an output the caller never sees; made in
a loop or branch body, a scalar (float, complex or integer) is kept by a CHECK that never fails
(``KEEP``, at the place it was made: the C loop computes it, its flags raised, and discards
it); an array made in a loop or branch body (whose graph is already made) runs the region as
written.

Before (``t`` unread)::                 After::

    %2 = mod(%x, %y) : int64(n,)            %2 = mod(%x, %y) : int64(n,)
    %3 = add(%x, 1) : int64(n,)             %3 = add(%x, 1) : int64(n,)
    return %3                               return %3, %2      (%2: handed to no one)

Ops NumPy computes quietly whatever the values (comparisons, ``maximum``, ``abs``, ``floor``,
a cast to a wider type), and Python's arithmetic of Python numbers (``int(3 * sigma)``: quiet,
or an exception tracing raised), are dropped as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.ir.attrs import ArithKind
from astcompile.ir.checks import KEEP
from astcompile.ir.graph import CheckAttr, Graph, IfAttr, LoopAttr, Node, walk
from astcompile.ir.ops import COMPARISONS, Kind, Op
from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason

#: Ops NumPy computes on any float (NaN, infinities, huge values) without a warning; of complex
#: numbers, ``<`` and the like warn of a NaN ("invalid value encountered in less").
_ORDERED = {Op.LT, Op.LE, Op.GT, Op.GE}
_QUIET = COMPARISONS | {
    Op.NEG,
    Op.POS,
    Op.ABS,
    Op.SIGN,
    Op.ISNAN,
    Op.ISINF,
    Op.ISFINITE,
    Op.SIGNBIT,
    Op.LOGICAL_NOT,
    Op.LOGICAL_AND,
    Op.LOGICAL_OR,
    Op.LOGICAL_XOR,
    Op.FLOOR,
    Op.CEIL,
    Op.TRUNC,
    Op.RINT,
    Op.CONJ,
    Op.COMPLEX,
    Op.COPY,
    Op.COPYSIGN,
    Op.MAXIMUM,
    Op.MINIMUM,
    Op.FMAX,
    Op.FMIN,
    Op.WHERE,
    Op.CLIP,
    Op.MAX,
    Op.MIN,
    Op.ANY,
    Op.ALL,
    Op.ARGMAX,
    Op.ARGMIN,
}
#: Integer ops NumPy warns about: a division by zero (``np.reciprocal(0)`` too).
_INT_DIVISIONS = {Op.TRUEDIV, Op.FLOORDIV, Op.MOD, Op.RECIPROCAL}
#: The kinds a KEEP check holds: a float in a float register (astc_keep_double, astc_math.h), a
#: complex as its two parts, an integer in a general register (astc_keep_int).
_KEPT = set("fciu")


def may_warn(node: Node) -> bool:
    """Whether NumPy may warn computing ``node`` (a float flag, an integer division by zero,
    a NumPy scalar's integer overflow)."""
    if node.kind not in (Kind.ELEMENTWISE, Kind.REDUCTION):
        return False
    if node.attr is ArithKind.SCALAR:  # ``-s``, ``abs(s)`` too: "overflow in scalar negative"
        return True
    if node.op in _QUIET and not (node.op in _ORDERED and node.inputs[0].dtype.kind == "c"):
        return False
    kinds = {n.dtype.kind for n in (node, *node.inputs)}
    if node.op is Op.CAST:
        return node.inputs[0].dtype.kind in "fc" and not _widens(node.inputs[0], node)
    if kinds & set("fc"):
        return True
    return node.op in _INT_DIVISIONS


def _widens(source: Node, cast: Node) -> bool:
    """A cast NumPy makes quietly: to bool, or to a float or complex type as wide (complex to
    real warns: ComplexWarning)."""
    to = cast.dtype
    if to.kind == "b":
        return True
    if source.dtype.kind == "c" and to.kind != "c":
        return False
    part = source.dtype.itemsize // (2 if source.dtype.kind == "c" else 1)
    return to.kind in "fc" and to.itemsize // (2 if to.kind == "c" else 1) >= part


def keep_unread(ctx: Any, outputs: list[Node]) -> None:
    """Append to ``outputs`` each value made in the region's graph that nothing reads and that
    NumPy may warn about (the last first: what it reads is then read); one made in a loop or
    branch body that the graph kept breaks the trace. Bodies traced and dropped (a loop traced
    again with wider types) are ignored."""
    top = ctx.effect_frames[0]
    read = _read_ids([*top, *outputs])
    kept_frames = {id(top)} | {id(f) for f in _body_effects([*top, *outputs])}
    for node, frame, _ in reversed(ctx.made):
        skipped = node.id in read or node.id in ctx.python_numbers or id(frame) not in kept_frames
        if skipped or not may_warn(node):
            continue
        if frame is not top:
            raise TraceBreak(TraceReason.NOT_SUPPORTED, "an unread value that may warn")
        outputs.append(node)
        read |= _read_ids([node])


def keep_in_body(ctx: Any, frame: list[Node], roots: list[Node]) -> None:
    """Put a KEEP check where each scalar was made in the loop or branch body ``frame`` that
    nothing in it or ``roots`` (its outputs) reads and that may warn (``d = x[i] - y[i]``,
    ``d`` unused): the loop keeps its speed and its flags. Arrays are left to
    :func:`keep_unread`."""
    read = _read_ids([*frame, *roots])
    for node, made_in, position in reversed(ctx.made):
        if made_in is not frame or node.id in read or node.id in ctx.python_numbers:
            continue
        if node.shape or node.dtype.kind not in _KEPT or not may_warn(node):
            continue
        keep = CheckAttr(KEEP, "computed for its floating-point flags")
        frame.insert(position, Node(Op.CHECK, (node,), np.dtype(bool), (), keep, node.loc))
        read |= _read_ids([node])


def _read_ids(roots: list[Node]) -> set[int]:
    return {n.id for n in walk(Graph("read", [], roots).nodes())}


def _body_effects(roots: list[Node]) -> list[list[Node]]:
    """The effect lists of the loop bodies and branches the graph holds."""
    found = []
    for node in walk(Graph("read", [], roots).nodes()):
        if isinstance(node.attr, LoopAttr):
            found.append(node.attr.body.effects)
        elif isinstance(node.attr, IfAttr):
            found += [node.attr.then_graph.effects, node.attr.else_graph.effects]
    return found
