"""C's own float comparisons in a region where nothing else can raise the invalid flag: the
results, NaN, infinities and signed zeros included, are NumPy's; NaN data stays compiled and
silent (the flag the comparisons raise is cleared); a region with anything that may raise the
flag keeps the quiet comparisons, and its warnings stay NumPy's."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from differential import (
    BACKENDS,
    assert_same,
    assert_same_value,
    assert_same_warnings,
    target_mode,
)
from graphs import lowered, passed, traced

import astcompile
from astcompile.targets.c.structured_signals import compares_may_signal
from bench.loop_kernels import clip_into, count_above, newton_sqrt, piecewise

SPECIAL = [np.nan, -0.0, 0.0, np.inf, -np.inf, 0.3, -0.3, 0.5, 2.0, -np.nan, 1e-310]


def _data(dtype=np.float64) -> np.ndarray:
    rng = np.random.default_rng(11)
    return np.concatenate([SPECIAL, rng.standard_normal(500), SPECIAL]).astype(dtype)


def count_between(a, lo, hi):
    n = 0
    for i in range(len(a)):
        v = a[i]
        if v >= lo and v <= hi:
            n = n + 1
    return n


def running_min(x):
    best = x[0]
    for i in range(1, x.shape[0]):
        best = x[i] if x[i] < best else best
    return best


def stored_as_ints(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] if x[i] > 0 else -x[i]
    return out


def scaled_above(x, k):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * k if x[i] > 0.5 else x[i] / 4.0 - 1.5
    return out


def differences_above(x, t):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > t:
            s += x[i] - x[i]  # inf - inf: NumPy warns, "invalid value"
    return s


CASES = [
    (count_above, lambda x: (x, 0.3)),
    (count_above, lambda x: (x, np.nan)),
    (count_above, lambda x: (x, -0.0)),
    (count_between, lambda x: (x, -0.5, 0.5)),
    (count_between, lambda x: (x, -np.inf, np.inf)),
    (clip_into, lambda x: (x, np.empty_like(x), -0.5, 0.5)),
    (clip_into, lambda x: (x, np.empty_like(x), 0.0, -0.0)),
    (piecewise, lambda x: (x,)),
    (scaled_above, lambda x: (x, 0.0)),
    (scaled_above, lambda x: (x, np.inf)),
    (running_min, lambda x: (x,)),
    (running_min, lambda x: (x[1:],)),
    (stored_as_ints, lambda x: (np.nan_to_num(x, posinf=9, neginf=-9), np.zeros(len(x), np.int64))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("fn", "args"), CASES)
def test_comparisons_give_numpys_answer(fn, args, dtype, backend):
    assert_same(fn, *args(_data(dtype)), backend=backend)


@pytest.mark.parametrize(("fn", "args"), [c for c in CASES if c[0] is not scaled_above][:-1])
def test_nan_data_stays_compiled_and_silent(fn, args):
    """The flag C's comparisons raise on NaN is cleared on the way out: no region runs its
    statements again (it would, every call, if the flag reached the caller)."""
    x = _data()
    compiled = astcompile.compile(fn, backend="c")
    with warnings.catch_warnings(), target_mode("c"):
        warnings.simplefilter("error", RuntimeWarning)
        for _ in range(3):
            assert_same_value(compiled(*args(x)), fn(*args(x)))
    assert compiled.regions and all(r.stats.eager_calls == 0 for r in compiled.regions)


def _signals(fn, *args) -> bool:
    return compares_may_signal(passed(traced(fn, *args)))


def test_only_regions_that_compare_and_pick_use_cs_comparisons():
    x = _data()
    assert _signals(count_above, x, 0.3) and _signals(clip_into, x, np.empty_like(x), 0.0, 1.0)
    assert _signals(piecewise, x)  # t * t, 2.0 * t + 1.0: no 0 * inf, no inf - inf
    with np.errstate(invalid="ignore"):
        assert not _signals(scaled_above, x, 0.0)  # x[i] * k: 0 * inf for some k
    with np.errstate(invalid="ignore"):  # tracing runs the statements on x
        assert not _signals(differences_above, x, 0.3)  # a float subtraction may raise it
    finite = np.nan_to_num(x, posinf=9, neginf=-9)
    assert not _signals(stored_as_ints, finite, np.zeros(len(x), np.int64))  # a float to int


def test_the_region_compares_with_c_and_clears_only_what_it_raised():
    code = lowered(passed(traced(count_above, _data(), 0.3))).code.source
    assert "astc_greater_double" not in code
    enter, leave = code.index("astc_invalid_raised()"), code.index("astc_invalid_clear()")
    assert re.search(r"\(t\d+ > t_\d+\)", code[enter:leave])  # a[i] > t
    assert "feclearexcept" not in code  # libm's rewrites the x87 state too: 70 ns a call


_PROBE = """
#include "astc_math.h"
int probe(double a) {
    feclearexcept(FE_ALL_EXCEPT);
    const int before = astc_invalid_raised();
    volatile int lt = a < 1.0;  /* C's <: raises invalid on NaN */
    const int raised = astc_invalid_raised() != 0;
    feraiseexcept(FE_DIVBYZERO);
    astc_invalid_clear();
    (void)lt;
    return before | raised << 1 | (fetestexcept(FE_INVALID) != 0) << 2
        | (fetestexcept(FE_DIVBYZERO) != 0) << 3;
}
"""


def test_the_invalid_flag_helpers_read_and_clear_that_flag_alone(tmp_path):
    """astc_invalid_raised/astc_invalid_clear see the flag C's < raises on NaN, and clear it
    alone: a division by zero raised meanwhile stays for NumPy's warning."""
    from astcompile.runtime import load_library

    _, lib = load_library(_PROBE, "int probe(double);", str(tmp_path))
    assert lib.probe(float("nan")) == 0b1010  # seen, then cleared; divide stays
    assert lib.probe(0.5) == 0b1000


