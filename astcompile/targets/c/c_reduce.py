"""The reduction rules (:mod:`astcompile.lower.reduce`) written in C.

Each fold op has one row: the C operator of its compound assignment and its OpenMP
``reduction`` operator. Folds of max/min are selects (``acc = (v >= acc) ? v : acc``: of
``0.0`` and ``-0.0`` the later one, as NumPy's loop keeps) with the NaN flag beside them,
which GCC vectorises; complex products multiply with NumPy's formula (``astc_cmul``) one
element after another, as NumPy's loop (no ``omp simd``: :func:`sequential`), and a complex
mean divides as NumPy does (Smith's division by ``count + 0j``). Complex max/min
(lexicographic) run in NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.lower.reduce import (
    RULES,
    acc_dtype,
    has_nan_flag,
    identity,
    overflow_total,
    rule,
)
from astcompile.targets.c.ctypes import ctype, literal, supported_dtype


@dataclass(frozen=True)
class Acc:
    """One accumulator variable: C type, name suffix, initial value and OpenMP reduction op."""

    ctype: str
    suffix: str
    init: str
    omp: str


@dataclass(frozen=True)
class CFold:
    """A fold op in C: the compound assignment's operator (``+`` of ``+=``; for a select, the
    comparison that picks the new value) and the OpenMP reduction operator."""

    op: str
    omp: str
    select: bool = False


#: fold op -> how C writes it.
FOLDS: dict[Op, CFold] = {
    Op.ADD: CFold("+", "+"),
    Op.MUL: CFold("*", "*"),
    Op.LOGICAL_OR: CFold("|", "|"),
    Op.LOGICAL_AND: CFold("&", "&"),
    Op.MAXIMUM: CFold(">=", "max", select=True),
    Op.MINIMUM: CFold("<=", "min", select=True),
}


def _complex_product(node: Node) -> bool:
    return rule(node).fold is Op.MUL and node.dtype.kind == "c"


def acc_type(node: Node) -> str:
    """The accumulator's C type (a truth fold keeps an ``int``)."""
    return "int" if rule(node).truth else ctype(acc_dtype(node))


def accumulators(node: Node) -> list[Acc]:
    """The accumulator variables of ``node``: its value, a NaN flag for float max/min, and
    for a complex product a flag saying a total holds a chunk's product (see :func:`combine`)."""
    init = literal(identity(node), acc_dtype(node))
    accs = [Acc(acc_type(node), "", init, FOLDS[rule(node).fold].omp)]
    if has_nan_flag(node):
        accs.append(Acc("int", "_nan", "0", "|"))
    if sequential(node):
        accs.append(Acc("int", "_set", "0", "|"))
    return accs


def sequential(node: Node) -> bool:
    """A complex product folds element after element into ``1+0j``, as NumPy's loop does:
    no ``omp simd`` may reorder it, since ``(1+0j) * complex(inf, 0)`` has a NaN part (an
    identity multiplied in between changes the result)."""
    return _complex_product(node)


def reduction_input(node: Node, expr: str) -> str:
    """An element (C expression ``expr``) as the accumulator takes it: a truth value, or a
    value of the accumulator's type (``(int)0.5`` would be 0, so truth is not a cast)."""
    if rule(node).truth:
        return f"(({expr}) != 0)"
    return f"(({acc_type(node)}){expr})"


def update(node: Node, acc: str, value: str) -> list[str]:
    """Statements folding ``value`` (already as :func:`reduction_input` made it) into ``acc``."""
    if sequential(node):
        return [f"{acc} = {_cmul(node)}({acc}, {value});"]
    compared = _ordered(node, value) if has_nan_flag(node) else value
    return _fold(node, acc, compared, f"{acc}_nan |= ({value} != {value});")


def combine(node: Node, acc: str, part: str) -> list[str]:
    """Statements folding a partial result (the accumulators named ``part``) into ``acc``;
    the first chunk's product of a complex product is taken as it is (``1+0j`` times it
    could differ)."""
    if sequential(node):
        return [f"{acc} = {acc}_set ? {_cmul(node)}({acc}, {part}) : {part};", f"{acc}_set = 1;"]
    return _fold(node, acc, part, f"{acc}_nan |= {part}_nan;")


def _cmul(node: Node) -> str:
    """NumPy's reduction multiplies with the textbook formula, in the values' own dtype."""
    return "astc_cmulf" if node.dtype == np.complex64 else "astc_cmul"


def _fold(node: Node, acc: str, value: str, nan_line: str) -> list[str]:
    fold = FOLDS[rule(node).fold]
    if fold.select:
        lines = [f"{acc} = ({value} {fold.op} {acc}) ? {value} : {acc};"]
    else:
        lines = [f"{acc} {fold.op}= {value};"]
    return lines + [nan_line] if has_nan_flag(node) else lines


def _ordered(node: Node, value: str) -> str:
    """A float max/min's element with NaN replaced by the fold's identity (the NaN flag keeps
    it): C's ``>=`` on NaN raises the invalid flag, NumPy's max does not. The accumulator (and
    a partial result) is never NaN, so this costs nothing on its chain."""
    t, start = acc_type(node), literal(identity(node), acc_dtype(node))
    return f"astc_select_{t}({value} == {value}, {value}, {start})"


def finalize(node: Node, acc: str, count: str) -> str:
    """The reduction's value, of the node's C type, from its accumulators; ``count``: C for
    the number of elements folded (what a mean divides by, less ``ddof``); a float32 mean's
    total past float32's range is not divided (:func:`overflow_total`): the cast makes it
    infinite and raises the overflow flag."""
    t = ctype(node.dtype)
    if rule(node).divides:
        ddof = node.attr.ddof
        div = f"(double)({count} > {ddof} ? {count} - {ddof} : 0)"
        if node.dtype.kind == "c":
            return f"(({t})astc_cdiv({acc}, ASTC_CMPLX({div}, 0)))"
        if (big := overflow_total(node)) is not None:
            past = f"fabs({acc}) >= {literal(big, np.float64)}"
            return f"(({t})({past} ? {acc} : {acc} / {div}))"
        return f"(({t})({acc} / {div}))"
    if has_nan_flag(node):
        return f"(({t})({acc}_nan ? NAN : {acc}))"
    return f"(({t}){acc})"


def can_reduce(node: Node) -> bool:
    """Whether C generates ``node`` (else it runs in NumPy)."""
    src = node.inputs[0].dtype
    if node.op not in RULES or not supported_dtype(src) or not supported_dtype(node.dtype):
        return False
    if rule(node).nan_flag and (node.dtype != src or src.kind == "c"):
        return False
    return not rule(node).divides or node.dtype.kind in "fc"
