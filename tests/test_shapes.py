"""Symbolic sizes: slice extents equal Python's for every size consistent with the guards."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS
from hypothesis import given
from hypothesis import strategies as st
from test_masks import assert_compiled_same

from astcompile.ir import shapes as S

bounds = st.one_of(st.none(), st.integers(-12, 12))


@given(
    start=bounds,
    stop=bounds,
    step=st.one_of(st.none(), st.integers(-4, 4).filter(bool)),
    n=st.integers(2, 12),
    m=st.integers(2, 12),
)
def test_slice_extent_is_exact_wherever_guards_hold(start, stop, step, n, m):
    env = S.ShapeEnv()
    size = S.symbol("n", n, (0, 0))
    s = slice(start, stop, step)
    first, length = S.slice_extent(env, s, size)
    assert (S.hint(first) if S.hint(length) else None, S.hint(length)) == (
        (range(n)[s].start if len(range(n)[s]) else None),
        len(range(n)[s]),
    )
    if all(g.holds([(m,)]) for g in env.guards):
        expected = range(m)[s]
        got_len = S.evaluate(length, [(m,)])
        assert got_len == len(expected)
        if got_len:
            assert S.evaluate(first, [(m,)]) == expected.start


def test_broadcast_mismatch_raises_value_error():
    env = S.ShapeEnv()
    with pytest.raises(ValueError):
        S.broadcast_dims(env, S.symbol("a", 3, (0, 0)), S.symbol("b", 4, (1, 0)))


def test_broadcast_of_equal_expressions_records_a_guard():
    env = S.ShapeEnv()
    a = S.dim_sub(S.symbol("a", 5, (0, 0)), 1)
    b = S.symbol("b", 4, (1, 0))
    assert S.broadcast_dims(env, a, b) == a
    assert [str(g) for g in env.guards] == ["(a - 1) == b"]


def test_folding_keeps_expressions_short():
    n = S.symbol("n", 9, (0, 0))
    assert S.dim_add(S.dim_sub(n, 1), 1) == n
    assert S.dim_mul(n, 1) == n and S.dim_add(n, 0) == n
    assert str(S.dim_floordiv(S.dim_add(n, 1), 2)) == "((n + 1) // 2)"


def test_one_size_has_one_spelling():
    """``x[:-2]`` is ``n + -2`` long and ``x[2:]`` ``n - 2``: spelled apart, the two slices of a
    stencil had shapes the scheduler could not match, and it split one kernel into four."""
    n = S.symbol("n", 9, (0, 0))
    assert S.dim_add(n, -2) == S.dim_sub(n, 2) and str(S.dim_add(n, -2)) == "(n - 2)"
    assert S.dim_sub(n, -2) == S.dim_add(n, 2)
    assert S.dim_add(3, n) == S.dim_add(n, 3)
    assert S.dim_add(S.dim_add(n, -3), 1) == S.dim_sub(n, 2)


def test_last_element_slice_is_one_long_and_broadcasts():
    """``w[:, -1:]`` is ``n - (n - 1)`` long: 1, so it broadcasts against any size (a bridge
    ``w - t[None, :] * w[:, -1:]`` failed to trace with "sizes 500 and 1")."""
    env = S.ShapeEnv()
    n = S.symbol("n", 9, (0, 0))
    _, length = S.slice_extent(env, slice(-1, None), n)
    assert length == 1
    assert S.dim_sub(S.dim_add(n, 3), S.dim_sub(n, 2)) == 5
    m = S.symbol("m", 500, (1, 0))
    assert S.broadcast_dims(env, m, length) == m


def last_column_scaled(w, t):
    return w - (t / t[-1])[None, :] * w[:, -1:]


@pytest.mark.parametrize("backend", BACKENDS)
def test_last_column_broadcast_compiles(caplog, backend):
    rng = np.random.default_rng(2)
    assert_compiled_same(
        caplog, last_column_scaled, rng.random((6, 9)), rng.random(9) + 1, backend=backend
    )
