"""Loops and stores end to end (trace/loops.py): compiled results, and argument mutations,
equal NumPy's; ranges of every step, a body traced again."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls

import astcompile


def spring_chain(x, k, rest):
    force = np.zeros_like(x)
    for i in range(1, x.shape[0]):
        fvec = k * (x[i] - x[i - 1] - rest)
        force[i - 1] += fvec
        force[i] -= fvec
    return force


def wrapped_running_sum(x):
    out = np.empty_like(x)
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
        if s > 3:
            s = s - 3
        elif s < -3:
            s = s + 3
        out[i] = s
    return out, s


def pairwise_distance(a, b):
    d = np.zeros((a.shape[1], b.shape[1]))
    for i in range(a.shape[1]):
        for j in range(b.shape[1]):
            d[i, j] = np.sqrt(((a[:, i] - b[:, j]) ** 2).sum())
    return d


def time_stepped_stencil(u, steps, mu):
    tmp = u.copy()
    for _ in range(steps):
        tmp[1:-1] = u[1:-1] + mu * (u[2:] - 2 * u[1:-1] + u[:-2])
        u[:] = tmp
    return u


def carried_array(x, n):
    y = x
    for i in range(n):
        y = y * 0.5 + i
    return y


def count_positive(x):
    n = 0
    for i in range(x.shape[0]):
        if x[i] > 0:
            n = n + 1
    return n


def reverse_index(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[-i - 1]
    return out


def shift_overlapping(a):
    a[1:] = a[:-1]
    return a


def store_through_view(u):
    inner = u[1:-1, 1:-1]
    inner += 0.25 * u[:-2, 1:-1]
    return u.sum()


def step_loop(x):
    total = 0
    for i in range(x.shape[0] - 1, -1, -2):
        total = total + x[i]
    return total


PROGRAMS = [
    (spring_chain, lambda: (np.linspace(0, 3, 9), 2.0, 0.1)),
    (wrapped_running_sum, lambda: (np.linspace(-4, 4, 11) ** 2 - 6,)),
    (
        pairwise_distance,
        lambda: (np.arange(12.0).reshape(3, 4) % 5, np.arange(15.0).reshape(3, 5) % 4),
    ),
    (time_stepped_stencil, lambda: (np.sin(np.linspace(0, 3, 12)), 5, 0.2)),
    (carried_array, lambda: (np.arange(6.0), 4)),
    (count_positive, lambda: (np.array([1.0, -2.0, 3.0, 0.0, 5.0]),)),
    (reverse_index, lambda: (np.arange(7, dtype=np.int32),)),
    (shift_overlapping, lambda: (np.arange(8.0),)),
    (store_through_view, lambda: (np.arange(20.0).reshape(4, 5),)),
    (step_loop, lambda: (np.arange(9, dtype=np.int64),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_loop_programs_match_numpy(fn, make_args, backend):
    assert_same(fn, *make_args(), backend=backend)


@pytest.mark.parametrize("fn, make_args", PROGRAMS[:3], ids=[p[0].__name__ for p in PROGRAMS[:3]])
def test_loops_compile_as_one_region_without_breaks(fn, make_args):
    output = astcompile.explain(fn, *make_args())
    assert output.graph_break_count == 0
    assert [r.compiled_calls for r in output.regions] == [1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_iterations_keep_initial_values(backend):
    assert_same(spring_chain, np.ones(1), 2.0, 0.1, backend=backend)
    assert_same(carried_array, np.arange(3.0), 0, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_range_index_raises_index_error(backend):
    def read_past_end(x):
        s = 0.0
        for i in range(x.shape[0] + 2):
            s = s + x[i]
        return s

    compiled = astcompile.compile(read_past_end, backend=backend)
    with pytest.raises(IndexError):
        compiled(np.ones(4))


@pytest.mark.parametrize("backend", BACKENDS)
def test_in_place_updates_outside_loops_write_into_the_caller_array(backend):
    def scale_in_place(x, y):
        x *= 2
        y[0] = 7
        x[1:3] += y[:2]
        return x

    x, y = np.arange(5.0), np.ones(3)
    got = astcompile.compile(scale_in_place, backend=backend)(x, y)
    assert got is x
    np.testing.assert_array_equal(x, [0.0, 9.0, 5.0, 6.0, 8.0])
    np.testing.assert_array_equal(y, [7.0, 1.0, 1.0])


STEP = 0.01


def euler_with_a_global_step(pos, vel, n):
    for _ in range(n):
        vel = vel - STEP * pos
        pos = pos + STEP * vel
    return pos, vel


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_global_read_only_inside_the_loop_body_is_an_input(backend):
    """``STEP`` is first read while tracing the body, so its input node sits in the body
    graph; the interpreter failed on it ("no rule for INPUT"). A change to it is seen."""
    global STEP
    compiled = astcompile.compile(euler_with_a_global_step, backend=backend)
    for step in (0.01, 0.25):
        STEP = step
        want = euler_with_a_global_step(np.ones(3), np.zeros(3), 7)
        np.testing.assert_allclose(compiled(np.ones(3), np.zeros(3), 7), want, rtol=1e-12)
    STEP = 0.01
    assert_same(euler_with_a_global_step, 1.0, 0.0, 5, backend=backend)


def backwards_weights(xs):
    s = 0.0
    for i in range(len(xs) - 1, -1, -1):
        s = s * 0.5 + xs[i]
    return s


def stepped_down(x, a, b, k):
    s = 0.0
    last = -100
    for i in range(a, b, k):
        s = s * 0.25 + x[i] + i
        last = i
    return s, last


def suffix_max(x):
    out = np.empty_like(x)
    m = -np.inf
    for i in range(x.shape[0] - 1, -1, -1):
        m = max(m, x[i])
        out[i] = m
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_ranges_with_negative_steps_run_as_pythons(backend):
    """range(a, b, -k): empty when a <= b, the last value where Python stops, negative
    starts and stops as Python counts them (no wrap-around)."""
    x = np.arange(10.0) ** 1.5
    calls = [
        (x, 9, -1, -1),
        (x, 9, 0, -2),
        (x, 8, 1, -3),
        (x, 3, 3, -1),  # empty
        (x, 2, 5, -1),  # empty: start below stop
        (x, 9, -1, -4),
        (x, 5, -11, -2),  # on to -9: negative indices, read as Python reads them
        (x, 9, 4, 1),
    ]
    assert_same_calls(stepped_down, calls, backend=backend)
    assert_same_calls(backwards_weights, [([1.0, 2.0, 3.0],), ([],), ([2.5],)], backend=backend)
    assert_same_calls(suffix_max, [(x[::-1].copy(),), (np.array([1.0, np.nan, 0.5]),)], backend)


def test_a_loop_with_a_negative_step_compiles():
    x = np.arange(10.0)
    compiled = astcompile.compile(stepped_down, backend="c")
    report = astcompile.explain(compiled, x, 9, -1, -2)
    assert report.graph_break_count == 0, str(report)
    assert compiled(x, 9, -1, -2) == stepped_down(x, 9, -1, -2)


def seven_statistics(a, b, n):
    s = 0.0
    for i in range(n):
        s = s + a.sum() + b.sum() + a.max() + b.max() + a.min() + b.min() + (a * b).sum()
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_body_traced_again_counts_once_against_its_lines_budget(backend):
    """The body is traced twice (the Python float ``s`` widens to a NumPy float64): only the
    kept trace's seven reductions count against the line's budget (trace/context.py), so the
    loop compiles instead of running as written."""
    calls = [(np.arange(5.0), np.ones(5), 10), (np.linspace(-1, 1, 9), np.arange(9.0), 3)]
    assert_same_calls(seven_statistics, calls, backend)
    out = astcompile.explain(astcompile.compile(seven_statistics, backend="eager"), *calls[0])
    assert (out.graph_count, out.graph_break_count) == (1, 0), str(out)


def rebound_to_a_mask(a, n):
    t = np.zeros_like(a)
    for i in range(n):
        t = a > 1
    return t


def rebound_to_an_int(a):
    s = 0.5
    for i in range(a.shape[0]):
        s = 1
    return s


def rebound_to_a_bool_item(a):
    s = np.float64(0.5)
    for i in range(a.shape[0]):
        s = a[i] > 1
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_variable_rebound_to_a_narrower_type_has_that_type(backend):
    """A loop whose body binds a variable to a value of a type both promote to the start's
    (a uint8 array, then a bool one): after the loop it has the body's type, not the promoted
    one (found by the NumPy-semantics fuzzer: it came back uint8, a float, a float64)."""
    u8 = np.array([1, 2, 3], np.uint8)
    assert_same_calls(rebound_to_a_mask, [(u8, 3), (u8, 0), (u8, 1)], backend)
    assert_same_calls(rebound_to_an_int, [(u8,), (u8[:0],)], backend)
    assert_same_calls(rebound_to_a_bool_item, [(u8,), (u8[::-1],)], backend)
