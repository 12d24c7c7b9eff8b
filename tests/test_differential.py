"""Hypothesis: generated NumPy programs, compiled result equal to NumPy's (value, dtype, shape).

Each example is written to a real module file and imported, so the whole pipeline runs: source
capture, analysis, rewrite, tracing and the backend. ``--slow`` runs many more examples.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls, runtime_warnings, target_mode
from generated_programs import list_loops, operands, programs
from generated_semantics import semantic_cases
from hypothesis import given, settings

import astcompile

_counter = itertools.count()


def compile_program(lines: list[str], tmp_path) -> object:
    name = f"generated_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    body = "".join(f"    {line}\n" for line in lines)
    path.write_text(f"import numpy as np\n\n\ndef program(x, y, k):\n{body}    return z\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.program


@pytest.mark.parametrize("backend", BACKENDS)
@given(program=programs(), args=operands())
def test_generated_programs_match_numpy(backend, program, args, tmp_path_factory):
    """Three calls of one compiled program: with ``k`` and with ``k2`` of the same guard class
    (the second reuses the first's compiled code, and its run-time checks), then ``x`` flipped
    (other values take other branches, and a view may recompile): each result has NumPy's
    value and Python type. Where NumPy raises, astcompile must raise the same exception type."""
    fn = compile_program(program, tmp_path_factory.mktemp("programs"))
    x, y, k, k2 = args
    assert_same_calls(fn, [(x, y, k), (x, y, k2), (np.flip(x), y, k)], backend=backend)


@pytest.mark.parametrize("backend", ["eager", "c"])
@given(program=list_loops(), args=operands())
def test_generated_list_programs_match_python(backend, program, args, tmp_path_factory):
    """Lists the program makes and fills in a loop: the same items of the same Python types,
    the same exceptions (an index past the end), whichever way each one compiles."""
    fn = compile_program(program, tmp_path_factory.mktemp("lists"))
    x, y, k, k2 = args
    assert_same_calls(fn, [(x, y, k), (x, y, k2)], backend=backend)


def _same_semantics(program: list[str], args: tuple, backend: str, tmp_path) -> None:
    """Three calls as test_generated_programs_match_numpy makes them, then the warnings of
    each call where the plain call returns (NumPy's default error state)."""
    fn = compile_program(program, tmp_path)
    x, y, k, k2 = args
    calls = [(x, y, k), (x, y, k2), (np.flip(x), y, k)]
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    for call in calls:
        try:
            expected = runtime_warnings(fn, *call)
        except Exception:  # noqa: BLE001 - its exception was compared above
            continue
        with target_mode(backend):
            assert runtime_warnings(compiled, *call) == expected


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=12)
@given(case=semantic_cases())
def test_generated_semantics_match_numpy(backend, case, tmp_path_factory):
    """1-6 statements at NumPy's edges (tests/generated_semantics.py: integer division by
    zero, shifts, casts of NaN, reductions with ``dtype=``/``initial=``, in-place and ``out=``,
    views written through, ``np.errstate``), drawn to run on their arguments: values, types,
    writes into the arguments, exceptions and RuntimeWarnings as NumPy's."""
    _same_semantics(*case, backend, tmp_path_factory.mktemp("semantics"))


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=2000)
@given(case=semantic_cases())
def test_many_generated_semantics_match_numpy(backend, case, tmp_path_factory):
    """The same, at the size that found its bugs (about 15 minutes per backend)."""
    _same_semantics(*case, backend, tmp_path_factory.mktemp("semantics"))


def _scalar_transpose(x):
    return np.exp(x).T, np.exp(x).transpose(), np.transpose(x.sum())


def _scalar_reshape(x):
    return np.exp(x).reshape(()), np.reshape(x.sum(), ()), x.sum().reshape(1)


def _scalar_squeeze_and_copy(x):
    return np.squeeze(x.sum()), x.sum().copy(), np.copy(x.sum()), np.asarray(x.sum())


def _zero_d_array_shape_ops(x):
    y = x.reshape(())
    return y.T, np.squeeze(y), y.copy(), np.ascontiguousarray(x.sum()), np.squeeze(x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn", [_scalar_transpose, _scalar_reshape, _scalar_squeeze_and_copy, _zero_d_array_shape_ops]
)
@pytest.mark.parametrize("x", [np.array(0.5), np.ones((1, 1), np.float32)])
def test_scalar_or_zero_d_result_matches_numpy(backend, fn, x):
    """NumPy scalars and 0-d arrays differ in type: a shape method keeps whichever it got."""
    if fn is _zero_d_array_shape_ops and x.size != 1:
        pytest.skip("needs one element")
    assert_same(fn, x, backend=backend)


def _weak_bools(b, i8, u, f):
    return (
        b | True,
        b + True,
        i8 + True,
        u <= True,
        b <= True,
        i8 * False,
        f >= False,
        b & False,
        i8 < True,
        (2.5 >= 2.5) >= f,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_bool_scalars_promote_like_numpy(backend):
    """A Python bool next to a number array acts as 1 or 0 (``x <= True`` compares with 1.0);
    next to a bool array it stays a bool. Found by the random differential run."""
    args = (
        np.array([True, False]),
        np.array([2, 0], np.int8),
        np.array([2, 0], np.uint8),
        np.array([0.5, 2.0], np.float32),
    )
    assert_same(_weak_bools, *args, backend=backend)