def test_a_region_that_may_raise_the_flag_otherwise_still_warns_as_numpy():
    x = np.array([np.inf, 1.0, np.nan, 2.0])
    compiled = astcompile.compile(differences_above, backend="c")
    with pytest.warns(RuntimeWarning, match="invalid"):
        expected = differences_above(x, 0.5)
    with pytest.warns(RuntimeWarning, match="invalid"):
        assert_same_value(compiled(x, 0.5), expected)


def scaled_where_below(z, x):
    """Complex data scaled by a real constant where a float compare picks."""
    out = np.zeros_like(z)
    for i in range(len(x)):
        if x[i] < 0.5:
            out[i] = z[i] * 2.0
    return out


def test_complex_arithmetic_by_a_constant_still_warns_as_numpy():
    """(inf + 0j) * 2.0 multiplies inf by the constant's imaginary 0: invalid, which the
    region's exit must not clear (it did: the compare-only rule took it as a real product)."""
    z = np.array([complex(np.inf, 0.0), 1 + 1j, complex(0.0, np.inf)])
    for x in (np.array([0.0, 1.0, np.nan]), np.zeros(3)):
        assert_same_warnings(scaled_where_below, z, x, backend="c")
        narrow = (z.astype(np.complex64), x.astype(np.float32))
        assert_same_warnings(scaled_where_below, *narrow, backend="c")
    with np.errstate(invalid="ignore"):  # tracing runs the statements on z
        assert not _signals(scaled_where_below, z, np.zeros(3))


def halvings_above(x, low):
    """A ``while`` loop per element whose picks and tests compare floats of x's dtype."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        t = low[0]
        s = x[i] if x[i] > t else t
        n = 0
        while s > t and n < 60:
            s = s / 2.0 if s >= 1.0 else s - t
            n += 1
        out[i] = s if s <= t else -s
    return out


def count_above_each_step(x, t, step, steps):
    """A ``while`` loop around an element loop: the inner loop's compares stay vector ones."""
    total = 0
    k = 0
    while k < steps:
        total += np.sum(x > t)
        t = t + step  # inf - inf: may raise the invalid flag, so compares stay quiet
        k += 1
    return total


SCALAR_CASES = [
    (newton_sqrt, lambda x: (np.abs(x) * 50.0, 1e-12, 50)),
    (newton_sqrt, lambda x: (x, 1e-12, 50)),  # NaN, infinities, negatives, zeros
    (newton_sqrt, lambda x: (x, 0.0, 50)),
    (newton_sqrt, lambda x: (x, np.nan, 50)),
    (newton_sqrt, lambda x: (x, -1.0, 7)),
    (newton_sqrt, lambda x: (x, 1e-12, 0)),
    (newton_sqrt, lambda x: (x, 1e-12, -3)),
    (halvings_above, lambda x: (x * 1e3, np.full(1, 0.25, x.dtype))),
    (halvings_above, lambda x: (x, np.full(1, -0.0, x.dtype))),
    (halvings_above, lambda x: (x, np.full(1, np.nan, x.dtype))),
    (count_above_each_step, lambda x: (x, -1.0, 0.25, 5)),
    (count_above_each_step, lambda x: (x, np.nan, 0.25, 3)),
    (count_above_each_step, lambda x: (x, np.inf, -np.inf, 3)),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("fn", "args"), SCALAR_CASES)
def test_loops_that_run_scalar_give_numpys_answer_compiled(fn, args, dtype):
    """A ``while`` loop's compares and picks (C's quiet builtins, astc_where_*) give NumPy's
    bits, NaN and signed zeros included; on float64 data no region falls back to NumPy (on
    float32, ``guess`` is a Python float or an np.float32 by the element: NumPy runs some)."""
    x = _data(dtype)
    compiled = astcompile.compile(fn, backend="c")
    with np.errstate(all="ignore"):
        for _ in range(2):
            assert_same(fn, *args(x), backend="c")
    with warnings.catch_warnings(), target_mode("c"):
        warnings.simplefilter("error", RuntimeWarning)
        with np.errstate(all="ignore"):
            assert_same_value(compiled(*args(x)), fn(*args(x)))
    stats = [r.stats.eager_calls for r in compiled.regions]
    assert stats and ((dtype == np.float32 and fn is newton_sqrt) or not any(stats))


def test_a_loop_around_a_while_loop_compares_with_the_scalar_builtins():
    x = np.abs(_data()[20:40]) + 1.0
    code = lowered(passed(traced(newton_sqrt, x, 1e-12, 50))).code.source
    assert "astc_greater_double" not in code and "astc_select_double" not in code
    assert "__builtin_isgreater(" in code  # err > tol, in the while loop
    assert "astc_where_greater_double(" in code  # a if a > 1.0 else 1.0, in the for loop
    x32 = x.astype(np.float32)
    code = lowered(passed(traced(halvings_above, x32, x32[:1]))).code.source
    assert "astc_where_greaterequal_float(" in code and "astc_select_float" not in code


def test_an_element_loop_in_a_while_loop_keeps_the_vector_safe_compares():
    code = lowered(passed(traced(count_above_each_step, _data(), 0.3, 0.25, 4))).code.source
    assert "astc_greater_double(" in code and "__builtin_isgreater" not in code
