"""The one helper every differential test uses: run through NumPy and astcompile, compare.

Compared: the Python type (ndarray vs NumPy scalar vs Python scalar), dtype, shape, and values
(exact for bool and integer dtypes; close for floats, NaN equal to NaN; complex values part by
part). Arrays are copied before each run so a function that writes into its arguments is
compared fairly, each copy keeping the array's layout (F order, strides, broadcast zero
strides, read-only). Identity is compared too: which returned arrays are the same object as,
or share memory with, another result or an argument (``w = np.zeros(2); g = np.zeros(2)`` are
two buffers, ``b = a`` one).

It also holds what every comparison shares: ``BACKENDS`` (the backends a test runs on) and
``TOLERANCE`` (one table by dtype), which the C backend's tests (``c_helpers.check``) use too.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib.util
import io
import itertools
import os
import types
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import astcompile
from astcompile.compare import memory_order

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


#: ``(rtol, atol)`` by dtype: the one tolerance table, for compiled results against NumPy and
#: for the C backend against the eager interpreter alike. Bool and integer dtypes compare
#: exactly; an inexact dtype missing here (float16) compares at float64's. float32: NumPy's
#: and libmvec's functions differ by a few ulp (<= 4), sums are blocked, not pairwise (see
#: docs/benchmarks.md).
TOLERANCE: dict[np.dtype, tuple[float, float]] = {
    np.dtype(np.float32): (2e-5, 1e-5),
    np.dtype(np.float64): (1e-12, 1e-12),
    np.dtype(np.complex64): (2e-5, 1e-5),
    np.dtype(np.complex128): (1e-12, 1e-12),
}
EXACT = (0.0, 0.0)


def tolerance(dtype: np.dtype) -> tuple[float, float]:
    """``(rtol, atol)`` for values of ``dtype``."""
    if dtype.kind in "biu":
        return EXACT
    return TOLERANCE.get(dtype, TOLERANCE[np.dtype(np.float64)])


def input_tolerance(args: Any) -> tuple[float, float]:
    """The tolerance the inputs allow: a float32 input computed in float32 (NumPy's own
    loop) carries float32 rounding into a float64 result (``y_int + np.exp(x_f32)``)."""
    dtypes = [np.asarray(a).dtype for a in args if isinstance(a, (np.ndarray, np.generic))]
    found = [tolerance(d) for d in dtypes]
    return (max((r for r, _ in found), default=0.0), max((a for _, a in found), default=0.0))


def assert_matches(
    got: Any, expected: Any, path: str = "result", floor: tuple[float, float] = EXACT
) -> None:
    """Equal dtype and shape, and values within ``expected``'s tolerance (or ``floor``, where
    looser), NaN equal to NaN; both sides are taken as arrays."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, f"{path}: dtype {got.dtype} != {expected.dtype}"
    assert got.shape == expected.shape, f"{path}: shape {got.shape} != {expected.shape}"
    rtol, atol = tolerance(expected.dtype)
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected, err_msg=path)
    elif expected.dtype.kind == "c":  # part by part: nan+infj is not -inf+infj
        assert_matches(got.real, expected.real, f"{path}.real", floor)
        assert_matches(got.imag, expected.imag, f"{path}.imag", floor)
    else:
        rtol, atol = max(rtol, floor[0]), max(atol, floor[1])
        np.testing.assert_allclose(
            got, expected, rtol=rtol, atol=atol, equal_nan=True, err_msg=path
        )


def assert_same_value(
    got: Any, expected: Any, path: str = "result", floor: tuple[float, float] = EXACT
) -> None:
    """``got`` is ``expected``: the same Python type (tuple, ndarray, NumPy scalar, Python
    scalar), then dtype, shape and values as :func:`assert_matches` compares them; a Python
    float or complex compares as float64 or complex128, a Python int or bool exactly, a
    function by its code (two imports of one module make two equal ones)."""
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected), f"{path}: {type(got)} != {type(expected)}"
        assert len(got) == len(expected), f"{path}: length {len(got)} != {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same_value(g, e, f"{path}[{i}]", floor)
        return
    assert type(got) is type(expected), f"{path}: type {type(got)} != {type(expected)}"
    if isinstance(expected, np.ndarray):  # C or F order: a later reshape or .T follows it
        assert memory_order(got) == memory_order(expected), f"{path}: memory order differs"
    if isinstance(expected, (np.ndarray, np.generic, float, complex)):
        assert_matches(got, expected, path, floor)
    elif isinstance(expected, types.FunctionType):  # one from each of two copies of a module
        assert _code(got) == _code(expected), f"{path}: {got!r} != {expected!r}"
    else:  # a Python int or bool, or None
        assert got == expected, f"{path}: {got!r} != {expected!r}"


def _code(fn: types.FunctionType) -> tuple:
    return fn.__qualname__, fn.__code__.co_code, fn.__code__.co_consts


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


def _arrays(value: Any) -> list[np.ndarray]:
    if isinstance(value, (tuple, list)):
        return [a for item in value for a in _arrays(item)]
    return [value] if isinstance(value, np.ndarray) else []


