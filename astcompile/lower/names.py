"""C identifiers for graph values, named after the user's variables where we know them."""

from __future__ import annotations

import keyword
import re

import numpy as np

from astcompile.ir.graph import InputAttr, Node
from astcompile.ir.ops import Op
from astcompile.lower.ids import nid
from astcompile.lower.source_notes import marker

_C_RESERVED = {
    "int",
    "float",
    "double",
    "char",
    "long",
    "short",
    "void",
    "const",
    "static",
    "if",
    "else",
    "for",
    "while",
    "return",
    "struct",
    "signed",
    "unsigned",
    "restrict",
    "A",
    "row",
    "par",
    "c",
    "nch",
    "ch",
    "rem",
    "nrows",
    "ninner",
    "nthreads",
}


def sanitize(name: str) -> str:
    text = re.sub(r"\W", "_", name)
    if not text or text[0].isdigit():
        text = "_" + text
    return text


def value_name(node: Node) -> str:
    """A readable, unique name: the user's variable for inputs (``x_3``), else ``t12``."""
    if isinstance(node.attr, InputAttr):
        base = sanitize(node.attr.name)
        if base in _C_RESERVED or keyword.iskeyword(base) or re.fullmatch(r"[ivtnlp]\d+", base):
            base = base + "_"
        return f"{base}_{nid(node)}"
    return f"t{nid(node)}"


def location(node: Node) -> str:
    """A statement's source marker, turned into a quoted source line by
    :func:`astcompile.lower.source_notes.annotate`."""
    return marker(node)


def describe(node: Node) -> str:
    """What a buffer holds, for its comment in generated C: ``0.0 everywhere`` (``np.zeros``),
    ``copy of x_0``, else the op that fills it."""
    src = node.inputs[0] if node.op is Op.COPY else None
    while src is not None and src.op is Op.BROADCAST_TO:
        src = src.inputs[0]
    if src is not None and src.op is Op.CONST and np.ndim(src.attr.value) == 0:
        return f"{src.attr.value} everywhere"
    if src is not None and src.op is Op.CONST:  # ``list(range(256))``: its repr spans lines
        return f"copy of a constant {src.dtype} array of shape {np.shape(src.attr.value)}"
    if src is not None:
        return f"copy of {value_name(src)}"
    return node.op.name.lower()
