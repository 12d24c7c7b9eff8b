"""``out=`` arguments of ufuncs: the argument is written as NumPy writes it, and returned."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same
from test_masks import assert_compiled_same

import astcompile


def add_into(a, b, c):
    r = np.add(a, b, out=c)
    return r, c.sum()


def exp_in_place(x):
    np.exp(x, out=x)
    return x


def shifted_multiply(a):
    np.multiply(a[:-1], 2, out=a[1:])  # overlapping: NumPy computes as if from a copy
    return a


def narrow_loop(a, b, c):
    np.add(a, b, out=c)  # int8 + int8 is computed in int8 (wrapping), then widened
    return c


def in_a_loop(u, steps):
    for _ in range(steps):
        np.multiply(u, 0.5, out=u)
        np.add(u, 1.0, out=u)
    return u


PROGRAMS = [
    (add_into, lambda: (np.arange(5.0), np.ones(5), np.zeros(5))),
    (exp_in_place, lambda: (np.linspace(-1, 1, 7),)),
    (shifted_multiply, lambda: (np.arange(6.0),)),
    (
        narrow_loop,
        lambda: (np.array([100, 50], np.int8), np.array([100, 1], np.int8), np.zeros(2, np.int64)),
    ),
    (in_a_loop, lambda: (np.arange(6.0), 7)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_out_programs_compile_and_match_numpy(caplog, fn, make_args, backend):
    assert_compiled_same(caplog, fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_is_returned_and_written(backend):
    def scale(a, c):
        return np.multiply(a, 3, out=c)

    a, c = np.arange(4.0), np.zeros(4)
    got = astcompile.compile(scale, backend=backend)(a, c)
    assert got is c
    np.testing.assert_array_equal(c, [0.0, 3.0, 6.0, 9.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unsafe_output_cast_raises_numpys_type_error(backend):
    with pytest.raises(TypeError) as expected:
        exp_in_place(np.arange(3))
    with pytest.raises(TypeError) as got:
        astcompile.compile(exp_in_place, backend=backend)(np.arange(3))
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_non_broadcastable_output_raises_value_error(backend):
    def bad(a, c):
        return np.add(a, 1, out=c)

    with pytest.raises(ValueError):
        astcompile.compile(bad, backend=backend)(np.ones((2, 3)), np.zeros(3))
    assert_same(bad, np.ones(3), np.zeros((2, 3)), backend=backend)
