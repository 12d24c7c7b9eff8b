"""What a region does when its compiled run raised a floating-point flag (divide by zero,
overflow, underflow, invalid value) that NumPy's error state does not ignore.

Compiled code runs only while every error mode is "ignore" or "warn" (``runtime/errstate.py``);
under "warn", NumPy's default, NumPy would have warned. The exact way to do what NumPy does is
to run the region's own statements: NumPy then warns from the user's line, with its message,
once per ufunc, and a warnings filter that makes RuntimeWarning an error raises it at the op.
That is sound only when the compiled run left nothing a second run would do again: the region
stores into no array the caller can see. A region that does store warns instead, once per kind
of error, naming the first operation in it that can raise that kind (NumPy names the ufunc
that raised it: usually the same one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from astcompile.ir.ops import UFUNC_TO_OP, Op
from astcompile.jit.entries import MISS
from astcompile.runtime import fpflags

if TYPE_CHECKING:
    from astcompile.jit.regions import Region

_UFUNC_NAMES = {op: fn.__name__ for fn, op in UFUNC_TO_OP.items()}

#: error state key -> the operations that raise it, in NumPy's ufunc words (rules as data)
_RAISED_BY = {
    "divide": "TRUEDIV FLOORDIV MOD RECIPROCAL LOG LOG2 LOG10 LOG1P POW ARCTANH",
    "over": "EXP EXP2 EXPM1 POW MUL SQUARE ADD SUB TRUEDIV SINH COSH LOGADDEXP HYPOT",
    "under": "MUL TRUEDIV EXP EXP2 POW SQUARE",
    "invalid": "SQRT LOG LOG2 LOG10 LOG1P ARCSIN ARCCOS ARCCOSH ARCTANH SUB ADD MUL TRUEDIV "
    "FLOORDIV MOD POW SIN COS TAN",
}
RAISED_BY = {kind: tuple(Op[name] for name in ops.split()) for kind, ops in _RAISED_BY.items()}


def guarded(region: Region, args: tuple) -> Any:
    """``region.guards(*args)`` (a compiled run, or MISS), flags checked."""
    fpflags.clear()
    result = region.guards(*args)
    if result is not MISS and fpflags.raised():
        return after_compiled(region, args, result)
    return result


def run_entry(region: Region, entry: Any, leaves: list, args: tuple) -> tuple:
    """A compiled call of ``entry`` through the region's generic path, flags checked."""
    region.stats.compiled_calls += 1
    fpflags.clear()
    result = entry(leaves, args)
    return after_compiled(region, args, result) if fpflags.raised() else result


def after_compiled(region: Region, args: tuple, result: Any) -> Any:
    """``result`` of a compiled run that raised floating-point flags, or what NumPy's errstate
    makes of them: the region's statements run as written, or warnings."""
    modes = np.geterr()
    loud = [kind for kind in fpflags.kinds(fpflags.raised()) if modes[kind] != "ignore"]
    if not loud or region.owner.target_name() != "c":  # eager, Triton: NumPy's ops warned
        return result
    entries = [entry for group in region.entries.values() for entry in group]
    if all(_repeatable(entry) for entry in entries):
        return region.run_body(args)
    from astcompile.stages import warn_user

    for kind in loud:
        warn_user(f"{fpflags.WORDS[kind]} encountered in {_raiser(entries, kind)}")
    return result


def _repeatable(entry: Any) -> bool:
    """Whether a second run of the region's statements after ``entry``'s repeats nothing."""
    from astcompile.trace.loop_starts import stores_nothing_seen

    return not entry.written and stores_nothing_seen(entry.result.graph.effects)


def _raiser(entries: list, kind: str) -> str:
    """NumPy's name for the first operation in the region that can raise ``kind``."""
    ops = RAISED_BY[kind]
    for entry in entries:
        for node in entry.result.graph.nodes():
            if node.op in ops:
                return _UFUNC_NAMES.get(node.op, node.op.name.lower())
    return "compiled code"
