"""``out=`` arguments of ufuncs (``np.add(a, b, out=c)``, ``np.exp(x, out=x)``) as stores.

NumPy picks the ufunc's loop with the output's dtype in view and refuses an output it cannot
reach with ``same_kind`` casting; ``ufunc.resolve_dtypes`` answers both questions with NumPy's
own code and raises NumPy's own ``UFuncTypeError`` (the region then falls back and NumPy raises
it again). The result is then stored into ``out`` (``out[...] = result``, a STORE that writes
through to the caller's array or the view passed), and the call returns ``out``, as NumPy does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, operand


def _unsupported(detail: str) -> TraceBreak:
    return TraceBreak(TraceReason.NOT_SUPPORTED, detail)


def ufunc_into(ufunc: np.ufunc, compute: Callable[[], Any], inputs: tuple, out: Any) -> Any:
    """``ufunc(*inputs, out=out)`` where ``compute()`` traces ``ufunc(*inputs)``."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise _unsupported(f"np.{ufunc.__name__} with several outputs")
        out = out[0]
    if not isinstance(out, SymArray) or out.is_scalar:
        raise _unsupported(f"np.{ufunc.__name__} with out= that is not an array of the region")
    operands = [operand(v) for v in inputs]
    signature = tuple(type(o.example) if o.weak else o.node.dtype for o in operands)
    loop = ufunc.resolve_dtypes((*signature, out.dtype), casting="same_kind")
    result = compute()
    if result.dtype != loop[-1]:
        raise _unsupported(f"np.{ufunc.__name__} whose loop changes with the out= dtype")
    out[...] = result
    return out
