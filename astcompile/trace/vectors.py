"""``np.dot``/``np.vdot`` of two vectors as ``sum(a * b)``: a reduction both backends fuse.

Inside a loop an extern BLAS call would send the whole region to the eager interpreter in C,
and with a slice whose bounds change per iteration (``np.dot(w, x[i:i + k])``) the lengths are
only known at run time; the decomposed form is compiled in both cases. NumPy's rule that the
lengths match exactly (no broadcasting) is a trace-time guard, or a run-time CHECK for such
slices. Only dtypes whose ``sum`` keeps the dot's dtype are decomposed (float, complex, 64-bit
integers); others stay an extern call.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.graph import SizeCheckKind
from astcompile.ir.ops import Op
from astcompile.trace.context import current
from astcompile.trace.symbolic import apply_elementwise

_KEEPS_DTYPE = frozenset("fc")


def _vector_length(value: Any) -> S.Dim | None:
    shape = value.node.shape if hasattr(value, "node") else np.shape(value)
    return shape[0] if len(shape) == 1 else None


def inner_product(a: Any, b: Any, in_loop_only: bool = False) -> Any:
    """``sum(a * b)`` for 1-D ``a`` and ``b``, or None where the extern call should stay."""
    n, m = _vector_length(a), _vector_length(b)
    if n is None or m is None:
        return None
    runtime = S.is_runtime(n) or S.is_runtime(m)
    if in_loop_only and not runtime and len(current().effect_frames) == 1:
        return None
    dtype = np.result_type(
        getattr(a, "dtype", None) or np.asarray(a).dtype,
        getattr(b, "dtype", None) or np.asarray(b).dtype,
    )
    if dtype.kind not in _KEEPS_DTYPE and dtype not in (np.int64, np.uint64):
        return None
    env = current().env
    if runtime and n != m:
        env.check(SizeCheckKind.EQUAL, n, m)
    elif not (n == m or env.is_eq(n, m)):
        raise ValueError(
            f"shapes ({S.hint(n)},) and ({S.hint(m)},) not aligned: "
            f"{S.hint(n)} (dim 0) != {S.hint(m)} (dim 0)"
        )
    return apply_elementwise(Op.MUL, a, b).sum()
