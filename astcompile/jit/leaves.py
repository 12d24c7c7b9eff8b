"""What a compiled region call takes and gives: its leaves and its rebuilt results.

The *leaves* of a call are what the graph's INPUT nodes stand for, in the tracer's order: each
array once, the numbers inside tuples and lists, a typed list argument as one array of its
items (runtime/pylists.py). The *results* are the graph's outputs put back into the Python
structure the trace returned (tuples, NumPy or Python scalars, arguments themselves).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir.results import OutSpec, is_leaf
from astcompile.runtime import pylists
from astcompile.runtime import reads as R


def leaves_of(args: tuple) -> list[Any]:
    """Flattened array/scalar leaves, each distinct array once (as the tracer numbered them);
    a typed list argument is one leaf, its items as a new array (runtime/pylists.py)."""
    leaves: list[Any] = []
    seen: set[int] = set()
    lists = pylists.classify(args) if list in map(type, args) else {}
    for i, arg in enumerate(args):
        found = lists.get(i)
        if type(found) is tuple:
            leaves.append(pylists.unbox(arg, found))
        elif found is None:
            _walk(arg, leaves, seen)
    return leaves


def _walk(arg: Any, leaves: list[Any], seen: set[int]) -> None:
    stack = [arg]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is tuple or kind is list:
            stack.extend(reversed(value))
        elif kind is np.ndarray:
            if id(value) not in seen:
                seen.add(id(value))
                leaves.append(value)
        elif is_leaf(value):
            leaves.append(value)


def current_leaves(args: tuple, reads: tuple, root: Any, known: dict | None = None) -> list:
    """The leaves of ``args`` and of the values ``reads`` find now (or ``known`` holds: read
    by the trace), guards unchecked; a read that fails ends the list."""
    leaves, known = leaves_of(args), known or {}
    for read in reads:
        if read.kind is R.ReadKind.INPUT:
            try:
                path = read.path
                leaves.append(known[path] if path in known else R.evaluate(path, args, root))
            except Exception:
                break
    return leaves


def _box(value: Any, box: Any, outputs: list) -> Any:
    if type(box) is tuple and box[0] == "list":  # ("list", length): the first items
        return value[: int(outputs[box[1]])].tolist()
    if type(box) is tuple and box[0] == "items":  # the first items, as NumPy scalars
        return list(value[: int(outputs[box[1]])])
    if type(box) is tuple and box[0] == "optional":  # ("optional", box, flag): None where
        return None if outputs[box[2]] else _box(value, box[1], outputs)  # the flag holds
    if type(box) is tuple:  # ("python", type, flag): a Python number where the flag holds
        return _python(value, box[1], outputs[box[2]])
    if box == "array":
        return value
    if box == "list":
        return value.tolist()
    if box == "items":
        return list(value)
    if box == "scalar":
        return value[()] if isinstance(value, np.ndarray) else value
    if box == "0d":
        return value if isinstance(value, np.ndarray) else np.asarray(value)
    return box(value)


#: ``(outputs, leaves, args) -> result``: the results of one call, put back in their structure
Rebuild = Callable[[list, list, tuple], Any]


def rebuilder(spec: OutSpec | tuple | list) -> Rebuild:
    """How a template puts a call's results back, decided once per entry: a call runs only
    the steps its outputs need (walking the template cost 0.6 us of every call, a fifth of a
    compiled loop's whole call on small arrays). A number the template returns twice
    (``return s, s``: one graph output, see trace/tracer.py) is boxed once, so both places
    hold one object as in plain code."""
    twice = repeated(spec)
    build = _rebuilder(spec, set(twice))
    if not twice:
        return build
    boxes = [(k, _rebuilder(s, set())) for k, s in twice.items()]

    def rebuild(outputs: list, leaves: list, args: tuple) -> Any:
        outputs = list(outputs)
        for k, box in boxes:
            outputs[k] = box(outputs, leaves, args)
        return build(outputs, leaves, args)

    return rebuild


def repeated(spec: OutSpec | tuple | list) -> dict[int, OutSpec]:
    """The graph outputs a template returns in more than one place, by index."""
    seen: dict[int, OutSpec] = {}
    twice: dict[int, OutSpec] = {}
    stack = [spec]
    while stack:
        item = stack.pop()
        if not isinstance(item, OutSpec):
            stack.extend(item)
        elif item.kind == "graph":
            if item.index in seen:
                twice[item.index] = item
            seen[item.index] = item
    return twice


def _rebuilder(spec: OutSpec | tuple | list, boxed: set[int]) -> Rebuild:
    """The steps of :func:`rebuilder`; the graph outputs in ``boxed`` come boxed already."""
    if not isinstance(spec, OutSpec):
        kind, parts = type(spec), [_rebuilder(s, boxed) for s in spec]
        if kind is tuple and len(parts) == 1:
            number = _python_box(spec[0])
            if number is not None and number[0] not in boxed:  # ``return s`` of a loop's
                k, number, flag = number  # number: one frame, not three
                return lambda outputs, leaves, args: (_python(outputs[k], number, outputs[flag]),)
            (one,) = parts
            return lambda outputs, leaves, args: (one(outputs, leaves, args),)
        return lambda outputs, leaves, args: kind([p(outputs, leaves, args) for p in parts])
    k, box, value = spec.index, spec.box, spec.value
    if spec.kind == "arg":
        return lambda outputs, leaves, args: args[k]
    if spec.kind == "leaf":
        return lambda outputs, leaves, args: leaves[k]
    if spec.kind != "graph":
        return lambda outputs, leaves, args: value
    if k in boxed:
        return lambda outputs, leaves, args: outputs[k]
    if type(box) is tuple and box[0] == "python":  # a Python number where the flag holds
        number, flag = box[1], box[2]
        return lambda outputs, leaves, args: _python(outputs[k], number, outputs[flag])
    return lambda outputs, leaves, args: _box(outputs[k], box, outputs)


def _python_box(spec: OutSpec | tuple | list) -> tuple[int, type, int] | None:
    """(output, Python type, flag output) of a graph output boxed as a Python number."""
    if isinstance(spec, OutSpec) and spec.kind == "graph":
        box = spec.box
        if type(box) is tuple and box[0] == "python":
            return spec.index, box[1], box[2]
    return None


def _python(value: Any, number: type, flag: Any) -> Any:
    value = value[()] if isinstance(value, np.ndarray) else value
    return number(value) if flag else value
