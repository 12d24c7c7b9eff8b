"""``rebuild``: the node-by-node rewrite every transformation uses. It must hand each rule the
already-rebuilt inputs, re-create only what changed, and keep node ids increasing along data
dependencies (the eager interpreter runs nodes in id order)."""

from __future__ import annotations

import numpy as np
from graphs import apply, array, const, evaluate, graph, ops

from astcompile.ir.graph import StoreAttr
from astcompile.ir.ops import Op
from astcompile.passes.rebuild import rebuild, with_inputs


def test_with_inputs_keeps_the_node_when_its_inputs_are_the_same():
    x, y = array(0), array(1)
    node = apply(Op.ADD, x, y)
    assert with_inputs(node, (x, y)) is node
    copy = with_inputs(node, (y, x))
    assert copy is not node and copy.inputs == (y, x)
    assert (copy.op, copy.dtype, copy.shape, copy.attr) == (node.op, node.dtype, node.shape, None)


def test_a_rule_that_keeps_everything_returns_the_same_graph():
    x = array(0)
    before = graph([x], [apply(Op.NEG, x)])
    after, changed = rebuild(before, lambda node, inputs: None)
    assert after is before and not changed


def test_a_replacement_reaches_every_consumer_and_the_outputs():
    """``neg`` becomes ``mul(x, -1)``: its consumer is re-created on the new node, in order."""
    x = array(0)
    negated = apply(Op.NEG, x)
    before = graph([x], [apply(Op.ADD, negated, const(1.0)), negated])

    def rule(node, inputs):
        return apply(Op.MUL, inputs[0], const(-1.0)) if node.op is Op.NEG else None

    after, changed = rebuild(before, rule)
    assert changed and Op.NEG not in ops(after)
    add, mul = after.outputs
    assert add.inputs[0] is mul and mul.op is Op.MUL
    assert all(i.id < n.id for n in after.nodes() for i in n.inputs)
    leaf = np.arange(4.0)
    for got, want in zip(evaluate(after, leaf), evaluate(before, leaf)):
        np.testing.assert_array_equal(got, want)


def test_inputs_effects_and_guards_carry_over():
    x = array(0)
    store = apply(Op.STORE, x, apply(Op.NEG, const(2.0)), shape=x.shape, attr=StoreAttr(()))
    before = graph([x], [x], [store])
    before.guards.append("a guard")

    def rule(node, inputs):
        return const(-2.0) if node.op is Op.NEG else None

    after, changed = rebuild(before, rule)
    assert changed and after.inputs == [x] and after.guards == ["a guard"]
    (new_store,) = after.effects
    assert new_store is not store and new_store.inputs[1].op is Op.CONST
    leaf = np.zeros(4)
    evaluate(after, leaf)
    np.testing.assert_array_equal(leaf, np.full(4, -2.0))


# -- loop graphs ---------------------------------------------------------------------------


def _loop_sum_graph():
    """acc = 0; for i in range(n): acc += x[i] * neg(2.0)   (neg(2.0) read from the body)"""
    from test_codegen_structured import F8, G

    g = G()
    x, n = g.array("x", F8, (None,)), g.scalar("n")
    zero, one, acc0 = g.const(0), g.const(1), g.const(0.0, F8)
    outer = g.node(Op.NEG, (g.const(2.0, F8),), F8, ())
    i, (acc,) = g.loop_vars(("acc", acc0))
    new = g.binary(Op.ADD, acc, g.binary(Op.MUL, g.at(x, i), outer))
    loop = g.loop(zero, n, one, [i, acc], [new], [], inits=[acc0], captured=[x])
    return g.graph([g.result(loop, 0, acc)], [loop])


def _negate_to_const(node, inputs):
    return const(-2.0) if node.op is Op.NEG else None


def test_a_body_reads_the_replacement_of_an_outer_node():
    from graphs import all_nodes

    before = _loop_sum_graph()
    after, changed = rebuild(before, _negate_to_const)
    assert changed and Op.NEG not in [n.op for n in all_nodes(after)]
    (loop,) = [n for n in all_nodes(after) if n.op is Op.LOOP]
    (mul,) = [n for n in all_nodes(after) if n.op is Op.MUL]
    assert mul in loop.attr.body.nodes() and mul.inputs[1].op is Op.CONST
    assert loop.attr.holders == _loop_of(before).attr.holders  # the body's inputs stay
    x = np.arange(5.0)
    assert evaluate(after, x, 5) == evaluate(before, x, 5) == [np.float64(-20.0)]


def _loop_of(g):
    from graphs import all_nodes

    return next(n for n in all_nodes(g) if n.op is Op.LOOP)


def test_loop_graphs_keep_program_order():
    """Every node but the inputs is re-created in the original order: a value read before a
    store keeps an id below the store's (the loop-region planner compares them)."""
    from graphs import all_nodes

    before = _loop_sum_graph()
    after, _ = rebuild(before, _negate_to_const)
    neg = next(n for n in all_nodes(before) if n.op is Op.NEG)
    kept = [n for n in all_nodes(before) if n.op is not Op.INPUT and n is not neg.inputs[0]]
    new = [n.op for n in all_nodes(after) if n.op is not Op.INPUT]
    assert new == [Op.CONST if n is neg else n.op for n in kept]


def test_a_loop_graph_a_rule_leaves_alone_is_the_same_graph():
    before = _loop_sum_graph()
    after, changed = rebuild(before, lambda node, inputs: None)
    assert after is before and not changed


def test_stores_keep_their_order_when_an_earlier_one_changes():
    """A graph with stores but no loop: the first store's value is replaced, and the first
    store must still come before the second (the planner orders stores by id)."""
    x = array(0)
    first = apply(Op.STORE, x, apply(Op.NEG, const(2.0)), shape=x.shape, attr=StoreAttr(()))
    second = apply(Op.STORE, x, const(5.0), shape=x.shape, attr=StoreAttr(()))
    before = graph([x], [x], [first, second])
    after, changed = rebuild(before, _negate_to_const)
    new_first, new_second = after.effects
    assert changed and new_first.inputs[1].op is Op.CONST
    assert new_first.id < new_second.id
    leaf = np.zeros(4)
    evaluate(after, leaf)
    np.testing.assert_array_equal(leaf, np.full(4, 5.0))
