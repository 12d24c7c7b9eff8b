"""Which loops compile as native loops (frontend/loop_plan.py): a return or raise inside one,
names bound in an ``elif`` or in every arm of an ``if``, and explain's reason when one
stays in Python."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls

import astcompile

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
