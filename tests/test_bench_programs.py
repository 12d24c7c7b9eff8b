"""Every program of bench/programs gives the same answer compiled as plain, at small sizes.

A correctness test, not a timing test: the first compiled call (trace and build) and a warm
call are each compared with the plain call on result, dtype, shape, writes to the inputs,
printed text and exceptions (bench/programs/_compare.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from bench.programs import load, names
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


def test_there_are_at_least_forty_programs() -> None:
    assert len(names()) >= 40


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
