"""Scan kernels: ``np.cumsum``/``np.cumprod`` along the last axis, one program per row.

A scan step (:mod:`astcompile.passes.scans`) gets two functions, launched like a
reduction's (:class:`astcompile.runtime.triton_runtime.KernelLauncher` picks by the row's
length): ``{name}_block`` holds the row in one block and scans it with ``tl.cumsum`` /
``tl.cumprod``; ``{name}_loop`` walks a longer row in ``BLOCK``-sized steps, each step's scan
started from the running value the step before ended on (``carry``). Results are in the
step's dtype, which is NumPy's (an int32 array's cumsum is int64: the tracer casts first);
float32 scans run in float64, as float sums do. A float scan is a tree within each step, so it
rounds differently from NumPy's one-at-a-time adds (within the float tolerances of
``astcompile/compare.py``); integer scans are exact.
"""

from __future__ import annotations

import numpy as np

from astcompile.ir.graph import Node
from astcompile.lower.ids import nid
from astcompile.lower.names import value_name
from astcompile.lower.source_notes import short
from astcompile.passes.scans import scan_of
from astcompile.passes.schedule import NumpyStep, Schedule
from astcompile.runtime.fpflags import KERNEL_BITS
from astcompile.targets.triton.triton_kernel import loc_comment
from astcompile.targets.triton.triton_rules import SIGNATURE, TL_TYPES, constant, literal, tl_type
from astcompile.targets.triton.triton_source import FLAG_LINES, FLAGS, jit_head

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
    return [*params, *FLAGS, ("BLOCK", "constexpr")]


def part_parameters(node: Node) -> list[tuple[str, str]]:
    """The part functions' parameters: ``chunk``, ``parts`` and the parts' totals too."""
    base = scan_parameters(node)
    extra = [("chunk", "i64"), ("parts", "i64"), ("totals", f"*{SIGNATURE[acc_dtype(node)]}")]
    tail = len(FLAGS) + 1  # the flags and BLOCK, passed by name
    return [*base[:-tail], *extra, *base[-tail:]]


def scratch(node: Node) -> tuple[tuple[str, bool], ...]:
    """The part functions' scratch buffers for the launcher: one total per part."""
    return ((acc_dtype(node).str, True),)


def scan_signatures(node: Node) -> dict[str, dict[str, str]]:
    """Function name -> its signature (``{name}`` for the block and loop functions)."""
    name = scan_name(node)
    found = {name: dict(scan_parameters(node))}
    found.update({f"{name}{s}": dict(part_parameters(node)) for s in ("_part0", "_part1")})
    return found


def scan_functions(node: Node) -> str:
    """The source of the step's functions: ``_block`` and ``_loop`` (one program per row),
    ``_part0`` and ``_part1`` (few long rows: several programs per row)."""
    lines = []
    for suffix, body, per_row in (
        ("_block", _block, True),
        ("_loop", _loop, True),
        ("_part0", _part_totals, False),
        ("_part1", _part_scan, False),
    ):
        params = scan_parameters(node) if per_row else part_parameters(node)
        lines += [*_head(node, suffix, params, per_row), FLAG_LINES[0]]
        lines += ["    " + line for line in _row(node, 0 if per_row else 1) + body(node)]
        lines.append(FLAG_LINES[1])
    return "\n".join(lines) + "\n"


def _head(node: Node, suffix: str, params: list[tuple[str, str]], per_row: bool) -> list[str]:
    where = f"; from {short(node.loc)}" if node.loc else ""
    what = "one row per program" if per_row else "several programs per row"
    doc = f"np.{scan_of(node)} along the last axis, {what}{where}"
    return jit_head(f"{scan_name(node)}{suffix}", params, doc)


def _row(node: Node, grid_axis: int = 0) -> list[str]:
    """The row's leading-axis indices (C order) from the program id."""
    lead = list(range(node.ndim - 1))
    lines = [f"row = tl.program_id({grid_axis}).to(tl.int64)"]
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
    """The dtype a scan runs in: float64 for float32 values (as float sums, lower/reduce.py),
    else the step's own (integer scans wrap as NumPy's)."""
    return np.dtype(np.float64) if node.dtype == np.float32 else node.dtype


