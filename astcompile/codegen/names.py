"""C identifiers for graph values, named after the user's variables where we know them."""

from __future__ import annotations

import keyword
import re

from astcompile.graph.ir import InputAttr, Node

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
        return f"{base}_{node.id}"
    return f"t{node.id}"


def location(node: Node) -> str:
    return f"  // {node.loc}" if node.loc else ""
