"""Comparing a compiled run with a plain run: copies of the inputs, tolerances, differences.

``config.verify`` and the repro scripts it writes use these. The rules are NumPy's own contract
as the differential tests state it: the same Python type, dtype and shape; integer and bool
values exact; floating values within a tolerance set by the precision involved, with NaN equal
to NaN and infinities exact.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

#: Relative tolerance by the size in bytes of one real component (float16, 32, 64; complex
#: parts). Compiled code sums in another order than NumPy and calls libm instead of NumPy's
#: SIMD loops: a few units in the last place, times the length of a reduction.
RTOL_BY_ITEMSIZE = {2: 1e-3, 4: 1e-5, 8: 1e-12}


def rtol_of(dtype: np.dtype) -> float:
    """0 for exact kinds (bool, integers), else the tolerance of the dtype's real component."""
    if dtype.kind not in "fc":
        return 0.0
    real = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
    return RTOL_BY_ITEMSIZE.get(real, 1e-12)


def input_floor(values: Any) -> float:
    """The tolerance the inputs allow: float32 inputs make float64 results carry float32
    rounding (NumPy itself computes ``np.exp(x_f32)`` in float32 before promoting)."""
    return max((rtol_of(a.dtype) for a in arrays_in(values)), default=0.0)


def arrays_in(values: Any) -> list[Any]:
    """Every ndarray and NumPy scalar in nested tuples, lists and dicts, in order."""
    if isinstance(values, (np.ndarray, np.generic)):
        return [values]
    if isinstance(values, dict):
        values = list(values.values())
    if isinstance(values, (tuple, list)):
        return [a for v in values for a in arrays_in(v)]
    return []


def copy_args(args: tuple) -> tuple:
    """A deep copy that keeps views as views: arrays sharing a base are copied through one copy
    of that base, so a write through ``y = x[1:]`` still shows in ``x``'s copy."""
    memo: dict[int, Any] = {}
    return _copy(args, memo)


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, np.ndarray):
        return _copy_array(value, memo)
    if type(value) in (tuple, list):
        return type(value)(_copy(v, memo) for v in value)
    if isinstance(value, dict):
        return {k: _copy(v, memo) for k, v in value.items()}
    return copy.deepcopy(value, memo)


def _copy_array(a: np.ndarray, memo: dict[int, Any]) -> np.ndarray:
    if id(a) not in memo:
        fresh = memo[id(a)] = _fresh_array(a, memo)
        if not a.flags.writeable:
            fresh.flags.writeable = False  # a write must fail in both runs
    return memo[id(a)]


def _fresh_array(a: np.ndarray, memo: dict[int, Any]) -> np.ndarray:
    """A copy of ``a``; a view of a contiguous base is a view of that base's one copy."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    contiguous = root.flags.c_contiguous or root.flags.f_contiguous
    if root is a or not contiguous or a.dtype.hasobject or type(a) is not np.ndarray:
        return copy.deepcopy(a)
    if id(root) not in memo:
        memo[id(root)] = root.copy(order="K")
    memory = memo[id(root)].ravel(order="K").view(np.uint8)
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(a.shape, a.dtype, buffer=memory, offset=offset, strides=a.strides)


def differences(got: Any, expected: Any, path: str = "result", floor: float = 0.0) -> list[str]:
    """What differs between ``got`` (compiled) and ``expected`` (plain), one line per thing;
    empty when they agree. ``floor`` raises every float tolerance (see :func:`input_floor`)."""
    if type(got) is not type(expected):
        return [f"{path}: type {type(got).__name__} != {type(expected).__name__}"]
    if isinstance(expected, (tuple, list)):
        if len(got) != len(expected):
            return [f"{path}: length {len(got)} != {len(expected)}"]
        return [
            d
            for i, (g, e) in enumerate(zip(got, expected))
            for d in differences(g, e, f"{path}[{i}]", floor)
        ]
    if isinstance(expected, (np.ndarray, np.generic)):
        return _array_differences(np.asarray(got), np.asarray(expected), path, floor)
    if isinstance(expected, (float, complex)):
        return _array_differences(np.asarray(got), np.asarray(expected), path, floor)
    if isinstance(expected, (bool, int, str, bytes, type(None))) and got != expected:
        return [f"{path}: {got!r} != {expected!r}"]
    return []  # other objects: the type is all two runs can be held to


def memory_order(a: np.ndarray) -> str:
    """``C``, ``F``, ``C and F`` (one axis longer than 1) or ``strided``: what NumPy's
    ``flags`` say, and what a later reshape (a view or a copy), ``.T`` or ``ravel`` follow."""
    flags = a.flags
    found = [name for name, held in (("C", flags.c_contiguous), ("F", flags.f_contiguous)) if held]
    return " and ".join(found) or "strided"


def _array_differences(got: np.ndarray, expected: np.ndarray, path: str, floor: float) -> list[str]:
    if got.dtype != expected.dtype:
        return [f"{path}: dtype {got.dtype} != {expected.dtype}"]
    if got.shape != expected.shape:
        return [f"{path}: shape {got.shape} != {expected.shape}"]
    if memory_order(got) != memory_order(expected):
        return [f"{path}: memory order {memory_order(got)} != {memory_order(expected)}"]
    rtol = rtol_of(expected.dtype)
    if rtol == 0.0:
        bad = got != expected
    else:
        rtol = max(rtol, floor)
        finite = np.abs(expected[np.isfinite(expected)])
        atol = rtol * max(1.0, float(finite.max()) if finite.size else 1.0)
        bad = ~np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    if not np.any(bad):
        return []
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    g, e = got[where], expected[where]
    tolerance = "exact" if rtol == 0.0 else f"rtol {rtol:g}"
    count = int(np.count_nonzero(bad))
    return [
        (
            f"{path}: {count} of {expected.size} element(s) differ ({tolerance}); "
            f"first at index {where}: compiled {g}, plain {e}"
        )
    ]


def call_differences(
    got: Any, expected: Any, args: tuple, plain_args: tuple, params: tuple[str, ...], floor: float
) -> list[str]:
    """What differs between a compiled and a plain call: the results, then each argument as
    the call left it (a write into an argument must be the same write)."""
    problems = differences(got, expected, "result", floor)
    for name, after, plain_after in zip(params, args, plain_args):
        problems += differences(after, plain_after, f"argument {name!r} after the call", floor)
    return problems
