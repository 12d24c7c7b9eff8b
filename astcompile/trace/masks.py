"""Boolean-mask indexing (``Z[I] = Z[I] ** 2 + C[I]``) as whole-array ``where`` stores.

``Z[I]`` with a boolean array ``I`` has a length only the data knows, so it cannot be a node.
It is a :class:`MaskedValue` instead: the full array ``Z`` tagged with the mask ``I``.
Elementwise arithmetic among selections of one mask, with scalars, and with arrays that
broadcast against the selection's trailing axes stays a MaskedValue, computed over every
element. Storing it back through the same mask writes only the selected elements::

    Z[I] = Z[I] ** 2 + C[I]        # Z[...] = where(I, Z ** 2 + C, Z)
    N[I] = n                       # N[...] = where(I, n, N)
    s = x[I].sum()                 # s = sum(where(I, x, 0))

so both backends see ordinary WHERE and STORE nodes (one fused loop in C). Unselected elements
are computed too and discarded; native backends never trap on them (integer division by zero,
float->int casts of NaN have defined results). Any other use of a selection (returning it,
its shape, a different mask, a function outside this table) breaks the trace.
"""

from __future__ import annotations

import operator as _op
from collections.abc import Callable
from typing import Any

import numpy as np

from astcompile.ir import shapes as S
from astcompile.ir.ops import Op
from astcompile.trace import handlers, numpy_bind
from astcompile.trace import nodes as B
from astcompile.trace.context import TraceBreak, current
from astcompile.trace.nonzero import as_mask
from astcompile.trace.reasons import TraceReason
from astcompile.trace.symbolic import SymArray, operand, wrap


def _break(detail: str) -> TraceBreak:
    return TraceBreak(TraceReason.BOOLEAN_MASK, detail)


def mask_of(key: Any) -> Any:
    """The boolean array ``key`` indexes with (``x[I]``, ``x[I,]``), else None."""
    found = as_mask(key)  # np.where(mask)'s indices: the mask itself
    if found is not None:
        return found
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if isinstance(key, SymArray) and key.dtype == np.bool_ and key.ndim:
        return key
    if type(key) is np.ndarray and key.dtype == np.bool_ and key.ndim:
        return wrap(operand(key).node)
    return None


def _check_shape(array: Any, mask: Any) -> None:
    """NumPy's IndexError when the mask does not match the array's leading axes."""
    if mask.ndim > array.ndim:
        raise IndexError(
            f"too many indices for array: array is {array.ndim}-dimensional, "
            f"but {mask.ndim} were indexed"
        )
    env = current().env
    for axis, (have, want) in enumerate(zip(array.node.shape, mask.node.shape)):
        if not (have == want or env.is_eq(have, want)):
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis}; "
                f"size of axis is {S.hint(have)} but size of corresponding "
                f"boolean axis is {S.hint(want)}"
            )


class MaskedValue:
    """``full[mask]`` without its data-dependent shape: ``full`` has the mask's shape on its
    leading axes, plus ``rest``."""

    __array_priority__ = 2000

    def __init__(self, full: Any, mask: Any) -> None:
        self.full = full
        self.mask = mask

    @property
    def rest(self) -> tuple:
        return self.full.node.shape[self.mask.ndim :]

    @property
    def dtype(self) -> np.dtype:
        return self.full.dtype

    @property
    def ndim(self) -> int:
        return 1 + len(self.rest)

    def __repr__(self) -> str:
        return f"MaskedValue({self.full!r}[{self.mask!r}])"

    # -- uses that need the selection's length break the trace ------------------------------
    def _needs_length(self, *_: Any, **__: Any) -> Any:
        raise _break(
            "a boolean-mask selection has a data-dependent length; only elementwise "
            "arithmetic, a store through the same mask and .sum() are compiled"
        )

    __bool__ = __len__ = __iter__ = __array__ = __getitem__ = __setitem__ = _needs_length
    __float__ = __int__ = __index__ = __complex__ = _needs_length

    @property
    def shape(self) -> Any:
        return self._needs_length()

    size = shape

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        method = METHODS.get(name)
        if method is None:
            return self._needs_length()
        return lambda *args, **kwargs: numpy_bind.call_method(name, method, self, args, kwargs)

    # -- NumPy protocols ----------------------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return masked_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Callable, types: Any, args: Any, kwargs: Any) -> Any:
        handler = FUNCTIONS.get(func)
        if handler is None:
            return self._needs_length()
        return numpy_bind.call_function(func, handler, args, kwargs)


