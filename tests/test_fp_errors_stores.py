"""jit/fp_errors.restoring and the eager interpreter's warnings: a region that stores into an
argument it also reads warns, raises and leaves the argument as NumPy does after a loud
floating-point flag; eager holds no warning back process-wide (another thread's were lost)."""

from __future__ import annotations

import sys
import threading
import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_same_warnings, runtime_warnings

import astcompile
from astcompile.compare import copy_args
from astcompile.jit import fp_errors
from astcompile.jit.entries import fast_programs
from astcompile.runtime import fastcall, parallel


def divide_in_place(x, y):
    x /= y
    return x.sum()


def log_in_place(x):
    x[:] = np.log(x)
    return x


def divide_in_a_loop(a, b):
    for i in range(a.shape[0]):
        a[i] = a[i] / b[i]
    return a


def divide_then_add(x, y):
    x /= y
    x += 1.0  # under warnings as errors NumPy raises before this: x is divided, not added to
    return x


def divide_where_not_one(a, b):
    for i in range(a.shape[0]):
        if b[i] != 1.0:
            a[i] = a[i] / b[i]
    return a


def overflow_in_place(x):
    x *= 1e300
    return x


def floor_divide_ints(a, b):
    a //= b
    return a


def spread_after_store(x):
    x *= 2.0
    return x.std(ddof=1)  # of one value: "Degrees of freedom <= 0", whatever the error state


X, Y = np.array([2.0, 2.0, 3.0]), np.array([2.0, 0.0, 2.0])
STORING = [
    (divide_in_place, (X, Y)),
    (log_in_place, (np.array([1.0, 0.0, 3.0]),)),
    (divide_in_a_loop, (X, Y)),
    (divide_then_add, (X, Y)),
    (divide_where_not_one, (X, Y)),
    (overflow_in_place, (np.array([1.0, 1e10]),)),
    (floor_divide_ints, (np.array([4, 5, 6]), np.array([2, 0, 3]))),
    (spread_after_store, (np.array([1.0]),)),
]
IDS = [fn.__name__ for fn, _ in STORING]


