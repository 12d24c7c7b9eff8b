"""What a trace leaves behind for the run time: the graph's output template and value guards.

Kept apart from the tracer (trace/tracer.py) so that a process loading compiled entries from the
warm cache unpickles these without importing the tracer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from astcompile.ir.graph import Graph

LEAF_TYPES = (np.ndarray, np.generic, int, float, complex)


def is_leaf(value: Any) -> bool:
    return isinstance(value, LEAF_TYPES) and not isinstance(value, bool)


@dataclass(frozen=True)
class OutSpec:
    """How one output of the region is produced at run time.

    ``kind`` is "graph" (graph output ``index``, boxed by ``box``: "array", "scalar" for a NumPy
    scalar, "0d" for a 0-d array, a Python type, or ``("python", type, flag)``: a NumPy scalar
    that is the Python number where graph output ``flag`` holds, see trace/unions.py), "leaf" (argument leaf ``index`` returned as the same object) or
    "const" (``value`` itself).
    """

    kind: str
    index: int = 0
    box: Any = "array"
    value: Any = None


@dataclass
class TraceResult:
    graph: Graph
    template: Any  # the output structure with OutSpec leaves
    value_guards: list[tuple[int, Any]] = field(default_factory=list)
    leaf_names: list[str] = field(default_factory=list)
    reads: tuple = ()  # runtime.reads.Read: what the region read besides its arguments
