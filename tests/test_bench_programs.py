"""Every program of bench/programs gives the same answer compiled as plain, at small sizes.

A correctness test, not a timing test: the first compiled call (trace and build) and a warm
call are each compared with the plain call on result, dtype, shape, writes to the inputs,
printed text and exceptions (bench/programs/_compare.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from bench.programs import decorated, load, names
from bench.programs._compare import Outcome, Verdict, compare, run


@pytest.mark.parametrize("name", names())
def test_program_compiled_equals_plain(name: str) -> None:
    program = load(name)
    args = program.setup(True)
    plain = run(program.fn, args)
    assert plain.error is None, f"{name} raises plain: {plain.error!r}"
    compiled = astcompile.compile(program.fn, backend="c")
    for attempt in ("first call", "warm call"):
        verdict = compare(plain, run(compiled, args))
        assert verdict.ok, f"{name}, {attempt}: {verdict.status}: {verdict.detail}"


def test_there_are_at_least_a_hundred_programs() -> None:
    """Our own 62 and at least 40 written in other people's styles (lists, recursion,
    dynamic programming, tiny BLAS-1 calls, code written for Numba or Pythran)."""
    assert len(names()) >= 100


def test_decorated_sends_recursive_calls_through_the_wrapper() -> None:
    program = load("fib_recursive")
    calls = []

    def counting(fn):
        def wrapper(n):
            calls.append(n)
            return fn(n)

        return wrapper

    assert decorated(program.fn, counting)(5) == program.fn(5) == 5
    assert len(calls) == 15  # every call of the recursion, not only the outermost
    assert program.fn(5) == 5 and len(calls) == 15  # the module's own function stays plain


def test_numba_column_checks_answers_and_shortens_errors() -> None:
    pytest.importorskip("numba")
    from bench.programs._numba import numba_version

    program = load("fib_recursive")
    args = program.setup(True)
    assert numba_version(program.fn, args, run(program.fn, args)).fn is not None
    typed_out = load("word_counts")  # str.split and a dict of str: not Numba's language
    args = typed_out.setup(True)
    failed = numba_version(typed_out.fn, args, run(typed_out.fn, args))
    assert failed.fn is None and "\x1b" not in failed.note and len(failed.note) < 100


@pytest.mark.parametrize(
    ("plain", "compiled", "status"),
    [
        (1.0, 1.0, "equal"),
        (np.float64(1.0), 1.0, "DIFFERS"),  # a NumPy scalar is not a Python float
        (np.ones(3), np.ones(3, dtype=np.float32), "DIFFERS"),
        (np.ones(3), np.ones(3) * (1 + 1e-12), "close"),
        (np.ones(3), np.ones(3) * 1.01, "DIFFERS"),
        ((np.ones(2), 3), (np.ones(2), 4), "DIFFERS"),
    ],
)
def test_compare_tells_equal_close_and_different(
    plain: object, compiled: object, status: str
) -> None:
    assert compare(Outcome(result=plain), Outcome(result=compiled)).status == status


def test_compare_sees_writes_to_inputs_prints_and_exceptions() -> None:
    def scale(x: np.ndarray) -> None:
        x *= 2.0

    def keep(x: np.ndarray) -> None:
        print("hello")

    args = (np.ones(3),)
    assert compare(run(scale, args), run(keep, args)).status == "DIFFERS"
    assert args[0][0] == 1.0  # run works on a copy

    def fail(x: np.ndarray) -> None:
        raise ValueError("bad")

    assert compare(run(keep, args), run(fail, args)) == Verdict("ERROR", "ValueError: bad")