def _raised(fn, args):
    """What ``fn(*args)`` raises with RuntimeWarning an error, and the arguments after it."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            fn(*args)
        except Exception as exc:  # noqa: BLE001 - compared with the plain call's
            return repr(exc), repr([a.tolist() for a in args])
    return None, repr([a.tolist() for a in args])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "args"), STORING, ids=IDS)
def test_a_region_that_stores_into_what_it_reads_warns_as_numpy(fn, args, backend):
    """Each call warns as the plain call does (it was silent on C; eager named its own line or
    NumPy's array op for a scalar one), and under warnings as errors raises NumPy's warning
    with the arguments as NumPy leaves them (C had written them and raised nothing)."""
    assert_same_warnings(fn, *args, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    for _ in range(3):
        assert _raised(compiled, copy_args(args)) == _raised(fn, copy_args(args))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "args"), STORING, ids=IDS)
@pytest.mark.parametrize("mode", ["ignore", "raise", "call"])
def test_a_region_that_stores_follows_every_error_mode(fn, args, backend, mode):
    """The arguments, result, errors and handler calls of "ignore", "raise" and "call" are
    the plain code's too."""
    compiled = astcompile.compile(fn, backend=backend)

    def outcome(f):
        calls, copies = [], copy_args(args)
        with np.errstate(all=mode, call=lambda *e: calls.append(e)):
            try:
                result = f(*copies)
            except FloatingPointError as exc:
                result = repr(exc)
        return repr((np.asarray(result).tolist(), [a.tolist() for a in copies], calls))

    for _ in range(3):
        assert outcome(compiled) == outcome(fn)


def spread(x):
    return x.std(ddof=1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [spread, spread_after_store])
def test_one_values_spread_warns_as_plain_under_the_default_filter(fn, backend, monkeypatch):
    """``x.std(ddof=1)`` of one value under the "default" filter: NumPy's warnings once for
    three calls, as the plain code gives them (eager held them back with catch_warnings each
    call, which made the filter forget what it had shown). Compiled runs alternate with plain
    ones after loud flags (PLAIN_CALLS: 1), not one in 65."""
    monkeypatch.setattr(fp_errors, "PLAIN_CALLS", 1)
    compiled = astcompile.compile(fn, backend=backend)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled(np.array([1.0]))  # compiles: tracing holds warnings of its own

    def shown(f):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            for _ in range(3):
                f(np.array([1.0]))
        return [str(w.message) for w in caught]

    assert shown(compiled) == shown(fn)


def test_eager_loses_no_other_threads_warnings(monkeypatch):
    """A thread's warnings while another runs an eager region that NumPy warns in: each is
    shown once (eager's per-call ``catch_warnings`` took them into its own list, process-wide,
    and dropped or showed them again)."""
    shown: list[str] = []
    monkeypatch.setattr(warnings, "showwarning", lambda message, *rest: shown.append(str(message)))
    monkeypatch.setattr(fp_errors, "PLAIN_CALLS", 1)  # as above: compiled every other call
    compiled = astcompile.compile(spread, backend="eager")
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            compiled(np.array([1.0]))

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            thread = threading.Thread(target=spin)
            thread.start()
            for k in range(3000):
                warnings.warn(f"mine {k}", UserWarning, stacklevel=1)
            stop.set()
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert [m for m in shown if m.startswith("mine")] == [f"mine {k}" for k in range(3000)]


def test_the_c_call_path_keeps_copies_while_errors_are_reported():
    """The C-level call path runs such an entry itself: with no copies while NumPy ignores
    every error, with copies otherwise, which after a flag the error state reports go back
    before the call is left to the Python path (which reruns; here a stand-in)."""
    module = fastcall.extension(astcompile.config.cache_dir)
    assert module is not None, "gcc and Python headers are here: the extension must build"
    compiled = astcompile.compile(divide_in_a_loop, backend="c")
    compiled(np.ones(4), np.full(4, 2.0))
    (region,) = compiled.regions
    programs = fast_programs([e for found in region.entries.values() for e in found], compiled.fn)
    assert programs, "the entry has a program"
    left: list = []
    guards = module.Guards(
        programs, lambda *a: left.append(a) or (None,), region.stats, vars(parallel)
    )
    cases = [
        ("warn", 2.0, [0.5] * 4),  # run in C: no flag
        ("warn", 0.0, [1.0] * 4),  # divide by zero, reported: back as they were, Python path
        ("ignore", 0.0, [np.inf] * 4),  # ignored: run in C, no copies
        ("warn", 0.0, [1.0] * 4),
        ({"divide": "ignore"}, 0.0, [np.inf] * 4),  # the flag it raised is ignored: kept
    ]
    for mode, divisor, after in cases:
        with np.errstate(**({"all": mode} if isinstance(mode, str) else mode)):
            a = np.ones(4)  # a new state object: the C code has errstate sort it
            guards(a, np.full(4, divisor))
        assert a.tolist() == after and bool(left) == (after == [1.0] * 4)
        left.clear()


def divide_and_scale_the_divisor(a, b):
    for i in range(a.shape[0]):
        a[i] = a[i] / b[i]
        b[i] = b[i] * 3.0
    return a


def test_the_c_call_path_reads_the_error_state_once_for_all_it_keeps():
    """Two arguments kept (one ERRORS, two KEEPs): after a loud flag both get their values
    back; under a new state that ignores it neither is copied and the call stays in C."""
    module = fastcall.extension(astcompile.config.cache_dir)
    assert module is not None, "gcc and Python headers are here: the extension must build"
    compiled = astcompile.compile(divide_and_scale_the_divisor, backend="c")
    compiled(np.ones(4), np.full(4, 2.0))
    (region,) = compiled.regions
    (entry,) = [e for found in region.entries.values() for e in found]
    assert sorted(entry.run.fast_keeps) == [0, 1]
    left: list = []
    guards = module.Guards(
        fast_programs([entry], compiled.fn),
        lambda *a: left.append(a) or (None,),
        region.stats,
        vars(parallel),
    )
    for mode, divisor, after in [
        ("warn", 0.0, [[1.0] * 4, [0.0] * 4]),
        ("ignore", 0.0, [[np.inf] * 4, [0.0] * 4]),
        ("warn", 2.0, [[0.5] * 4, [6.0] * 4]),
    ]:
        with np.errstate(all=mode):
            a, b = np.ones(4), np.full(4, divisor)
            module.fp_clear()  # as fp_errors.guarded does before each call
            guards(a, b)
        assert [a.tolist(), b.tolist()] == after and len(left) == (after[0] == [1.0] * 4)
        left.clear()


def test_calls_on_the_c_call_path_warn_and_raise_as_numpy(monkeypatch):
    """Past the C-level call path's promotion, calls with and without a zero divisor warn,
    raise and leave the argument as the plain calls do."""
    monkeypatch.setattr(fp_errors, "PLAIN_CALLS", 1)  # two loud calls in a row: one plain
    compiled = astcompile.compile(divide_in_a_loop, backend="c")
    for k in range(2 * fastcall.PROMOTE_AFTER + 20):
        y = np.array([2.0, 0.0 if k % 3 == 0 else 4.0, 2.0])
        assert runtime_warnings(compiled, X, y) == runtime_warnings(divide_in_a_loop, X, y)
        assert _raised(compiled, copy_args((X, y))) == _raised(divide_in_a_loop, copy_args((X, y)))
    (region,) = compiled.regions
    guards = getattr(region.guards, "guards", region.guards)  # or held back by a _Plain
    assert type(guards).__name__ == "Guards", "the calls ran on the C-level call path"


def reciprocal_into(out, x):
    out[:] = 1.0 / x
    return out


def reciprocal_into_by_loop(out, x):
    for i in range(x.shape[0]):
        out[i] = 1.0 / x[i]
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [reciprocal_into, reciprocal_into_by_loop])
@pytest.mark.parametrize("shift", [1, -1])
def test_an_out_argument_that_shares_memory_with_what_it_reads_warns(fn, shift, backend):
    """``out`` and ``x`` views of one array: a rerun would read what the run stored, so the
    copies kept for a rerun take ``out`` too (eager noted the warning and, refused the rerun
    for the shared memory, returned without it)."""
    base = np.array([1.0, 0.0, 2.0, 4.0, 0.0, 3.0])
    out, x = (base[1:], base[:-1]) if shift == 1 else (base[:-1], base[1:])
    assert_same_warnings(fn, out, x, backend=backend)


