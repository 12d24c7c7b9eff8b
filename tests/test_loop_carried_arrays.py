"""Arrays carried through loop regions: updated in place by inner loops, rebound, returned.

After a loop or branch, ``acc *= 0.5`` writes into whatever buffer ``acc`` is: the caller's
array when the loop only updated it in place (it used to rebind ``acc`` to a new array, so the
caller's array missed the write). An array that an inner loop only updates in place (``out += ...``) comes out of that loop as
the same buffer; the outer loop carries it on without a copy (before, the C target refused
the region, GB023, and it ran as written). Each case is compared with the plain function
through the shared differential helper and must compile without a break.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls

import astcompile


def conv2d_taps(img, kernel):
    kh, kw = kernel.shape
    h = img.shape[0] - kh + 1
    w = img.shape[1] - kw + 1
    out = np.zeros((h, w), dtype=img.dtype)
    for i in range(kh):
        for j in range(kw):
            out += kernel[kh - 1 - i, kw - 1 - j] * img[i : i + h, j : j + w]
    return out


def accumulate_into_argument(acc, x, n):
    total = 0.0
    for k in range(n):
        for j in range(x.shape[0]):
            acc -= x[j] * k
            total = total + x[j]
        acc *= 0.5
    return acc, total


def inner_rebinds_outer_in_place(x, n):
    y = x.copy()
    for _ in range(n):
        for _ in range(2):
            y = y * 0.5 + 1.0  # a new array: double buffered in the inner loop
        y += 1.0
    return y


def scaled_after_the_loop(acc, n):
    for _ in range(n):
        acc += 1.0
    acc *= 2.0  # the loop's result is the caller's array: this writes into it
    return acc


def scaled_after_nested_loops(acc, x, n):
    for k in range(n):
        for j in range(x.shape[0]):
            acc -= x[j] * k
        acc *= 0.5  # the inner loop's result is still the caller's array
    return acc


def scaled_after_a_branch(acc, n):
    for k in range(n):
        if acc.sum() > 4.0:
            acc = acc - 1.0  # a new array from here on
        acc *= 0.5
    return acc


def wave_leapfrog(u0, c, steps):
    prev = u0.copy()
    cur = u0.copy()
    nxt = np.zeros(u0.shape[0])
    for _ in range(steps):
        nxt[1:-1] = 2.0 * cur[1:-1] - prev[1:-1] + c * (cur[2:] - 2.0 * cur[1:-1] + cur[:-2])
        prev, cur, nxt = cur, nxt, prev
    return cur


def swap_buffers_of_the_caller(u, scratch, steps):
    for _ in range(steps):
        scratch[1:-1] = 0.5 * (u[2:] + u[:-2])
        scratch[0] = u[0]
        scratch[-1] = u[-1]
        u, scratch = scratch, u
    return u, scratch


def rotate_one_buffer_twice(x, steps):
    a = x.copy()
    b = a  # the same array under two names: stores through one are seen through the other
    for _ in range(steps):
        b[0] += 1.0
        a, b = b, a
    return a, b


def rotations_inside_an_outer_loop(u0, outer, inner):
    u = u0.copy()
    v = np.zeros_like(u0)
    total = 0.0
    for _ in range(outer):
        for _ in range(inner):
            v[:] = u * 0.5 + 1.0
            u, v = v, u
        total = total + u.sum()
    return u, total


def wave_handed_down(u, u_prev, c2, steps):
    """The leapfrog Numba users write: ``u_prev, u = u, u_next``, ``u_next`` new each step
    (before, GB023: ``u_prev`` leaves the body as another carried array)."""
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2.0 * u[1:-1] - u_prev[1:-1] + c2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return u, u_prev


def three_handed_down(a, b, c, steps):
    """A line of three: ``c`` is the oldest; each store into ``c`` reaches whichever array it
    holds, the caller's ``b`` or ``a`` on the first steps."""
    for k in range(steps):
        c[0] += 1.0
        a, b, c = a * 0.5 + b, a, b
    return a, b, c


