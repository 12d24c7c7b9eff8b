"""The items of a fast plan's ``BOXRET`` (``fastcall.c``): how an entry's result template
returns its outputs - an argument, a constant, an array, a NumPy scalar, a Python number, a
number that may be None, a tuple of items, an item made earlier.

Part of the runtime: must not import the compiler.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

# how BOXRET returns one: keep in step with the enum in fastcall.c
(BOX_SLOT, BOX_SCALAR, BOX_NUMBER, BOX_ALWAYS, BOX_CONST, BOX_TUPLE, BOX_SAME, BOX_MAYBE_SCALAR,
 BOX_MAYBE_ALWAYS) = range(9)  # fmt: skip
MAX_SAME = 32  # BOX_SAME names one of the first 32 items
#: (number, output dtype) a result template makes a Python number of where its flag holds.
_NUMBERS = {(float, "f8"), (int, "i8"), (bool, "b1")}


class Unsupported(Exception):
    """An entry the C program cannot express: the Python guard function keeps it."""


def box_items(p: Any, plan: dict, boxes: Sequence[tuple], leaves: list) -> list[int]:
    """Return each ``(kind, index, box, value)`` as the result template does: an argument
    (``"arg"``), a leaf, a constant, or a graph output: an array as it is (``"array"``), a
    0-d output as a NumPy scalar (``"scalar"``), as a Python number (``int``, ``float``) or
    as one where its flag output holds (``("python", number, flag)``); ``("tuple", n, ...)``
    makes a tuple of the ``n`` items after it. A graph output returned twice (a number:
    ``return s, s``) is the object its first item made."""
    outputs, calls = plan["outputs"], plan["calls"]
    items: list[int] = []
    first: dict[int, int] = {}  # graph output -> the item that boxed it
    for kind, index, box, value in boxes:
        if kind == "graph" and index in first:
            if first[index] >= MAX_SAME:
                raise Unsupported(f"output {index} returned again after item {MAX_SAME}")
            items += [BOX_SAME, first[index], 0, 0]
            continue
        if kind == "graph":
            first[index] = len(items) // 4
        if kind == "tuple":  # the next ``index`` items make one tuple (``return L, U``)
            items += [BOX_TUPLE, index, 0, 0]
            continue
        if kind in ("arg", "leaf"):
            items += [BOX_SLOT, index if kind == "arg" else leaves[index][0], 0, 0]
            continue
        if kind != "graph":
            items += [BOX_CONST, p.const(value), 0, 0]
            continue
        ref = outputs[index]
        if ref[0] != "o" and box == "array":
            items += [BOX_SLOT, p.slot(ref), 0, 0]
            continue
        if type(box) is tuple and box[0] == "optional":
            items += _maybe_none(p, ref, box, outputs, calls)
            continue
        reg, dtype = _number(p, ref, calls)
        if box == "scalar":
            items += [BOX_SCALAR, reg, p.const(dtype), 0]
        elif (box, dtype.str[1:]) in _NUMBERS:  # int(out) of an int64 output
            items += [BOX_ALWAYS, reg, p.const(dtype), 0]
        elif type(box) is tuple and box[0] == "python" and (box[1], dtype.str[1:]) in _NUMBERS:
            flag, flag_dtype = _number(p, outputs[box[2]], calls)
            if flag_dtype != np.bool_:
                raise Unsupported(f"a number whose flag is {flag_dtype}")
            items += [BOX_NUMBER, reg, p.const(dtype), flag]
        else:
            raise Unsupported(f"output {ref} boxed as {box!r}")
    return items


def _maybe_none(
    p: Any, ref: tuple, box: tuple, outputs: Sequence[tuple], calls: Sequence[tuple]
) -> list[int]:
    """The item of a number that is None where its flag output holds (``("optional", box,
    flag)``): a NumPy scalar, or a Python number of an output of its natural dtype."""
    reg, dtype = _number(p, ref, calls)
    flag, flag_dtype = _number(p, outputs[box[2]], calls)
    if flag_dtype != np.bool_:
        raise Unsupported(f"a number that may be None, whose flag is {flag_dtype}")
    if box[1] == "scalar":
        kind = BOX_MAYBE_SCALAR
    elif (box[1], dtype.str[1:]) in _NUMBERS:
        kind = BOX_MAYBE_ALWAYS
    else:
        raise Unsupported(f"output {ref} boxed as {box!r}")
    return [kind, reg, p.const(dtype), flag]


def _number(p: Any, ref: tuple, calls: Sequence[tuple]) -> tuple[int, np.dtype]:
    """(register, dtype) of an output boxed as a number: a loop region's scalar output
    (``("o", id, dtype)``, in scratch), or a 0-d array a flat plan allocates, whose data
    DATA puts in a register (``x.sum()`` returned: the NumPy scalar ``out[()]`` makes)."""
    if ref[0] == "o":
        return p.exprs[ref[:2]], np.dtype(ref[2])
    made = [step for step in calls if step[0] == "empty" and step[1] == ref]
    if not made or made[0][3] != ():
        raise Unsupported(f"output {ref}, no 0-d array the plan allocates, boxed as a number")
    return p.data(p.slot(ref)), np.dtype(made[0][2])
