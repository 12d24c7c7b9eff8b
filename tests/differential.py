"""The one helper every differential test uses: run through NumPy and astcompile, compare.

The comparison is astcompile's own (:mod:`astcompile.compare`, which verify mode and the
program corpus use too): Python type, dtype, shape, values within the one tolerance table,
exceptions. Here: how a test calls both sides (each on its own copy of the arguments, so a
function that writes into them is compared fairly, writes included) and identity: which
returned arrays are the same object as, or share memory with, another result or an argument
(``w = np.zeros(2); g = np.zeros(2)`` are two buffers, ``b = a`` one). Also ``BACKENDS``, the
backends a test runs on.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import itertools
import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import astcompile
from astcompile.compare import (
    EXACT,
    Allowance,
    arrays_in,
    call_differences,
    copy_args,
    differences,
    exception_differences,
    input_floor,
)

#: The backends every differential test runs a function on. ``ASTCOMPILE_TEST_BACKENDS``
#: (comma-separated) replaces them: ``eager,c,triton`` runs the whole semantic suite on the
#: Triton target too (in the interpreter without a GPU: slow, so not by default).
BACKENDS = os.environ.get("ASTCOMPILE_TEST_BACKENDS", "eager,c").split(",")

#: The GPU backend where Triton is installed (the ``[test]`` extra has it). Without a GPU its
#: kernels run in Triton's interpreter on the NumPy arrays (:func:`target_mode`). Not in
#: ``BACKENDS``: the interpreter costs about 1 ms per program instance, so the Triton tests
#: (tests/test_backend_triton*.py) pick their cases.
TRITON = ["triton"] if importlib.util.find_spec("triton") else []

#: The backends the soundness tests run on (what a compiled function reads, calls and iterates,
#: changed between calls): every one here, Triton's interpreter too; their programs are small.
EVERY_BACKEND = list(dict.fromkeys([*BACKENDS, *TRITON]))


@functools.cache
def gpu_present() -> bool:
    """Whether a CUDA device and CuPy are here (GPU-only tests skip otherwise)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean no GPU
        return False


@contextlib.contextmanager
def target_mode(backend: str):
    """Backend "triton" without a GPU: its kernels run in Triton's interpreter."""
    if backend != "triton" or gpu_present() or os.environ.get("TRITON_INTERPRET") == "1":
        yield
        return
    os.environ["TRITON_INTERPRET"] = "1"
    try:
        yield
    finally:
        del os.environ["TRITON_INTERPRET"]


def _assert_none(problems: list[str]) -> None:
    assert not problems, "\n".join(problems)


def assert_matches(got: Any, expected: Any, path: str = "result", floor: Allowance = EXACT) -> None:
    """Equal dtype, shape and values, both sides taken as arrays (no Python type check, and
    no memory order: two backends' runs of one graph on arguments of another layout than it
    was traced for are held to their values)."""
    got, expected = np.ascontiguousarray(got), np.ascontiguousarray(expected)
    _assert_none(differences(got, expected, path, floor))


def assert_same_value(
    got: Any, expected: Any, path: str = "result", floor: Allowance = EXACT
) -> None:
    """``got`` is ``expected`` by :func:`astcompile.compare.differences`."""
    _assert_none(differences(got, expected, path, floor))


def assert_same_signs(got: Any, expected: Any, path: str = "result") -> None:
    """Where ``expected`` holds a NaN or a zero, ``got``'s has the same sign bit (NumPy's
    results are compared bit for bit: ``np.signbit``, ``.view(int)``); the values themselves
    are :func:`assert_same_value`'s business."""
    if isinstance(expected, (tuple, list)):
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same_signs(g, e, f"{path}[{i}]")
        return
    got, expected = np.asarray(got), np.asarray(expected)
    if expected.dtype.kind == "f":
        signed = np.isnan(expected) | (expected == 0)
        same = np.signbit(got[signed]) == np.signbit(expected[signed])
        assert same.all(), f"{path}: signs differ at {np.argwhere(signed)[~same].tolist()}"


def aliasing(args: Any, result: Any) -> list[tuple[int, int, bool, bool]]:
    """For each pair of arrays among the arguments and results: (i, j, same object, sharing
    memory)."""
    arrays = [a for a in arrays_in([*args, result]) if isinstance(a, np.ndarray)]
    return [
        (i, j, a is b, bool(np.shares_memory(a, b)))
        for (i, a), (j, b) in itertools.combinations(enumerate(arrays), 2)
    ]


