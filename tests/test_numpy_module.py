"""User functions a region calls see NumPy's creation functions routed to the tracer.

An inlined callee runs unrewritten on traced values: ``np.array([...])`` of traced scalars in
an ODE right-hand side used to break the whole region ("conversion to a concrete array").
"""

from __future__ import annotations

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
    import math

    from astcompile.trace.library_modules import ModuleRead, untraced
    from astcompile.trace.reads import ReadRecorder

    recorder = ReadRecorder(lambda value, name: value, (), ())
    view = recorder.see((("fn",), ("gdict",), ("item", "np")), np)
    assert isinstance(view, ModuleRead)
    assert view.float64 is np.float64 and view.sin is np.sin
    assert isinstance(view.random, ModuleRead) and view.random.rand == np.random.rand
    assert view.array is not np.array and view.array.real is np.array
    assert untraced(view.array) is np.array and untraced(view) is np
    assert recorder.see((("fn",), ("gdict",), ("item", "math")), math).sqrt is math.sqrt


def hands_out_numpy(x):
    make = np.array
    xp = np
    return make, xp, x * 2.0


def test_numpy_and_its_functions_leave_a_region_as_themselves():
    make, xp, _ = astcompile.compile(hands_out_numpy, backend="c")(np.arange(3.0))
    assert make is np.array and xp is np
