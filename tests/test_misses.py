"""Recompile reasons (``jit/misses.py``): the log names what differs from the closest entry, the
one with the fewest failing guards, in the user's words; one test per kind of guard."""

from __future__ import annotations

import contextlib
import logging
import warnings

import numpy as np
import pytest

import astcompile

X = np.ones(4)


@pytest.fixture
def reasons(caplog: pytest.LogCaptureFixture):
    """The reasons the recompiles log gave, in order (``name: recompiling region: reason``)."""
    caplog.set_level(logging.INFO, logger="astcompile.recompiles")

    def logged() -> list[str]:
        return [
            r.getMessage().split(": ", 2)[2]
            for r in caplog.records
            if r.name == "astcompile.recompiles" and ": recompiling " in r.getMessage()
        ]

    return logged


def test_a_changed_flag_is_named_though_another_argument_changed_before(reasons):
    """Entries for mode 'a' then 'b'; flag=True with mode 'a': the closest entry is the first
    (only ``flag`` differs), not the newest (``flag`` and ``mode`` differ)."""

    @astcompile.compile(backend="c")
    def f(x, flag, mode):
        y = x * 2
        if flag:
            y = y + 1
        if mode == "a":
            y = y - 3
        return y

    for flag, mode in ((False, "a"), (False, "b"), (True, "a")):
        np.testing.assert_array_equal(f(X, flag, mode), f.fn(X, flag, mode))
    assert reasons() == ["mode: 'a' → 'b'", "flag: False → True"]


def test_an_attribute_read_names_its_dtype_change(reasons):
    class Layer:
        def __init__(self) -> None:
            self.w = np.ones(4)

        @astcompile.compile(backend="c")
        def forward(self, x):
            return x * self.w

    layer = Layer()
    layer.forward(X)
    layer.w = layer.w.astype(np.float32)
    np.testing.assert_array_equal(layer.forward(X), X * layer.w)
    assert reasons() == ["self.w: dtype float64 → float32"]


@pytest.mark.parametrize(
    ("second", "reason"),
    [
        ((np.ones(4, np.float32), X), "a: dtype float64 → float32"),
        ((np.ones((4, 4)), X), "a: ndim 1 → 2"),
        ((X, np.ones(1)), "b: shape (s1,) → (1,)"),
        ((X, np.ones(5)), "b: shape (s1,) → (s2,)"),
        ((np.ones((4, 4)).T[0], X), "a: layout C-contiguous → strided"),
        ((X, 2.0), "b: ndarray[float64, (s1,), C-contiguous] → float"),
        ((X, X), "aliasing: distinct arrays → b is a"),
    ],
)
def test_an_argument_names_how_its_key_changed(reasons, second, reason):
    @astcompile.compile(backend="c")
    def add(a, b):
        return a + b

    add(X, X + 1)
    with contextlib.suppress(ValueError):  # sizes 4 and 5 do not broadcast, as in NumPy
        add(*second)
    assert reasons() == [reason]


def test_a_specialised_scalar_names_its_old_and_new_value(reasons):
    @astcompile.compile(backend="c")
    def scale(x, k):
        if k + 0 > 1:  # a comparison of a value computed from k: guarded by k itself
            return x * 2.0
        return x * 3.0

    scale(X, 2)
    np.testing.assert_array_equal(scale(X, 0), X * 3.0)
    assert reasons() == ["k: 2 → 0"]


def test_a_compared_scalar_names_the_comparison(reasons):
    """``if k > 1`` guards the comparison's outcome: another k on the same side is no miss."""

    @astcompile.compile(backend="c")
    def scale(x, k):
        if k > 1:
            return x * 2.0
        return x * 3.0

    scale(X, 2)
    np.testing.assert_array_equal(scale(X, 5), X * 2.0)
    np.testing.assert_array_equal(scale(X, 0), X * 3.0)
    assert reasons() == ["k > 1: True → False (k = 0)"]


