"""The loop planner (frontend/loop_plan.py) on what other people write, beside test_loop_plan.py
(apart: it takes programs from bench/, which the installed wheel's test subset lacks): ``for ... else`` (the
``else`` block runs after the native loop under ``if not brk:``), and a ``break`` whose branch
assigns a name the rest of the body assigns again (the value live where the break goes is
the branch's). Each program agrees with plain Python on every backend and compiles as one
region without breaks."""

from __future__ import annotations

import json
from dataclasses import asdict

import numpy as np
import pytest
from differential import BACKENDS, assert_same

import astcompile
from astcompile.frontend.spec import BranchSpec, LoopSpec, structured_specs
from bench.programs.for_else_search import for_else_search


def search_or_minus_two(x, q):
    found = -1
    for i in range(x.shape[0]):
        if x[i] == q:
            found = i
            break
    else:
        found = -2
    return found


def total_unless_found(x, q):
    found = -1
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] == q:
            found = i
            break
        total += x[i]
    else:
        total = -total
    return found, total


def else_without_break(x):
    s = 0.0
    for v in x:
        s += v
    else:
        s = s * 2.0
    return s


def else_with_a_branch(values, limits):
    out = np.zeros(limits.shape[0])
    for k in range(limits.shape[0]):
        for i in range(values.shape[0]):
            if values[i] > limits[k]:
                break
        else:
            if limits[k] > 0:
                out[k] = 1.0
            else:
                out[k] = 2.0
    return out


def reassigned_after_the_break(x, q):
    found = -1
    for i, v in enumerate(x):
        if v == q:
            found = i
            break
        found = 0  # the break skips this: found keeps the branch's value
    return found


VALUES = np.arange(0.0, 60.0, 3.0)
QUERIES = np.array([3.0, 4.0, 27.0, 57.0, 100.0])
PROGRAMS = [
    (search_or_minus_two, (VALUES, 27.0)),
    (search_or_minus_two, (VALUES, 28.0)),
    (search_or_minus_two, (VALUES[:0], 1.0)),
    (total_unless_found, (VALUES, 27.0)),
    (total_unless_found, (VALUES, 28.0)),
    (else_without_break, (VALUES,)),
    (for_else_search, (VALUES.astype(np.int64), QUERIES.astype(np.int64))),
    (else_with_a_branch, (VALUES, np.array([10.0, 100.0, -5.0, 70.0]))),
    (reassigned_after_the_break, (VALUES, 27.0)),
    (reassigned_after_the_break, (VALUES, 28.0)),
]
IDS = [f"{fn.__name__}-{n}" for n, (fn, _) in enumerate(PROGRAMS)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", PROGRAMS, ids=IDS)
def test_loops_with_else_and_breaks_match_python(fn, args, backend):
    assert_same(fn, *args, backend=backend)


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=IDS)
def test_loops_with_else_compile_as_one_region(fn, args):
    output = astcompile.explain(astcompile.compile(fn, backend="c"), *args)
    assert output.graph_break_count == 0, output
    assert not output.python_loops, output
    assert [r.compiled_calls for r in output.regions] == [1], output


def else_that_returns(x):
    for v in x:
        if v > 2.0:
            break
    else:
        return -1.0  # a jump in the else: the loop stays in Python
    return v


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_else_with_a_jump_stays_in_python(backend):
    for x in (np.arange(5.0), np.arange(2.0)):
        assert_same(else_that_returns, x, backend=backend)


def test_a_for_else_plan_survives_the_rewrite_cache():
    """The rewrite cache keeps specs as JSON: the ``else`` branch nested in its loop's spec
    comes back a BranchSpec (a warm process lowers the loop from it)."""
    loop = LoopSpec(7, "i", ("__ac_brk_7", "found"), "__ac_brk_7", orelse=BranchSpec(7, ("found",)))
    stored = json.loads(json.dumps([asdict(loop)]))
    assert structured_specs(stored) == (loop,)
