"""Hypothesis strategies for the generated iteration programs of tests/test_reads_generated.py
(the module layout of tests/generated_holders.py): a loop (``for``, ``enumerate``, ``zip``,
``items``, ``reversed``, ``list``, a generator expression) over a dict, a view, a set, a
frozenset or a generator held in an argument, a global or an attribute, or made anew for each
call; between calls the dict behind it is changed in place or the container rebound."""

from __future__ import annotations

from dataclasses import dataclass

from generated_holders import indent
from hypothesis import strategies as st

#: How f loops over ``c`` (each key ``k`` reaches x's rows through ``I``, so int and str keys
#: both index).
LOOPS = {
    "for": "for k in c:\n    acc = acc * 2.0 + x[I[k]]",
    "enumerate": "for n, k in enumerate(c):\n    acc = acc * 2.0 + n * x[I[k]]",
    "zip": "for k, row in zip(c, x):\n    acc = acc * 2.0 + I[k] * row",
    "items": "for k, v in c.items():\n    acc = acc * 2.0 + x[I[k]] * I[v]",
    "reversed": "for k in reversed(c):\n    acc = acc * 2.0 + x[I[k]]",  # sets raise
    "list of": "for k in list(c):\n    acc = acc * 2.0 + x[I[k]]",
    "sum": "acc = acc + sum(x[I[k]] * 2.0 for k in c)",
}
#: What ``c`` is, made from the dict ``D``.
CONTAINERS = {
    "dict": "D",
    "keys": "D.keys()",
    "values": "D.values()",
    "items of": "D",  # iterated by the "items" loop
    "set": "set(D)",
    "frozenset": "frozenset(D)",
    "generator": "(k for k in D)",
}
#: Where f finds ``c``: (f's parameters, its first line, the arguments ``args()`` passes).
PLACES = {
    "argument": ("x, c", "", "C"),
    "global": ("x", "c = C", ""),
    "attribute": ("x, h", "c = h.c", "h"),
    "made per call": ("x, c", "", "{make}"),
}
KEYS = st.lists(st.sampled_from([0, 1, 2, 3, "a", "b"]), max_size=4, unique=True)
_INDEX = "I = {0: 0, 1: 1, 2: 2, 3: 3, 'a': 1, 'b': 3}"


@dataclass(frozen=True)
class Loop:
    """An iteration program: the loop, the container, where f finds it, the dicts in turn and
    whether a change rebinds the container (or only changes ``D`` in place)."""

    loop: str
    container: str
    place: str
    dicts: tuple[str, ...]
    rebind: bool

    def source(self) -> str:
        params, first, extra = PLACES[self.place]
        made = CONTAINERS[self.container]
        body = f"{first}\nacc = np.zeros(x.shape[1])\n{LOOPS[self.loop]}\nreturn acc"
        rebind = f"C = {made}" if self.rebind else "pass"
        return (
            f"import numpy as np\n\n{_INDEX}\nD = {self.dicts[0]}\nC = {made}\n\n\n"
            "class H:\n    pass\n\n\nh = H()\nh.c = C\n\n\n"
            f"def f({params}):\n{indent(body, 4)}\n\n\n"
            "def setter(new):\n    global C\n    D.clear()\n    D.update(new)\n"
            f"    {rebind}\n    h.c = C\n\n\n"
            f"def args():\n    return (np.arange(12.0).reshape(4, 3), {extra.format(make=made)})\n"
        )


@st.composite
def loops(draw) -> Loop:
    loop = draw(st.sampled_from(sorted(LOOPS)))
    items = ["items of"] if loop == "items" else sorted(set(CONTAINERS) - {"items of"})
    container = draw(st.sampled_from(items))
    keys = draw(st.lists(KEYS, min_size=2, max_size=4))
    values = st.sampled_from([0, 1, 2, 3, "a", "b"])
    dicts = tuple(repr({k: draw(values) for k in ks}) for ks in keys)
    place = draw(st.sampled_from(sorted(PLACES)))
    return Loop(loop, container, place, dicts, draw(st.booleans()))
