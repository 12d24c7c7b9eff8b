"""A function that is one region: its calls run the region's guards with nothing of ours in
Python between (``runtime/fastcall_sole.c`` where the C call path is loaded, ``__call__``
where it is not), and still count, sample, warn, raise and miss as the full path does."""

from __future__ import annotations

import os
import sys
import threading
import traceback
import warnings
from collections.abc import Callable

import numpy as np
import pytest
from differential import assert_same_call, runtime_warnings

import astcompile
from astcompile import config
from astcompile.jit import function as function_module
from astcompile.jit import sole_region, telemetry
from bench.loop_kernels import count_above  # documented, as most users' functions are
from bench.programs.branchy_sum import branchy_sum
from tests.test_fastcall_program import reciprocals as inverse_sum


def next_pairs(x, n):
    s = 0.0
    for i in range(n):
        s += x[i] * x[i + 1]  # past the end when n == x.shape[0]
    return s


def scaled_sum(x, /, eps=1e-8, *, scale=2.0, shift=0.0):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * scale + eps
    return s + shift


def _sole(
    fn: Callable, *args: object, **kwargs: object
) -> astcompile.jit.function.CompiledFunction:
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(3):  # compiled, past the first count
        compiled(*args, **kwargs)
    assert compiled._sole_region is not None
    return compiled


def _our_frames(call: Callable[[], object]) -> list[str]:
    """The Python frames of astcompile/jit/function.py that ``call()`` runs."""
    ours, seen = os.path.abspath(function_module.__file__), []

    def profile(frame, event, arg):
        if event == "call" and os.path.abspath(frame.f_code.co_filename) == ours:
            seen.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen


def test_a_sole_call_runs_no_python_frame_of_ours_and_counts_down(runs):
    x = np.random.default_rng(0).random(64)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    before = compiled._tier.countdown
    frames = _our_frames(lambda: compiled(x))
    assert compiled._tier.countdown == before - 1
    assert compiled(x) == branchy_sum(x)
    routed = hasattr(compiled, "current_route")
    assert frames == ([] if routed else ["__call__"])


def test_a_documented_function_is_a_sole_region_too(runs):
    """A docstring before the region's call kept every call of the function on the full
    path (2 us more a call: a count over 4096 floats took 2.7 us against 0.7 us)."""
    x = np.random.default_rng(0).standard_normal(64)
    compiled = _sole(count_above, x, 0.3)
    runs(compiled)
    frames = _our_frames(lambda: compiled(x, 0.3))
    assert compiled(x, 0.3) == count_above(x, 0.3)
    assert frames == ([] if hasattr(compiled, "current_route") else ["__call__"])


def test_a_due_sample_verify_and_other_arities_take_the_python_path(runs, monkeypatch):
    x = np.random.default_rng(1).random(16)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    compiled._tier.countdown = 1  # the next call is a sample
    assert "_sampled_call" in _our_frames(lambda: compiled(x))
    with pytest.raises(TypeError) as plain:
        branchy_sum(x, x)
    with pytest.raises(TypeError) as got:
        compiled(x, x)
    assert str(got.value) == str(plain.value)
    monkeypatch.setattr(config, "verify", True)  # read at each call, in C too
    assert "__call__" in _our_frames(lambda: compiled(x))


def test_sole_calls_warn_and_raise_as_numpy_does(runs):
    x = np.array([0.5, 0.0, 2.0])
    compiled = _sole(inverse_sum, np.ones(3))
    runs(compiled)
    expected = runtime_warnings(inverse_sum, x)
    with np.errstate(all="ignore"):
        value = inverse_sum(x)
    assert expected  # divide by zero
    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn"):
        warnings.simplefilter("always")
        for _ in range(4):  # the first call under a new error state learns it is quiet
            del caught[:]
            assert compiled(x) == value
            assert [str(w.message) for w in caught] == expected
    with np.errstate(divide="raise"):
        for _ in range(2):
            with pytest.raises(FloatingPointError):
                compiled(x)


def floor_quotients(a, k):
    return a.sum() // k, 7 // k