def _operand_full(value: Any, mask: Any, rest: tuple) -> Any:
    """What ``value`` contributes to an elementwise op over ``full``: its own full array, or a
    value that broadcasts against the selection without knowing its length."""
    if isinstance(value, MaskedValue):
        if not same_mask(value.mask.node, mask.node):
            raise _break("selections through different masks are combined")
        if value.rest != rest:
            raise _break("selections with different trailing shapes are combined")
        return value.full
    shape = np.shape(value) if not hasattr(value, "node") else value.node.shape
    if len(shape) <= len(rest):
        return value
    if len(shape) == len(rest) + 1 and shape[0] == 1:
        return value[0]
    raise _break(
        "an array combined with a boolean-mask selection must broadcast against its "
        "trailing axes (its length is only known at run time)"
    )


def same_mask(a: Any, b: Any) -> bool:
    """Whether two mask nodes hold the same values: the same node, or the same expression
    written twice (``x[x > 0] = 1.0 / x[x > 0]``) with no store traced in between (a store
    could change what the second one reads)."""
    if a is b:
        return True
    lo, hi = sorted((a.id, b.id))
    stored = any(lo < e.id < hi for frame in current().effect_frames for e in frame)
    return not stored and _same_expression(a, b)


def _same_expression(a: Any, b: Any) -> bool:
    if a is b:
        return True
    if a.op is not b.op or a.dtype != b.dtype or a.shape != b.shape or a.op is Op.INPUT:
        return False
    if a.op is Op.CONST:
        return np.array_equal(a.attr.value, b.attr.value) and type(a.attr) is type(b.attr)
    if a.attr != b.attr or len(a.inputs) != len(b.inputs):
        return False
    return all(_same_expression(x, y) for x, y in zip(a.inputs, b.inputs))


def _first_mask(values: Any) -> Any:
    return next(v for v in values if isinstance(v, MaskedValue))


def combine(fn: Callable, *values: Any) -> MaskedValue:
    """``fn(*values)`` where some are selections: computed on full arrays, same mask."""
    first = _first_mask(values)
    fulls = [_operand_full(v, first.mask, first.rest) for v in values]
    result = fn(*fulls)
    if result is NotImplemented:
        return result
    if result.node.shape[: first.mask.ndim] != first.mask.node.shape:
        raise _break("an operand of a boolean-mask selection changes its leading shape")
    return MaskedValue(result, first.mask)


def masked_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    if method != "__call__" or kwargs:
        raise _break(f"np.{ufunc.__name__}.{method} with {', '.join(kwargs)} on a selection")
    return combine(lambda *fulls: ufunc(*fulls), *inputs)


def _operator(fn: Callable, reflected: bool = False) -> Callable:
    def method(self: MaskedValue, other: Any) -> Any:
        return combine(lambda a, b: fn(b, a) if reflected else fn(a, b), self, other)

    return method


#: The arithmetic and bitwise operators a masked selection takes, plain, reflected and in place.
_ARITHMETIC = (
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "and",
    "or",
    "xor",
    "lshift",
    "rshift",
)
for _name in _ARITHMETIC:
    _fn = getattr(_op, f"{_name}_" if _name in ("and", "or") else _name)
    setattr(MaskedValue, f"__{_name}__", _operator(_fn))
    setattr(MaskedValue, f"__r{_name}__", _operator(_fn, reflected=True))


