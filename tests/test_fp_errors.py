"""jit/fp_errors.py: a compiled region's raised floating-point flags become NumPy's warnings
(its statements run again), whichever backend the user chose, wherever the kernel ran."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import (
    BACKENDS,
    TRITON,
    assert_same_call,
    assert_same_warnings,
    runtime_warnings,
)

import astcompile
from astcompile.runtime import parallel


def reciprocal_sum(x):
    t = 0.0
    for i in range(x.shape[0]):
        t = t + 1.0 / x[i]  # a loop of scalar updates: Triton has no form, C builds it
    return t


def reciprocal_prefix(x):
    y = np.zeros(x.shape[0])
    for i in range(1, x.shape[0]):
        y[i] = y[i - 1] + 1.0 / x[i]
    return y


HANDED_TO_C = [reciprocal_sum, reciprocal_prefix]


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
@pytest.mark.parametrize("fn", HANDED_TO_C, ids=[f.__name__ for f in HANDED_TO_C])
def test_a_triton_region_handed_to_c_warns(fn):
    """The check keys on the backend that built the region: a ``backend="triton"`` region the
    accept stage handed to C raises the CPU's flags like any C region (it was silent)."""
    assert_same_warnings(fn, np.array([1.0, 0.0, 2.0]), backend="triton")


def reciprocals(x):
    y = np.empty(x.shape[0])
    for i in range(x.shape[0]):  # independent iterations: omp parallel for
        y[i] = 1.0 / x[i]
    return y


def logs_then_prefix(x):
    y = np.empty(x.shape[0])
    y[:] = np.log(x)  # an element nest outside every loop: omp parallel for
    for i in range(1, 4):
        y[i] = y[i - 1] + y[i]
    return y


TEAMS = [reciprocals, logs_then_prefix]


@pytest.fixture
def four_threads(monkeypatch):
    monkeypatch.setattr(parallel, "_nthreads", 4)


@pytest.mark.parametrize("fn", TEAMS, ids=[f.__name__ for f in TEAMS])
def test_a_structured_loops_team_hands_its_flags_to_the_caller(fn, four_threads):
    """A structured region's ``omp parallel`` loops gather their threads' flags onto the calling
    thread, as flat kernels do: a zero in the last thread's share warns (it was silent)."""
    x = np.ones(600_000)
    x[-1] = 0.0
    assert_same_warnings(fn, x, backend="c")


def floor_divide(a, b):
    return a // b


def remainder(a, b):
    return a % b


def both(a, b):
    return a // b + a % b * 2


def floor_divide_in_loop(a, b):
    t = np.int64(0)
    for i in range(a.shape[0]):
        t = t + a[i] // b[i]  # NumPy int64 scalars: warn as arrays do
    return t


INTS = np.array([7, -7, 3, 0])
ZEROS = np.array([2, 0, -2, 0])
INT_CASES = [
    (floor_divide, (INTS, ZEROS)),
    (remainder, (INTS, ZEROS)),
    (both, (INTS.astype(np.int8), ZEROS.astype(np.int8))),
    (both, (INTS.astype(np.uint8), ZEROS.astype(np.uint8))),
    (both, (INTS.astype(np.uint64), ZEROS.astype(np.uint64))),
    (floor_divide, (np.array([True, False]), np.array([False, True]))),
    (floor_divide, (np.array([-(2**63), 5]), np.array([-1, -1]))),  # overflow, no zero
    (remainder, (np.array([-(2**63), 5]), np.array([-1, -1]))),  # no warning
    (floor_divide, (INTS, 0)),
    (floor_divide, (7, ZEROS)),
    (floor_divide, (np.zeros(0, np.int64), np.zeros(0, np.int64))),
    (floor_divide_in_loop, (INTS, ZEROS)),
    (floor_divide, (INTS, np.array([1, 2, 3, 4]))),  # no warning
]


@pytest.mark.parametrize("fn, args", INT_CASES, ids=[c[0].__name__ for c in INT_CASES])
def test_integer_division_by_zero_warns_as_numpy_does(fn, args):
    """NumPy warns of an integer // or % by zero (and of INT_MIN // -1): the C helpers raise
    the divide-by-zero (overflow) flag exactly there, so the region reruns its statements."""
    assert_same_warnings(fn, *args, backend="c")


