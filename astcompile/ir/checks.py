"""Run-time size checks (CHECK effects): when each holds, and NumPy's error when it does not.

A slice with loop-dependent bounds (``x[i:i + k]``) has a length only the running code knows;
where NumPy would check it (broadcasting, a store, ``np.dot``, ``max`` of an empty array) the
graph holds a CHECK node instead of a trace-time guard. Both backends use this one table, so
the eager interpreter and the C code raise the same ValueError.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from astcompile.ir.attrs import SizeCheckKind
from astcompile.ir.ops import NUMPY_CALLS, Op
from astcompile.runtime import fpflags
from astcompile.runtime.user_frames import raise_at

#: kind -> (holds(sizes), C condition format over the sizes' C expressions, status code)
SIZE_CHECKS: dict[SizeCheckKind, tuple[Callable[..., bool], str, int]] = {
    SizeCheckKind.BROADCAST: (
        lambda a, b: a == b or a == 1 or b == 1,
        "{0} == {1} || {0} == 1 || {1} == 1",
        10,
    ),
    SizeCheckKind.STORE: (lambda a, b: a == b or a == 1, "{0} == {1} || {0} == 1", 11),
    SizeCheckKind.EQUAL: (lambda a, b: a == b, "{0} == {1}", 12),
    SizeCheckKind.NONEMPTY: (lambda a: a > 0, "{0} > 0", 13),
    SizeCheckKind.NONEMPTY_MIN: (lambda a: a > 0, "{0} > 0", 14),
    SizeCheckKind.NONEMPTY_ARGMAX: (lambda a: a > 0, "{0} > 0", 15),
    SizeCheckKind.NONEMPTY_ARGMIN: (lambda a: a > 0, "{0} > 0", 16),
}

_MESSAGES = {
    10: "operands could not be broadcast together: sizes {0} and {1}",
    11: "could not broadcast input array from size {0} into size {1}",
    12: "shapes ({0},) and ({1},) not aligned: {0} (dim 0) != {1} (dim 0)",
    13: "zero-size array to reduction operation maximum which has no identity",
    14: "zero-size array to reduction operation minimum which has no identity",
    15: "attempt to get argmax of an empty sequence",
    16: "attempt to get argmin of an empty sequence",
}


def size_check_holds(kind: SizeCheckKind, sizes: Sequence[int]) -> bool:
    return SIZE_CHECKS[kind][0](*sizes)


def size_check_message(kind: SizeCheckKind, sizes: Sequence[int]) -> str:
    return message_for_status(SIZE_CHECKS[kind][2], sizes)


def message_for_status(status: int, sizes: Sequence[int]) -> str | None:
    """The ValueError text for a region's status code (None: not a size check)."""
    text = _MESSAGES.get(status)
    return None if text is None else text.format(*sizes)


class RunPlain(Exception):
    """A failed CHECK that is not the user's error: an assumption the compiled code was traced
    under (a loop runs at least once) does not hold for this call, so the region runs its
    plain statements instead (jit/regions.py catches it)."""


#: Python's IndexError messages for a list's (read, store) or a tuple's items: a failed check
#: of an index into them (``DynIndex.message``) reports ``-1 - position`` in place of the axis,
#: so the check NumPy's message comes from raises Python's at no extra cost.
SEQUENCE_ERRORS = (
    "list index out of range",
    "list assignment index out of range",
    "tuple index out of range",
)


def axis_code(message: str | None, axis: int) -> int:
    """What a failed index check reports as its axis: ``axis``, or the code of ``message``."""
    return axis if message is None else -1 - SEQUENCE_ERRORS.index(message)


def sequence_error(items: Sequence[Any], error: IndexError) -> IndexError:
    """What an index of ``items`` (IndexItems) out of range raises: Python's IndexError where
    they index a list's items, else NumPy's ``error``."""
    message = next((i.start.message for i in items if getattr(i.start, "message", None)), None)
    return error if message is None else IndexError(message)


#: the CHECK exception name of :class:`RunPlain`
RUN_PLAIN = "RunPlain"
#: the CHECK exception name of a check that never fails: its input, a float a loop body makes
#: and nothing reads, is computed for its floating-point flags alone (trace/unread_values.py)
KEEP = "Keep"


def make_error(exception: str, message: str, *values: Any) -> BaseException:
    """The builtin exception a failed CHECK raises (no arguments for a bare ``assert``);
    ``values``: the run-time ints its message names (CheckAttr)."""
    if values:
        message = message.format(*(int(v) for v in values))
    if exception == RUN_PLAIN:
        return RunPlain(message)
    return getattr(builtins, exception)(*((message,) if message else ()))


def raise_error(rc: int, err: Any, checks: tuple = (), sites: tuple = ()) -> None:
    """Raise NumPy's (or Python's) exception for a nonzero status of a structured region
    function, from a frame at the user's line ``sites[err[3]]`` (file, line) when known."""
    exc = error_for(rc, err, checks)
    site = int(err[3]) if sites and len(err) > 3 else -1
    if 0 <= site < len(sites):
        raise_at(exc, *sites[site])
    raise exc


def error_for(rc: int, err: Any, checks: tuple = ()) -> BaseException:
    """The exception for status ``rc``: 1 IndexError (index, axis, size in ``err``), 2 a zero
    ``range`` step, 3 a failed CHECK (``err[0]`` indexes ``checks``), 10-16 the size checks
    above."""
    if rc == 3:  # (exception, message[, the dtypes of the values it names: err[1], err[2]])
        exception, message, *named = checks[int(err[0])]
        kinds = named[0] if named else ()
        values = [np.int64(v).view(kind) for v, kind in zip(err[1:3], kinds)]
        return make_error(exception, message, *values)
    if rc == 1 and err[1] < 0:  # the index of a list's or tuple's items: Python's message
        return IndexError(SEQUENCE_ERRORS[-1 - int(err[1])])
    if rc == 1:
        return IndexError(f"index {err[0]} is out of bounds for axis {err[1]} with size {err[2]}")
    if rc == 2:
        return ValueError("range() arg 3 must not be zero")
    message = message_for_status(rc, [int(v) for v in err[:2]])
    if message is not None:
        return ValueError(message)
    return RuntimeError(f"astcompile: region failed with status {rc}")


#: Reductions whose NumPy code warns by ``warnings.warn`` of too few values, whatever the
#: error state ("Mean of empty slice", "Degrees of freedom <= 0 for slice").
_WARN_FEW = frozenset({Op.MEAN, Op.VAR, Op.STD})


def rerun_where_numpy_warns(node: Any, args: Sequence[Any]) -> None:
    """RunPlain where NumPy's code for ``node`` would warn by ``warnings.warn`` whatever the
    error state (too few values for a reduction; a NumPy function given an empty array) while
    the region's statements may run instead (``fpflags.rerun_instead``: the eager
    interpreter's): they warn once, from the user's line, as the plain code does, with no
    process-wide hold on warnings that another thread's would meet (jit/fp_errors.py)."""
    if not fpflags.rerun_instead():
        return
    if node.op in _WARN_FEW:
        few = math.prod(np.shape(args[0])[a] for a in node.attr.axes) <= node.attr.ddof
    else:
        few = node.op in NUMPY_CALLS and any(np.size(a) == 0 for a in args if np.ndim(a))
    if few:
        raise RunPlain("NumPy warns of this step from its own line")