def _step(node: Node, carry: bool, stop: str = "") -> list[str]:
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
        f"m = r < {stop or f'n{last}'}",
        f"x = {load}" if acc == src.dtype else f"x = {load}.to({tl_type(acc)})",
        f"y = {y}{loc_comment(node)}",
        *_flags(node),
        f"tl.store({out} + ({_offset(out, node.ndim)}), {value}, mask=m)",
    ]


def _flags(node: Node) -> list[str]:
    """The flags NumPy's float accumulate raises, from each lane's running value ``y``:
    invalid where it is NaN, overflow where it is past the step dtype's largest (a float32
    scan held in float64 too), a product's underflow below its smallest normal. A NaN,
    infinity or zero read in (or carried) sets them as well: the region's rerun in NumPy then
    warns exactly as NumPy does."""
    if node.dtype.kind != "f":
        return []  # an integer accumulate wraps without a word, as NumPy's
    acc, info = acc_dtype(node), np.finfo(node.dtype)
    hits = {"invalid": "(y != y)", "over": f"(tl.abs(y) > {literal(info.max, acc)})"}
    if scan_of(node) == "cumprod":
        hits["under"] = f"(tl.abs(y) < {literal(info.tiny, acc)})"
    return [f"fp = _flag(fp, FP, m & {hit}, {KERNEL_BITS[kind]})" for kind, hit in hits.items()]


def _block(node: Node) -> list[str]:
    return ["r = tl.arange(0, BLOCK)", *_step(node, carry=False)]


def _loop(node: Node) -> list[str]:
    """The row in steps, each from the running value the step before ended on."""
    _, _, ident = SCAN_FORMS[scan_of(node)]
    return [f"carry = {literal(ident, acc_dtype(node))}", *_steps(node, "0", f"n{node.ndim - 1}")]


def _steps(node: Node, start: str, stop: str) -> list[str]:
    """Steps over ``[start, stop)`` of the row from ``carry``; the next ``carry`` is the last
    lane of the step (picked out by a sum with ``-0.0``, the exact additive identity, so it
    keeps every bit)."""
    acc = acc_dtype(node)
    zero = literal(-0.0 if acc.kind == "f" else 0, acc)
    body = ["r = r0 + tl.arange(0, BLOCK)", *_step(node, carry=True, stop=stop)]
    body.append(f"carry = tl.sum(tl.where(r == r0 + BLOCK - 1, y, {zero}), axis=0)")
    return [f"for r0 in range({start}, {stop}, BLOCK):", *["    " + line for line in body]]


def _part_range(node: Node) -> list[str]:
    return [
        "program = tl.program_id(0).to(tl.int64)",
        "start = program * chunk",
        f"stop = tl.minimum(start + chunk, n{node.ndim - 1})",
    ]


def _part_totals(node: Node) -> list[str]:
    """Each part's total (sum or product) into ``totals[row * parts + program]``."""
    (src,) = node.inputs
    _, join, ident = SCAN_FORMS[scan_of(node)]
    acc = acc_dtype(node)
    x = value_name(src)
    load = f"tl.load({x} + ({_offset(x, node.ndim)}), mask=m, other={literal(ident, src.dtype)})"
    if acc != src.dtype:
        load = f"{load}.to({tl_type(acc)})"
    return [
        *_part_range(node),
        f"a = tl.full([BLOCK], {constant(ident, acc)}, {tl_type(acc)})",
        "for r0 in range(start, stop, BLOCK):",
        "    r = r0 + tl.arange(0, BLOCK)",
        "    m = r < stop",
        f"    a = {join.format(carry='a', y=load)}",
        f"tl.store(totals + row * parts + program, {_combine(node, 'a')})",
    ]


def _part_scan(node: Node) -> list[str]:
    """Each part scanned from the total of the parts before it in its row."""
    _, _, ident = SCAN_FORMS[scan_of(node)]
    other = literal(ident, acc_dtype(node))
    return [
        *_part_range(node),
        "j = tl.arange(0, BLOCK)",
        f"before = tl.load(totals + row * parts + j, mask=j < program, other={other})",
        f"carry = {_combine(node, 'before')}",
        *_steps(node, "start", "stop"),
    ]


def _combine(node: Node, lanes: str) -> str:
    """The total of a block of lanes."""
    if scan_of(node) == "cumsum":
        return f"tl.sum({lanes}, axis=0)"
    return f"tl.reduce({lanes}, 0, _mul)"
