"""Every program of bench/programs gives the same answer compiled as plain, at small sizes,
on every backend of the differential tests (eager and C; ``ASTCOMPILE_TEST_BACKENDS`` adds
Triton), and on Triton's interpreter for a few cheap programs (all of them with --slow).

A correctness test, not a timing test: the first compiled call (trace and build) and a warm
call are each compared with the plain call on result, dtype, shape, writes to the inputs,
printed text and exceptions (bench/programs/_compare.py). The program is compiled as
``python -m bench.programs`` compiles it (``decorated``): its recursive calls go through the
compiled function, as under ``@astcompile.compile``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from differential import BACKENDS, TRITON, gpu_present, target_mode

import astcompile
from bench.programs import decorated, load, names
from bench.programs._compare import Outcome, Verdict, compare, run

#: Programs that run as Triton kernels (or host loops launching them) which the interpreter
#: runs in well under a second each: the default run's share of the corpus on Triton (the
#: whole corpus takes minutes there, so the rest runs with --slow).
TRITON_QUICK = [
    *("asum_small", "axpy_small", "clip_small", "dot_small", "harris", "heat_1d"),
    *("log_likelihood", "moments", "rolling_mean", "trapezoid_math", "unsharp_mask"),
    "vibr_energy",
]
#: Programs Triton gets wrong today (the test fails when they are fixed: then drop them).
TRITON_WRONG: dict[str, str] = {}


def _case(name: str, backend: str) -> pytest.param:
    """Triton beyond ``TRITON_QUICK`` only with --slow, unless ASTCOMPILE_TEST_BACKENDS asks."""
    marks = []
    if backend == "triton" and name not in TRITON_QUICK and "triton" not in BACKENDS:
        marks.append(pytest.mark.slow)
    if backend == "triton" and name in TRITON_WRONG:
        marks.append(pytest.mark.xfail(reason=TRITON_WRONG[name], strict=True))
    return pytest.param(name, backend, marks=marks, id=f"{name}-{backend}")


@pytest.mark.parametrize(
    ("name", "backend"),
    [_case(n, b) for b in dict.fromkeys(BACKENDS + TRITON) for n in names()],
)
def test_program_compiled_equals_plain(name: str, backend: str) -> None:
    program = load(name)
    args = program.setup(True)
    plain = run(program.fn, args)
    assert plain.error is None, f"{name} raises plain: {plain.error!r}"
    compiled = decorated(program.fn, lambda fn: astcompile.compile(fn, backend=backend))
    with target_mode(backend):
        for attempt in ("first call", "warm call"):
            verdict = compare(plain, run(compiled, args))
            assert verdict.ok, f"{name} on {backend}, {attempt}: {verdict.status}: {verdict.detail}"


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


@pytest.mark.skipif(not TRITON, reason="Triton is not installed")
def test_runner_checks_each_backend_it_is_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python -m bench.programs --check eager,triton``: Triton's answer is compared too
    (first and warm call), in its interpreter where there is no GPU, and a row that differs
    names the backend."""
    from bench.programs.__main__ import backend_verdict, interpret_without_gpu

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    interpret_without_gpu(("eager",))
    assert "TRITON_INTERPRET" not in os.environ
    interpret_without_gpu(("eager", "triton"))
    assert os.environ.get("TRITON_INTERPRET") == ("1" if not gpu_present() else None)
    program = load("heat_1d")
    args = program.setup(True)
    plain = run(program.fn, args)
    assert backend_verdict(program, args, plain, "triton").status == "equal"
    wrong = Outcome(result=plain.result + 1.0, args_after=plain.args_after)
    verdict = backend_verdict(program, args, wrong, "triton")
    assert verdict.status == "DIFFERS" and verdict.detail.startswith("triton: result")
