"""Loop regions on the C-level call path: their programs run the region's C function and box
its scalar results without a Python frame, with the plain function's results and errors."""

from __future__ import annotations

import numpy as np
import pytest
from differential import assert_same_calls, runtime_warnings

import astcompile
from astcompile.jit.entries import fast_programs
from astcompile.runtime import parallel
from astcompile.runtime.fastcall_boxes import BOX_CONST, BOX_SAME, BOX_TUPLE
from astcompile.runtime.fastcall_program import BOXRET, COMMIT, END
from bench.loop_kernels import count_above, first_above, smallest_positive
from bench.programs.branchy_sum import branchy_sum
from bench.programs.lu_decomp import lu_decomp


def harmonic(n):
    s = 0.0
    for k in range(1, n + 1):
        s += 1.0 / k
    return s


def prefix_sum(x, k):
    s = 0.0
    for i in range(k):
        s += x[i]
    return s


def cumulative(x):
    out = np.empty(x.shape[0])
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        out[i] = s
    return out


def reciprocals(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += 1.0 / x[i]
    return s


def fill(out, n):
    for i in range(n):
        out[i] = i * 2.0
    return out


def bump(x, k):
    for i in range(k):
        x[i] += 1.0


def shifted(out, x):
    for i in range(x.shape[0]):
        out[i] = x[i] + 1.0
    return out


def all_nonnegative(a):
    ok = True
    for i in range(a.shape[0]):
        if a[i] < 0:
            ok = False
    return ok


def positives(x):
    s = 0.0
    n = 0
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        if x[i] > 0:
            s += x[i]
            n += 1
        out[i] = s
    return s, n, out, None


def in_c(fast, fn, *args):
    """``fn(*args)`` compiled, then called through its programs alone: a call the C code
    leaves to the Python guard function fails the test."""
    compiled = astcompile.compile(fn, backend="c")
    compiled(*args)
    (region,) = compiled.regions
    entries = [e for found in region.entries.values() for e in found]
    programs = fast_programs(entries, compiled.fn)
    assert programs, "the loop region has a program"

    def python_path(*args):
        raise AssertionError("the call left C")

    return fast.Guards(programs, python_path, region.stats, vars(parallel))(*args)[0]


@pytest.mark.parametrize(
    "fn, args",
    [
        (branchy_sum, (np.random.default_rng(0).random(64),)),  # a NumPy float64
        (branchy_sum, (np.random.default_rng(1).random(50_000),)),  # frees the GIL
        (count_above, (np.arange(10.0), 4.5)),  # a Python int
        (harmonic, (40,)),  # a Python float
        (all_nonnegative, (np.arange(6.0) - 2,)),  # a Python bool: False
        (all_nonnegative, (np.arange(6.0),)),  # True
        (prefix_sum, (np.arange(9.0), 7)),  # an int scalar
        (cumulative, (np.arange(5.0),)),  # a buffer of its own
        (fill, (np.zeros(8), 8)),  # a written argument, returned
        (shifted, (np.zeros(8), np.arange(8.0))),
    ],
)
def test_loop_regions_run_in_c_with_the_plain_results(fast, fn, args):
    got, expected = in_c(fast, fn, *args), fn(*args)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "fn, args",
    [
        (first_above, (np.arange(6.0), 3.5)),  # a Python int
        (first_above, (np.arange(6.0), 9.0)),  # None
        (smallest_positive, (np.array([-1.0, 2.0, 0.5]),)),  # a NumPy float64
        (smallest_positive, (-np.ones(3),)),  # None
    ],
)
def test_a_number_that_may_be_none_is_boxed_in_c(fast, fn, args):
    """``found = None`` until a loop finds it (trace/optionals.py): None where the flag
    holds, else the number with the plain type, boxed by the C code."""
    got, expected = in_c(fast, fn, *args), fn(*args)
    assert type(got) is type(expected) and got == expected


