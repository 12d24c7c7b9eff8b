"""``np.where(mask)`` / ``np.nonzero(mask)`` used as an index: the mask itself.

The one-argument ``np.where`` returns the indices of the true elements, one integer array per
axis, whose length only the data knows. Code often uses them only to index::

    nonzero = np.where(X > 0.5)
    flags[nonzero] = 1.0               # the same elements as flags[X > 0.5] = 1.0
    idx = np.where(v > 0)[0]; v[idx]    # the same as v[v > 0], for a 1-D v

NumPy visits the selected elements in C order either way, so such an index is the boolean mask
(trace/masks.py). The tuple the trace returns holds :class:`NonzeroAxis` placeholders; any
other use of them (a length, arithmetic, returning them) has no value while tracing and breaks
the trace, so the region runs as written.
"""

from __future__ import annotations

from typing import Any

from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray


def _only_indexing() -> TraceBreak:
    return TraceBreak(
        TraceReason.BOOLEAN_MASK,
        "the indices np.where/np.nonzero return have a data-dependent length; only indexing "
        "with them is compiled",
    )


class NonzeroAxis:
    """Axis ``axis`` of ``np.nonzero(mask)``: usable only inside an index."""

    __slots__ = ("axis", "mask")

    def __init__(self, mask: Any, axis: int) -> None:
        self.mask, self.axis = mask, axis

    def __getattr__(self, name: str) -> Any:
        raise _only_indexing()

    def __len__(self) -> int:
        raise _only_indexing()

    def __iter__(self) -> Any:
        raise _only_indexing()

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise _only_indexing()

    def __repr__(self) -> str:
        return f"NonzeroAxis({self.axis})"


def nonzero(mask: Any) -> tuple[NonzeroAxis, ...]:
    """``np.nonzero(mask)`` while tracing (``mask`` a traced array, cast to bool as NumPy
    does)."""
    if not isinstance(mask, SymArray) or mask.ndim == 0:
        raise TraceBreak(TraceReason.NOT_SUPPORTED, "np.nonzero of a 0-d value runs in NumPy")
    truth = mask if mask.dtype.kind == "b" else mask != 0
    return tuple(NonzeroAxis(truth, axis) for axis in range(truth.ndim))


def as_mask(key: Any) -> Any:
    """The boolean mask ``key`` stands for, when it is ``np.nonzero``'s indices used whole (all
    axes, in order; or axis 0 alone of a 1-D mask); else None."""
    parts = key if isinstance(key, tuple) else (key,)
    if not parts or not all(isinstance(p, NonzeroAxis) for p in parts):
        return None
    mask = parts[0].mask
    whole = [p.axis for p in parts] == list(range(mask.ndim))
    return mask if whole and all(p.mask is mask for p in parts) else None
