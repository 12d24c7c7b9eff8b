"""Assemble one compiled entry's program for the C-level call path (``fastcall.c``).

A program is a run of int64 words: first the entry's guards (the checks its guard key stands
for, in :func:`guards.key_checks`'s terms, and the trace's shape guards), then ``COMMIT``, then
its wrapper (the size checks, output allocation and kernel calls of its fast plan; see
``astcompile/lower/fastplan.py``). A guard that fails sends the call on to the next entry, a
check after ``COMMIT`` to the Python guard function: what the C side accepts is exactly what
the Python side would run compiled, and it runs the same kernels on the same arguments.

:func:`assemble` returns None for an entry it cannot express (a key with tuples, strings or
objects, an array not in C order, a complex or bool scalar, a float passed to an integer
parameter; the caller leaves out entries with reads of globals and attributes): the Python
guard function keeps it.

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import errstate
from .fastcall_boxes import Unsupported as _Unsupported
from .fastcall_boxes import box_items
from .fastcall_views import view_words

# opcodes: keep in step with the enum in fastcall.c
(ARRAY, DIM, FLOAT, INT, IS, NOTSAME, CONST, BIN, CMP, MINMAX, COMMIT, EMPTY, ALIAS, WN, WR, WP,
 WS, WD, WF, WI, CALL, RET, EQ, GLOBAL, TYPEIS, CODE, SCRATCH, CALLRC, BOXRET, WRITABLE,
 APART, KEEP, UNDO, FILTERS, STATE, VIEW, ABSENT, DATA, UNIT, END) = range(1, 41)  # fmt: skip
_BIN = {"+": 0, "-": 1, "*": 2, "//": 3, "%": 4, "max": 5}
REL = {"==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5}
_INTS = {f"{s}int{b}_t": (b, s == "") for b in (8, 16, 32, 64) for s in ("", "u")}
MAX_REGS = 256


class _Program:
    def __init__(self, nargs: int) -> None:
        self.code: list[int] = []
        self.consts: list[Any] = []
        self.nregs = 0
        self.dims: dict[tuple[int, int], int] = {}  # (leaf, axis) -> register
        self.exprs: dict[tuple, int] = {}  # size expression -> register
        self.slots: dict[tuple, int] = {}  # ("in", leaf) / ("t", id) -> slot
        self.nslots = nargs
        self.keeping = False  # copies kept (KEEP): UNDO after the kernels

    def emit(self, *words: int) -> None:
        self.code += words

    def const(self, value: Any) -> int:
        for k, known in enumerate(self.consts):
            if known is value:
                return k
        self.consts.append(value)
        return len(self.consts) - 1

    def reg(self) -> int:
        self.nregs += 1
        if self.nregs > MAX_REGS:
            raise _Unsupported("too many sizes")
        return self.nregs - 1

    def number(self, value: int) -> int:
        return self.expr(("k", value))

    def expr(self, e: tuple) -> int:
        """The register holding size expression ``e`` (computed once, where first needed)."""
        if e in self.exprs:
            return self.exprs[e]
        if e[0] == "d":
            if (e[1], e[2]) not in self.dims:
                raise _Unsupported(f"the size of leaf {e[1]}, which is no array")
            return self.dims[(e[1], e[2])]
        r = self.reg()
        if e[0] == "k":
            if not -(2**63) <= e[1] < 2**63:
                raise _Unsupported("a size beyond int64")
            self.emit(CONST, r, e[1])
        else:
            x, y = self.expr(e[1]), self.expr(e[2])
            self.emit(BIN, r, _BIN[e[0]], x, y)
        self.exprs[e] = r
        return r

    def compare(self, rel: str, x: int, y: int) -> None:
        self.emit(CMP, REL[rel], x, y)

    def data(self, slot: int) -> int:
        """A register holding the data address of the array in ``slot`` (DATA)."""
        r = self.reg()
        self.emit(DATA, r, slot)
        return r

    def slot(self, ref: tuple, new: bool = False) -> int:
        if new:
            self.slots[ref] = self.nslots
            self.nslots += 1
        return self.slots[ref]


def assemble(
    key: tuple,
    plan: dict,
    guards: tuple[Sequence[tuple], Sequence[tuple]],
    kernels: dict[str, int],
    boxes: Sequence[tuple] | None = None,
    raiser: tuple | None = None,
    kept: Sequence[int] = (),
    outs: bool = False,
) -> tuple[bytes, tuple, int] | None:
    """``(code, consts, nargs)`` for an entry with guard ``key`` over its arguments, wrapper
    ``plan``, guards ``(value guards, shape guards, reads)`` as the trace made them (``(leaf,
    value)``; ``(rel, x, y)`` over size expressions; ``(globals, name, kind, expected)`` of
    each global read, see :func:`_read_check`), and the addresses of its kernels' packed
    entries; None when it cannot be expressed. ``boxes``: how the entry's result template
    returns its outputs (``(output, box)``, see :func:`_boxret`), None: as they are;
    ``raiser``: ``(raise_error, checks, sites)``, how a loop region's error status raises;
    ``kept``: the leaves it keeps copies of while NumPy's error state reports some error, put
    back after a flag it reports, where the Python path runs instead (``fp_errors.restoring``);
    ``outs``: it has out parameters, which only the Python path keeps (under warnings as
    errors, where the call is left to it)."""
    value_guards, shape_guards, reads = guards
    p = _Program(len(key))
    try:
        leaves = _key_checks(p, key)
        for read in reads:
            _read_check(p, read, leaves)
        for leaf, value in value_guards:
            if leaf >= len(leaves):
                return None
            p.emit(EQ, leaves[leaf][0], p.const(value))
        if len(leaves) != len(plan["inputs"]):
            return None
        for ref, leaf in zip(plan["inputs"], leaves):
            if (ref[0] == "array") != (leaf[1] == "array") or not _same_array(ref, key, leaf):
                return None
        for rel, x, y in shape_guards:
            p.compare(rel, p.expr(x), p.expr(y))
        p.emit(COMMIT)
        _keep(p, kept, leaves, outs)
        _wrapper(p, plan, leaves, (kernels, raiser), boxes)
        if boxes is not None:
            _boxret(p, plan, boxes, leaves)
    except _Unsupported:
        return None
    p.emit(END)
    return np.asarray(p.code, dtype=np.int64).tobytes(), tuple(p.consts), len(key)


def _keep(p: _Program, kept: Sequence[int], leaves: list, outs: bool) -> None:
    """FILTERS where out parameters are kept only on the Python path; STATE (the error state,
    read once) and KEEP for each kept leaf (an array argument), UNDO after the last kernel."""
    if outs:
        p.emit(FILTERS, p.const(vars(errstate)), p.const(vars(warnings)))
    if kept:
        variable = getattr(errstate.current, "__self__", None)  # NumPy's context variable
        if type(variable).__name__ != "ContextVar" or any(leaves[k][1] != "array" for k in kept):
            raise _Unsupported("no context variable of NumPy's, or a kept leaf that is no array")
        p.emit(STATE, p.const(variable), p.const(vars(errstate)))
    p.code += [word for k in kept for word in (KEEP, leaves[k][0])]
    p.keeping = bool(kept)


def _key_checks(p: _Program, key: tuple) -> list[tuple[int, str]]:
    """Emit the checks of ``key``; the leaves: (argument index, "array"/"float"/"int")."""
    leaves, arrays, classes = [], [], []
    for i, k in enumerate(key):
        if type(k) is tuple and len(k) == 4 and k[0] is np.ndarray:
            _array_checks(p, i, k, len(leaves), classes)
            arrays.append(i)
            leaves.append((i, "array"))
        elif k is float:
            p.emit(FLOAT, i)
            leaves.append((i, "float"))
        elif type(k) is tuple and len(k) == 2 and k[0] is int and type(k[1]) is tuple:
            negative, cls = k[1]
            p.emit(INT, i, int(negative) * 16 + cls)
            leaves.append((i, "int"))
        elif type(k) is tuple and len(k) == 2 and (k[0] is bool or k[0] is type(None)):
            p.emit(IS, i, p.const(k[1]))
        else:
            raise _Unsupported(f"argument key {k!r}")
    for a, b in itertools.combinations(arrays, 2):
        p.emit(NOTSAME, a, b)
    return leaves


def _read_check(p: _Program, read: tuple, leaves: list) -> None:
    """A global the region reads (``scope[name]``, ``scope`` the function's globals) is still
    the object (IDENTITY) or value (VALUE) it was traced with, or (INPUT) a number of its key,
    the next leaf: ``reads.check_source``'s conditions, in C. A name that is gone fails the
    entry, as the guard function's ``except`` does. A ``scope`` that is a function stands for
    its ``__code__`` (IDENTITY: not swapped since the region was made from it)."""
    scope, name, kind, expected = read
    if kind == "absent":  # a builtin's name: still no global (runtime/fastcall_reads.py)
        p.emit(ABSENT, p.const(scope), p.const(name))
        return
    slot = p.nslots
    p.nslots += 1
    if type(scope) is dict:
        p.emit(GLOBAL, slot, p.const(scope), p.const(name))
    else:
        p.emit(CODE, slot, p.const(scope))
    if kind == "input":
        if expected is float:
            p.emit(FLOAT, slot)
            leaves.append((slot, "float"))
        elif type(expected) is tuple and len(expected) == 2 and expected[0] is int:
            p.emit(INT, slot, int(expected[1][0]) * 16 + expected[1][1])
            leaves.append((slot, "int"))
        else:
            raise _Unsupported(f"a global of key {expected!r}")
    elif kind == "identity" or expected is None or type(expected) is bool:
        p.emit(IS, slot, p.const(expected))
    elif kind == "value":
        p.emit(TYPEIS, slot, p.const(type(expected)))
        p.emit(EQ, slot, p.const(expected))
    else:
        raise _Unsupported(f"a {kind} read")


def _array_checks(p: _Program, i: int, k: tuple, leaf: int, classes: list[int]) -> None:
    _, dtype, dims, layout = k
    if layout != "C":
        raise _Unsupported("an array not in C order")
    p.emit(ARRAY, i, p.const(dtype), len(dims))
    for axis, d in enumerate(dims):
        r = p.reg()
        p.emit(DIM, r, i, axis)
        p.dims[(leaf, axis)] = r
        if d in (0, 1):
            p.compare("==", r, p.number(d))
        elif -d <= len(classes):
            p.compare("==", r, classes[-d - 1])
        else:  # a new size class: >= 2 and unlike every earlier class
            p.compare(">", r, p.number(1))
            for other in classes:
                p.compare("!=", r, other)
            classes.append(r)


def _same_array(ref: tuple, key: tuple, leaf: tuple[int, str]) -> bool:
    """A loop region's array input (``("array", rank, dtype, unit)``) is what the key holds,
    and its last stride is the item size where the C code needs it (``unit``: it reads the
    last axis with stride 1; the Python wrapper copies one with another stride): C order
    with a last axis of two or more, the key's size class says, or of one or none, where
    the code reads at most index 0 of it, whatever its stride (``x[:, None]``: 0)."""
    if ref[0] != "array" or len(ref) < 3:
        return True
    _, dtype, dims, _ = key[leaf[0]]
    unit = not ref[3] or bool(dims)
    return dtype == np.dtype(ref[2]) and len(dims) == ref[1] and unit


def _wrapper(p: _Program, plan: dict, leaves: list, code: tuple, boxes: Sequence | None) -> None:
    for k, (arg, _) in enumerate(leaves):
        p.slots[("in", k)] = arg
    for cond in plan["conds"]:
        if cond[0] == "eq":
            p.compare("==", p.expr(cond[1]), p.expr(cond[2]))
        else:  # "rows": inner != 0 or rows == 0
            p.emit(MINMAX, p.expr(cond[1]), p.expr(cond[2]))
    for step in plan["calls"]:
        if step[0] == "empty":
            regs = [p.expr(e) for e in step[3]]
            p.emit(EMPTY, p.slot(step[1], new=True), p.const(np.dtype(step[2])), len(regs), *regs)
        elif step[0] == "alias":
            p.slots[step[1]] = p.slot(step[2])
        elif step[0] == "scratch":
            p.exprs[step[1]] = r = p.reg()
            p.emit(SCRATCH, r, step[2])
        elif step[0] == "writable":  # a written argument (else: the Python path, RunPlain)
            p.emit(WRITABLE, leaves[step[1]][0])
        elif step[0] == "apart":  # ... and another one share no memory
            p.emit(APART, leaves[step[1]][0], leaves[step[2]][0])
        elif step[0] == "view":  # a view of an argument or of an array allocated above
            p.emit(VIEW, *view_words(p, step))
        elif step[0] == "unit":  # read with a unit last stride: itself, or a copy of it
            p.emit(UNIT, p.slot(step[1], new=True), p.slot(step[2]), step[3])
        else:
            _call(p, step, leaves, *code)
    if p.keeping:
        p.emit(UNDO)
    if boxes is not None:
        return
    outs = [p.slot(ref) for ref in plan["outputs"]]
    p.emit(RET, len(outs), *outs)


def _boxret(p: _Program, plan: dict, boxes: Sequence[tuple], leaves: list) -> None:
    """BOXRET: the entry's result template (``fastcall_boxes.box_items``)."""
    p.emit(BOXRET, len(boxes), *box_items(p, plan, boxes, leaves))


def _call(
    p: _Program, step: tuple, leaves: list, kernels: dict[str, int], raiser: tuple | None
) -> None:
    name, words, work = step[1:4]
    if name not in kernels:
        raise _Unsupported(f"no packed entry for {name}")
    for word in words:
        tag = word[0]
        if tag == "n":
            p.emit(WN)
        elif tag == "e":
            p.emit(WR, p.expr(word[1]))
        elif tag == "p":
            p.emit(WP, p.slot(word[1]))
        elif tag == "s":
            p.emit(WS, p.slot(word[1]), word[2])
        elif tag == "b":  # the address of a scratch buffer
            p.emit(WR, p.exprs[word[1]])
        else:  # ("x", leaf, C type): a scalar argument
            _scalar(p, leaves[word[1]], word[2])
    if step[0] != "callrc":
        p.emit(CALL, kernels[name], p.expr(work))
    elif raiser is None:
        raise _Unsupported("no way to raise a loop region's errors")
    else:  # (..., err buffer, its words): what raise_error reads
        err, nerr = step[4:6]
        p.emit(CALLRC, kernels[name], p.expr(work), p.const(raiser), p.exprs[err], nerr)


def _scalar(p: _Program, leaf: tuple[int, str], ctype: str) -> None:
    arg, kind = leaf
    if ctype in ("double", "float"):  # a float, or an int converted as cffi converts it
        p.emit(WD if ctype == "double" else WF, arg)
    elif kind == "int" and ctype in _INTS:
        bits, signed = _INTS[ctype]
        p.emit(WI, arg, bits, int(signed))
    else:
        raise _Unsupported(f"a {kind} scalar passed as {ctype}")
