"""Common-subexpression elimination: equal computations become one node, except where NumPy
would give two arrays the program can tell apart (see test_passes_identity.py for whole
programs)."""

from __future__ import annotations

import numpy as np
from graphs import apply, array, const, evaluate, graph, ops

from astcompile.ir.graph import ReduceAttr
from astcompile.ir.ops import Op
from astcompile.passes.cse import cse


def _reduce(op, x, axes, keepdims):
    if keepdims:
        shape = tuple(1 if a in axes else d for a, d in enumerate(x.shape))
    else:
        shape = tuple(d for a, d in enumerate(x.shape) if a not in axes)
    return apply(op, x, shape=shape, attr=ReduceAttr(axes, keepdims))


def test_equal_computations_become_one_node():
    x, y = array(0), array(1)
    total = apply(Op.ADD, apply(Op.MUL, x, y), apply(Op.MUL, x, y))
    after, changed = cse(graph([x, y], [total]))
    assert changed
    assert ops(after).count(Op.MUL) == 1
    (add,) = after.outputs
    assert add.inputs[0] is add.inputs[1]
    a, b = np.arange(4.0), np.full(4, 3.0)
    np.testing.assert_array_equal(evaluate(after, a, b)[0], 2 * a * b)


def test_different_attributes_or_inputs_are_different_computations():
    x, y = array(0, shape=(3, 4)), array(1, shape=(3, 4))
    outputs = [
        _reduce(Op.SUM, x, (0,), False),
        _reduce(Op.SUM, x, (1,), False),  # another axis
        apply(Op.ADD, x, y),
        apply(Op.ADD, y, x),  # operands in another order: not proved equal
    ]
    before = graph([x, y], [apply(Op.ADD, o, const(0.0)) for o in outputs])
    after, changed = cse(before)
    assert ops(after).count(Op.SUM) == 2 and ops(after).count(Op.ADD) == 6
    # the four ``+ 0.0`` share one CONST, and nothing else merged
    assert changed and ops(after).count(Op.CONST) == 1


def test_a_mean_with_and_without_keepdims_is_one_pass_over_the_data():
    """``x.mean(axis=1)`` and the keepdims mean inside ``x.var(axis=1)``: one reduction, the
    second a reshape of the first."""
    x = array(0, shape=(3, 4))
    kept = _reduce(Op.MEAN, x, (1,), True)
    flat = _reduce(Op.MEAN, x, (1,), False)
    before = graph([x], [apply(Op.SUB, x, kept), apply(Op.MUL, flat, const(2.0))])
    after, changed = cse(before)
    assert changed and ops(after).count(Op.MEAN) == 1 and Op.RESHAPE in ops(after)
    leaf = np.arange(12.0).reshape(3, 4)
    for got, want in zip(evaluate(after, leaf), evaluate(before, leaf)):
        np.testing.assert_array_equal(got, want)


def test_two_equal_fresh_arrays_that_escape_stay_two_arrays():
    """``w = x.copy(); g = x.copy(); return w, g``: the caller may write ``w``."""
    x = array(0)
    before = graph([x], [apply(Op.COPY, x), apply(Op.COPY, x)])
    after, _ = cse(before)
    w, g = after.outputs
    assert w is not g and ops(after).count(Op.COPY) == 2


def test_equal_fresh_arrays_used_only_inside_the_region_merge():
    x = array(0)
    total = apply(Op.ADD, apply(Op.COPY, x), apply(Op.COPY, x))
    after, changed = cse(graph([x], [total]))
    assert changed and ops(after).count(Op.COPY) == 1


def test_scalar_constants_merge_by_value_type_and_weakness():
    x = array(0)
    outputs = [
        apply(Op.ADD, x, const(1.0)),
        apply(Op.MUL, x, const(1.0)),  # the same constant: merged
        apply(Op.SUB, x, const(1.0, weak=True)),  # weak: another constant
        apply(Op.TRUEDIV, x, const(1)),  # an int: another
    ]
    after, changed = cse(graph([x], outputs))
    assert changed and ops(after).count(Op.CONST) == 3