def numbers_twice(result: Any) -> list[tuple[int, int]]:
    """Pairs of returned numbers (NumPy scalars, Python ints, floats, complexes) in tuples and
    dicts that are one object: ``return s, s`` returns one object twice, ``return s, t`` of two
    sums two. Not a list's items: a typed list's are boxed anew (runtime/pylists.py). Not
    in every comparison yet: ``max(h, 0.0)`` returning ``h`` itself is two objects compiled."""
    numbers: list[Any] = []
    stack = [result]
    while stack:
        value = stack.pop()
        if type(value) in (tuple, dict):
            stack.extend(reversed(list(value.values() if type(value) is dict else value)))
        elif isinstance(value, (np.generic, int, float, complex)) and type(value) is not bool:
            numbers.append(value)
    return [(i, j) for (i, a), (j, b) in itertools.combinations(enumerate(numbers), 2) if a is b]


def _assert_same_call(
    got: Any, expected: Any, args: tuple, compiled_args: tuple, plain_args: tuple
) -> None:
    """The results, the arguments as each call left them (arrays, lists and dicts: objects of
    other types may be two twins' own classes), and which arrays are which."""
    written = [
        i for i, a in enumerate(plain_args) if isinstance(a, np.ndarray) or type(a) in (list, dict)
    ]
    problems = call_differences(
        got,
        expected,
        tuple(compiled_args[i] for i in written),
        tuple(plain_args[i] for i in written),
        tuple(written),
        input_floor(args),
    )
    _assert_none(problems)
    want, have = aliasing(plain_args, expected), aliasing(compiled_args, got)
    assert have == want, f"identity differs (i, j, is, shares memory): {have} != {want}"


def run_both(fn: Callable, *args: Any, backend: str = "eager", **options: Any) -> tuple[Any, Any]:
    """``(numpy_result, astcompile_result)`` of ``fn(*args)``, each on its own copy of args,
    asserted the same."""
    expected_args, compiled_args = copy_args(args), copy_args(args)
    with np.errstate(all="ignore"), target_mode(backend):
        expected = fn(*expected_args)
        compiled = astcompile.compile(fn, backend=backend, **options)
        got = compiled(*compiled_args)
    _assert_same_call(got, expected, args, compiled_args, expected_args)
    return expected, got


def assert_same(fn: Callable, *args: Any, backend: str = "eager", **options: Any) -> Any:
    """Assert astcompile's result of ``fn(*args)`` equals NumPy's; returns it."""
    return run_both(fn, *args, backend=backend, **options)[1]


def assert_same_calls(
    fn: Callable, calls: list[tuple], backend: str = "eager", **options: Any
) -> None:
    """One compiled ``fn`` called with each argument tuple in turn (later calls reuse what the
    earlier ones compiled): each call as :func:`assert_same_call` compares it."""
    compiled = astcompile.compile(fn, backend=backend, **options)
    for args in calls:
        assert_same_call(compiled, copy_args(args), fn, copy_args(args), backend)


def assert_same_call(
    compiled: Callable,
    compiled_args: tuple,
    plain: Callable,
    plain_args: tuple,
    backend: str = "eager",
) -> None:
    """One call of each on its own arguments (two copies, or two twins' objects): the same
    result (which arrays are the arguments or share their memory too), or where the plain call
    raises, the same exception type; the same text printed; afterwards the arguments hold what
    the plain call left in them."""
    with np.errstate(all="ignore"), target_mode(backend):
        expected, plain_error, plain_printed = _outcome(plain, plain_args)
        if plain_error is None:  # a compiled exception fails the test with its traceback
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                got, error = compiled(*compiled_args), None
            got_printed = printed.getvalue()
        else:
            got, error, got_printed = _outcome(compiled, compiled_args)
    _assert_none(exception_differences(error, plain_error))
    assert got_printed == plain_printed, f"printed {got_printed!r}, plain printed {plain_printed!r}"
    _assert_same_call(got, expected, plain_args, compiled_args, plain_args)


def _outcome(fn: Callable, args: tuple) -> tuple[Any, BaseException | None, str]:
    """What ``fn(*args)`` returned or raised, and what it printed."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        try:
            return fn(*args), None, printed.getvalue()
        except Exception as exc:  # noqa: BLE001 - whatever NumPy raises, compiled code must
            return None, exc, printed.getvalue()


def runtime_warnings(fn: Callable, *args: Any) -> list[str]:
    """The RuntimeWarning messages of one call of ``fn`` on a copy of ``args``, under NumPy's
    default error state and every warning shown."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        fn(*copy_args(args))
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def assert_same_warnings(fn: Callable, *args: Any, backend: str = "eager", calls: int = 3) -> None:
    """Each of ``calls`` compiled calls of ``fn(*args)`` warns as the plain call does (the
    first compiles), and under a filter that makes warnings errors raises as it does."""
    compiled = astcompile.compile(fn, backend=backend)
    expected = runtime_warnings(fn, *args)
    with target_mode(backend):
        for _ in range(calls):
            assert runtime_warnings(compiled, *args) == expected
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            plain_error = _outcome(fn, copy_args(args))[1]
            _assert_none(exception_differences(_outcome(compiled, copy_args(args))[1], plain_error))
