"""Python ints as sums of traced ints, so that ``range(i, j)`` is known to run.

Interval bounds (trace/int_bounds.py) lose what two values share: with ``i`` in ``range(n)``
and ``j = i + length - 1``, ``j - i`` lies anywhere in the intervals' difference, though it is
``length - 1``. Each ``+``/``-`` of Python ints records its result as a *sum*: a constant plus
traced ints (its *atoms*, by node) times coefficients. The difference of two sums cancels the
atoms they share, and the bounds of the atoms left give the smallest value it can have::

    for length in range(2, n + 1):             # length >= 2
        for i in range(n - length + 1):
            j = i + length - 1                 # sum: i + length - 1
            for k in range(i, j):              # j - i = length - 1 >= 1: it runs

trace/loop_starts.py asks this where interval bounds cannot say whether a loop runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from astcompile.ir.ops import Op
from astcompile.trace.symbolic import SymScalar

#: a constant, and {atom's node id: (coefficient, the atom)}
Sum = tuple[int, dict[int, tuple[int, Any]]]


def sum_of(value: Any) -> Sum | None:
    """``value`` as a sum: a constant, a recorded sum, or a traced int on its own."""
    if type(value) in (int, bool):
        return int(value), {}
    recorded = getattr(value, "int_sum", None)
    if recorded is not None:
        return recorded
    if isinstance(value, SymScalar) and type(value.hint) is int:
        return 0, {value.node.id: (1, value)}
    return None


def record(op: Op, a: Any, b: Any, result: SymScalar) -> None:
    """Give ``result = a op b`` (Python ints, computed exactly) its sum, for ``+`` and ``-``."""
    if op not in (Op.ADD, Op.SUB):
        return
    left, right = sum_of(a), sum_of(b)
    if left is not None and right is not None:
        result.int_sum = combine(left, right, 1 if op is Op.ADD else -1)


def combine(left: Sum, right: Sum, sign: int) -> Sum:
    """``left + sign * right``, without the atoms that cancel."""
    atoms = dict(left[1])
    for key, (coefficient, atom) in right[1].items():
        total = atoms.get(key, (0, atom))[0] + sign * coefficient
        if total:
            atoms[key] = (total, atom)
        else:
            atoms.pop(key, None)
    return left[0] + sign * right[0], atoms


def lowest_difference(high: Any, low: Any, bounds_of: Callable[[Any], tuple]) -> int | None:
    """The smallest ``high - low`` can be, by their sums (None where either has none)."""
    a, b = sum_of(high), sum_of(low)
    if a is None or b is None:
        return None
    constant, atoms = combine(a, b, -1)
    for coefficient, atom in atoms.values():
        lo, hi = bounds_of(atom)
        constant += coefficient * (lo if coefficient > 0 else hi)
    return constant
