"""trace/scalars.py: Python's scalar builtins on loop values compile with Python's answers and
errors. Here ``divmod``, which broke every loop calling it (index math ``i, j = divmod(k, n)``,
digit loops): such loops ran as Python."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls

import astcompile
from bench.programs.digit_histogram import digit_histogram


def grid_of_indices(n, m):
    out = np.zeros((n, m))
    for k in range(n * m):
        i, j = divmod(k, m)
        out[i, j] = i * 0.5 - j
    return out


def by_a_variable(x, divisors):
    out = np.empty((len(x), 2))
    for k in range(len(x)):
        q, r = divmod(float(x[k]), float(divisors[k]))
        out[k, 0] = q
        out[k, 1] = r
    return out


def ints_by_a_variable(x, divisors):
    total = 0
    for k in range(len(x)):
        q, r = divmod(int(x[k]), int(divisors[k]))
        total += q * 1000 + r
    return total


def numpy_values(x, d):
    out = np.empty((len(x), 2))
    for k in range(len(x)):
        q, r = divmod(x[k], d[k])
        out[k, 0] = q
        out[k, 1] = r
    return out


SIGNED = np.array([-7.5, -0.0, 0.0, 3.25, 7.0, -1e300, np.inf, np.nan, 12.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_divmod_of_loop_values_is_pythons(backend):
    assert_same_calls(grid_of_indices, [(3, 4), (5, 2)], backend)
    assert_same_calls(digit_histogram, [(np.array([0, 7, 1234, 99999, 10**12]),)], backend)
    positive = np.array([2.0, 0.7, -0.7, 1e-300, 3.0, -2.0, 1.5, 1.0, np.inf])
    zero = positive.copy()
    zero[4] = 0.0
    # floats by a divisor that is zero at run time: ZeroDivisionError("float divmod()")
    assert_same_calls(by_a_variable, [(SIGNED, positive), (SIGNED, zero)], backend)
    ints = np.array([-7, 7, 0, 13, -13])
    divisors = np.array([2, -2, 5, -4, 3])
    zero_int = np.array([2, -2, 0, -4, 3])
    assert_same_calls(ints_by_a_variable, [(ints, divisors), (ints, zero_int)], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_divmod_compiles_the_loop(backend):
    compiled = astcompile.compile(grid_of_indices, backend=backend)
    report = astcompile.explain(compiled, 4, 6)
    assert report.graph_break_count == 0 and report.graph_count == 1, str(report)


@pytest.mark.parametrize("backend", BACKENDS)
def test_divmod_of_numpy_values_is_numpys(backend):
    x = np.array([7.0, -3.0, 1.0, 2.5])
    calls = [(x, np.array([2.0, 2.0, 0.5, -1.0])), (x, np.array([2.0, 0.0, 0.5, 0.0]))]
    assert_same_calls(numpy_values, calls, backend)
    compiled = astcompile.compile(numpy_values, backend=backend)
    assert astcompile.explain(compiled, *calls[0]).graph_break_count == 1  # runs as written


def turtle(n, turns):
    """A direction table indexed by a loop value, as Numba users write it."""
    grid = np.zeros((n, n), dtype=np.int64)
    moves = ((-1, 0), (0, 1), (1, 0), (0, -1))
    r = c = n // 2
    d = 0
    for k in range(len(turns)):
        d = (d + turns[k]) % 4
        dr, dc = moves[d]
        r = (r + dr) % n
        c = (c + dc) % n
        grid[r, c] += 1
    return grid, r, c


def weights_at(idx):
    w = (0.5, 1.5, -2.0)
    total = 0.0
    for k in range(len(idx)):
        total += w[idx[k]]
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_literal_table_indexed_by_a_loop_value_compiles(backend):
    turns = np.random.default_rng(3).integers(0, 3, 200)
    assert_same_calls(turtle, [(9, turns), (4, turns[:7])], backend)
    # negative indices as Python counts them; past either end, Python's IndexError
    calls = [(np.array([0, 2, -1, -3]),), (np.array([1, 3]),), (np.array([0, -4]),)]
    assert_same_calls(weights_at, calls, backend)
    for fn, args in ((turtle, (9, turns)), (weights_at, calls[0])):
        report = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
        assert report.graph_break_count == 0, str(report)


def mixed_table(idx):
    w = (1, 2.5)  # an int or a float, by the index: runs as written
    return [w[i] for i in idx]


def test_a_table_of_mixed_types_runs_as_written():
    assert_same_calls(mixed_table, [(np.array([0, 1, 1]),)], "c")


# -- a fractional power of a loop value ------------------------------------------------------------


def step_growth(h, tol, errs):
    for k in range(errs.shape[0]):
        err = float(errs[k])
        h *= min(4.0, max(0.1, 0.84 * (tol / max(err, 1e-300)) ** 0.25))
    return h


def fractional_powers(x):
    s = 0.0
    for k in range(x.shape[0]):
        v = float(x[k])
        s += v**1.5 + v**-0.5
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_fractional_power_of_a_loop_value_compiles_with_pythons_answers(backend):
    """``x ** 0.25`` of a run-time Python float (an adaptive step's growth factor) compiled;
    before, the loop ran as Python. A negative base gives Python's complex number (the plain
    statements run), ``0.0 ** -0.5`` Python's ZeroDivisionError, an overflow its OverflowError."""
    errs = np.random.default_rng(5).random(40) * 1e-5
    assert_same_calls(step_growth, [(0.1, 1e-6, errs), (0.1, 1e-6, errs[:0])], backend=backend)
    calls = [
        (np.arange(1.0, 6.0),),
        (np.array([4.0, -1.0, 2.0]),),  # complex from the second element on
        (np.array([1.0, 0.0]),),
        (np.array([1e250, 2.0]),),
        (np.array([np.nan, 2.0]),),
    ]
    assert_same_calls(fractional_powers, calls, backend=backend)
    compiled = astcompile.compile(step_growth, backend=backend)
    compiled(0.1, 1e-6, errs)
    assert compiled.python_loops == set() and compiled.regions[0].stats.compiled_calls > 0


