"""Loops and stores end to end: compiled results, and argument mutations, equal NumPy's."""

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


def test_a_loop_that_cannot_be_traced_runs_in_python_with_regions_inside():
    def to_python_float(x, n):
        s = 0.0
        for i in range(n):
            s = s + np.sum(x * i).item()
        return x + s

    compiled = astcompile.compile(to_python_float, backend="eager")
    x = np.arange(3.0)
    for _ in range(3):
        np.testing.assert_array_equal(compiled(x, 4), to_python_float(x, 4))
    assert compiled.python_loops  # the loop went back to Python after its trace broke


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


def native_then_untraceable(x, n):
    for i in range(n):  # traces: stays a native loop
        x = x * 0.5 + i
    s = 0.0
    for i in range(n):  # .item() cannot trace: this loop alone goes back to Python
        s = s + np.sum(x * i).item()
    return x + s


def test_a_trace_failure_sends_only_the_loops_around_it_to_python():
    """The failing line is in the second loop: the first stays native, in a region of its own
    (before, every loop of the region went to Python)."""
    compiled = astcompile.compile(native_then_untraceable, backend="c")
    x = np.arange(3.0)
    for _ in range(3):
        np.testing.assert_array_equal(compiled(x, 4), native_then_untraceable(x, 4))
    first, second = (native_then_untraceable.__code__.co_firstlineno + offset for offset in (1, 4))
    assert compiled.python_loops == {second}
    loop_region = next(r for r in reversed(compiled.regions) if r.spec.first_line == first)
    assert len(loop_region.spec.structured) == 1
    assert loop_region.stats.compiled_calls > 0 and loop_region.stats.eager_calls == 0


# -- variables a loop binds first (and its target) read after it -------------------------------


def first_bound_in_loop(x, steps):
    for step in range(steps):
        p = x * 0.5
        x = x + p
    return x, p


def target_read_after(x, tol, max_iter):
    for it in range(max_iter):
        x = x * 0.5
        if np.abs(x).max() < tol:
            break
    return x, it


def target_bound_before(x, n):
    i = -1
    for i in range(n):
        x = x + i
    return x, i


def unbound_read_only_sometimes(x, n):
    for k in range(n):
        last = x[k] * 2.0
    if n > 0:
        return x + last
    return x


def _loop_region(compiled):
    return next(r for r in reversed(compiled.regions) if r.spec.structured)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls",
    [
        (first_bound_in_loop, [(np.ones(3), 2), (np.ones(3), 5), (np.ones(3), 0)]),
        (target_read_after, [(np.ones(4), 0.1, 50), (np.ones(4), 0.1, 2), (np.ones(4), 0.1, 0)]),
        (target_bound_before, [(np.ones(2), 3), (np.ones(2), 0)]),
        (unbound_read_only_sometimes, [(np.arange(4.0), 3), (np.arange(4.0), 0)]),
    ],
)
def test_a_variable_first_bound_in_the_loop_is_read_after_it(backend, fn, calls):
    """The loop compiles (before, it stayed in Python); a call where it runs zero times leaves
    the variable unbound, as in Python: the read raises UnboundLocalError, or is skipped."""
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    compiled(*calls[0])
    assert compiled.python_loops == set()
    assert _loop_region(compiled).stats.compiled_calls > 0


def test_a_loop_that_runs_zero_times_runs_the_plain_statements_not_a_recompile():
    """Traced once with the loop running, a zero-trip call fails the compiled code's check and
    runs the region's statements; later calls use the compiled code again."""
    compiled = astcompile.compile(first_bound_in_loop, backend="c")
    x = np.arange(3.0)
    for steps in (3, 0, 4):
        try:
            got = compiled(x, steps)
        except UnboundLocalError:
            assert steps == 0
            continue
        np.testing.assert_array_equal(got[0], first_bound_in_loop(x, steps)[0])
    region = _loop_region(compiled)
    assert compiled.python_loops == set()
    assert region.stats.traces <= 1  # 0 when an earlier test left the compiled entry on disk
    assert region.stats.eager_calls == 1 and region.stats.compiled_calls >= 2


