"""Builtins a region calls (``len``, ``range``) on the C-level call path
(runtime/fastcall_reads.py): a loop region written as a Python ``for`` runs in C, and a global
of the builtin's name bound later, or the builtin patched, is seen as plain code sees it."""

from __future__ import annotations

import builtins
import types

import numpy as np
import pytest
from differential import assert_same_call

import astcompile
from astcompile.runtime import fastcall
from astcompile.runtime.fastcall_program import ABSENT, END
from astcompile.runtime.fastcall_reads import global_reads
from astcompile.runtime.reads import Read, ReadKind
from tests.test_fastcall_views import _in_c

pytestmark = pytest.mark.usefixtures("fast")  # the extension, built and loaded


def doubled_then_stored(x, out):
    y = x * 2.0
    for i in range(len(out)):
        out[i] = y[i] + 1.0
    v = y[::2]
    return v, v, y[::2]


def doubled_twice_returned(x, out):
    y = x * 2.0
    for i in range(len(out)):
        out[i] = y[i] + 1.0
    return y, y


def _args(n: int) -> tuple:
    return np.arange(float(n)), np.zeros(n)


@pytest.mark.parametrize("fn", [doubled_then_stored, doubled_twice_returned])
@pytest.mark.parametrize("n", [2, 16, 1000])
def test_a_loop_over_range_len_runs_in_c(fn, n):
    """The loop's ``len`` and ``range`` are checked in C (still builtins, no global of their
    names): results, returned objects and the stores as NumPy's."""
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(3):
        assert_same_call(compiled, _args(n), fn, _args(n), "c")
    assert _in_c(compiled)


_real_len = len


def _shorter(sized) -> int:
    return _real_len(sized) - 1


def test_a_global_bound_later_shadows_the_builtin(monkeypatch):
    """``len = ...`` at module level after the region compiled: the next call uses it, as
    plain code does (the C path's check that ``len`` is no global fails)."""
    compiled = astcompile.compile(doubled_then_stored, backend="c")
    for _ in range(3):
        compiled(*_args(8))
    assert _in_c(compiled)
    monkeypatch.setitem(globals(), "len", _shorter)
    got_out = np.zeros(8)
    compiled(np.arange(8.0), got_out)
    assert got_out[-1] == 0.0 and got_out[-2] == 13.0
    assert_same_call(compiled, _args(8), doubled_then_stored, _args(8), "c")


def test_a_patched_builtin_is_called():
    """The function's builtins (a dict of its own here) given another ``len`` after the
    region compiled: the next call calls it, as plain code does."""
    namespace = {**globals(), "__builtins__": dict(vars(builtins))}
    fn = types.FunctionType(doubled_twice_returned.__code__, namespace)
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(3):
        assert_same_call(compiled, _args(8), fn, _args(8), "c")
    assert _in_c(compiled)
    namespace["__builtins__"]["len"] = _shorter
    got_out = np.zeros(8)
    compiled(np.arange(8.0), got_out)
    assert got_out[-1] == 0.0 and got_out[-2] == 13.0
    assert_same_call(compiled, _args(8), fn, _args(8), "c")


@pytest.mark.parametrize("backend", ["eager", "c"])
@pytest.mark.parametrize("warm_first", [False, True])
def test_builtins_bound_in_the_module_after_the_function_are_not_its_own(backend, warm_first):
    """``__builtins__ = {...}`` in the module once the function exists: CPython keeps
    looking builtins up where they were when the function was made, and so does the
    compiled one (before it compiled: it runs plain; after: the region runs as Python)."""
    namespace = {**globals(), "__builtins__": builtins}
    fn = types.FunctionType(doubled_twice_returned.__code__, namespace)
    compiled = astcompile.compile(fn, backend=backend)
    for _ in range(3 if warm_first else 0):
        assert_same_call(compiled, _args(8), fn, _args(8), backend)
    namespace["__builtins__"] = {**vars(builtins), "len": _shorter}
    for _ in range(3):
        assert_same_call(compiled, _args(8), fn, _args(8), backend)


class _Fallback(dict):
    """Globals whose missing names CPython asks ``__missing__`` for, before builtins."""

    def __missing__(self, name: str):
        if name == "len":
            return _shorter
        raise KeyError(name)


@pytest.mark.parametrize("backend", ["eager", "c"])
def test_globals_of_a_dict_subclass_are_read_as_plain_code_reads_them(backend):
    """``len`` found by the globals' ``__missing__``: plain code calls it, so the compiled
    function runs plain (the front end would have taken the builtin)."""
    namespace = _Fallback({k: v for k, v in globals().items() if k != "len"})
    fn = types.FunctionType(doubled_twice_returned.__code__, namespace)
    compiled = astcompile.compile(fn, backend=backend)
    for _ in range(3):
        assert_same_call(compiled, _args(8), fn, _args(8), backend)


def test_globals_of_a_dict_subclass_have_no_c_check():
    """A callee's globals that are no ``dict`` itself keep the Python guard function: one
    dict look-up in C would not see ``__missing__`` (and OP_ABSENT takes a dict)."""
    fn = types.FunctionType((lambda: None).__code__, _Fallback(__builtins__=vars(builtins)))
    gdict = (("fn",), ("gdict",))
    for read in (
        Read((*gdict, ("contains", "abs")), ReadKind.VALUE, False),
        Read((*gdict, ("item", "len")), ReadKind.IDENTITY, _shorter),
    ):
        assert global_reads((read,), fn) is None


def _fn(namespace: dict) -> types.FunctionType:
    return types.FunctionType((lambda: None).__code__, namespace)


def test_builtins_are_held_by_identity_before_their_items():
    """A builtin read becomes: the name is no global, ``__builtins__`` is the dict it was,
    and the builtin is the one traced."""
    fn = _fn({"__builtins__": vars(builtins)})
    gdict = (("fn",), ("gdict",))
    reads = (
        Read((*gdict, ("contains", "len")), ReadKind.VALUE, False),
        Read((*gdict, ("item", "__builtins__"), ("item", "len")), ReadKind.IDENTITY, len),
    )
    assert global_reads(reads, fn) == [
        (fn.__globals__, "len", "absent", None),
        (fn.__globals__, "__builtins__", "identity", vars(builtins)),
        (vars(builtins), "len", "identity", len),
    ]


@pytest.mark.parametrize("expected", [True, 0])
def test_a_name_read_as_present_has_no_c_check(expected):
    fn = _fn({})
    read = Read((("fn",), ("gdict",), ("contains", "len")), ReadKind.VALUE, expected)
    assert global_reads((read,), fn) is None


def test_builtins_that_are_no_module_or_dict_have_no_c_check():
    fn = _fn({"__builtins__": types.SimpleNamespace(len=len)})
    path = (("fn",), ("gdict",), ("item", "__builtins__"), ("item", "len"))
    assert global_reads((Read(path, ReadKind.IDENTITY, len),), fn) is None


@pytest.mark.parametrize("consts, valid", [(({}, "len"), True), (("len", {}), False)])
def test_an_absent_check_names_a_dict_and_a_key(consts, valid):
    """OP_ABSENT's words: the globals (a dict) and the name, both constants; else malformed."""
    code = np.asarray([ABSENT, 0, 1, END], np.int64).tobytes()
    stats = types.SimpleNamespace(compiled_calls=0)
    make = lambda: fastcall.loaded().Guards([(code, consts, 0)], len, stats, {})
    if valid:
        make()
    else:
        with pytest.raises(ValueError, match="malformed"):
            make()