# -- min/max of Python floats and NumPy float64 scalars ---------------------------------------------


def nearest_hit(b, c):
    nearest = np.inf  # a Python float; the hits are NumPy float64 scalars
    hits = 0
    for k in range(b.shape[0]):
        disc = b[k] * b[k] - c[k]
        if disc >= 0:
            t = -b[k] - np.sqrt(disc)
            if t > 0:
                hits += 1
                nearest = min(nearest, t)
    return hits, nearest


def clamped_steps(errs, tol):
    h = 0.01
    t = 0.0
    for k in range(errs.shape[0]):
        h *= min(2.0, max(0.2, 0.9 * (tol / errs[k]) ** 0.5))
        t += math.cos(t + h)
    return h, t, max(h, 0.0, -0.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_min_max_of_python_and_numpy_floats_compile_with_pythons_types(backend):
    """``min(nearest, t)`` of a Python float and a NumPy float64 returns the argument picked,
    with its type: compiled as a value and a flag (trace/unions.py), it was a break before.
    NaN and signed zeros follow Python's order of the arguments; ``math.cos`` of either is a
    Python float."""
    b = np.array([-3.0, 1.0, -2.0, -5.0, np.nan])
    c = np.array([1.0, 0.5, 3.0, 0.0, 1.0])
    calls = [(b, c), (b[1:2], c[1:2]), (-b, c)]
    assert_same_calls(nearest_hit, calls, backend=backend)
    errs = np.array([1e-3, 1e-9, 1.0, np.nan, 1e-7])
    assert_same_calls(
        clamped_steps, [(errs, 1e-6), (errs[:0], 1.0), (errs[1:2], 1e-6)], backend=backend
    )
    for fn, args in ((nearest_hit, (b, c)), (clamped_steps, (errs, 1e-6))):
        compiled = astcompile.compile(fn, backend=backend)
        compiled(*args)
        assert compiled.python_loops == set() and compiled.regions[0].stats.compiled_calls > 0