def int_sum_of_floats(x, n):
    s = 0
    for i in range(n):
        s = s + x[i]
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_of_an_int_count_that_changes_a_type_compiles(backend):
    """``s = 0`` becomes a float64 when the loop runs, stays the int 0 when it does not: the
    loop compiles with a check that it runs (before, it stayed in Python), and a zero-trip
    call runs the region's statements, which return Python's int."""
    calls = [(np.arange(9.0), 7), (np.arange(9.0), 0), (np.arange(9.0), -2), (np.arange(9.0), 3)]
    assert_same_calls(int_sum_of_floats, calls, backend=backend)
    compiled = astcompile.compile(int_sum_of_floats, backend=backend)
    compiled(np.arange(9.0), 7)
    assert compiled.python_loops == set()
    assert _loop_region(compiled).stats.compiled_calls > 0
    got = compiled(np.arange(9.0), 0)
    assert got == 0 and type(got) is int


# -- a return inside a loop -------------------------------------------------------------------------


def settle(x, tol, max_iter):
    lam = 0.0
    for it in range(max_iter):
        x = x * 0.5
        new = np.sum(x)
        if abs(new - lam) < tol:
            return new, x, it
        lam = new
    return lam, x, max_iter


def first_negative(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            return i
    return -1


def halve_until_small(x, tol):
    steps = 0
    while steps < 100:
        x = x / 2.0
        steps += 1
        if np.max(np.abs(x)) < tol:
            return x
    return x * 0.0


def return_then_more(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i]
        if s > 2.0:
            return s * 2.0
    s = s - 1.0
    return s


def search_forever(x, t):
    i = 0
    while True:
        if x[i] > t:
            return i
        i += 1


def running_total_until(x, t):
    i = 0
    s = 0.0
    while True:
        s += x[i]
        if s > t:
            return i, s
        i += 1


def binary_search(a, v):
    lo = 0
    hi = a.shape[0] - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if a[mid] == v:
            return mid
        elif a[mid] < v:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def newton_sqrt(a, tol):
    x = a
    while True:
        nx = 0.5 * (x + a / x)
        if abs(nx - x) < tol:
            return nx
        x = nx


def returns_the_previous(x, t):
    i = 0
    while i < x.shape[0]:
        if x[i] > t:
            return prev  # noqa: F821 - unbound on the first pass, as the user wrote it
        prev = x[i]  # noqa: F841 - read by the return on later passes
        i += 1
    return -1.0


def first_outlier(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i, x[i]
        if x[i] < -t:
            return -i, -x[i]
    return x.shape[0], 0.0


def classify_walk(x, t):
    s = 0.0
    i = 0
    while True:
        s += x[i]
        if s > t:
            return 1
        elif s < -t:
            return 2
        if x[i] == 0.25:
            return 3
        i += 1


_WALK = np.array([0.1, -0.3, 0.25, 0.5, -2.0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls, compiles",
    [
        # several returns in one loop: each sets the flag to its number, the region returns
        # the value of the one that ran (every path, and running off the end, below)
        (
            first_outlier,
            [(np.array([0.0, 0.1, 2.0]), 1.0), (np.array([0.0, -3.0]), 1.0), (np.ones(3), 5.0)],
            True,
        ),
        (
            classify_walk,
            [
                (_WALK, 0.3),
                (np.array([0.5, 0.6, 0.0]), 1.0),
                (_WALK[::-1].copy(), 1.0),
                (_WALK[:2].copy(), 9.0),
            ],
            True,
        ),
        # a ``while`` whose return reads a name its body binds first (``mid``): the name
        # starts unbound, unseen; an empty array runs the loop zero times
        (binary_search, [(np.arange(9.0), 6.0), (np.arange(9.0), 2.5), (np.zeros(0), 1.0)], True),
        (newton_sqrt, [(np.float64(2.0), 1e-12), (np.float64(9.0), 1e-6)], True),
        # ``while True:`` left only by its return needs no return after it; running off the
        # end raises IndexError as in Python
        (
            search_forever,
            [(np.arange(6.0), 3.5), (np.arange(6.0), -1.0), (np.arange(6.0), 9.0)],
            True,
        ),
        (running_total_until, [(np.ones(9), 4.5), (np.arange(4.0), 2.0), (np.ones(3), 5.0)], True),
        (settle, [(np.ones(4), 1e-3, 100), (np.ones(4), 1e-3, 3), (np.ones(4), 1e-3, 0)], True),
        (first_negative, [(np.array([1.0, 2.0, -1.0, -3.0]),), (np.arange(3.0),)], True),
        (return_then_more, [(np.ones(5), 5), (np.ones(5), 2), (np.ones(5), 0)], True),
        # the C target cannot return a loop's array from one side of an IF (the other side
        # makes a new one): the loop runs in Python again, the answer is the same
        (halve_until_small, [(np.ones(3), 1e-2), (np.ones(3), -1.0)], False),
    ],
)
def test_a_return_inside_a_loop_compiles_with_the_loop(backend, fn, calls, compiles):
    """``return`` in a loop body breaks out of the native loop and the region returns its
    value (before, the loop ran in Python, its body split around the return)."""
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    compiled(*calls[0])
    assert compiled.static_breaks == ()
    if compiles or backend in ("eager", "triton"):  # Triton's host loop hands on any array
        assert compiled.python_loops == set() and len(compiled.regions) == 1
        assert compiled.regions[0].stats.compiled_calls > 0
    else:  # the loop goes back to Python, its body compiled: the old split
        assert compiled.python_loops


def first_of_three_kinds(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i
        if x[i] < -t:
            return x[i]
        if x[i] == 0.125:
            return 0.5
    return True


@pytest.mark.parametrize("backend", BACKENDS)
def test_returns_of_different_python_types_keep_their_types(backend):
    """Each return hands back its own Python type (int, np.float64, float, bool): where one
    value cannot carry them all, the loop runs in Python, never a converted value."""
    arrays = [[0.0, 2.0], [0.0, -2.0], [0.0, 0.125], [0.0, 0.0]]
    calls = [(np.array(a), 1.0) for a in arrays] * 2
    assert_same_calls(first_of_three_kinds, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_while_whose_return_reads_a_name_bound_later_stays_python(backend):
    """``prev`` is read by the return before the body binds it on the first pass: Python
    raises UnboundLocalError there, so the loop stays in Python (no unseen start value)."""
    calls = [(np.array([0.0, 2.0, 3.0]), 1.0), (np.array([5.0, 1.0]), 1.0), (np.ones(2), 9.0)]
    assert_same_calls(returns_the_previous, calls, backend=backend)
    compiled = astcompile.compile(returns_the_previous, backend=backend)
    compiled(*calls[0])
    assert [r.spec.structured for r in compiled.regions] == [()]  # the body alone compiles


def bump_then_bind(x, n):
    x[0] += 1.0
    for i in range(n):
        p = x * 2.0
    return p


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_region_that_already_stored_never_reruns_for_a_zero_trip_loop(backend):
    """The zero-trip fallback runs the region's statements from the start: after a store into
    an argument that would store twice, so such a loop is traced on its own terms instead
    (the argument is bumped once, and the read after the loop raises as in Python)."""
    assert_same_calls(bump_then_bind, [(np.ones(3), 2), (np.ones(3), 0)], backend=backend)
    x = np.ones(3)
    compiled = astcompile.compile(bump_then_bind, backend=backend)
    with pytest.raises(UnboundLocalError):
        compiled(x, 0)
    assert x[0] == 2.0


# -- a raise inside a loop --------------------------------------------------------------------------


def diverges(x, steps):
    total = 0.0
    for k in range(steps):
        total = total + np.sum(x) * k
        if total > 100.0:
            raise ValueError(f"diverged at step {k}: {total}")
    return total


def stores_then_raises(u, steps):
    for k in range(steps):
        u[:] = u * 2.0
        if u.max() > 50.0:
            raise OverflowError("too big")
    return u


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_raise_inside_a_loop_compiles_with_the_loop(backend):
    """The loop stays native; a call that raises hands the region to its own statements
    (RunPlain), which raise the user's exception with its message."""
    calls = [(np.ones(3), 5), (np.ones(3), 50), (np.ones(3), 6)]
    assert_same_calls(diverges, calls, backend=backend)
    compiled = astcompile.compile(diverges, backend=backend)
    assert compiled(np.ones(3), 5) == diverges(np.ones(3), 5)
    with pytest.raises(ValueError, match=r"diverged at step 8: 108\.0"):
        compiled(np.ones(3), 50)
    assert compiled.python_loops == set() and len(compiled.regions) == 1
    region = compiled.regions[0]
    assert region.stats.compiled_calls >= 2 and region.stats.eager_calls == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_raise_after_stores_keeps_its_loop_in_python(backend):
    """Running the region again would store twice: the loop goes back to Python."""
    assert_same_calls(stores_then_raises, [(np.ones(3), 3), (np.ones(3), 10)], backend=backend)
    compiled = astcompile.compile(stores_then_raises, backend=backend)
    u = np.ones(3)
    with pytest.raises(OverflowError):
        compiled(u, 10)
    np.testing.assert_array_equal(u, np.full(3, 64.0))


def carries_a_name_bound_only_inside(x, n):
    for i in range(n):
        for j in range(3):
            q = x * j
        x = x + q
    return x


def test_explain_says_why_a_graph_able_loop_runs_in_python():
    """No graph break inside, yet the outer loop stays in Python: explain names the variable
    and what to do (before, it said nothing about that loop)."""
    report = str(astcompile.explain(carries_a_name_bound_only_inside, np.ones(3), 4))
    assert "loop over 4 iterations runs in Python: `q` may be unbound" in report
    assert "bind it before the loop" in report


def clip_each(x, lo, hi, out):
    for i in range(x.shape[0]):
        v = x[i]
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        out[i] = v
    return out


def grade(scores):
    total = 0
    for s in scores:
        if s >= 90:
            g = 4
        elif s >= 80:
            g = 3
        elif s >= 70:
            total += 100
            g = 2
        else:
            g = 0
        total += g
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_elif_in_a_loop_passes_on_what_it_assigns(backend):
    """An ``elif`` is no statement of its own: what it assigns is live after the ``if`` it
    belongs to (it was dropped, and the loop stored the unclipped value)."""
    x = np.array([0.3, 2.0, -3.0, 0.1, np.nan])
    assert_same(clip_each, x, -0.5, 0.5, np.zeros(5), backend=backend)
    assert_same(grade, np.array([95, 85, 75, 10, 80, 70]), backend=backend)


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


def piecewise(x):
    """``y`` first bound in the arms of an ``if`` on the element (bench/loop_kernels.py has
    it too: the installed tests run without bench/)."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        t = x[i]
        if t < 0.0:
            y = t * t
        else:
            y = 2.0 * t + 1.0
        out[i] = y
    return out


def summed_pieces(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            y = x[i] * x[i]
        elif x[i] > -1.0:
            y = -x[i]
        else:
            y = 2.0 * x[i] + 1.0
        s += y
    return s


def read_before_bound(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            y = x[i]
        else:
            y = y + 1.0  # the first element not above 0 reads y from the iteration before
        out[i] = y
    return out


BOUND_IN_ARMS = np.array([0.3, np.nan, -0.0, 0.0, np.inf, -np.inf, 0.7, 1.0, -2.5, 1e308, 0.5])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_name_every_arm_binds_need_not_be_bound_before_the_if(backend):
    """``y`` first bound in each arm (``if x < 0: y = ... else: y = ...``), as people write a
    piecewise function: the loop compiles (before, the ``if`` stayed in Python and its loop
    ran as written, slower than plain), NaN, infinities and signed zeros as NumPy gives them."""
    x = np.concatenate([BOUND_IN_ARMS, np.random.default_rng(3).standard_normal(200)])
    assert_same(piecewise, x, backend=backend)
    assert_same(summed_pieces, x, backend=backend)
    for fn in (piecewise, summed_pieces):
        report = astcompile.explain(astcompile.compile(fn, backend=backend), x)
        assert report.graph_break_count == 0, str(report)
        assert [r.compiled_calls for r in report.regions] == [1], str(report)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_arm_that_reads_the_name_first_keeps_pythons_unbound_error(backend):
    calls = [(np.array([1.0, -1.0, 2.0, -3.0]),), (np.array([-1.0, 2.0]),)]  # then unbound
    assert_same_calls(read_before_bound, calls, backend=backend)
