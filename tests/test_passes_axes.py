"""Axis maps: how a value's axes sit in a kernel's iteration domain (scheduling and codegen
both read them, so a wrong map is a wrong loop index)."""

from __future__ import annotations

import pytest

from astcompile.ir.shapes import symbol
from astcompile.passes.axes import (
    compatible,
    inner_axes,
    kept_axes,
    operand_map,
    value_map,
)

N, M = symbol("n", 5, (0, 0)), symbol("m", 7, (0, 1))


def test_kept_and_inner_axes():
    assert kept_axes(3, (1,)) == (0, 2)
    assert inner_axes(3, (0, 2)) == (0, 2)  # a reduction loops over its reduced axes
    assert inner_axes(3, ()) == (2,)  # an elementwise kernel over its last axis
    assert inner_axes(0, ()) == ()


@pytest.mark.parametrize(
    ("shape", "domain", "reduce", "expected"),
    [
        ((N, M), (N, M), (), (0, 1)),  # an element of the domain
        ((N, 1), (N, 1), (), (0, None)),  # a size-1 axis is constant along it
        ((N, 1), (N, M), (1,), (0, None)),  # keepdims result of a reduction over axis 1
        ((N,), (N, M), (1,), (0,)),  # the same without keepdims
        ((M,), (N, M), (0,), (1,)),  # a reduction over the leading axis
        ((M,), (N, M), (), None),  # another shape in an elementwise kernel: not a member
        ((N, 2), (N, M), (1,), None),
    ],
)
def test_value_map(shape, domain, reduce, expected):
    assert value_map(shape, domain, reduce) == expected


def test_operand_map_follows_numpy_broadcasting_from_the_right():
    consumer = (0, 1)
    assert operand_map(consumer, (N, M), (M,)) == (1,)  # a row broadcast down the rows
    assert operand_map(consumer, (N, M), (N, 1)) == (0, None)  # a column across the columns
    assert operand_map(consumer, (N, M), ()) == ()


def test_compatible_ignores_size_one_axes():
    assert compatible((0, 1), (0, 1), (N, M))
    assert not compatible((1, 0), (0, 1), (N, M))  # a transposed read: another loop index
    assert compatible((0, None), (0, 1), (N, 1))