def test_a_sole_call_that_raises_after_a_flag_warns_first(runs):
    """``a.sum() // 0`` warns "divide by zero" (a flag in compiled code), then ``7 // 0``
    raises ZeroDivisionError (a check): the guards' error ended the call before the flag was
    looked at, so the warning was lost on both sole paths."""
    compiled = _sole(floor_quotients, np.arange(4), 2)
    runs(compiled)
    for _ in range(3):
        for fn in (floor_quotients, compiled):
            with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
                warnings.simplefilter("always")
                with pytest.raises(ZeroDivisionError):
                    fn(np.arange(4), 0)
            assert [str(w.message) for w in caught] == [
                "divide by zero encountered in scalar floor_divide"
            ]


def test_sole_call_errors_name_the_users_line(runs):
    x = np.arange(4.0)
    compiled = _sole(next_pairs, x, 3)
    runs(compiled)
    assert_same_call(compiled, (x, 3), next_pairs, (x, 3), "c")
    with pytest.raises(IndexError) as raised:
        compiled(x, 4)
    lines = [(f.filename, f.line) for f in traceback.extract_tb(raised.tb)]
    assert (__file__, "s += x[i] * x[i + 1]  # past the end when n == x.shape[0]") in lines


def test_a_new_kind_of_argument_misses_and_compiles(runs):
    compiled = _sole(branchy_sum, np.random.default_rng(2).random(8))
    runs(compiled)
    for x in (np.arange(10), np.arange(5, dtype=np.float32) / 5, np.random.random(3)):
        assert_same_call(compiled, (x,), branchy_sum, (x,), "c")


