"""Identity removal: unary plus and a cast to the same dtype are their input, unless the node
is an array the program can tell apart from its input (an output, or a written buffer)."""

from __future__ import annotations

import numpy as np
from graphs import F32, F64, apply, array, const, evaluate, graph, ops

from astcompile.ir.graph import StoreAttr
from astcompile.ir.ops import Op
from astcompile.passes.dce import dce


def test_unary_plus_and_a_same_dtype_cast_inside_the_region_are_removed():
    x = array(0)
    chain = apply(Op.CAST, apply(Op.POS, x), dtype=F64)
    before = graph([x], [apply(Op.ADD, chain, const(1.0))])
    after, changed = dce(before)
    assert changed and ops(after) == [Op.INPUT, Op.CONST, Op.ADD]
    assert after.outputs[0].inputs[0] is x
    leaf = np.arange(4.0)
    np.testing.assert_array_equal(evaluate(after, leaf)[0], evaluate(before, leaf)[0])


def test_a_cast_that_changes_the_dtype_is_kept():
    x = array(0)
    before = graph([x], [apply(Op.ADD, apply(Op.CAST, x, dtype=F32), const(1.0, F32))])
    after, changed = dce(before)
    assert not changed and after is before


def test_an_output_that_is_a_no_op_stays_a_new_array():
    """``return +x``: NumPy returns a new array, not ``x`` itself."""
    x = array(0)
    before = graph([x], [apply(Op.POS, x)])
    after, changed = dce(before)
    assert not changed and after.outputs[0].op is Op.POS


def test_a_written_no_op_stays_its_own_buffer():
    """``y = +x; y[...] = 0``: writing ``y`` must not write ``x``."""
    x = array(0)
    y = apply(Op.POS, x)
    store = apply(Op.STORE, y, const(0.0), shape=y.shape, attr=StoreAttr(()))
    after, _ = dce(graph([x], [apply(Op.ADD, y, const(1.0))], [store]))
    assert Op.POS in ops(after)
    leaf = np.ones(4)
    np.testing.assert_array_equal(evaluate(after, leaf)[0], np.ones(4))
    np.testing.assert_array_equal(leaf, np.ones(4))  # the store wrote y's own buffer


def _loop(carried_out_cast: bool):
    """for i in range(n): acc += cast(x[i])  (or, carried array u: u = cast(u))"""
    from test_codegen_structured import F8, G

    g = G()
    x, n = g.array("x", F8, (None,)), g.scalar("n")
    zero, one = g.const(0), g.const(1)
    if carried_out_cast:
        i, (u,) = g.loop_vars(("u", x))
        out = g.node(Op.CAST, (u,), F8, u.shape)
        loop = g.loop(zero, n, one, [i, u], [out], [], inits=[x])
        return g.graph([g.result(loop, 0, u)], [loop])
    acc0 = g.const(0.0, F8)
    i, (acc,) = g.loop_vars(("acc", acc0))
    new = g.binary(Op.ADD, acc, g.node(Op.CAST, (g.at(x, i),), F8, ()))
    loop = g.loop(zero, n, one, [i, acc], [new], [], inits=[acc0], captured=[x])
    return g.graph([g.result(loop, 0, acc)], [loop])


def test_identity_casts_inside_a_loop_body_are_removed():
    from graphs import all_nodes

    before = _loop(carried_out_cast=False)
    after, changed = dce(before)
    assert changed and Op.CAST not in [n.op for n in all_nodes(after)]
    xs = np.arange(4.0)
    assert evaluate(after, xs, 4) == evaluate(before, xs, 4) == [np.float64(6.0)]


def test_a_carried_array_that_is_a_copy_stays_a_copy():
    """``u = u.astype(float)`` makes a new array each iteration: the loop's result must not
    become the caller's own array."""
    from graphs import all_nodes

    after, changed = dce(_loop(carried_out_cast=True))
    assert not changed and Op.CAST in [n.op for n in all_nodes(after)]