@pytest.mark.parametrize(
    "fn, args",
    [
        (positives, (np.array([1.5, -2.0, 3.0]),)),  # a float, an int, an array, None
        (lu_decomp, (np.eye(4) * 4 + np.arange(16.0).reshape(4, 4) / 16,)),  # return L, U
    ],
)
def test_returned_tuples_are_built_in_c(fast, fn, args):
    """``return L, U``: the tuple is built by the C code (a template of a tuple in the
    region's outputs left the function on the Python path), with the plain items' types."""
    got, expected = in_c(fast, fn, *args), fn(*args)
    assert type(got) is tuple and len(got) == len(expected)
    for item, plain in zip(got, expected):
        assert type(item) is type(plain)
        np.testing.assert_array_equal(item, plain)


def test_results_errors_and_warnings_stay_the_plain_ones(fast):
    x = np.random.default_rng(2).random(32)
    calls = [(x,)] * 70 + [(x[:0],), (x[:1],), (x.astype(np.float32),), (x[::2],)]
    assert_same_calls(branchy_sum, calls, backend="c")
    calls = [(x, 16)] * 70 + [(x, 33), (x, -1), (x, 0)]  # an IndexError from the C code
    assert_same_calls(prefix_sum, calls, backend="c")
    assert_same_calls(count_above, [(x, 0.5)] * 70 + [(x, 2), (x, np.float64(0.2))], backend="c")
    assert_same_calls(positives, [(x - 0.5,)] * 70 + [(x[:0],), (x[::2],)], backend="c")
    f, zero = astcompile.compile(reciprocals, backend="c"), np.array([1.0, 0.0])
    for _ in range(70):
        f(np.ones(2))
    assert runtime_warnings(f, zero) == runtime_warnings(reciprocals, zero) != []


def test_written_arguments_as_plain_code_leaves_them(fast):
    """An error status raises at once (a rerun would bump twice); a read-only or overlapping
    written argument takes the Python path: NumPy's error, or the overlap written through."""
    out = np.zeros(8)
    assert_same_calls(fill, [(out, 8)] * 70 + [(out, 9), (out[::2], 4)], backend="c")
    ro = np.zeros(8)
    ro.flags.writeable = False
    assert_same_calls(fill, [(np.zeros(8), 8)] * 70 + [(ro, 8)], backend="c")
    assert_same_calls(bump, [(np.zeros(8), 8)] * 70 + [(np.zeros(8), 9)], backend="c")
    base = np.arange(12.0)
    calls = [(np.zeros(8), np.arange(8.0))] * 70 + [(base[2:10], base[:8]), (base[:8], base[2:10])]
    assert_same_calls(shifted, calls, backend="c")


def totals_twice(x):
    s = 0.0
    t = 0.0
    for i in range(x.shape[0]):
        s += x[i]
        t += x[i]
    return s, t, s, t


def test_a_number_returned_twice_is_one_object_in_c(fast):
    """``return s, t, s, t``: the C code boxes ``s`` once (BOX_SAME), ``t`` (equal) apart."""
    got, expected = in_c(fast, totals_twice, np.arange(6.0)), totals_twice(np.arange(6.0))
    assert got == expected and type(got[0]) is type(expected[0])
    s, t, again, t2 = got
    assert again is s and t2 is t and t is not s


@pytest.mark.parametrize(
    "items",
    [
        [BOX_SAME, 0, 0, 0],  # itself
        [BOX_CONST, 0, 0, 0, BOX_SAME, 1, 0, 0],  # itself, after another
        [BOX_TUPLE, 1, 0, 0, BOX_CONST, 0, 0, 0, BOX_SAME, 0, 0, 0],  # a tuple's header
    ],
)
def test_a_same_item_naming_no_earlier_object_is_refused(fast, items):
    words = [COMMIT, BOXRET, len(items) // 4, *items, END]
    with pytest.raises(ValueError, match="malformed"):
        fast.Guards([(np.asarray(words, np.int64).tobytes(), (1.5,), 0)], print, None, {})
