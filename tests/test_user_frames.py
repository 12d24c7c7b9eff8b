"""Where compiled code's warnings point (runtime/user_frames.py): ``warnings.warn(...,
stacklevel=k)`` names the frame it names in the plain program, whichever path runs the call
(the rewritten function, a region's statements, the plain path measuring times, the plain path
while compiling); region frames are the user's function's."""

from __future__ import annotations

import inspect
import os
import sys
import traceback
import types
import warnings
from unittest.mock import ANY
from warnings import warn
from warnings import warn as caution

import numpy as np
import pytest
from differential import BACKENDS

import astcompile
from astcompile.runtime import user_frames


def late(x):
    y = x * 2.0
    warnings.warn("late", stacklevel=2)
    return y + 1.0


def two_up(x):
    y = x * 2.0
    warn("two up", UserWarning, 3)
    return y + 1.0


def own_line(x):
    y = x * 2.0
    warnings.warn("own line", stacklevel=1)
    return y + 1.0


def in_a_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
        if s > 2.0:
            warnings.warn("in a loop", RuntimeWarning, stacklevel=2)
    return s


def past_the_stack(x):
    y = x * 2.0
    warnings.warn("past the stack", stacklevel=500)
    return y


def unpacked(x, *args, **kwargs):
    y = x * 2.0
    warnings.warn(*args, **kwargs)
    return y


def _check(x):
    if x.sum() > 0:
        warnings.warn("from a helper", stacklevel=3)  # the caller of its caller


def checked(x):
    y = x * 2.0
    _check(y)
    return y + 1.0


def aliased(x):
    y = x * 2.0
    caution("aliased", stacklevel=2)  # warnings.warn by another name
    return y + 1.0


def _say(message, stacklevel=1):  # rebound to warnings.warn and back by a test
    warnings.warn(message, stacklevel=stacklevel + 1)


def says(x):
    y = x * 2.0
    _say("says", stacklevel=2)
    return y + 1.0


def _deep_check(x):
    y = x * 2.0
    warnings.warn("deep check", stacklevel=3)  # its caller's caller
    return y


_checker = None  # a compiled _deep_check, set by a test


def checks(x):
    y = x + 1.0
    z = _checker(y)
    return z - 1.0


def _where(fn, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args, **kwargs)
    return [(os.path.basename(w.filename), w.lineno, str(w.message)) for w in caught]


def _both(plain, compiled, *args, **kwargs):
    return [_where(fn, *args, **kwargs) for fn in (plain, compiled)]  # one line: stacklevel=3


CASES = [
    (late, (), {}),
    (two_up, (), {}),
    (own_line, (), {}),
    (in_a_loop, (), {}),
    (past_the_stack, (), {}),
    (unpacked, ("given", UserWarning, 2), {}),
    (unpacked, ("by keyword",), {"stacklevel": 2}),
    (checked, (), {}),
    (aliased, (), {}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("budget", [float("inf"), 0.0])
@pytest.mark.parametrize(("fn", "more", "kwargs"), CASES)
def test_stacklevel_names_the_plain_programs_frame(backend, budget, fn, more, kwargs, monkeypatch):
    """Twelve calls: the first compiles (or, with no budget, runs plain meanwhile), measuring
    samples the plain path and the compiled one, then runs the one it chose."""
    monkeypatch.setattr(astcompile.config, "compile_budget", budget)
    compiled = astcompile.compile(fn, backend=backend)
    x = np.ones(4)
    for _ in range(12):
        expected, got = _both(fn, compiled, x, *more, **kwargs)
        assert got == expected and expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rebound_warn_is_called_as_it_is(backend, monkeypatch):
    seen = []
    compiled = astcompile.compile(late, backend=backend)
    monkeypatch.setattr(warnings, "warn", lambda *a, **k: seen.append((a, k)))
    compiled(np.ones(2))
    assert seen == [(("late",), {"stacklevel": 2})]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_rebound_to_warn_and_back_is_followed(backend, monkeypatch):
    """``_say`` is a helper (routed, run as its twin) when compiled, then ``warnings.warn``
    itself (its level counted in the user's frames), then the helper again."""
    compiled = astcompile.compile(says, backend=backend)
    for meaning in (_say, warnings.warn, _say):
        monkeypatch.setitem(globals(), "_say", meaning)
        for _ in range(4):
            expected, got = _both(says, compiled, np.ones(4))
            assert got == expected and expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_compiled_helper_on_the_plain_path_counts_the_users_frames(backend, monkeypatch):
    """The helper runs the user's function on its plain route, called from the compiled
    ``checks``: as written, its level counted ``checks``' frames of ours (function.py:230)."""
    checker = astcompile.compile(_deep_check, backend=backend)
    checker.run_plain()
    monkeypatch.setitem(globals(), "_checker", checker)
    compiled = astcompile.compile(checks, backend=backend)
    for _ in range(6):
        expected, got = _both(checks, compiled, np.ones(4))
        assert got == expected and expected


def test_a_warn_call_given_a_bad_level_raises_warns_error():
    with pytest.raises(TypeError) as plain:
        warnings.warn("x", UserWarning, "two")
    with pytest.raises(TypeError) as ours:
        user_frames.warn(warnings.warn, "x", UserWarning, "two")
    assert str(ours.value) == str(plain.value)


def who_called():
    frame = sys._getframe(1)
    return frame.f_code.co_name, inspect.stack()[1].function


def asks_who(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i]
    named = who_called()
    return named, s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_callee_sees_the_users_function(backend):
    compiled = astcompile.compile(asks_who, backend=backend)
    for _ in range(3):
        assert compiled(np.ones(3))[0] == asks_who(np.ones(3))[0] == ("asks_who",) * 2


def test_region_codes_are_known():
    compiled = astcompile.compile(asks_who, backend="eager")
    compiled(np.ones(3))
    bodies = [r.body.__code__ for r in compiled.regions]
    assert bodies and all(isinstance(c, types.CodeType) for c in bodies)
    assert all(c in user_frames.REGION_CODES for c in bodies)


def _inverse_of(a):
    return np.linalg.inv(a)  # NumPy's frames below this one raise


def test_raise_at_ends_with_the_frames_of_the_code_that_raised_and_notes_once():
    with pytest.raises(np.linalg.LinAlgError) as info:
        _inverse_of(np.zeros((2, 2)))
    exc, numpys = info.value, info.value.__traceback__.tb_next.tb_next  # np.linalg.inv's on
    line = _inverse_of.__code__.co_firstlineno + 1
    for _ in range(2):  # the same error raised again: one note
        with pytest.raises(np.linalg.LinAlgError) as again:
            user_frames.raise_at(exc, __file__, line, numpys)
    frames = traceback.extract_tb(again.value.__traceback__)[-3:]
    assert [(f.name, f.lineno) for f in frames[:2]] == [("_inverse_of", line), ("inv", ANY)]
    assert frames[0].filename == __file__ and "_linalg.py" in frames[2].filename
    assert len(again.value.__notes__) == 1
