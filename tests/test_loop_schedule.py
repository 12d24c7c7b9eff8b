"""The loop schedule (lower/loop_schedule.py): target-free statements of traced loop programs,
their pseudo-code, and the GPU form of each user loop."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from astcompile.lower import loop_schedule as ls
from astcompile.lower.structured_plan import plan_structured
from astcompile.targets.c.c_target import C
from tests.test_loop_parallel import carried_sum, prefix, rows


def heat(u, steps):
    for t in range(steps):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
    return u


def norms(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = np.sum(x[i] * x[i])
    return out


def energy(u, steps):
    e = 0.0
    for t in range(steps):
        u = u * 0.5
        e += np.sum(u)
    return e


def clip_loop(x):
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            x[i] = 1.0
    return x


def schedule_of(fn, *args) -> ls.Schedule:
    graph = astcompile.explain(astcompile.compile(fn), *args).graphs[0]
    return ls.build_schedule(graph, plan_structured(graph, C))


def only_loop(schedule: ls.Schedule) -> ls.UserLoop:
    (loop,) = schedule.loops()
    return loop


def of_type(stmts, kind):
    return [s for s in stmts if isinstance(s, kind)]


def test_independent_rows_loop_is_a_parallel_grid():
    loop = only_loop(schedule_of(rows, np.ones((4, 3))))
    assert loop.var == "i" and loop.independent and not loop.carried
    assert loop.line is not None and loop.line.line == rows.__code__.co_firstlineno + 2
    (store,) = of_type(loop.body, ls.Store)
    assert len(store.elements.shape) == 1
    assert store.elements.parallel == ()  # inside a user loop: no team of its own
    assert store.elements.simd == (0,)
    assert ls.loop_form(loop) is ls.LoopForm.GRID


def test_prefix_loop_is_sequential_element_updates():
    loop = only_loop(schedule_of(prefix, np.ones(5)))
    assert not loop.independent
    (store,) = of_type(loop.body, ls.Store)
    assert store.elements.shape == () and store.target.attr.name == "x"
    assert [s.reads for s in of_type(loop.body, ls.Assign) if s.reads] == [True]
    assert ls.loop_form(loop) is ls.LoopForm.SCALAR


def test_carried_scalar_is_a_carried_value_with_a_final_result():
    schedule = schedule_of(carried_sum, np.ones(5))
    loop = only_loop(schedule)
    total = loop.carried[0]
    assert total.scalar and total.holder.attr.name == "total"
    assert total.init.attr.value == 0.0
    assert not loop.independent  # a carried value orders the iterations
    assert of_type(schedule.body, ls.LoopResult)
    assert ls.loop_form(loop) is ls.LoopForm.SCALAR


def test_stencil_time_loop_is_a_host_loop_over_array_statements():
    schedule = schedule_of(heat, np.ones(8), 40)
    loop = only_loop(schedule)
    assert loop.var == "t" and not loop.independent
    (store,) = of_type(loop.body, ls.Store)
    assert len(store.elements.shape) == 1
    assert ls.loop_forms(schedule) == {loop.node.id: ls.LoopForm.HOST_LOOP}


def test_reduction_in_a_loop_uses_the_reduction_rule_table():
    from astcompile.ir.ops import Op
    from astcompile.lower.reduce import RULES

    loop = only_loop(schedule_of(norms, np.ones((4, 3))))
    (red,) = of_type(loop.body, ls.Reduce)
    assert red.rule is RULES[Op.SUM] and red.axes == (0,) and not red.into_buffer
    assert loop.independent  # out[i] only
    assert ls.loop_form(loop) is ls.LoopForm.GRID


def test_carried_array_with_a_whole_array_sum_is_a_host_loop():
    loop = only_loop(schedule_of(energy, np.ones(6), 30))
    assert {c.holder.attr.name: c.scalar for c in loop.carried if c.holder.attr.name in "ue"} == {
        "u": False,
        "e": True,
    }
    assert ls.loop_form(loop) is ls.LoopForm.HOST_LOOP


def test_branch_in_a_loop_holds_both_blocks():
    loop = only_loop(schedule_of(clip_loop, np.ones(5)))
    (branch,) = of_type(loop.body, ls.Branch)
    assert of_type(branch.then, ls.Store) and branch.orelse == ()
    assert branch.around == 1
    assert ls.loop_form(loop) is ls.LoopForm.GRID  # iteration i touches x[i] only


@pytest.mark.parametrize(
    "fn, args, lines",
    [
        (rows, (np.ones((4, 3)),), ["for i in range(0, ", "# independent", "store %0[i, "]),
        (carried_sum, (np.ones(5),), ["# sequential", "carried scalar total: 0.0 -> ", "final"]),
        (norms, (np.ones((4, 3)),), ["sum(", "axes (0,) (fold add)", "store %0[i] = "]),
    ],
)
def test_dump_reads_like_pseudo_code(fn, args, lines):
    text = str(schedule_of(fn, *args))
    for line in lines:
        assert line in text, text


def halve_rows(x, steps):
    for t in range(steps):
        for i in range(x.shape[0]):
            x[i] = x[i] * 0.5
    return x


def test_time_loop_around_a_grid_is_a_host_loop():
    schedule = schedule_of(halve_rows, np.ones(6), 30)
    outer, inner = schedule.loops()
    assert (outer.var, inner.var) == ("t", "i")
    assert inner.around == 1 and inner.independent and not outer.independent
    forms = ls.loop_forms(schedule)
    assert forms == {outer.node.id: ls.LoopForm.HOST_LOOP, inner.node.id: ls.LoopForm.GRID}


def array_newton(a, tol):
    x = a.copy()
    err = 1.0
    while err > tol:
        nx = 0.5 * (x + a / x)
        err = np.max(np.abs(nx - x))
        x = nx
    return x


def test_while_loop_over_whole_arrays_is_a_host_loop():
    loop = only_loop(schedule_of(array_newton, np.full(5, 2.0), 1e-9))
    assert loop.is_while and loop.var is None and not loop.independent
    assert any(isinstance(s, ls.Reduce) for s in loop.body)
    assert {c.holder.attr.name for c in loop.carried if not c.scalar} == {"x"}
    assert ls.loop_form(loop) is ls.LoopForm.HOST_LOOP
    assert "while " in str(schedule_of(array_newton, np.full(5, 2.0), 1e-9))