def test_zeros_of_either_sign_are_two_constants():
    """0.0 == -0.0, but ``np.maximum(x, -0.0), np.minimum(x, 0.0)`` of ``x = [0.0, -0.0]``
    gives ``[-0., -0.], [0., 0.]``: merged into one constant, C returned ``-0.`` for both."""
    x = array(0)
    outputs = [apply(Op.MAXIMUM, x, const(-0.0)), apply(Op.MINIMUM, x, const(0.0))]
    after, _ = cse(graph([x], outputs))
    assert ops(after).count(Op.CONST) == 2
    high, low = evaluate(after, np.array([0.0, -0.0]))
    assert np.signbit(high).all() and not np.signbit(low).any()


def test_array_constants_are_never_merged():
    """A captured array is read live; two captures of equal arrays may diverge."""
    x = array(0)
    outputs = [apply(Op.ADD, x, const(np.ones(4))), apply(Op.ADD, x, const(np.ones(4)))]
    after, _ = cse(graph([x], outputs))
    assert ops(after).count(Op.CONST) == 2


# -- loop graphs: bodies and branches are rebuilt too, without merging across a store or
# -- out of a body -------------------------------------------------------------------------


def reads_around_a_store(x, n):
    out = np.zeros(n)
    for i in range(n):
        a = x[0] * 2.0
        x[0] = a + 1.0
        b = x[0] * 2.0  # the same expression, after the store: another value
        out[i] = a + b
    return out


def invariant_in_body(a, b, x):
    c = a * b
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * (a * b) + c
    return out


def body_then_after(a, b, x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = a * b
    return out, a * b


def both_arms(a, b, x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0:
            out[i] = a * b
        else:
            out[i] = -(a * b)
    return out


def _muls(g):
    from graphs import all_nodes

    return [n for n in all_nodes(g) if n.op is Op.MUL]


def _same_as_numpy(fn, *args):
    import astcompile

    want = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = astcompile.compile(fn, backend="c")(*args)
    for w, g in zip(
        want if isinstance(want, tuple) else [want], got if isinstance(got, tuple) else [got]
    ):
        np.testing.assert_array_equal(g, w)


def test_reads_separated_by_a_store_in_a_loop_stay_two():
    from graphs import traced

    g = traced(reads_around_a_store, np.arange(3.0), 4)
    after, _ = cse(g)
    assert len(_muls(after)) == len(_muls(g)) == 2
    _same_as_numpy(reads_around_a_store, np.arange(3.0), 4)


def test_an_invariant_value_in_a_body_is_the_one_computed_before_the_loop():
    from graphs import traced

    g = traced(invariant_in_body, 2.0, 3.0, np.arange(4.0))
    after, changed = cse(g)
    assert changed and len(_muls(after)) == len(_muls(g)) - 1
    _same_as_numpy(invariant_in_body, 2.0, 3.0, np.arange(4.0))


def test_a_value_after_the_loop_is_not_the_one_inside_it():
    from graphs import traced

    g = traced(body_then_after, 2.0, 3.0, np.arange(4.0))
    after, _ = cse(g)
    assert len({n.id for n in _muls(after) if n.inputs[0].op is Op.INPUT}) == 2
    _same_as_numpy(body_then_after, 2.0, 3.0, np.arange(4.0))


def test_the_two_arms_of_a_branch_keep_their_own_values():
    from graphs import traced

    g = traced(both_arms, 2.0, 3.0, np.arange(-2.0, 2.0))
    after, _ = cse(g)
    assert len([m for m in _muls(after) if m.inputs[0].op is Op.INPUT]) == 2
    _same_as_numpy(both_arms, 2.0, 3.0, np.arange(-2.0, 2.0))