def guarded_ratio(a, b):
    return np.where(b != 0, a / b, 0.0)  # NumPy divides every element: it warns


def guarded_root(x):
    return np.where(x > 0, np.sqrt(x), x.astype(np.float32) * 2)


def guarded_in_a_loop(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = np.where(b[i] != 0, a[i] / b[i], 0.0)  # "scalar divide", as NumPy
    return out


WHERE_CASES = [
    (guarded_ratio, (np.arange(12.0), np.arange(12.0) % 3)),
    (guarded_in_a_loop, (np.arange(12.0), np.arange(12.0) % 3)),
    (guarded_ratio, (np.arange(12.0), np.ones(12))),  # no warning
    (guarded_ratio, (np.arange(12, dtype=np.float32), np.zeros(12, np.float32))),
    (guarded_root, (np.linspace(-3, 3, 13),)),
]


@pytest.mark.parametrize("fn, args", WHERE_CASES, ids=[c[0].__name__ for c in WHERE_CASES])
def test_a_side_the_where_drops_still_warns(fn, args):
    """GCC computed a side of ``c ? a : b`` only where it is picked (a masked division on
    AVX-512 lanes, a branch in scalar code): no flag, no warning. astc_both computes both."""
    assert_same_warnings(fn, *args, backend="c")


def selected_ratio(a, b):
    out = np.zeros_like(a)
    out[b != 0] = a[b != 0] / b[b != 0]  # NumPy divides the selected elements only
    return out


def test_a_masked_store_computes_only_what_it_picks():
    """A masked store is a select too, but NumPy computes its value on the picked elements
    only: no flag, so the region stays compiled instead of running its statements."""
    compiled = astcompile.compile(selected_ratio, backend="c")
    a, b = np.arange(12.0), np.arange(12.0) % 3
    for _ in range(4):
        assert_same_call(compiled, (a, b), selected_ratio, (a, b), "c")
    assert not runtime_warnings(compiled, a, b)
    assert sum(r.stats.compiled_calls for r in compiled.regions) == 5


def log_scaled(x):
    return np.log(x) * 2.0


def python_float_growth(x):
    s = 1.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s * 1e200  # a Python float: inf without a warning (a NumPy float64 warns)
    return s


def python_float_ratio(x, k):
    r = k / 3.0
    return x * (r * r * r)  # Python floats overflow silently; the array op does not warn


def test_eager_warns_from_the_users_line():
    """The eager backend's NumPy ops warned from its interpreter's line (targets/eager.py):
    a region that can run again notes the errors and runs its statements, so NumPy's warning
    names the user's line (and the default once-per-line filter tells functions apart)."""
    compiled = astcompile.compile(log_scaled, backend="eager")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        compiled(np.zeros(4))
        compiled(np.zeros(4))
    assert len(seen) == 2 and {w.filename for w in seen} == {__file__}


EAGER_CASES = [
    (log_scaled, (np.array([1.0, 0.0, -1.0]),)),
    (python_float_growth, (np.ones(3),)),
    (python_float_growth, (np.zeros(3),)),
    (python_float_ratio, (np.ones(2), 1e300)),
    (python_float_ratio, (np.ones(2), float("inf"))),
    (python_float_ratio, (np.ones(2), float("nan"))),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", EAGER_CASES, ids=[c[0].__name__ for c in EAGER_CASES])
def test_python_floats_stay_python_floats(backend, fn, args):
    """Python floats the graph computes as NumPy scalars warned on overflow on the eager
    backend, where plain Python is silent; now eager warns exactly where NumPy does."""
    assert_same_warnings(fn, *args, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ignored_and_warned_kinds_follow_the_users_errstate(backend):
    """The noted errors are filtered by the user's own error state, kind by kind."""
    x = np.array([0.0, -1.0, 1.0])
    with np.errstate(divide="ignore", invalid="warn"):
        assert_same_warnings(log_scaled, x, backend=backend)
    with np.errstate(all="ignore"):
        assert_same_warnings(log_scaled, x, backend=backend)


def log_into(x, out):
    out[:] = np.log(x)
    return out


def reciprocals_into(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 / x[i]
    return out


def python_floats_into(x, out):
    s = 1.0
    for i in range(x.shape[0]):
        s = s * 1e300  # Python floats: inf without a warning
        out[i] = s + x[i]
    return out


def log_into_then_read(x, out):
    out[:] = np.log(x)
    return out.sum()  # reads what it wrote: the statements cannot run again


WRITE_ONLY = [log_into, reciprocals_into, python_floats_into]
X = np.array([1.0, 0.0, 2.0])


@pytest.mark.parametrize("fn", WRITE_ONLY, ids=[f.__name__ for f in WRITE_ONLY])
def test_a_region_that_only_writes_an_argument_warns(fn):
    """A region whose only stores the caller sees are into arguments it never reads (an
    ``out`` parameter) runs its statements again after loud flags: they store the same values
    over them, and NumPy warns (or not: Python floats) as without astcompile."""
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(3):
        assert runtime_warnings(compiled, X, np.zeros(3)) == runtime_warnings(fn, X, np.zeros(3))
        assert_same_call(compiled, (X.copy(), np.zeros(3)), fn, (X.copy(), np.zeros(3)), "c")


def _overlapping(x):
    return [(x, x), (x[:3], x[1:4]), (x[1:4], x[:3]), (x[::2], x[1::2].copy())]


@pytest.mark.parametrize("fn", [*WRITE_ONLY, log_into_then_read])
def test_a_written_argument_that_shares_memory_is_not_written_twice(fn):
    """The rerun is for arguments no other array read shares memory with: ``f(x, x)`` and
    overlapping views never store twice (the wrapper already runs most such calls as written;
    the rerun checks the memory itself too)."""
    compiled = astcompile.compile(fn, backend="c")
    for make in range(4):
        plain_args = _overlapping(np.array([1.0, 0.0, 2.0, 3.0, 0.0, 4.0]))[make]
        ours = _overlapping(np.array([1.0, 0.0, 2.0, 3.0, 0.0, 4.0]))[make]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for _ in range(3):
                assert_same_call(compiled, ours, fn, plain_args, "c")


def divmod_quotients(x, d):
    out = np.empty(len(x))
    for k in range(len(x)):
        out[k] = np.divmod(x[k], d[k])[0]  # a break: the loop calls a region that runs as written
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_region_run_as_written_warns_once(backend):
    """A region with no compiled entry runs its statements from its guard function; the flags
    they raised made the call look like a loud compiled run, whose statements then ran again:
    from the second call on every warning came twice."""
    x, d = np.array([7.0, -3.0, 1.0, 2.5]), np.array([2.0, 0.0, 0.5, 0.0])
    assert_same_warnings(divmod_quotients, x, d, backend=backend)


def window_means(x, k):
    return [x[i : i + k].mean() for i in range(len(x) - k + 1)]


def head_spread(x, k):
    return x[:k].mean() + x[:k].var()


def _quiet_warnings(fn, *args):
    """The RuntimeWarnings of a call under np.errstate(all="ignore")."""
    with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args)
    return sorted({str(w.message) for w in caught if w.category is RuntimeWarning})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [window_means, head_spread])
def test_an_empty_mean_warns_whatever_the_error_state(backend, fn):
    """NumPy's "Mean of empty slice" is its own warning, not an FP error that errstate
    silences: under np.errstate(all="ignore") compiled code returned NaN without it."""
    compiled = astcompile.compile(fn, backend=backend)
    x = np.arange(4.0)
    for k in (2, 0, 0, 3):
        assert _quiet_warnings(compiled, x, k) == _quiet_warnings(fn, x, k)
        assert_same_call(compiled, (x, k), fn, (x, k), backend)


def quotients_into_ints(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] / b[i]  # 1 / 0 is inf: "divide by zero", then int(inf) raises
    return out


def _warnings_before_error(fn, *args) -> list[str]:
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        with pytest.raises(OverflowError, match="infinity"):
            fn(*(a.copy() for a in args))
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_error_after_a_loud_flag_warns_once_on_every_path(backend, monkeypatch):
    """With measuring on, calls reach the region through its checked paths while it runs its
    statements after loud calls (``_Plain``): the statements' own raise left NumPy's flag
    set, so the error was taken for compiled code's and the statements ran again, warning
    twice on every call from the third on."""
    monkeypatch.setattr(astcompile.config, "tiering", True)
    a, b = np.array([1, 2]), np.array([0, 1])
    compiled = astcompile.compile(quotients_into_ints, backend=backend)
    expected = _warnings_before_error(quotients_into_ints, a, b)
    for _ in range(12):
        assert _warnings_before_error(compiled, a, b) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_error_after_a_loud_flag_comes_with_numpys_warning(backend):
    """A compiled run that raised a flag and then an error (``int(inf)`` stored) raised the
    error without NumPy's warning: the flags were checked only on return."""
    a, b = np.array([1, 2]), np.array([0, 1])
    compiled = astcompile.compile(quotients_into_ints, backend=backend)
    expected = _warnings_before_error(quotients_into_ints, a, b)
    assert expected == ["divide by zero encountered in scalar divide"]
    for _ in range(3):
        assert _warnings_before_error(compiled, a, b) == expected
    assert_same_call(
        compiled,
        (a.copy(), np.array([3, 1])),
        quotients_into_ints,
        (a.copy(), np.array([3, 1])),
        backend,
    )


def moments_and_median(x):
    return x.mean(), x.var(), np.median(x), x.std(ddof=1)  # median: a NumPy step after C


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_numpy_step_after_a_kernel_keeps_its_flags(backend):
    """std(ddof=1) of one value raises the invalid flag in the kernel; the np.median step run
    after it cleared the CPU's flags (NumPy does before each ufunc), so C returned the NaN
    without NumPy's "Degrees of freedom <= 0" and "invalid value" warnings. Eager gave the
    first twice: from its interpreter's np.std, then from the statements run again."""
    assert_same_warnings(moments_and_median, np.array([0], np.int8), backend=backend)


def spread(x):
    return x.var(ddof=2), x.mean()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("divide", ["warn", "ignore"])
def test_degrees_of_freedom_warn_once_whatever_the_error_state(backend, divide):
    """var(ddof=2) of two values: "Degrees of freedom <= 0" (NumPy's warnings.warn) and a
    division by zero; where that division is ignored nothing runs again, and eager still
    gives the one warning it held back."""
    with np.errstate(divide=divide):
        assert_same_warnings(spread, np.array([1.0, 2.0]), backend=backend)


def divide_then_spread(x, y):
    for i in range(x.shape[0]):
        x[i] = x[i] / y[i]
    return x.std(ddof=1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rerun_is_decided_by_the_entry_of_the_calls_key(backend):
    """Empty arrays: the loop stores nothing, so that entry's statements may run again after
    the flag of its empty spread; an entry for other sizes, which stores into ``x``, kept the
    rerun from every call (all three warnings lost after a call of another size)."""
    compiled = astcompile.compile(divide_then_spread, backend=backend)
    empty = (np.array([]), np.array([]))
    for _ in range(3):
        with np.errstate(all="ignore"):
            compiled(np.array([2.0, 1.0]), np.array([2.0, 1.0]))
        assert runtime_warnings(compiled, *empty) == runtime_warnings(divide_then_spread, *empty)


def reduced_to_nan(x):
    return x.sum(), x.sum(axis=0), np.mean(x), x.var(), (x - x).max()


def matrix_vector(a, v):
    return a @ v, np.dot(a, v)


INFS = np.array([[np.inf, 1.0], [-np.inf, 2.0], [1.0, 1.0]])
INFS_CASES = [(reduced_to_nan, (INFS,)), (matrix_vector, (INFS, np.array([np.inf, -np.inf])))]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", INFS_CASES, ids=[c[0].__name__ for c in INFS_CASES])
def test_inf_minus_inf_warns_once_per_operation(backend, fn, args):
    """A reduction or product that meets inf - inf: NumPy's "invalid value" warnings, in its
    order and number (a product run by NumPy inside the compiled wrapper warned there, then
    again when the flag made the statements run)."""
    assert_same_warnings(fn, *args, backend=backend)


def carried_then_stored_into_an_argument(a, b):
    total = np.zeros_like(a)
    for i in range(len(a)):
        total -= b
    tail = b[::-1]
    tail //= True
    return tail, total


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_region_with_a_loop_carried_new_array_keeps_its_arguments_for_numpys_warning(backend):
    """A loop carrying an array the region made (``total = np.zeros_like(a)``, updated in
    place) no longer hides which arrays the region stores into: a store into an argument after
    it is kept and undone on a loud flag, and NumPy warns (the C region was silent; found by
    the fuzzer)."""
    b = np.array([1.5, np.inf, -2.0])
    assert_same_warnings(carried_then_stored_into_an_argument, b.copy(), b, backend=backend)
