"""``np.errstate``/``np.seterr``: compiled code runs only while NumPy would not raise, call or
log on a floating-point error; otherwise the plain code runs and NumPy reports the error."""

from __future__ import annotations

import threading
import timeit
import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_value, assert_same_warnings

import astcompile
from astcompile.jit import fp_errors
from astcompile.runtime import errstate


def divide(x, y):
    return x / y + 1.0


def floor_divide(a, b):
    return a // b


def overflow(x):
    return np.exp(x) * 2.0


def invalid(x):
    return np.sqrt(x - 2.0)


def errstate_inside(x, y):
    a = x * 2.0
    with np.errstate(divide="raise"):
        b = a / y
    return b + 1.0


CASES = [
    (divide, (np.ones(3), np.array([1.0, 0.0, 2.0])), {"divide": "raise"}),
    (floor_divide, (np.arange(4), np.array([1, 0, 2, 3])), {"divide": "raise"}),
    (overflow, (np.array([1.0, 1000.0]),), {"over": "raise"}),
    (invalid, (np.array([3.0, 1.0]),), {"invalid": "raise"}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args, modes", CASES, ids=[c[0].__name__ for c in CASES])
def test_errstate_raise_raises_like_numpy(backend, fn, args, modes):
    compiled = astcompile.compile(fn, backend=backend)
    assert_same(fn, *args, backend=backend)  # compiled first, outside errstate
    with np.errstate(**modes):
        with pytest.raises(FloatingPointError) as numpy_error:
            fn(*args)
        with pytest.raises(FloatingPointError) as compiled_error:
            compiled(*args)
    assert str(compiled_error.value) == str(numpy_error.value)
    with np.errstate(all="ignore"):  # compiled again once the state is quiet
        before = sum(r.stats.compiled_calls for r in compiled.regions)
        assert_same_value(compiled(*args), fn(*args))
        assert sum(r.stats.compiled_calls for r in compiled.regions) == before + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_seterr_all_raise_globally(backend):
    compiled = astcompile.compile(divide, backend=backend)
    args = (np.ones(2), np.zeros(2))
    with np.errstate(all="ignore"):
        compiled(*args)
    old = np.seterr(all="raise")
    try:
        with pytest.raises(FloatingPointError, match="divide by zero"):
            compiled(*args)
        np.testing.assert_array_equal(compiled(np.ones(2), np.ones(2)), np.full(2, 2.0))
    finally:
        np.seterr(**old)


@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_call_reaches_the_handler(backend):
    compiled = astcompile.compile(divide, backend=backend)
    seen = []
    with np.errstate(all="ignore"):
        compiled(np.ones(2), np.zeros(2))
    old = np.seterrcall(lambda kind, flag: seen.append(kind))
    try:
        with np.errstate(divide="call"):
            got = compiled(np.ones(2), np.zeros(2))
    finally:
        np.seterrcall(old)
    assert seen == ["divide by zero"]
    np.testing.assert_array_equal(got, np.full(2, np.inf))


@pytest.mark.parametrize("backend", BACKENDS)
def test_errstate_inside_the_compiled_function(backend):
    compiled = astcompile.compile(errstate_inside, backend=backend)
    np.testing.assert_array_equal(compiled(np.ones(2), np.ones(2)), np.full(2, 3.0))
    with pytest.raises(FloatingPointError):
        compiled(np.ones(2), np.zeros(2))


def log_scaled(x):
    return np.log(x) * 2.0


def sqrt_shifted(x):
    return np.sqrt(x - 2.0) + 1.0


def exp_over(x):
    return np.exp(x) * 0.5


def no_error(x):
    return np.log(x + 1.0)


def compare_stored(x, out):
    out[:] = x > 0  # C's ">" raises the invalid flag on NaN; NumPy's comparison does not warn
    return out


def python_float_overflow(x, out):
    s = 1.0
    for i in range(x.shape[0]):
        s = s * 1e300  # Python floats overflow to inf without a warning
        out[i] = s
    return out


def python_float_branches(x):
    t = 0.0
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0.5:
            t += v * v
        else:
            t -= v
    return t


def python_float_growth(x):
    s = 1.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s * 1e200  # Python floats overflow to inf without a warning (from two steps on)
    return s


def scalar_overflow_after_a_loop(x):
    for i in range(x.size):
        x[i] += 1
    return x, np.float32(1e38) * np.float32(10)  # computed while tracing: its warning too


NANS = np.array([np.nan, 1.0, -1.0] * 10)
WARNING_CASES = [
    (divide, (np.ones(3), np.array([1.0, 0.0, 2.0]))),
    (log_scaled, (np.array([1.0, 0.0, 2.0]),)),
    (log_scaled, (np.zeros(200_000),)),  # an OpenMP team: its threads' flags count too
    (sqrt_shifted, (np.array([3.0, 1.0]),)),
    (exp_over, (np.array([1.0, 1000.0], dtype=np.float32),)),
    (no_error, (np.arange(4.0),)),
    (scalar_overflow_after_a_loop, (np.arange(4.0),)),
]
#: C raises flags where NumPy does not warn: a signalling compare on NaN, Python floats' own
#: arithmetic. (The eager backend of a region that stored warns of Python floats as NumPy's.)
SILENT_CASES = [
    (compare_stored, (NANS, np.zeros(30, bool))),
    (python_float_overflow, (NANS, np.zeros(30))),
    (python_float_branches, (NANS,)),
    (python_float_growth, (np.ones(3),)),
    (python_float_growth, (np.zeros(3),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", WARNING_CASES, ids=[c[0].__name__ for c in WARNING_CASES])
def test_compiled_code_warns_as_numpy_does(backend, fn, args):
    """NumPy's default error state warns; compiled code gives the same RuntimeWarnings on every
    call, and raises them as NumPy does under a filter that makes them errors."""
    assert_same_warnings(fn, *args, backend=backend)


@pytest.mark.parametrize("fn, args", SILENT_CASES, ids=[c[0].__name__ for c in SILENT_CASES])
def test_flags_numpy_does_not_warn_of_stay_silent(fn, args):
    """A flag is no proof that NumPy would warn: a region that stored returns silently, one
    that did not runs its statements (NumPy decides)."""
    assert_same_warnings(fn, *args, backend="c")


def test_runtime_warnings_as_errors_raise_as_numpy_does():
    compiled = astcompile.compile(divide, backend="c")
    args = (np.ones(2), np.array([1.0, 0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning):
            divide(*args)
        with pytest.raises(RuntimeWarning):
            compiled(*args)


def test_loud_flags_on_every_call_run_the_statements_directly():
    """Python floats that overflow raise the flag on every call: after two compiled runs in a
    row that did, the region runs its statements alone for its next calls, then tries compiled
    again."""
    compiled = astcompile.compile(python_float_growth, backend="c")
    for _ in range(2 + fp_errors.PLAIN_CALLS):
        assert_same_value(compiled(np.ones(3)), python_float_growth(np.ones(3)))
    stats = compiled.regions[0].stats
    assert stats.compiled_calls == 2
    assert stats.eager_calls == 2 + fp_errors.PLAIN_CALLS  # two after compiled runs, then alone
    compiled(np.ones(3))  # compiled again, still loud: its statements alone for the next calls
    assert (stats.compiled_calls, stats.eager_calls) == (3, 3 + fp_errors.PLAIN_CALLS)
    assert compiled(np.zeros(3)) == 1.0
    assert (stats.compiled_calls, stats.eager_calls) == (3, 4 + fp_errors.PLAIN_CALLS)


def test_flags_on_calls_apart_stay_compiled():
    """A loud call now and then (a compiled call with clear flags between) keeps compiled code."""
    compiled = astcompile.compile(python_float_growth, backend="c")
    for _ in range(4):
        compiled(np.ones(3))
        assert compiled(np.zeros(3)) == 1.0
    assert compiled.regions[0].stats.compiled_calls == 8


def test_ignored_errors_stay_compiled():
    """A raised flag that errstate ignores costs nothing: the compiled result is returned."""
    compiled = astcompile.compile(log_scaled, backend="c")
    x = np.array([0.0, 1.0])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled(x)
        before = compiled.regions[0].stats.eager_calls
        assert_same_value(compiled(x), log_scaled(x))
        assert compiled.regions[0].stats.eager_calls == before


def test_a_warning_from_the_statements_names_the_users_line():
    """NumPy warns from the frame that called it: a region's statements run as written (the
    rerun after a loud flag, a plain run), so the warning names this file, not a helper of
    the tracer's that ``np.log`` was routed through (and the once-per-line filter works)."""
    compiled = astcompile.compile(log_scaled, backend="c")  # (eager warns from its own ops)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        compiled(np.zeros(4))
        compiled(np.zeros(4))
    assert seen and {w.filename for w in seen} == {__file__}


def store_divided(x, y):
    x[...] = 1.0 / y
    return x.sum()


def test_a_region_that_stores_raises_as_numpy_under_warnings_as_errors():
    """A region that wrote into an argument raises NumPy's RuntimeWarning under a filter that
    makes it an error, leaving the argument as NumPy does (unwritten: the divide raised before
    the store); it returned silently with the argument written (jit/fp_errors.restoring)."""
    compiled = astcompile.compile(store_divided, backend="c")
    for _ in range(3):
        x, y = np.ones(3), np.array([1.0, 0.0, 2.0])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(RuntimeWarning, match="divide by zero encountered in divide"):
                compiled(x, y)
        np.testing.assert_array_equal(x, np.ones(3))
        assert compiled(x, y) == np.inf  # without the filter: warned, stored
        np.testing.assert_array_equal(x, [1.0, np.inf, 0.5])


def test_quiet_follows_errstate_and_seterr():
    assert errstate.quiet()
    with np.errstate(all="warn"):
        assert errstate.quiet()
    with np.errstate(under="raise"):
        assert not errstate.quiet()
        with np.errstate(under="ignore"):
            assert errstate.quiet()
        assert not errstate.quiet()
    with np.errstate(invalid="log"):
        assert not errstate.quiet()
    assert errstate.quiet()


def test_quiet_is_per_thread():
    seen = []
    inside = threading.Event()
    done = threading.Event()

    def other():
        with np.errstate(divide="raise"):
            seen.append(errstate.quiet())
            inside.set()
            done.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(5)
    seen.append(errstate.quiet())
    done.set()
    thread.join()
    assert seen == [False, True]


def test_quiet_reads_numpys_state_once_per_state_object(monkeypatch):
    errstate.quiet()  # the current state is known
    calls = []
    monkeypatch.setattr(np, "geterr", lambda: calls.append(1) or {"divide": "warn"})
    for _ in range(100):
        assert errstate.quiet()
    assert calls == []


def test_quiet_costs_well_under_a_microsecond():
    errstate.quiet()
    seconds = min(timeit.repeat(errstate.quiet, number=10_000, repeat=5)) / 10_000
    assert seconds < 0.5e-6


def test_warnings_raise_follows_the_filters_it_remembers():
    """Remembered against the filters list, its first filter and length: each way the warnings
    API changes what it answers changes one of them."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        assert not errstate.warnings_raise()
        warnings.simplefilter("error", RuntimeWarning)
        assert errstate.warnings_raise()
        with warnings.catch_warnings():
            warnings.resetwarnings()
            assert not errstate.warnings_raise()
            warnings.simplefilter("error")
            assert errstate.warnings_raise()
        assert errstate.warnings_raise()
        warnings.resetwarnings()
        warnings.simplefilter("error", UserWarning)
        assert not errstate.warnings_raise()