def _inplace(fn: Callable) -> Callable:
    """``x[mask] += v`` adds into the selection (a copy) in place, so NumPy's ``same_kind``
    rule applies before the store (``uint8 += int8`` raises): NumPy raises it, we fall back."""

    def method(self: MaskedValue, other: Any) -> Any:
        result = combine(fn, self, other)
        if result is not NotImplemented and not np.can_cast(result.dtype, self.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc output from {result.dtype} to {self.dtype}")
        return result

    return method


for _name in _ARITHMETIC:
    _fn = getattr(_op, f"{_name}_" if _name in ("and", "or") else _name)
    setattr(MaskedValue, f"__i{_name}__", _inplace(_fn))
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(MaskedValue, f"__{_name}__", _operator(getattr(_op, _name)))


def _unary(fn: Callable) -> Callable:
    return lambda self: combine(fn, self)


for _name in ("neg", "pos", "abs", "invert"):
    setattr(MaskedValue, f"__{_name}__", _unary(getattr(_op, _name)))
MaskedValue.__hash__ = None  # type: ignore[assignment]


def masked_read(array: Any, mask: Any) -> MaskedValue:
    """``array[mask]``, kept as the full array tagged with the mask."""
    _check_shape(array, mask)
    return MaskedValue(array, mask)


def _expanded(mask: Any, ndim: int) -> Any:
    """The mask with trailing new axes, so it broadcasts against arrays of ``ndim`` axes."""
    extra = ndim - mask.ndim
    return mask[(Ellipsis,) + (None,) * extra] if extra else mask


def masked_store(array: Any, mask: Any, value: Any) -> None:
    """``array[mask] = value`` as ``array[...] = where(mask, value, array)``."""
    _check_shape(array, mask)
    handlers.check_scalar_store(value, array.dtype, basic=False)
    rest = array.node.shape[mask.ndim :]
    new = _operand_full(value, mask, rest)
    source = operand(new)
    if source.node.dtype.kind == "c" and array.dtype.kind != "c":
        raise TraceBreak(
            TraceReason.COMPLEX_TO_REAL_STORE, "NumPy warns and drops the imaginary part"
        )
    cast = B.cast(
        source, array.dtype
    )  # unsafe, as NumPy's handlers.setitem; never round-trips `array`
    picked = B.elementwise(
        Op.WHERE,
        [
            operand(_expanded(mask, array.ndim)),
            B.Operand(cast, False, np.ones((), array.dtype)),
            operand(array),
        ],
    )
    handlers.setitem(array, Ellipsis, wrap(picked))


def _plain_reduction(what: str, axis: Any, dtype: Any, out: Any, keepdims: Any) -> None:
    if (
        axis is not None
        or dtype is not None
        or out is not None
        or keepdims not in (False, np._NoValue)
    ):
        raise _break(f"{what} of a selection with axis=/dtype=/out=/keepdims=")


def _picked(selection: MaskedValue, dtype: np.dtype) -> Any:
    full = selection.full
    return np.where(_expanded(selection.mask, full.ndim), full.astype(dtype), dtype.type(0))


def _sum(
    a: MaskedValue, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = False
) -> Any:
    """``x[I].sum()``: ``sum(where(I, x, 0))`` (other axes or options break)."""
    _plain_reduction("sum", axis, dtype, out, keepdims)
    return _picked(a, a.full.dtype).sum()


def _mean(
    a: MaskedValue, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = False
) -> Any:
    """``x[I].mean()``: ``sum(where(I, x, 0)) / count(I)``, in NumPy's dtypes: integers and
    bools average in float64, floats and complex keep their type. An empty selection gives
    NaN, as NumPy does (without its RuntimeWarning)."""
    _plain_reduction("mean", axis, dtype, out, keepdims)
    full = a.full
    work = full.dtype if full.dtype.kind in "fc" else np.dtype(np.float64)
    count = a.mask.sum() * int(np.prod(full.shape[a.mask.ndim :]))
    return (_picked(a, work).sum() / count).astype(work)


METHODS: dict[str, Callable] = {"sum": _sum, "mean": _mean}
FUNCTIONS: dict[Callable, Callable] = {np.sum: _sum, np.mean: _mean}
