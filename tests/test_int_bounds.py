"""Python ints are exact in compiled code (trace/int_bounds.py, trace/int_counters.py): what
Python grows past int64 comes out as Python's int, NumPy ints still wrap as NumPy's do, and
index arithmetic and counters carry no checks. Programs as people write them: factorials,
binomials, Fibonacci numbers, bit tricks, counters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls
from test_loop_control import fibonacci

import astcompile
from bench.programs.insertion_sort import insertion_sort
from bench.programs.merge_sorted import merge_sorted


def factorial(n):
    r = 1
    for i in range(2, n + 1):
        r *= i
    return r


def binomial(n, k):
    r = 1
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


def mask_of(n):
    m = 0
    for i in range(n):
        m |= 1 << i
    return m


def collatz_peak(n):
    peak = n
    while n != 1:
        n = 3 * n + 1 if n % 2 else n // 2
        peak = max(peak, n)
    return peak


def negated(n, steps):
    for _ in range(steps):
        n = -n - 1
    return abs(n)


def scaled_by_thirds(x, k):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * (k / 3)
    return out


def hashed(x, seed):
    h = seed
    total = 0.0
    for i in range(x.shape[0]):
        h = h * 1103515245 + 12345
        total += x[i] * (h % 1000)
    return total


def table(x):
    out = np.zeros_like(x)
    r = 1
    for i in range(x.shape[0]):
        r *= i + 1
        out[i] = r % 1000003
    return out


def squared_while_small(n, a):
    for _ in range(n):
        a = a**2 if a < 1e100 else a
    return a


def numpy_wraps(x):
    r = np.int64(1)
    for i in range(1, x.shape[0] + 1):
        r = r * np.int64(i)
    return r


def truncated(x):
    total = 0
    for i in range(x.shape[0]):
        total += int(x[i] * 1e20)
    return total


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls",
    [
        (factorial, [(5,), (20,), (21,), (25,), (30,), (3,)]),
        (binomial, [(10, 3), (70, 35), (100, 50), (8, 4)]),
        (fibonacci, [(10,), (92,), (93,), (150,)]),
        (mask_of, [(10,), (63,), (64,), (100,)]),
        (collatz_peak, [(27,), (2**60 + 1,), (7,)]),
        (negated, [(5, 3), (-(2**63), 2), (-(2**63), 1), (2**62, 1)]),
        # the check of a ** 2 counted its root up from 1 (3e9 steps): the trace hung
        (squared_while_small, [(3, 2), (6, 2), (8, 3), (3, -5)]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_python_ints_grow_as_in_python(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)


def size_times_big(x):
    n = x.shape[0]
    return x.sum() + n * 10**18 * 10, n * 2**40 * 2**30, x.sum() + (n + 2**62 + 2**62)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_size_times_a_big_int_is_a_python_int(backend):
    """``n * 10**18 * 10`` of a size n was a size expression in int64: OverflowError (C) where
    Python's int is exact; with a large constant it is a Python int of the exact kind."""
    assert_same_calls(
        size_times_big, [(np.ones(3),), (np.ones(20),), (np.ones(2),)], backend=backend
    )