def aliasing(args: Any, result: Any) -> list[tuple[int, int, bool, bool]]:
    """For each pair of arrays among the arguments and results: (i, j, same object, sharing
    memory)."""
    arrays = _arrays(list(args)) + _arrays(result)
    return [
        (i, j, a is b, bool(np.shares_memory(a, b)))
        for (i, a), (j, b) in itertools.combinations(enumerate(arrays), 2)
    ]


def copy_args(args: Any) -> Any:
    """A deep copy of ``args`` whose arrays keep their layout: strides (F order, a step, a
    negative or zero stride), read-only flags and shared memory, each array a view of a copy
    of the buffer it views (``copy.deepcopy`` makes every array a new C-contiguous one)."""
    roots: dict[int, np.ndarray] = {}
    return copy.deepcopy(args, {id(a): _same_layout(a, roots) for a in _arrays(list(args))})


def _same_layout(a: np.ndarray, roots: dict[int, np.ndarray]) -> np.ndarray:
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.base is not None or a.dtype.hasobject or type(a) is not np.ndarray:
        return copy.deepcopy(a)  # memory NumPy does not own (a memory map, bytes): a copy
    new_root = roots.setdefault(id(root), root.copy(order="K"))
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    view = np.ndarray(a.shape, a.dtype, new_root.data, offset, a.strides)
    view.flags.writeable = a.flags.writeable
    return view


def run_both(fn: Callable, *args: Any, backend: str = "eager", **options: Any) -> tuple[Any, Any]:
    """``(numpy_result, astcompile_result)`` of ``fn(*args)``, each on its own copy of args."""
    expected_args, compiled_args = copy_args(args), copy_args(args)
    with np.errstate(all="ignore"), target_mode(backend):
        expected = fn(*expected_args)
        compiled = astcompile.compile(fn, backend=backend, **options)
        got = compiled(*compiled_args)
    _same_arguments(compiled_args, expected_args, input_tolerance(args))
    want, have = aliasing(expected_args, expected), aliasing(compiled_args, got)
    assert have == want, f"identity differs (i, j, is, shares memory): {have} != {want}"
    return expected, got


def assert_same(fn: Callable, *args: Any, backend: str = "eager", **options: Any) -> Any:
    """Assert astcompile's result of ``fn(*args)`` equals NumPy's; returns it."""
    expected, got = run_both(fn, *args, backend=backend, **options)
    assert_same_value(got, expected, floor=input_tolerance(args))
    return got


def assert_same_calls(
    fn: Callable, calls: list[tuple], backend: str = "eager", **options: Any
) -> None:
    """One compiled ``fn`` called with each argument tuple in turn (later calls reuse what the
    earlier ones compiled): each call as :func:`assert_same_call` compares it."""
    compiled = astcompile.compile(fn, backend=backend, **options)
    for args in calls:
        floor = input_tolerance(args)
        assert_same_call(compiled, copy_args(args), fn, copy_args(args), backend, floor)


def assert_same_call(
    compiled: Callable,
    compiled_args: tuple,
    plain: Callable,
    plain_args: tuple,
    backend: str = "eager",
    floor: tuple[float, float] = EXACT,
) -> None:
    """One call of each on its own arguments (two copies, or two twins' objects): the same
    result (which arrays are the arguments or share their memory too), or where the plain call
    raises, the same exception type; the same text printed; afterwards the arrays and Python lists among the arguments hold what the plain call left."""
    outputs = []
    with np.errstate(all="ignore"), target_mode(backend):
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            try:
                expected = plain(*plain_args)
            except Exception as exc:  # noqa: BLE001 - whatever NumPy raises, compiled code must
                expected = exc
        outputs.append(printed.getvalue())
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            if isinstance(expected, Exception):
                with pytest.raises(type(expected)):
                    compiled(*compiled_args)
            else:
                got = compiled(*compiled_args)
                assert_same_value(got, expected, floor=floor)
                want, have = aliasing(plain_args, expected), aliasing(compiled_args, got)
                assert have == want, f"identity differs (i, j, is, shares memory): {have} != {want}"
        outputs.append(printed.getvalue())
    assert outputs[1] == outputs[0], f"printed {outputs[1]!r}, plain printed {outputs[0]!r}"
    _same_arguments(compiled_args, plain_args, input_tolerance(plain_args))


def _same_arguments(got: tuple, expected: tuple, floor: tuple[float, float]) -> None:
    """Arrays and Python lists among the arguments hold what the plain call left in them (a
    list's item types too), also where the call raised: compiled code writes into them as
    NumPy and Python do, and not before NumPy would raise."""
    for i, (a, b) in enumerate(zip(got, expected)):
        if isinstance(b, np.ndarray):  # writes into arguments, within the same tolerances
            assert_same_value(a, b, f"argument {i} after the call", floor)
        elif type(b) is list:
            assert_same_value(a, b, f"list argument {i} after the call")
