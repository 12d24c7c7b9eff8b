"""What a lowered ``for`` iterates: the iterable as Python's iteration protocol gives it.

A lowered loop reads its items by position (frontend/lowering_parts.py: ``v = seq[k]``), which
is Python's iteration only for sequences: arrays, lists, tuples, ranges, strings. Any other
iterable goes through ``__ac_iter`` first, at the point where Python calls ``iter()``::

    for k in weights:            (seq,) = __ac_iter(weights)
        ...                      def __ac_loop_7(__ac_k_7, ...): k = seq[__ac_k_7]; ...

- Run as plain Python (a region that fell back), a non-sequence becomes a :class:`Stream`:
  each position taken is the iterator's next item, and the loop ends when it is exhausted
  (``ac_for`` catches :class:`Exhausted`), so generators, sets, dict views and iterators are
  consumed once, in their own order. In a ``zip`` with one, every iterable is a stream, so
  items are taken in ``zip``'s order and it stops where ``zip`` stops.
- While tracing, a dict gives its keys (a read of the keys in order, compared at every call),
  a dict view or a set of ints its items in iteration order; anything else that is not a
  sequence (a generator or iterator passed in, a set of strings whose order changes between
  processes) is a trace break *before* any item is taken, so the plain run sees it untouched.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from astcompile.trace.context import TraceBreak, is_tracing
from astcompile.trace.lists import SymList
from astcompile.trace.reasons import TraceReason
from astcompile.trace.stand_ins import ObjectRead, ReadOnlyList, target_of
from astcompile.trace.symbolic import SymArray

#: Iterables whose items by position are their iteration order.
_SEQUENCES = (tuple, list, range, str, bytes, np.ndarray, SymArray)
_DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
#: What ``ac_len`` gives for a stream: the loop runs until the stream is exhausted.
UNTIL_EXHAUSTED = sys.maxsize


class Exhausted(Exception):
    """A :class:`Stream` has no next item: the loop taking it ends (as on StopIteration)."""


class Stream:
    """An iterator read by position: position ``k`` is its next item."""

    __slots__ = ("_items",)

    def __init__(self, iterable: Any) -> None:
        self._items = iter(iterable)

    def __getitem__(self, _position: int) -> Any:
        try:
            return next(self._items)
        except StopIteration:
            raise Exhausted from None


def ac_iter(*iterables: Any) -> tuple:
    """``iterables`` (a ``for``'s iterable, or ``zip``'s) as the lowered loop reads them."""
    if is_tracing():
        return tuple(_traced(it) for it in iterables)
    if all(_is_sequence(it) for it in iterables):
        return iterables
    return tuple(Stream(it) for it in iterables)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, np.ndarray) or type(value) in _SEQUENCES


def _traced(value: Any) -> Any:
    if isinstance(value, (SymArray, np.ndarray, SymList)) or type(value) in (
        *_SEQUENCES,
        ReadOnlyList,
    ):
        return value
    if isinstance(value, ObjectRead):
        target = target_of(value)
        if type(target) is dict or isinstance(target, (tuple, list)):
            return tuple(iter(value))  # the keys or items, read in order (stand_ins.py)
    elif isinstance(value, (dict, *_DICT_VIEWS)):  # made by the region: its own order
        return tuple(value)
    elif isinstance(value, (set, frozenset)) and all(type(v) in (int, bool) for v in value):
        return tuple(value)  # ints hash alike in every process: the same order
    raise TraceBreak(
        TraceReason.OBJECT_ITERATION,
        f"a loop over a {type(target_of(value)).__name__}; the region runs as Python",
    )
