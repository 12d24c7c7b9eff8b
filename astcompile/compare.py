"""The one comparator: a compiled run against a plain run, for ``config.verify``, the repro
scripts it writes, the differential tests (tests/differential.py) and the program corpus
(bench/programs/_compare.py).

The rules are NumPy's own contract: the same Python type (tuple, list, dict, ndarray, NumPy
scalar, Python scalar), dtype and shape; bool, integer and string values exact; floating values
within one tolerance by dtype, NaN equal to NaN, infinities exact, a zero's sign kept; other
functions by their code; other objects by their own ``==``; the same exception type.
"""

from __future__ import annotations

import copy
import copyreg
import re
import types
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.array_utils import byte_bounds

#: ``(rtol, atol)`` by the dtype of the plain value, the one tolerance table: the least any
#: float result is held to. Compiled code calls libm/libmvec instead of NumPy's SIMD loops (a
#: few units in the last place, <= 4 in float32) and adds in another order (:data:`PER_TERM`,
#: which takes over past about 170 float32 or 9,000 float64 terms). Exact kinds (bool,
#: integers, strings, objects) compare with ``==``.
TOLERANCE: dict[np.dtype, tuple[float, float]] = {
    np.dtype(np.float32): (1e-5, 1e-5),
    np.dtype(np.float64): (1e-12, 1e-12),
    np.dtype(np.complex64): (1e-5, 1e-5),
    np.dtype(np.complex128): (1e-12, 1e-12),
}

#: What the tolerance grows by per term of a sum or scan, in units of the dtype's epsilon.
#: Compiled code adds in another order than NumPy (blocked or sequential where NumPy's ``sum``
#: is pairwise, a tree where ``cumsum`` is sequential). A sequential sum of ``n`` terms is off
#: by up to ``(n - 1) * eps / 2`` of the terms' magnitudes, a tree's by ``log2(n) * eps / 2``:
#: two orders differ by about ``n * eps / 2`` at most. Past the table for a long enough scan (a
#: float32 ``cumsum`` of 0.1s drifts by ``0.09 * n * eps``, normal values by up to ``0.33 * n *
#: eps``: rounding does not average out), below it for a short one.
PER_TERM = 0.5

#: An int argument up to this is a count (a trip count, a length ``np.ones(n)`` makes) and may
#: be the length of a sum; a larger one is a value (a seed, a bit mask), not a length.
LONGEST_COUNT = 1 << 24


class Allowance(NamedTuple):
    """What the inputs allow beyond the result dtype's own tolerance: the tolerance of their
    float dtypes (a float32 input rounds a float64 result at float32's) and ``terms``, the
    length of the longest sum or scan they can feed (:func:`terms_in`)."""

    rtol: float
    atol: float
    terms: int = 1


EXACT = Allowance(0.0, 0.0)


def tolerance(dtype: np.dtype, terms: int = 1) -> tuple[float, float]:
    """``(rtol, atol)`` for values of ``dtype`` summed or scanned over up to ``terms`` items:
    the table's entry, or ``PER_TERM * eps * terms`` where that is larger. An inexact dtype
    not in the table (float16, longdouble) is held to float64's: the compiled code gives
    NumPy's float16 results."""
    if dtype.kind not in "fc":
        return EXACT[:2]
    rtol, atol = TOLERANCE.get(dtype, TOLERANCE[np.dtype(np.float64)])
    grown = PER_TERM * float(np.finfo(dtype).eps) * terms
    return max(rtol, grown), max(atol, grown)


def input_floor(values: Any) -> Allowance:
    """The allowance the inputs give: float32 inputs make float64 results carry float32
    rounding (NumPy itself computes ``np.exp(x_f32)`` in float32 before promoting), and the
    longest sum or scan they can feed widens every float tolerance."""
    terms = terms_in(values)
    found = [tolerance(np.asarray(a).dtype, terms) for a in arrays_in(values)]
    rtol = max((r for r, _ in found), default=0.0)
    return Allowance(rtol, max((a for _, a in found), default=0.0), terms)


def terms_in(values: Any) -> int:
    """How many terms a sum or scan over ``values`` can have: the size of the largest array,
    the length of the longest list or tuple, or the largest int up to :data:`LONGEST_COUNT`
    (``for i in range(n)``, ``np.ones(n).cumsum()``); at least 1."""
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        return abs(int(values)) if 0 < abs(int(values)) <= LONGEST_COUNT else 1
    if isinstance(values, (np.ndarray, np.generic)):
        return max(values.size, 1)
    if isinstance(values, dict):
        values = list(values.values())
    if isinstance(values, (tuple, list)):
        return max([1, len(values), *(terms_in(v) for v in values)])
    return 1


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
    if _special(type(value), "__getattr__") and id(value) not in memo:
        return _copy_by_class(value, memo)
    return copy.deepcopy(value, memo)


