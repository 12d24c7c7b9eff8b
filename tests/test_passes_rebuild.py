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