def divide_then_add_at(a, b, idx):
    for i in range(a.shape[0]):
        a[i] = a[i] / b[i]
        a[idx[i]] += 1.0
    return a


def test_an_error_after_a_loud_flag_on_the_c_call_path_warns_first():
    """A loop region that divides by zero, then fails its index check: NumPy warns, then
    raises IndexError. The C-level call path raised the error status without the warning
    (its copies went back only after the last kernel returned)."""
    args = (np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 2.0]), np.array([0, 1, 9]))
    compiled = astcompile.compile(divide_then_add_at, backend="c")

    def warned(fn):
        with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
            warnings.simplefilter("always")
            with pytest.raises(IndexError):
                fn(*copy_args(args))
        return [str(w.message) for w in caught]

    for _ in range(fastcall.PROMOTE_AFTER + 3):
        assert warned(compiled) == warned(divide_then_add_at)
        assert _raised(compiled, copy_args(args)) == _raised(divide_then_add_at, copy_args(args))
    (region,) = compiled.regions
    guards = getattr(region.guards, "guards", region.guards)  # or held back by a _Plain
    assert type(guards).__name__ == "Guards", "the calls ran on the C-level call path"


def test_loud_flags_on_every_call_back_off_as_other_regions_do():
    """A divisor with a zero on every call: after two compiled runs in a row whose flags were
    loud, the statements run alone for the next calls (they ran compiled, were undone and ran
    as written on each call: four times the plain call)."""
    compiled = astcompile.compile(divide_in_place, backend="c")
    y = np.array([1.0, 0.0, 2.0])
    for _ in range(2 + fp_errors.PLAIN_CALLS):
        shown = runtime_warnings(compiled, np.ones(3), y)
        assert shown == runtime_warnings(divide_in_place, np.ones(3), y)
    stats = compiled.regions[0].stats
    assert (stats.compiled_calls, stats.eager_calls) == (2, 2 + fp_errors.PLAIN_CALLS)