CASES = [
    (wave_handed_down, (np.arange(7.0) % 3, np.ones(7), 0.2, 4)),
    (wave_handed_down, (np.arange(7.0) % 3, np.ones(7), 0.2, 1)),
    (wave_handed_down, (np.arange(7.0) % 3, np.ones(7), 0.2, 0)),
    (three_handed_down, (np.arange(3.0), np.ones(3), np.zeros(3), 7)),
    (three_handed_down, (np.arange(3.0), np.ones(3), np.zeros(3), 2)),
    (three_handed_down, (np.arange(3.0), np.ones(3), np.zeros(3), 1)),
    (wave_leapfrog, (np.sin(np.linspace(0.0, 3.0, 9)), 0.25, 5)),
    (wave_leapfrog, (np.sin(np.linspace(0.0, 3.0, 9)), 0.25, 6)),
    (wave_leapfrog, (np.ones(4), 0.5, 0)),
    (swap_buffers_of_the_caller, (np.arange(6.0), np.zeros(6), 3)),
    (swap_buffers_of_the_caller, (np.arange(6.0), np.zeros(6), 4)),
    (swap_buffers_of_the_caller, (np.arange(5.0, dtype=np.float32), np.zeros(5, np.float32), 1)),
    (rotate_one_buffer_twice, (np.zeros(3), 5)),
    (scaled_after_the_loop, (np.arange(3.0), 4)),
    (scaled_after_the_loop, (np.arange(3.0), 0)),
    (scaled_after_nested_loops, (np.arange(4.0), np.array([1.0, -2.0, 0.5]), 3)),
    (conv2d_taps, (np.arange(36.0).reshape(6, 6), np.arange(9.0).reshape(3, 3) / 10)),
    (conv2d_taps, (np.ones((5, 4), np.float32), np.full((2, 3), 0.5, np.float32))),
    (accumulate_into_argument, (np.arange(4.0), np.array([1.0, -2.0, 0.5]), 3)),
    (accumulate_into_argument, (np.arange(4.0), np.array([1.0]), 0)),
    (inner_rebinds_outer_in_place, (np.arange(5.0), 3)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_arrays_carried_through_inner_loops(fn, args, backend):
    assert_same(fn, *args, backend=backend)
    report = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert report.break_reasons == [], str(report)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("start", [np.arange(4.0), np.ones(2)])
def test_an_in_place_update_after_a_branch_reaches_the_callers_array(start, backend):
    """Where the branch keeps ``acc`` (``np.ones(2)``: never taken), ``acc *= 0.5`` writes into
    the caller's array. The C target cannot yet carry a branch result that may be the loop's
    own buffer, so that region runs as written (GB023): correct, not yet fast."""
    assert_same(scaled_after_a_branch, start, 3, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("inner", [2, 3])
def test_arrays_going_round_in_an_inner_loop(inner, backend):
    """After an odd number of inner steps ``u`` is the outer loop's ``v``: the C target does not
    carry that through the outer loop yet (GB023, the region runs as written); correct either
    way."""
    assert_same(rotations_inside_an_outer_loop, np.arange(4.0), 3, inner, backend=backend)


def narrowed_in_the_loop(u, steps):
    """A float64 ``u`` that the body makes float32: float32 after the loop, and computed in
    float32 from the second step (before: carried, and returned, as float64)."""
    for _ in range(steps):
        u = (u * 0.1).astype(np.float32) + 1
    return u


def handed_down_narrowed(u, u_prev, steps):
    """``u_prev`` takes ``u``'s int32 array one step after ``u`` has it (before: both came
    back int64)."""
    for _ in range(steps):
        u_next = (u + u_prev).astype(np.int32)
        u_prev, u = u, u_next
    return u, u_prev


NARROWED = [
    (narrowed_in_the_loop, (np.arange(6.0) + 0.3, 3)),
    (narrowed_in_the_loop, (np.arange(6.0) + 0.3, 1)),
    (narrowed_in_the_loop, (np.arange(6.0) + 0.3, 0)),
    (handed_down_narrowed, (np.arange(6), np.ones(6, np.int64), 3)),
    (handed_down_narrowed, (np.arange(6), np.ones(6, np.int64), 1)),
    (handed_down_narrowed, (np.arange(6, dtype=np.int32), np.ones(6, np.int32), 3)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args", NARROWED, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(NARROWED)]
)
def test_an_array_the_loop_narrows_has_numpys_dtype(fn, args, backend):
    """The dtype an array has after the loop is the one the body last gave it. A loop that
    narrows on its first iteration only is traced from the second (still compiled)."""
    assert_same_calls(fn, [args, args], backend=backend)
    if fn is narrowed_in_the_loop and args[1] > 0:
        report = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
        assert report.break_reasons == [], str(report)
