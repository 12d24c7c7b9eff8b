"""How many times a lowered ``for`` runs, and whether the tracer unrolls it.

``__ac_len(seq, ...)`` gives the trip count of ``for x in seq`` / ``zip(...)``: an array's
first dimension stays symbolic, a Python tuple or list gives its length. A loop unrolls (its
body traced once per iteration, each seeing concrete values) only for a tiny constant trip
count, or for a short Python sequence (``for dy in (-1, 0, 1)``), whose items a traced index
could not pick: each copy of the body sees the item itself (a constant roll shift, an axis, a
function).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from astcompile.ir.ops import Op
from astcompile.trace import nodes as B
from astcompile.trace.iteration import UNTIL_EXHAUSTED, Stream
from astcompile.trace.lists import SymList
from astcompile.trace.symbolic import SymArray, SymInt, SymScalar, operand

UNROLL_LIMIT = 4
#: A loop over a Python tuple or list of at most this many items unrolls.
SEQUENCE_UNROLL_LIMIT = 8


def ac_len(*sequences: Any) -> Any:
    """How many times ``zip(*sequences)`` iterates: an array's first dimension stays
    symbolic (no guard on its size); several lengths give their minimum."""
    lengths = [_length(s) for s in sequences]
    result = lengths[0]
    for other in lengths[1:]:
        result = _min_length(result, other)
    return result


class _SequenceLength(int):
    """The length of a Python tuple or list a loop iterates: such a loop unrolls up to
    SEQUENCE_UNROLL_LIMIT items (a traced index could not pick an item of a Python tuple)."""


def _length(sequence: Any) -> Any:
    if isinstance(sequence, (SymArray, np.ndarray)):
        if sequence.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return sequence.shape[0]
    if isinstance(sequence, (tuple, list)):
        return _SequenceLength(len(sequence))
    if type(sequence) is SymList:  # a typed list: its length stays symbolic
        return sequence.length()
    if isinstance(sequence, Stream):  # plain Python over an iterator (trace/iteration.py)
        return UNTIL_EXHAUSTED
    return len(sequence)


def _min_length(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    if isinstance(a, SymInt) and isinstance(b, SymInt) and a.dim == b.dim:
        return a
    node = B.elementwise(Op.MINIMUM, [operand(a), operand(b)])
    return SymScalar(node, min(_hint(a), _hint(b)), "the length of a zip")


def _hint(value: Any) -> int:
    return value if isinstance(value, int) else value.hint


def unrolls(bounds: Sequence[Any]) -> bool:
    """A constant trip count of at most UNROLL_LIMIT, or a short Python sequence's length."""
    if not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in bounds):
        return False
    limit = SEQUENCE_UNROLL_LIMIT if isinstance(bounds[-1], _SequenceLength) else UNROLL_LIMIT
    return len(range(*bounds)) <= limit
