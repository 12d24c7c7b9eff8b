"""User functions a region calls see NumPy's creation functions routed to the tracer.

An inlined callee runs unrewritten on traced values: ``np.array([...])`` of traced scalars in
an ODE right-hand side used to break the whole region ("conversion to a concrete array").
"""

from __future__ import annotations

import math
from math import erf, sqrt

import numpy as np
import pytest
from differential import BACKENDS, assert_same

import astcompile
from bench.programs.lotka_volterra import lotka_volterra as rk4_predator_prey


def padded_ramp(x):
    out = np.zeros(x.shape[0] + 2)
    out[1:-1] = x * np.arange(x.shape[0])
    return out + np.linspace(0.0, 1.0, x.shape[0] + 2)


def calls_a_helper_that_creates(x):
    return padded_ramp(x).sum() + np.array([1.0, 2.0]).sum()


CASES = [
    (rk4_predator_prey, (np.array([10.0, 5.0]), (1.1, 0.4, 0.4, 0.1), 0.01, 20)),
    (rk4_predator_prey, (np.array([10.0, 5.0]), (1.1, 0.4, 0.4, 0.1), 0.01, 0)),
    (calls_a_helper_that_creates, (np.arange(5.0),)),
    (calls_a_helper_that_creates, (np.arange(4, dtype=np.float32),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args", CASES, ids=[f"{c[0].__name__}{i}" for i, c in enumerate(CASES)]
)
def test_creation_in_called_functions_is_traced(fn, args, backend):
    assert_same(fn, *args, backend=backend)
    report = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    assert report.break_reasons == [], str(report)


def test_the_traced_view_is_numpy_everywhere_else():
    from astcompile.trace.library_modules import ModuleRead, untraced
    from astcompile.trace.reads import ReadRecorder

    recorder = ReadRecorder(lambda value, name: value, (), ())
    view = recorder.see((("fn",), ("gdict",), ("item", "np")), np)
    assert isinstance(view, ModuleRead)
    assert view.float64 is np.float64 and view.sin is np.sin
    assert isinstance(view.random, ModuleRead) and untraced(view.random.rand) is np.random.rand
    assert view.array is not np.array and view.array.real is np.array
    assert untraced(view.array) is np.array and untraced(view) is np
    math_view = recorder.see((("fn",), ("gdict",), ("item", "math")), math)
    assert untraced(math_view.sqrt) is math.sqrt and math_view.sqrt == math.sqrt  # traced calls
    assert math_view.pi == math.pi and math_view.isclose is math.isclose  # not a scalar handler


def test_functions_with_side_effects_break_however_they_are_reached():
    """``r = np.random; r.rand(3)``, ``self.clock = time``: a library module's attributes are
    refused where the callee analysis refuses a call by name (frontend/callees.py)."""
    import time

    from astcompile.trace.context import TraceBreak
    from astcompile.trace.library_modules import untraced
    from astcompile.trace.reads import ReadRecorder

    recorder = ReadRecorder(lambda value, name: value, (), ())
    for module, name in ((np.random, "rand"), (np, "save"), (time, "perf_counter")):
        view = recorder.see((("fn",), ("gdict",), ("item", module.__name__)), module)
        refused = getattr(view, name)
        assert untraced(refused) is getattr(module, name)
        with pytest.raises(TraceBreak, match=r"side effects|unknown function|not a NumPy"):
            refused(3)


def hands_out_numpy(x):
    make = np.array
    xp = np
    return make, xp, x * 2.0


def test_numpy_and_its_functions_leave_a_region_as_themselves():
    make, xp, _ = astcompile.compile(hands_out_numpy, backend="c")(np.arange(3.0))
    assert make is np.array and xp is np


# A helper with math.* on loop values, as Numba users write Black-Scholes (bench program).
def _cnd(d):
    return 0.5 * (1.0 + math.erf(d / math.sqrt(2.0)))


def _cnd_imported(d):
    return 0.5 * (1.0 + erf(d / sqrt(2.0)))


def _prices(x, cnd):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = cnd(x[i] * 0.5) - math.exp(-x[i] * x[i])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("cnd", [_cnd, _cnd_imported])
def test_math_in_a_called_function_compiles_with_the_loop(cnd, backend):
    """``math.erf(d)`` in a helper the loop calls asked the traced value for ``float()``: the
    loop ran as Python. The helper's ``math`` functions (by module or imported by name) go
    to the tracer as the region's own lines do; results equal CPython's."""
    x = np.linspace(-3.0, 3.0, 41)
    compiled = astcompile.compile(_prices, backend=backend)
    assert_same(_prices, x, cnd, backend=backend)
    compiled(x, cnd)
    if backend != "eager":
        assert sum(r.stats.compiled_calls for r in compiled.regions) >= 1


_DTYPE = float  # a type read as a value: stays the type in a traced helper


def _zeros_of_dtype(x):
    return np.zeros(x.shape[0], dtype=_DTYPE) + x


def _scaled_if_float(x, v):
    return _zeros_of_dtype(x) * 2 if isinstance(v, _DTYPE) else x


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_types_read_as_values_stay_types(backend):
    """``float`` is also a scalar function the tracer knows (``float(x[i])``); read as a value
    by a helper (``dtype=_DTYPE``, ``isinstance(v, _DTYPE)``) it is the type, and the region
    compiles: routing it like ``math.erf`` broke both."""
    compiled = astcompile.compile(_scaled_if_float, backend=backend)
    assert_same(_scaled_if_float, np.arange(3.0), 1.5, backend=backend)
    compiled(np.arange(3.0), 1.5)
    if backend != "eager":
        assert sum(r.stats.compiled_calls for r in compiled.regions) >= 1
