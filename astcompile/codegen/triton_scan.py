"""Scan kernels: ``np.cumsum``/``np.cumprod`` along the last axis, one program per row.

A scan step (:mod:`astcompile.codegen.scan_steps`) gets two functions, launched like a
reduction's (:class:`astcompile.runtime.triton_runtime.KernelLauncher` picks by the row's
length): ``{name}_block`` holds the row in one block and scans it with ``tl.cumsum`` /
``tl.cumprod``; ``{name}_loop`` walks a longer row in ``BLOCK``-sized steps, each step's scan
started from the running value the step before ended on (``carry``). Results are in the
step's dtype, which is NumPy's (an int32 array's cumsum is int64: the tracer casts first);
float32 scans run in float64, as float sums do. A float scan is a tree within each step, so it
rounds differently from NumPy's one-at-a-time adds (within the float tolerances of
``tests/differential.py``); integer scans are exact.
"""

from __future__ import annotations

import numpy as np

from astcompile.codegen.ids import nid
from astcompile.codegen.names import value_name
from astcompile.codegen.scan_steps import scan_of
from astcompile.codegen.source_notes import short
from astcompile.codegen.triton_kernel import loc_comment
from astcompile.codegen.triton_rules import SIGNATURE, TL_TYPES, literal, tl_type
from astcompile.ir.graph import Node
from astcompile.passes.schedule import NumpyStep, Schedule

#: scan -> (Triton's scan of a block, how a running value joins it, the identity).
SCAN_FORMS: dict[str, tuple[str, str, int]] = {
    "cumsum": ("tl.cumsum({x}, axis=0)", "{carry} + {y}", 0),
    "cumprod": ("tl.cumprod({x}, axis=0)", "{carry} * {y}", 1),
}


def is_scan_step(node: Node) -> bool:
    """Whether the Triton target runs NumPy step ``node`` as its own scan kernel: NumPy's
    accumulate dtypes (32- and 64-bit; Triton's scans widen narrower ints)."""
    (src,) = node.inputs if scan_of(node) else (None,)
    return (
        src is not None
        and src.dtype == node.dtype
        and node.dtype in TL_TYPES
        and node.dtype.kind in "iuf"
        and node.dtype.itemsize >= 4
    )


def scan_steps(sched: Schedule) -> list[Node]:
    """The schedule's NumPy steps that run as scan kernels."""
    return [s.node for s in sched.steps if isinstance(s, NumpyStep) and is_scan_step(s.node)]


def scan_name(node: Node) -> str:
    return f"scan_{nid(node)}"


def scan_parameters(node: Node) -> list[tuple[str, str]]:
    """(name, signature type) in the launcher's order: sizes, the source (pointer, element
    strides), the output, ``BLOCK``."""
    (src,) = node.inputs
    params = [(f"n{a}", "i64") for a in range(node.ndim)]
    for base, dtype in ((value_name(src), src.dtype), (f"out_{nid(node)}", node.dtype)):
        params.append((base, f"*{SIGNATURE[dtype]}"))
        params += [(f"{base}_s{t}", "i64") for t in range(node.ndim)]
    return [*params, ("BLOCK", "constexpr")]


def scan_functions(node: Node) -> str:
    """The source of the step's ``_block`` and ``_loop`` functions."""
    lines = []
    for suffix, body in (("_block", _block), ("_loop", _loop)):
        lines += _head(node, suffix)
        lines += ["    " + line for line in _row(node) + body(node)]
    return "\n".join(lines) + "\n"


def _head(node: Node, suffix: str) -> list[str]:
    params = ", ".join(
        f"{n}: tl.constexpr" if s == "constexpr" else n if s.startswith("*") else f"{n}: tl.int64"
        for n, s in scan_parameters(node)
    )
    where = f"; from {short(node.loc)}" if node.loc else ""
    return [
        "",
        "",
        "@triton.jit",
        f"def {scan_name(node)}{suffix}({params}):",
        f'    """np.{scan_of(node)} along the last axis, one row per program{where}"""',
    ]


def _row(node: Node) -> list[str]:
    """The row's leading-axis indices (C order) from the program id."""
    lead = list(range(node.ndim - 1))
    lines = ["row = tl.program_id(0).to(tl.int64)"]
    if len(lead) == 1:
        return [*lines, "i0 = row"]
    if lead:
        lines.append("rem = row")
        for a in reversed(lead[1:]):
            lines += [f"i{a} = rem % n{a}", f"rem = rem // n{a}"]
        lines.append("i0 = rem")
    return lines


def _offset(base: str, ndim: int) -> str:
    terms = [f"i{a} * {base}_s{a}" for a in range(ndim - 1)] + [f"r * {base}_s{ndim - 1}"]
    return " + ".join(terms)


def acc_dtype(node: Node) -> np.dtype:
    """The dtype a scan runs in: float64 for float32 values (as float sums, codegen/reduce.py),
    else the step's own (integer scans wrap as NumPy's)."""
    return np.dtype(np.float64) if node.dtype == np.float32 else node.dtype


def _step(node: Node, carry: bool) -> list[str]:
    """Load one block of the row, scan it (from ``carry``), store it."""
    (src,) = node.inputs
    scan, join, ident = SCAN_FORMS[scan_of(node)]
    x, out, last = value_name(src), f"out_{nid(node)}", node.ndim - 1
    acc = acc_dtype(node)
    load = f"tl.load({x} + ({_offset(x, node.ndim)}), mask=m, other={literal(ident, src.dtype)})"
    y = scan.format(x="x")
    if carry:
        y = join.format(carry="carry", y=y)
    value = "y" if acc == node.dtype else f"y.to({tl_type(node.dtype)})"
    return [
        f"m = r < n{last}",
        f"x = {load}" if acc == src.dtype else f"x = {load}.to({tl_type(acc)})",
        f"y = {y}{loc_comment(node)}",
        f"tl.store({out} + ({_offset(out, node.ndim)}), {value}, mask=m)",
    ]


def _block(node: Node) -> list[str]:
    return ["r = tl.arange(0, BLOCK)", *_step(node, carry=False)]


def _loop(node: Node) -> list[str]:
    """Steps along the row; ``carry`` is the last lane of the step before (picked out by a
    sum with ``-0.0``, the exact additive identity, so it keeps every bit)."""
    _, _, ident = SCAN_FORMS[scan_of(node)]
    acc = acc_dtype(node)
    zero = literal(-0.0 if acc.kind == "f" else 0, acc)
    body = ["r = r0 + tl.arange(0, BLOCK)", *_step(node, carry=True)]
    body.append(f"carry = tl.sum(tl.where(r == r0 + BLOCK - 1, y, {zero}), axis=0)")
    return [
        f"carry = {literal(ident, acc)}",
        f"for r0 in range(0, n{node.ndim - 1}, BLOCK):",
        *["    " + line for line in body],
    ]