def test_sole_calls_from_threads(runs):
    compiled = _sole(branchy_sum, np.random.default_rng(3).random(32))
    runs(compiled)
    inputs = [np.random.default_rng(seed).random(32 + seed) for seed in range(4)]
    wrong = []

    def work(x):
        for _ in range(300):
            if compiled(x) != branchy_sum(x):
                wrong.append(x.shape)

    threads = [threading.Thread(target=work, args=(x,)) for x in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_reset_drops_the_region_a_call_runs(runs):
    x = np.random.default_rng(4).random(8)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    compiled.reset()
    assert compiled._sole_region is None
    assert compiled(x) == branchy_sum(x) and compiled(x) == branchy_sum(x)
    assert compiled._sole_region is not None


def test_finish_runs_the_statements_where_compiled_code_declines():
    compiled = _sole(branchy_sum, np.ones(4))
    sole, x = compiled._sole_region, np.random.default_rng(5).random(6)
    assert sole_region.finish(compiled, sole, (x,), None) == branchy_sum(x)


def test_a_sample_times_the_compiled_path_the_calls_run(runs):
    """Measuring's compiled samples (``_sole_call``) run the C path too, uncounted: timing
    its Python twin made a 0.4 µs call look like 0.7 µs, and plain won where it was slower."""
    x = np.random.default_rng(6).random(16)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    before = compiled._tier.countdown
    frames = _our_frames(lambda: compiled._sole_call(x))
    assert compiled._tier.countdown == before
    assert frames == ([] if hasattr(compiled, "current_route") else ["_compiled_call"])
    for args in ((np.arange(5),), (x[::2],)):  # a miss, then a layout the C programs leave
        assert compiled._sole_call(*args) == branchy_sum(*args)
    assert compiled._sole_call(x=x) == branchy_sum(x)


CALLS = [  # (args, kwargs): by position, relying on defaults, by keyword
    ((), {}),
    ((0.5,), {}),
    ((), {"scale": 3.0}),
    ((), {"shift": 1.0, "eps": 0.25}),
    ((0.5,), {"shift": 2.0, "scale": -1.0}),
]


def test_calls_with_defaults_and_keywords_run_in_c_and_count_down(runs):
    """A function with defaults, positional-only and keyword-only parameters is one region
    too: calls relying on its defaults or naming its parameters bind as Python binds them and
    run no Python frame of ours where the C call path is loaded (the rewritten function, as
    Python, before)."""
    x = np.random.default_rng(7).random(32)
    compiled = _sole(scaled_sum, x)
    routed = hasattr(compiled, "current_route")
    runs(compiled)
    for args, kwargs in CALLS:
        before = compiled._tier.countdown
        frames = _our_frames(lambda: compiled(x, *args, **kwargs))  # noqa: B023
        assert compiled._tier.countdown == before - 1
        assert frames == [] or not routed, (args, kwargs, frames)
        assert compiled(x, *args, **kwargs) == scaled_sum(x, *args, **kwargs)


def test_defaults_are_read_from_the_function_at_each_call(runs, monkeypatch):
    x = np.random.default_rng(8).random(16)
    compiled = _sole(scaled_sum, x)
    runs(compiled)
    monkeypatch.setattr(scaled_sum, "__defaults__", (4.0,))
    assert compiled(x) == scaled_sum(x) and compiled(x, scale=1.0) == scaled_sum(x, scale=1.0)
    monkeypatch.setattr(scaled_sum, "__kwdefaults__", {"scale": 0.5, "shift": np.float32(1.5)})
    for args, kwargs in CALLS:
        assert compiled(x, *args, **kwargs) == scaled_sum(x, *args, **kwargs)
        assert type(compiled(x, *args, **kwargs)) is type(scaled_sum(x, *args, **kwargs))
    monkeypatch.setattr(scaled_sum, "__kwdefaults__", {"scale": 0.5})  # shift now required
    for call in (lambda f: f(x), lambda f: f(x, shift=1.0)):
        _same_outcome(lambda: call(compiled), lambda: call(scaled_sum))  # noqa: B023


def _same_outcome(compiled: Callable[[], object], plain: Callable[[], object]) -> None:
    """The same value, or the same exception with the same message."""
    try:
        expected = plain()
    except TypeError as error:
        with pytest.raises(TypeError) as got:
            compiled()
        assert str(got.value) == str(error)
    else:
        assert compiled() == expected


def test_binding_errors_are_pythons_own(runs):
    x = np.random.default_rng(9).random(8)
    compiled = _sole(scaled_sum, x)
    runs(compiled)
    again = {"scale": 2.0}  # a keyword given twice
    bad = [
        lambda f: f(),  # x missing
        lambda f: f(x, 1.0, 2.0),  # scale is keyword-only
        lambda f: f(x=x),  # x is positional-only
        lambda f: f(x, eps=1.0, epsilon=2.0),
        lambda f: f(x, 1.0, eps=2.0),
        lambda f: f(x, scale=1.0, **again),
    ]
    for call in bad:
        with pytest.raises(TypeError) as plain:
            call(scaled_sum)
        with pytest.raises(TypeError) as got:
            call(compiled)
        assert str(got.value) == str(plain.value)


def test_a_keyword_call_that_misses_compiles_and_returns_the_plain_value(runs):
    compiled = _sole(scaled_sum, np.random.default_rng(10).random(8), scale=2.0)
    runs(compiled)
    for x, kwargs in (
        (np.arange(6), {"scale": 3}),
        (np.arange(4, dtype=np.float32), {"shift": 1.0}),
        (np.ones(3), {"eps": 2, "scale": 1}),
    ):
        assert compiled(x, **kwargs) == scaled_sum(x, **kwargs)


def test_a_replaced_code_with_other_parameters_binds_as_it_does(runs, monkeypatch):
    def other(x, scale=5.0):
        return float(x.sum()) * scale

    x = np.random.default_rng(11).random(8)
    compiled = _sole(scaled_sum, x)
    runs(compiled)
    monkeypatch.setattr(scaled_sum, "__code__", other.__code__)
    monkeypatch.setattr(scaled_sum, "__defaults__", other.__defaults__)
    assert compiled(x) == other(x) and compiled(x, scale=2.0) == other(x, scale=2.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'shift'"):
        compiled(x, shift=1.0)  # (the rewrite names the new code's function, as it did)


def test_a_sample_binds_keywords_and_defaults_in_c_too(runs):
    x = np.random.default_rng(12).random(16)
    compiled = _sole(scaled_sum, x)
    runs(compiled)
    before = compiled._tier.countdown
    frames = _our_frames(lambda: compiled._sole_call(x, 0.5, scale=3.0))
    assert compiled._tier.countdown == before
    assert frames == [] or not hasattr(compiled, "current_route")
    assert compiled._sole_call(x, 0.5, scale=3.0) == scaled_sum(x, 0.5, scale=3.0)


def test_the_countdown_is_counted_down_exactly_and_a_value_held_elsewhere_keeps(runs):
    """Where only the tier holds its countdown, the C path counts it down where it is (no new
    int per call); a countdown anyone else holds (a local, a constant) is left as it is."""
    x = np.random.default_rng(13).random(8)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    compiled._tier.countdown = held = 10_001  # held by this frame and the code's constants
    for expected in (10_000, 9_999, 9_998):
        compiled(x)
        assert compiled._tier.countdown == expected
    assert held == 10_001
    before = compiled._tier.countdown
    assert compiled(x) == branchy_sum(x) and before == 9_998
    assert compiled._tier.countdown == 9_997


def test_explain_verify_and_the_error_state_are_read_at_each_call(runs, monkeypatch):
    """However often they change: the C path reads the module globals again whenever one of
    their modules changed since the last call."""
    x = np.random.default_rng(14).random(8)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    alone = [] if hasattr(compiled, "current_route") else ["__call__"]
    for _ in range(2):
        assert _our_frames(lambda: compiled(x)) == alone
        with telemetry.Recorder() as recorder:
            assert "_full_call" in _our_frames(lambda: compiled(x))
        assert compiled.name in recorder.functions
        assert _our_frames(lambda: compiled(x)) == alone
        monkeypatch.setattr(config, "verify", True)
        assert "__call__" in _our_frames(lambda: compiled(x))
        monkeypatch.setattr(config, "verify", False)
        assert _our_frames(lambda: compiled(x)) == alone
        with np.errstate(divide="raise"):
            assert "__call__" in _our_frames(lambda: compiled(x))
        assert compiled(x) == branchy_sum(x)


def test_each_write_of_the_countdown_is_seen_by_the_next_call(runs):
    """Python stores into the tier (the interpreter's specialised attribute stores too, once
    the loop is hot): the C path sees every one, though it reads the tier again only when it
    changed."""
    x = np.random.default_rng(15).random(8)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    tier = compiled._tier
    counts = [5_000 + 3 * k for k in range(256)]  # alive: no new int takes an old one's place
    alone = [] if hasattr(compiled, "current_route") else ["__call__"]
    for count in counts:
        tier.countdown = count
        assert _our_frames(lambda: compiled(x)) == alone
        assert tier.countdown == count - 1
        assert _our_frames(lambda: compiled(x)) == alone
        assert tier.countdown == count - 2
    for _ in range(16):
        tier.plain = True  # the route's own check: the call goes to __call__
        assert _our_frames(lambda: compiled(x)) == ["__call__"]
        tier.plain = False
        assert compiled(x) == branchy_sum(x)


def test_a_countdown_that_never_ends_counts_down_too(runs, monkeypatch):
    """Unmeasured (``tiering = False``), the countdown is ``NEVER``, an int of three digits."""
    from astcompile.jit import tiering

    monkeypatch.setattr(config, "tiering", False)
    x = np.random.default_rng(16).random(8)
    compiled = _sole(branchy_sum, x)
    runs(compiled)
    start = compiled._tier.countdown
    assert tiering.NEVER - 3 <= start <= tiering.NEVER
    alone = [] if hasattr(compiled, "current_route") else ["__call__"]
    for k in range(1, 300):
        if k % 50 == 0:
            assert _our_frames(lambda: compiled(x)) == alone
        else:
            assert compiled(x) == branchy_sum(x)
        assert compiled._tier.countdown == start - k


def scaled_by(self, x, scale=2.0):
    s = self
    for i in range(x.shape[0]):
        s += x[i] * scale
    return s


def test_a_parameter_named_self_binds_by_keyword(runs):
    """A method called through its class with ``self=`` as a keyword binds as the plain one:
    our own ``self`` is positional-only, so a user's parameter of that name is free."""
    x = np.arange(4.0)
    compiled = _sole(scaled_by, 0.5, x)
    runs(compiled)
    assert compiled(self=0.5, x=x, scale=3.0) == scaled_by(self=0.5, x=x, scale=3.0)
    assert compiled._compiled_call(self=0.5, x=x) == scaled_by(0.5, x)
    with pytest.raises(TypeError) as plain:
        scaled_by(0.5, x, self=0.5)
    with pytest.raises(TypeError) as got:
        compiled(0.5, x, self=0.5)
    assert str(got.value) == str(plain.value)