def _copy_by_class(value: Any, memo: dict[int, Any]) -> Any:
    """``copy.deepcopy(value)`` for an object whose class has ``__getattr__``, with the copy
    protocol's methods looked up on the class, as Python looks up its own: deepcopy's
    ``getattr(x, "__deepcopy__")`` ran the user's ``__getattr__`` once per copy more than the
    program does (verify mode: a counter it keeps went up), and ``hasattr(y, "__setstate__")``
    on the bare copy ran it before the copy had any state (where it recursed). Objects reduced
    another way than ``copyreg.__newobj__`` with a state go to deepcopy."""
    cls = type(value)
    reductor = copyreg.dispatch_table.get(cls)
    if _special(cls, "__deepcopy__") or reductor is not None:
        return copy.deepcopy(value, memo)
    reduced = value.__reduce_ex__(4)
    if not (type(reduced) is tuple and reduced[0] is copyreg.__newobj__ and len(reduced) >= 3):
        return copy.deepcopy(value, memo)
    if any(item is not None for item in reduced[3:]):
        return copy.deepcopy(value, memo)
    made = memo[id(value)] = cls.__new__(cls, *copy.deepcopy(reduced[1][1:], memo))
    state = copy.deepcopy(reduced[2], memo)
    if state is None:
        return made
    if _special(cls, "__setstate__"):
        cls.__setstate__(made, state)
        return made
    own, slots = state if type(state) is tuple and len(state) == 2 else (state, None)
    if own:  # a class with ``__slots__`` only has no ``__dict__``
        made.__dict__.update(own)
    for name, slot_value in (slots or {}).items():
        setattr(made, name, slot_value)
    return made


def _special(cls: type, name: str) -> bool:
    """Whether ``cls`` has the method ``name`` as Python looks up its own: in the classes of
    its MRO, never asking a metaclass's ``__getattr__`` (an Enum class's); a class itself is
    copied as deepcopy copies it (it is atomic), not through its metaclass."""
    return not issubclass(cls, type) and any(name in vars(k) for k in cls.__mro__)


def _copy_array(a: np.ndarray, memo: dict[int, Any]) -> np.ndarray:
    if id(a) not in memo:
        fresh = memo[id(a)] = _fresh_array(a, memo)
        if not a.flags.writeable:
            fresh.flags.writeable = False  # a write must fail in both runs
    return memo[id(a)]


