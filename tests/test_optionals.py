"""Variables that are None or a number through loops and ifs (trace/optionals.py): the loop
compiles, carrying the number and a flag "is None", and the region returns exactly what Python
returns (None, a Python int or float, a NumPy scalar), or runs as written where the flag alone
cannot answer (a use of the number no test shows is not None, a helper testing ``is None``)."""

from __future__ import annotations

import numpy as np
import optional_programs as P
import pytest
from differential import BACKENDS, assert_same_calls

import astcompile
from astcompile.trace import carried as CK
from astcompile.trace import optionals
from astcompile.trace.callable_kinds import asks_is_none
from astcompile.trace.context import TraceBreak

COMPILED = [
    P.argbest,
    P.first_above,
    P.first_above_for,
    P.last_above_value,
    P.diff_sum,
    P.min_positive,
    P.min_positive_elif,
    P.largest_gap,
    P.running_max_count,
    P.python_float_or_none,
    P.seen_flag,
    P.min_of_positives_by_min,
    P.starts_number_becomes_none,
    P.while_true_break,
    P.bool_optional,
]
#: a use no flag answers (Python raises TypeError, or the type depends on the branch taken)
PLAIN = [P.last_index_plus_one, P.mixed_number_types, P.through_a_helper]


def _calls(fn):
    arrays = P.arrays().values()
    if fn.__code__.co_argcount == 2:
        return [(a, 0.5) for a in arrays]
    return [(a,) for a in arrays]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", COMPILED, ids=lambda f: f.__name__)
def test_a_variable_that_may_stay_none_compiles(backend, fn):
    """Float and int arrays, empty ones, one where nothing is found, NaN: Python's values and
    types every time, from a loop that compiled (before, most of these ran as Python)."""
    calls = _calls(fn)
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    for args in calls:
        compiled(*args)
    assert compiled.python_loops == set()
    assert sum(r.stats.compiled_calls for r in compiled.regions) > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_value_returned_is_none_or_the_number_of_its_own_type(backend):
    floats, ints = np.array([0.1, 0.9, 0.7]), np.array([-2, 5, 3])
    first_above = astcompile.compile(P.first_above, backend=backend)
    last_value = astcompile.compile(P.last_above_value, backend=backend)
    scaled = astcompile.compile(P.python_float_or_none, backend=backend)
    assert first_above(floats, 2.0) is None
    found = first_above(floats, 0.5)
    assert found == 1 and type(found) is int
    assert last_value(floats, 2.0) is None
    assert type(last_value(floats, 0.5)) is np.float64 and last_value(floats, 0.5) == 0.7
    assert type(last_value(ints, 0)) is np.int64 and last_value(ints, 0) == 3
    assert scaled(floats, 2.0) is None
    assert type(scaled(floats, 0.5)) is float and scaled(floats, 0.5) == 1.0
    assert astcompile.compile(P.argbest, backend=backend)(np.zeros(0)) == (-1, None)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", PLAIN, ids=lambda f: f.__name__)
def test_a_use_the_flag_cannot_answer_runs_as_written(backend, fn):
    """``found + 1`` after the loop (TypeError where nothing was found), an int or a float by
    branch, a helper of the user's that tests ``b is None`` (run by the trace, its test would
    see the stand-in): Python's result or exception, from the region's own statements."""
    calls = _calls(fn)
    assert_same_calls(fn, calls, backend=backend)
    assert astcompile.explain(fn, *calls[0]).break_reasons


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [P.formatted, P.formatted_total], ids=lambda f: f.__name__)
def test_a_traced_value_formatted_as_text_is_pythons_text(backend, fn):
    """``f"{best}"`` (or ``"%s" % (best,)``) of a variable that may be None, ``f"{total}"`` of
    a loop's float: "None" or the number's text (the trace's stand-ins formatted themselves:
    "SymArray(float64, ())", "<...SymOptional object at 0x...>"); a size (``{n}``) is
    formatted by its value."""
    assert_same_calls(fn, _calls(fn) * 2, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_inner_loop_that_may_leave_none_compiles_in_its_outer_loop(backend):
    """``best`` starts as None in each row, a row of no positive leaves it None, and an
    empty row is a loop of zero trips."""
    calls = [(np.random.default_rng(4).standard_normal((5, 4)),), (-np.ones((3, 3)),)]
    assert_same_calls(P.nested_reset, [*calls, (np.zeros((2, 0)),)], backend=backend)
    compiled = astcompile.compile(P.nested_reset, backend=backend)
    compiled(*calls[0])
    assert compiled.python_loops == set()


@pytest.mark.parametrize("backend", BACKENDS)
def test_small_integer_and_float32_elements_keep_their_type(backend):
    calls = [(np.arange(10, dtype=np.uint8), 5), (np.arange(3, dtype=np.uint8), 5)]
    calls += [(np.arange(10, dtype=np.float32), 5.0), (np.arange(10, dtype=np.int32), 3)]
    assert_same_calls(P.last_above_value, calls, backend=backend)
    assert type(astcompile.compile(P.last_above_value, backend=backend)(*calls[0])) is np.uint8


def test_none_and_a_number_meet_as_an_optional_of_the_number():
    number = CK.kind_of(np.float64(1.0))
    assert CK.unify(CK.kind_of(None), number) == ("optional", number)
    assert CK.unify(("optional", number), CK.kind_of(None)) == ("optional", number)
    with pytest.raises(TraceBreak):  # an array that may be None is not carried
        CK.unify(CK.kind_of(None), ("array", np.dtype(float), (3,), False, None))


def test_is_none_outside_a_trace_is_pythons_own():
    assert optionals.ac_is_none(None) is True
    assert optionals.ac_is_none(0.0) is False


def test_a_function_that_tests_is_none_is_known_by_its_code():
    assert asks_is_none(P.is_missing.__code__)
    assert asks_is_none(P.argbest.__code__)
    assert not asks_is_none(P.scale.__code__)