def test_a_specialised_size_names_the_size(reasons):
    @astcompile.compile(backend="c")
    def every_half(x):
        return x[:: x.shape[0] // 2] * 2

    every_half(np.arange(6.0))
    np.testing.assert_array_equal(every_half(np.arange(8.0)), np.arange(8.0)[::4] * 2)
    assert reasons() == ["x.shape[0] // 2: 3 → 4"]


WEIGHTS = np.ones(4)


def test_a_global_names_its_change(reasons, monkeypatch):
    import test_misses

    @astcompile.compile(backend="c")
    def weigh(x):
        return x * WEIGHTS

    weigh(X)
    monkeypatch.setattr(test_misses, "WEIGHTS", np.ones(4, np.int32))
    np.testing.assert_array_equal(weigh(X), X)
    assert reasons() == ["WEIGHTS: dtype float64 → int32"]


def test_a_closure_cell_names_its_change(reasons):
    def make():
        c = np.ones(4)

        @astcompile.compile(backend="c")
        def shifted(x):
            return x + c

        def set_c(value):
            nonlocal c
            c = value

        return shifted, set_c

    shifted, set_c = make()
    shifted(X)
    set_c(np.ones((2, 4)))
    np.testing.assert_array_equal(shifted(X), X + np.ones((2, 4)))
    assert reasons() == ["c: ndim 1 → 2"]


def test_a_read_by_value_and_by_identity_name_their_change(reasons):
    class Block:
        def __init__(self) -> None:
            self.act = np.tanh
            self.mode = "shift"

        @astcompile.compile(backend="c")
        def forward(self, x):
            y = self.act(x)
            if self.mode == "shift":
                y = y + 1
            return y

    block = Block()
    block.forward(X)
    block.act = np.sin
    block.forward(X)
    block.mode = "none"
    np.testing.assert_array_equal(block.forward(X), np.sin(X))
    assert reasons() == ["self.act: ufunc tanh → ufunc sin", "self.mode: 'shift' → 'none'"]


def test_an_item_of_a_tuple_is_named_by_its_index(reasons):
    @astcompile.compile(backend="c")
    def total(pair):
        return pair[0] + pair[1]

    total((X, X + 1))
    total((X, X.astype(np.float32)))
    total((X, X))
    assert reasons() == [
        "pair: [1] dtype float64 → float32",
        "aliasing: distinct arrays → pair[1] is pair[0]",
    ]


def test_the_cache_limit_warning_names_the_closest_entrys_change(monkeypatch):
    monkeypatch.setattr(astcompile.config, "cache_size_limit", 2)

    @astcompile.compile(backend="eager")
    def inc(x, flag):
        return x + 1 if flag else x - 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for x, flag in ((X, True), (X.astype(np.float32), True), (X, False)):
            np.testing.assert_array_equal(inc(x, flag), inc.fn(x, flag))
    (limit,) = [w for w in caught if "cache_size_limit" in str(w.message)]
    assert "last guard failure: flag: True → False." in str(limit.message)


def edit_table(a, b):
    """A DP table over two strings: ``a[i - 1]`` of a string needs ``i``'s value, so the loops
    run in Python and their body is a region called with the loop variables."""
    dp = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[len(a)][len(b)]


def test_a_value_needed_on_each_iteration_of_a_python_loop_is_not_specialised(reasons):
    """A region in a loop that runs in Python, specialised on the loop variable, compiled once
    per iteration up to the cache limit (then every call bound each entry: 2000x plain); at
    the first change its statements go back into the loop, as written, with no region call."""
    compiled = astcompile.compile(edit_table, backend="c")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cache_size_limit warning
        for a, b in [("ACGTTGCA", "TGCATGCA"), ("GATTACA", "TACGAT"), ("ACGT", "TTGA")]:
            assert compiled(a, b) == edit_table(a, b)
    assert reasons() == ["j: 1 → 2"]
    assert "            if a[i - 1] == b[j - 1]:" in compiled.rewritten_source