def _fresh_array(a: np.ndarray, memo: dict[int, Any]) -> np.ndarray:
    """A copy of ``a`` keeping its layout: a view (a step, F order, a negative or zero stride)
    is the same view of one copy of the buffer it views (``copy.deepcopy`` would make it a new
    C-contiguous array, and a broadcast argument a writable one)."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.base is not None or a.dtype.hasobject or type(a) is not np.ndarray:
        return copy.deepcopy(a)  # memory NumPy does not own (a memory map, bytes): a copy
    if a.size == 0:  # nothing to share, and its offset may lie past an empty buffer's end
        return a.copy(order="K")
    if id(root) not in memo:
        memo[id(root)] = _same_layout(root, memo)
    buffer, low = memo[("bytes", id(root))]
    offset = a.__array_interface__["data"][0] - low
    return np.ndarray(a.shape, a.dtype, buffer.data, offset, a.strides)


def _same_layout(root: np.ndarray, memo: dict) -> np.ndarray:
    """A copy of ``root`` with its strides (an array NumPy made in a permuted order,
    ``np.where`` of an F-ordered argument, has no contiguous buffer for views to be made of),
    over a byte buffer kept in ``memo`` for the views of it."""
    low, high = byte_bounds(root)
    buffer = np.empty(high - low, np.uint8)
    memo[("bytes", id(root))] = (buffer, low)
    start = root.__array_interface__["data"][0] - low
    fresh = np.ndarray(root.shape, root.dtype, buffer.data, start, root.strides)
    np.copyto(fresh, root)
    return fresh


def differences(
    got: Any, expected: Any, path: str = "result", floor: Allowance | None = EXACT
) -> list[str]:
    """What differs between ``got`` (compiled) and ``expected`` (plain), one line per thing;
    empty when they agree. ``floor`` raises every float tolerance and says how many terms a
    sum may have had (see :func:`input_floor`); ``floor=None`` compares floats exactly too
    (NaN still equal to NaN)."""
    if type(got) is not type(expected):
        return [f"{path}: type {type(got).__name__} != {type(expected).__name__}"]
    if isinstance(expected, (tuple, list)):
        if len(got) != len(expected):
            return [f"{path}: length {len(got)} != {len(expected)}"]
        pairs = [(f"{path}[{i}]", g, e) for i, (g, e) in enumerate(zip(got, expected))]
    elif isinstance(expected, dict):
        if list(got) != list(expected):
            return [f"{path}: keys {list(got)} != {list(expected)}"]
        pairs = [(f"{path}[{k!r}]", got[k], e) for k, e in expected.items()]
    elif isinstance(expected, (np.ndarray, np.generic, float, complex)):
        return _array_differences(np.asarray(got), np.asarray(expected), path, floor)
    elif isinstance(expected, types.FunctionType):  # one from each of two copies of a module
        pairs = [(f"{path} code", _code(got), _code(expected))]
    elif type(expected).__eq__ is object.__eq__:
        return []  # an object without its own ``==``: the type is all two runs can be held to
    else:
        same = _equal(got, expected)
        if same is not None:
            return [] if same else [f"{path}: {got!r} != {expected!r}"]
        if not (hasattr(got, "__dict__") and hasattr(expected, "__dict__")):
            return []
        pairs = [(f"{path}.__dict__", vars(got), vars(expected))]
    return [d for where, g, e in pairs for d in differences(g, e, where, floor)]


def _equal(got: Any, expected: Any) -> bool | None:
    """``got == expected`` as a bool, or None where their own ``==`` cannot say: a dataclass
    holding arrays compares tuples of them, whose truth value raises."""
    try:
        return bool(got == expected)
    except Exception:  # noqa: BLE001 - whatever the user's __eq__ (or __bool__) raises
        return None


def _code(fn: types.FunctionType) -> tuple:
    return fn.__qualname__, fn.__code__.co_code, fn.__code__.co_consts


def memory_order(a: np.ndarray) -> str:
    """``C``, ``F``, ``C and F`` (one axis longer than 1) or ``strided``: what NumPy's
    ``flags`` say, and what a later reshape (a view or a copy), ``.T`` or ``ravel`` follow."""
    flags = a.flags
    found = [name for name, held in (("C", flags.c_contiguous), ("F", flags.f_contiguous)) if held]
    return " and ".join(found) or "strided"


def _array_differences(
    got: np.ndarray, expected: np.ndarray, path: str, floor: Allowance | None
) -> list[str]:
    if got.dtype != expected.dtype:
        return [f"{path}: dtype {got.dtype} != {expected.dtype}"]
    if got.shape != expected.shape:
        return [f"{path}: shape {got.shape} != {expected.shape}"]
    if memory_order(got) != memory_order(expected):
        return [f"{path}: memory order {memory_order(got)} != {memory_order(expected)}"]
    rtol, atol = EXACT[:2] if floor is None else tolerance(expected.dtype, floor.terms)
    if expected.dtype.kind not in "fc":
        bad = got != expected
    else:
        if floor is not None:
            rtol, atol = max(rtol, floor.rtol), max(atol, floor.atol)
        bad = _far(got.real, expected.real, rtol, atol) | _far(got.imag, expected.imag, rtol, atol)
    if not np.any(bad):
        return []
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    g, e = got[where], expected[where]
    within = "exact" if rtol == atol == 0.0 else f"rtol {rtol:g}, atol {atol:g}"
    count = int(np.count_nonzero(bad))
    first = f"first at index {where}: compiled {g}, plain {e}"
    return [f"{path}: {count} of {expected.size} element(s) differ ({within}); {first}"]


def _far(got: np.ndarray, expected: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Where real values differ: beyond the tolerance, or zeros of other signs (``1 / x`` tells
    ``-0.0`` from ``0.0``). Complex values compare part by part (``nan+1j`` is not ``1+nanj``)."""
    bad = ~np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    return bad | ((got == 0) & (expected == 0) & (np.signbit(got) != np.signbit(expected)))


#: Messages compiled code gives word for word where NumPy's reads so (others compare by type
#: only: a message may word the same error otherwise): NEP 50's
#: ``Python integer 300 out of bounds for int8``, and the conversion to a C long before it;
#: Python's for a list or tuple indexed out of range (compiled, its items are an array:
#: NumPy's message would name an axis).
SAME_MESSAGE = {
    OverflowError: re.compile(
        r"Python integer -?\d+ out of bounds for \w+|Python int too large to convert to C long"
    ),
    IndexError: re.compile(r"(list|list assignment|tuple) index out of range"),
}


def exception_differences(got: BaseException | None, expected: BaseException | None) -> list[str]:
    """What differs between what the compiled and the plain run raised (``None``: nothing): the
    type, and the message where :data:`SAME_MESSAGE` names it (the compiled message may add the
    user's line as a note on a line of its own)."""
    if type(got) is not type(expected):
        return [f"raised {describe(got)}, plain {describe(expected)}"]
    pattern = SAME_MESSAGE.get(type(expected))
    if pattern and pattern.fullmatch(str(expected)) and _first_line(got) != str(expected):
        return [f"raised {describe(got)}, plain {describe(expected)}"]
    return []


def _first_line(exc: BaseException | None) -> str:
    return str(exc).split("\n", 1)[0]


def describe(exc: BaseException | None) -> str:
    """An exception's type and the first line of its message, or "nothing"."""
    if exc is None:
        return "nothing"
    text = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}"


def call_differences(
    got: Any,
    expected: Any,
    args: tuple,
    plain_args: tuple,
    params: tuple[str, ...],
    floor: Allowance,
) -> list[str]:
    """What differs between a compiled and a plain call: the results, then each argument as
    the call left it (a write into an argument must be the same write)."""
    problems = differences(got, expected, "result", floor)
    for name, after, plain_after in zip(params, args, plain_args):
        problems += differences(after, plain_after, f"argument {name!r} after the call", floor)
    return problems
