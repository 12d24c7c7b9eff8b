"""How a value's axes sit in a kernel's iteration domain (shared by scheduling and codegen).

A kernel iterates over a domain ``D`` (a shape) and may reduce the axes ``A``. Every value it
computes or reads has an *axis map*: for each of the value's axes, the domain axis it follows,
or None when the value is constant along it (a size-1, broadcast axis). Element-level values map
axis ``a`` to ``a``; reduction results map only kept axes (in ``keepdims`` form the reduced axes
are size 1; without it they are gone).
"""

from __future__ import annotations

from collections.abc import Sequence

from astcompile.ir.shapes import Dim

AxisMap = tuple  # tuple[int | None, ...]


def kept_axes(ndim: int, reduce_axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(a for a in range(ndim) if a not in reduce_axes)


def inner_axes(ndim: int, reduce_axes: Sequence[int]) -> tuple[int, ...]:
    """The axes looped inside one row: the reduced axes, or the last axis of an elementwise one."""
    if reduce_axes:
        return tuple(reduce_axes)
    return (ndim - 1,) if ndim else ()


def value_map(
    shape: Sequence[Dim], domain: Sequence[Dim], reduce_axes: Sequence[int]
) -> AxisMap | None:
    """The map of a member value of ``shape``, or None if it does not fit the domain."""
    shape, domain = tuple(shape), tuple(domain)
    if shape == domain:
        return tuple(a if d != 1 else None for a, d in enumerate(domain))
    if not reduce_axes:
        return None
    if len(shape) == len(domain) and all(
        (s == 1) if a in reduce_axes else s == domain[a] for a, s in enumerate(shape)
    ):
        return tuple(None if a in reduce_axes or s == 1 else a for a, s in enumerate(shape))
    kept = kept_axes(len(domain), reduce_axes)
    if shape == tuple(domain[a] for a in kept):
        return tuple(a if s != 1 else None for a, s in zip(kept, shape))
    return None


def operand_map(
    consumer_map: AxisMap, consumer_shape: Sequence[Dim], shape: Sequence[Dim]
) -> AxisMap:
    """The map an operand of ``shape`` needs so NumPy broadcasting into the consumer holds."""
    offset = len(consumer_shape) - len(shape)
    return tuple(None if s == 1 else consumer_map[offset + t] for t, s in enumerate(shape))


def compatible(have: AxisMap, need: AxisMap, shape: Sequence[Dim]) -> bool:
    return all(h == n for h, n, s in zip(have, need, shape) if s != 1)