@pytest.mark.parametrize("fn", [reciprocal_into, reciprocal_into_by_loop])
def test_an_out_argument_on_the_c_call_path_raises_under_warnings_as_errors(fn):
    """``out[:] = 1.0 / x`` under ``simplefilter("error")``: NumPy raises RuntimeWarning and
    leaves ``out`` as it leaves it. Past the C-level call path's promotion that call returned
    silently (out parameters were kept only on the Python path)."""
    assert fastcall.extension(astcompile.config.cache_dir) is not None, "gcc is here"
    compiled = astcompile.compile(fn, backend="c")
    x = np.array([1.0, 0.0, 2.0])
    for _ in range(fastcall.PROMOTE_AFTER + 10):
        compiled(np.ones(3), np.full(3, 2.0))
    (region,) = compiled.regions
    guards = getattr(region.guards, "guards", region.guards)
    assert type(guards).__name__ == "Guards", "the calls run on the C-level call path"
    for _ in range(3):
        mine, theirs = np.ones(3), np.ones(3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(RuntimeWarning, match="divide by zero") as plain:
                fn(theirs, x.copy())
            with pytest.raises(RuntimeWarning, match="divide by zero") as ran:
                compiled(mine, x.copy())
        assert str(ran.value) == str(plain.value)
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("calls", [3, fastcall.PROMOTE_AFTER + 3])
def test_a_region_that_only_compares_and_stores_keeps_no_copies(calls, monkeypatch):
    """Comparisons raise no flag (NumPy's are quiet on NaN): a clip into an out parameter that
    the loop also carries copied ``out`` on every call under the default error state (2x the
    time of Numba's loop), on the Python path and the C call path alike."""
    import tracemalloc

    from bench.loop_kernels import clip_into  # the benchmark's own loop, not a copy of it

    monkeypatch.setattr(astcompile.config, "tiering", False)
    compiled = astcompile.compile(clip_into, backend="c")
    x, out = np.linspace(-1.0, 2.0, 1 << 17), np.empty(1 << 17)
    for _ in range(calls):
        compiled(x, out, 0.0, 1.0)
    tracemalloc.start()
    try:
        compiled(x, out, 0.0, 1.0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(out, np.clip(x, 0.0, 1.0))
    assert peak < out.nbytes // 4, peak


def shift_into_itself(a):
    a[1:] = a[:-1]
    return a


@pytest.mark.parametrize(
    ("fn", "args", "out_only"),
    [
        (reciprocal_into, (np.ones(4), np.full(4, 2.0)), {0}),
        (shift_into_itself, (np.ones(4),), set()),
        (divide_in_place, (np.ones(4), np.full(4, 2.0)), set()),
    ],
)
def test_an_out_parameter_is_one_the_region_never_reads(fn, args, out_only):
    """The one walk of fp_errors finds the arrays a region stores into and those it never
    reads: a store's value read from the array it stores into is a read (``a[1:] = a[:-1]``
    counted as out only: a rerun would shift ``a`` twice)."""
    compiled = astcompile.compile(fn, backend="c")
    compiled(*args)
    ((entry,),) = compiled.regions[0].entries.values()
    assert fp_errors._walk(entry.result.graph).out_only == out_only
