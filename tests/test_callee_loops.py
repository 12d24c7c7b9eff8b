"""User helpers with loops, called from a compiled loop (frontend/callee_loops.py,
trace/inlined_loops.py): inlined, their loops the caller's native loops, while everything the
helper reads (its globals, closure cells, defaults) is read at every call and a helper with a
side effect still runs at every call, as in Python."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_call, assert_same_calls
from test_reads import follows

import astcompile
from astcompile.frontend.analysis import analyze_function
from astcompile.frontend.callee_loops import inlines_with_loops, native_rewrite
from astcompile.frontend.callee_rules import CallKind
from astcompile.frontend.callees import judge
from astcompile.frontend.resolve import RuntimeResolver
from astcompile.frontend.source import function_source
from bench.programs.goldbach_pairs import _is_prime as is_prime
from bench.programs.halton_points import halton_points, radical_inverse

SCALE = 2.0
LOG: list[float] = []
A = np.linspace(0.0, 1.0, 23)


def driver_of(helper):
    """The driver the issue is about: a compiled loop calling a small helper with a loop."""

    def driver(a, n):
        out = np.empty_like(a)
        for i in range(a.shape[0]):
            out[i] = helper(a[i], n)
        return out

    return driver


def scaled_sum(x, n, step=1):
    s = 0.0
    for k in range(0, n, step):
        s += x * SCALE + k
    return s


def scaled_by_keyword(a, n):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = scaled_sum(n=n, x=a[i])
    return out


def mark(canvas, i, n):
    for k in range(n):
        canvas[(i + k) % canvas.shape[0]] += 1.0


def marks(canvas, n):
    for i in range(canvas.shape[0]):
        mark(canvas, i, n)
    return canvas


def outer_helper(x, n):
    t = 0.0
    for k in range(n):
        t += scaled_sum(x, k)
    return t


def logged_sum(x, n):
    t = 0.0
    for _ in range(n):
        t += x
    LOG.append(t)
    return t


def noise_sum(x, n):
    for _ in range(n):
        x += np.random.rand()
    return x


def printing_sum(x, n):
    for _ in range(n):
        x += 1.0
    print(x)
    return x


def count_primes(limit):
    found = 0
    for n in range(limit):
        if is_prime(n):
            found += 1
    return found


def top_level_call(a, n):
    total = scaled_sum(1.0, n)
    return a * total


def alternating(x, n):
    s = 0.0
    for k in range(n):
        s += (-1) ** k * x / (2 * k + 1)  # a power of a loop value: the trace refuses it
    return s


def alternating_and_more(a, n):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = alternating(a[i], n)
    total = 0.0
    for k in range(n * 10):
        total += k * 0.5
    return out, total


def power_helper(power):
    def helper(x, n):
        t = 0.0
        for _ in range(n):
            t += x**power
        return t

    def set_power(p):
        nonlocal power
        power = p

    return helper, set_power


scaled = driver_of(scaled_sum)


def first_above(a, x):
    for k in range(a.shape[0]):
        if a[k] > x:
            return a[k] > 0.5  # a NumPy bool; the path past the loop returns Python's False
    return False


def firsts_above(a, b):
    found = []
    for i in range(b.shape[0]):
        found.append(first_above(a, b[i]))
    return found


def analysis_of(fn):
    return analyze_function(function_source(fn), RuntimeResolver(fn))


def test_a_helper_whose_loops_lower_is_inlined_with_its_rewrite():
    analysis = analysis_of(radical_inverse)
    assert analysis.inlinable and not analysis.fully_graphable
    done = native_rewrite(analysis)
    assert done is not None and [r.name for r in done.regions] == ["__ac_region_0"]
    verdict = judge(radical_inverse)
    assert verdict.kind is CallKind.INLINE_USER and verdict.rewrite is not None


@pytest.mark.parametrize("helper", [logged_sum, noise_sum, printing_sum])
def test_a_helper_with_a_side_effect_is_not_inlined(helper):
    analysis = analysis_of(helper)
    assert not analysis.inlinable and not inlines_with_loops(analysis)
    assert judge(helper).kind is CallKind.BREAK_USER


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_branching_on_an_argument_outside_its_loops_is_called(backend):
    """``if n < 2: return`` is a test the trace specialises on where the helper is compiled
    on its own; inlined in a loop, ``n`` changes from one iteration to the next, and the
    caller's whole loop would run as Python."""
    assert not inlines_with_loops(analysis_of(is_prime))
    assert judge(is_prime).kind is CallKind.BREAK_USER
    assert_same_calls(count_primes, [(30,), (2,)], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_looping_helper_called_outside_the_callers_loops_is_called(backend):
    """Inlining saves a call per iteration only in a loop; elsewhere the helper is compiled
    on its own, so that its trace failing cannot take the caller's region with it."""
    assert [b.code for b in analysis_of(top_level_call).breaks] == ["GB003"]
    assert analysis_of(scaled).breaks == ()
    assert_same_calls(top_level_call, [(A, 4), (A, 0)], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_whose_trace_fails_sends_only_the_loop_calling_it_to_python(backend):
    """The break is the caller's at the calling line: the loop holding it runs in Python from
    the next call, and the caller's other loop stays compiled."""
    compiled = astcompile.compile(alternating_and_more, backend=backend)
    for _ in range(3):
        assert_same_call(compiled, (A, 5), alternating_and_more, (A, 5), backend)
    calling = alternating_and_more.__code__.co_firstlineno + 2
    assert compiled.python_loops == {calling}


def test_the_caller_has_no_break_and_one_graph():
    out = astcompile.explain(halton_points, 50, (2, 3))
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    assert np.array_equal(out.out, halton_points(50, (2, 3)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls",
    [
        (halton_points, [(40, (2, 3)), (7, (5,)), (0, (2,))]),
        (scaled, [(A, 4), (A[:3], 0), (A, 1)]),
        (scaled_by_keyword, [(A, 3), (A, 5)]),
        (marks, [(np.zeros(9), 3), (np.zeros(1), 2), (np.zeros(0), 2)]),
        (driver_of(outer_helper), [(A, 4), (A[:2], 6)]),
        (firsts_above, [(A, A[::3]), (A, A + 2.0), (A[:0], A)]),
    ],
    ids=["while", "for", "keywords", "stores", "nested", "python-or-numpy-results"],
)
def test_drivers_calling_looping_helpers(backend, fn, calls):
    assert_same_calls(fn, calls, backend=backend)


def set_scale(value):
    global SCALE
    SCALE = value


@pytest.mark.parametrize("backend", BACKENDS)
def test_what_the_helper_reads_is_read_at_every_call(backend):
    """Its global, its defaults, a closure cell of its own: rebound between calls."""
    try:
        follows(scaled, (A, 7), lambda: set_scale(-1.5), lambda: set_scale(7.0), backend=backend)
        defaults = [lambda s=s: setattr(scaled_sum, "__defaults__", (s,)) for s in (2, 3)]
        follows(scaled, (A, 7), *defaults, backend=backend)
    finally:
        set_scale(2.0)
        scaled_sum.__defaults__ = (1,)
    helper, set_power = power_helper(2)
    changes = (lambda: set_power(3), lambda: set_power(1))
    follows(driver_of(helper), (A, 3), *changes, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_side_effects_of_a_looping_helper_happen_at_every_call(backend, capsys):
    logging = astcompile.compile(driver_of(logged_sum), backend=backend)
    for _ in range(2):
        LOG.clear()
        expected = driver_of(logged_sum)(A, 3)
        plain_log = list(LOG)
        LOG.clear()
        assert np.array_equal(logging(A, 3), expected) and plain_log == LOG
    noisy = astcompile.compile(driver_of(noise_sum), backend=backend)
    for seed in range(2):
        np.random.seed(seed)
        expected = driver_of(noise_sum)(A, 2)
        np.random.seed(seed)
        assert np.array_equal(noisy(A, 2), expected)
    driver_of(printing_sum)(A[:4], 2)
    plain_text = capsys.readouterr().out
    astcompile.compile(driver_of(printing_sum), backend=backend)(A[:4], 2)
    assert capsys.readouterr().out == plain_text
