"""Where a traced loop starts (trace/loop_starts.py): variables its first iteration binds,
read after it, and the zero-trip call that runs the region's own statements."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_warnings

import astcompile


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


def smallest(x):
    best = None
    best_i = -1
    for i in range(len(x)):
        v = x[i] * 2
        if best is None or v < best:
            best = v
            best_i = i
    return best, best_i


def smallest_of_list(xs, n):
    best = None
    for i in range(n):
        v = xs[i] - 3
        if best is None or v < best:
            best = v
    return best


def best_that_may_stay_none(x):
    best = None
    for i in range(len(x)):
        if x[i] > 0 and (best is None or x[i] < best):
            best = x[i]
    return best


def equal_to_none(x):
    best = None
    for i in range(len(x)):
        if best == None or x[i] < best:  # noqa: E711 - as people write it
            best = x[i]
    return best


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls",
    [
        (smallest, [(np.array([3.0, 1.0, 2.0]),), (np.zeros(0),), (np.array([4, 2, 9]),)]),
        (smallest_of_list, [([5, 2, 8], 3), ([5, 2, 8], 0), ([1.5, 0.5], 2), ([7], -1)]),
        (equal_to_none, [(np.array([1.0, 3.0, 0.5]),), (np.zeros(0),)]),
        (best_that_may_stay_none, [(np.array([-3.0, 1.0]),), (np.array([-1.0]),)]),
    ],
)
def test_a_variable_that_starts_as_none_compiles(backend, fn, calls):
    """``best = None`` then ``if best is None or v < best: best = v``: the first iteration is
    traced on its own (``best`` is None there, a number after it), the loop from the second.
    A call where the loop runs zero times returns None, as Python does; an int stays an int,
    a float64 a float64. A branch that may not assign it carries it as None or a number
    (trace/optionals.py)."""
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    compiled(*calls[0])
    assert compiled.python_loops == set()
    assert _loop_region(compiled).stats.compiled_calls > 0
    empty = compiled(*calls[1])
    assert (empty[0] if fn is smallest else empty) is None


def none_into_an_array(x):
    out = np.zeros(len(x))
    best = None
    for i in range(len(x)):
        out[i] = best
        best = x[i]
    return out


def changes_type_after_none(x):
    best = None
    for i in range(len(x)):
        best = 0 if best is None else best + x[i]
    return best


def nested_may_not_run(x):
    out = np.zeros(x.shape[0])
    for r in range(x.shape[0]):
        best = None
        for c in range(r, x.shape[1]):
            if best is None or x[r, c] > best:
                best = x[r, c]
        out[r] = best
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, calls",
    [
        (none_into_an_array, [(np.array([3.0, 1.0]),), (np.zeros(0),)]),
        (changes_type_after_none, [(np.array([3.0, 1.0]),), (np.zeros(0),)]),
        (nested_may_not_run, [(np.ones((2, 3)),), (np.ones((4, 3)),)]),
    ],
)
def test_a_none_the_code_cannot_keep_exact_runs_plain(backend, fn, calls):
    """None stored into an array, a type that changes again, an inner loop that may run zero
    times: Python's answer (or exception) every time."""
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    compiled(*calls[0])
    assert compiled.python_loops != set()


def accumulate_quotients(a, b):
    acc = np.zeros(a.shape, np.float32)
    for i in range(a.shape[0]):
        acc -= (a / b).astype(np.float32)
    return acc


def accumulate_into_new_rows(a):
    acc = np.zeros_like(a)
    for i in range(a.shape[0]):
        acc = acc * np.asarray(a, dtype=np.complex64)
        acc[0] += 1
    return acc


@pytest.mark.parametrize("backend", BACKENDS)
def test_stores_into_an_array_a_loop_carries_from_a_new_one_warn_as_numpy(backend):
    """A loop storing only into an array the region made (``acc = np.zeros(n)``, carried and
    updated in place) stores nothing the caller sees: after a loud flag its statements run
    again and NumPy warns (the C region returned silently; found by the fuzzer)."""
    a, b = np.array([1e200, 1.0, 2.0]), np.array([1.0, 0.0, 2.0])
    assert_same_warnings(accumulate_quotients, a, b, backend=backend)
    assert_same_warnings(accumulate_into_new_rows, np.array([1 + 1e200j, 1.0]), backend=backend)


def normalised_after_the_loop(a, b):
    total = np.zeros_like(a)
    for i in range(a.shape[0]):
        total += b
    total /= 0.0
    return total


def floor_divided_view_after_the_loop(a, b):
    total = np.zeros_like(a)
    for i in range(a.shape[0]):
        total *= np.any(b, axis=-1, keepdims=True)
    tail = total[::-1]
    tail //= 0
    return total, tail


@pytest.mark.parametrize("backend", BACKENDS)
def test_stores_into_what_a_loop_carried_out_of_a_new_array_warn_as_numpy(backend):
    """The loop's result is that new array still: ``total /= 0.0`` after the loop stores into
    nothing the caller sees, so after the loud flag the statements run and NumPy warns (the C
    region was silent; found by the fuzzer)."""
    assert_same_warnings(normalised_after_the_loop, np.ones(3), np.ones(3), backend=backend)
    ints, rows = np.ones((2, 3), np.int64), np.ones((2, 1))
    assert_same_warnings(floor_divided_view_after_the_loop, ints, rows, backend=backend)