def size_powers(x, y):
    n = len(x)
    flat = x.reshape(x.shape[0] * x.shape[1] * x.shape[2])  # one array's axes: a size
    return flat.sum() + n * n * n * n, n * n * y.shape[0] * y.shape[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_product_of_sizes_that_may_outgrow_int64_is_exact(backend):
    """``n * n * n * n`` of a size was a size expression: OverflowError at n = 70,000 (C)."""
    small, big = np.ones((3, 2, 2)), np.ones((70_000, 1, 1))
    calls = [(small, np.ones(2)), (big, np.ones(70_000)), (small, np.ones(5))]
    assert_same_calls(size_powers, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_int_argument_past_64_bits_runs_as_python(backend):
    """An int past 64 bits made an object-dtype input the eager target cast to int64."""
    x = np.ones(3)
    assert_same_calls(scaled_by_thirds, [(x, 7), (x, 10**30), (x, -(10**25))], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_true_division_is_correctly_rounded(backend):
    x = np.ones(3)
    calls = [(x, 7), (x, 2**60 + 32), (x, -(2**62) + 3), (x, 2**53 + 1)]
    assert_same_calls(scaled_by_thirds, calls, backend=backend)
    k = 2**60 + 32  # converted to float first, then divided, it rounds twice: one ulp off
    assert (k / 3) != float(k) / 3
    compiled = astcompile.compile(scaled_by_thirds, backend=backend)
    assert [compiled(x, v)[0] for _, v in calls] == [v / 3 for _, v in calls]  # bit for bit


@pytest.mark.parametrize("backend", BACKENDS)
def test_ints_outgrowing_int64_in_loops_that_store(backend):
    x = np.arange(1.0, 41.0)
    assert_same(table, x, backend=backend)  # stores into its own array, overflows, reruns
    assert_same_calls(hashed, [(x, 1), (x, 2**40)], backend=backend)
    assert_same(truncated, np.array([0.5, 3.0, -7.25]), backend=backend)


def binned(values, lo, hi, bins):
    counts = np.zeros(bins, dtype=np.int64)
    width = (hi - lo) / bins
    for v in values:
        k = int((v - lo) / width)
        if 0 <= k < bins:
            counts[k] += 1
    return counts


def binned_into(values, width, counts):
    for v in values:
        k = int(v / width)
        if 0 <= k < counts.shape[0]:
            counts[k] += 1
    return counts


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_storing_into_its_own_array_reruns_when_an_int_outgrows_int64(backend):
    """``int(v / width)`` may be a Python int past int64: then the region's statements run
    from the start, which is allowed where the loop stores only into an array the region
    made (``counts``): nobody saw it, and the rerun makes a new one."""
    x = np.random.default_rng(2).normal(size=200)
    outlier, nan = x.copy(), x.copy()
    outlier[150], nan[150] = 1e300, np.nan
    calls = [(x, -3.0, 3.0, 12), (outlier, -3.0, 3.0, 12), (nan, -3.0, 3.0, 12)]
    assert_same_calls(binned, calls, backend=backend)
    assert (
        astcompile.explain(astcompile.compile(binned, backend=backend), *calls[0]).graph_break_count
        == 0
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_storing_into_an_argument_still_runs_as_python(backend):
    x = np.random.default_rng(2).normal(size=50)
    x[30] = 1e300
    assert_same(binned_into, x, 0.5, np.zeros(8, dtype=np.int64), backend=backend)
    report = astcompile.explain(
        astcompile.compile(binned_into, backend=backend), x, 0.5, np.zeros(8, dtype=np.int64)
    )
    assert report.graph_break_count == 1 and "outgrow int64" in report.break_reasons[0].detail


@pytest.mark.parametrize("backend", BACKENDS)
def test_numpy_ints_still_wrap(backend):
    with np.errstate(over="ignore"):
        assert_same(numpy_wraps, np.zeros(25), backend=backend)


def stencil(x):
    out = np.zeros_like(x)
    for i in range(1, x.shape[0] - 1):
        out[i] = x[i - 1] - 2.0 * x[i] + x[i + 1]
    return out


def count_positive(x, out):
    k = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[k] = x[i]
            k += 1
    return k


def iterations(values, tol):
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        guess, it = values[i], 0
        while abs(guess * guess - values[i]) > tol and it < 50:
            guess = 0.5 * (guess + values[i] / guess)
            it += 1
        out[i] = it
    return out


@pytest.mark.parametrize(
    "fn, args",
    [
        (stencil, (np.arange(10.0),)),
        (count_positive, (np.array([1.0, -2.0, 3.0, 0.5]), np.zeros(4))),
        (iterations, (np.array([2.0, 9.0, 1e6]), 1e-9)),
        (insertion_sort, (np.array([5, 1, 4, 1, 5, 9, 2, 6]),)),
        (merge_sorted, (np.array([0.5, 1.0, 7.0]), np.array([0.0, 2.0, 3.0, 9.0]))),
    ],
    ids=["stencil", "counter", "while-counter", "counter-after-loop", "counters-after-loop"],
)
def test_indices_and_counters_need_no_check(fn, args):
    assert_same(fn, *args, backend="c")
    output = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert output.graph_break_count == 0, output
    assert all("check()" not in str(g) for g in output.graphs), output.graphs


def test_a_checked_product_runs_compiled_until_it_overflows():
    compiled = astcompile.compile(factorial, backend="c")
    assert compiled(20) == math.factorial(20)
    (region,) = compiled.regions
    assert region.stats.eager_calls == 0 and region.stats.compiled_calls == 1
    assert compiled(26) == math.factorial(26) and region.stats.eager_calls == 1
    assert astcompile.explain(compiled, 10).graph_break_count == 0


def pairs_closer_than(points, radius, out):
    """A counter stepped two loops down, in a region that stores into an argument."""
    found = 0
    n = points.shape[0]
    for i in range(n):
        near = 0
        for j in range(n):
            if i != j and abs(points[i] - points[j]) < radius:
                found += 1
                near += 1
        out[i] = near
    return found


def rounds_until_settled(x, out):
    """A ``while`` nested in a ``for``, each stepping the outer counter."""
    total = 0
    for i in range(x.shape[0]):
        v = x[i]
        while v > 1.0:
            v = v / 2.0
            total += 1
        out[i] = v
        total -= 2
    return total


def doublings(x, out):
    """Not a counter: the inner loop doubles it, so it may outgrow int64 and must stay exact."""
    c = 1
    for i in range(x.shape[0]):
        for _ in range(int(x[i])):
            c *= 2
        out[i] = c % 7
    return c


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args",
    [
        (pairs_closer_than, (np.random.default_rng(4).random(30), 0.1, np.zeros(30))),
        (rounds_until_settled, (np.array([0.5, 9.0, 1e6, 3.0]), np.zeros(4))),
    ],
    ids=["two-deep", "while-in-for"],
)
def test_a_counter_stepped_in_nested_loops_needs_no_check(fn, args, backend):
    assert_same(fn, *args, backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert output.graph_break_count == 0, output
    assert all("check()" not in str(g) for g in output.graphs), output.graphs


@pytest.mark.parametrize("backend", BACKENDS)
def test_growcut_counts_its_changes_compiled(backend):
    from bench.programs import growcut

    assert_same(growcut.growcut, *growcut.setup(small=True), backend=backend)
    report = astcompile.explain(
        astcompile.compile(growcut.growcut, backend=backend), *growcut.setup(small=True)
    )
    assert report.graph_break_count == 0, report


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_product_grown_in_an_inner_loop_stays_exact(backend):
    x = np.array([3.0, 40.0, 40.0])
    assert_same(doublings, x, np.zeros(3), backend=backend)
    assert_same(doublings, np.array([1.0, 2.0]), np.zeros(2), backend=backend)
