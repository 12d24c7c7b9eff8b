"""Constant folding: a scalar elementwise op of scalar constants becomes one constant, computed
with NumPy's ufunc on values of the nodes' dtypes (so rounding, overflow and NEP 50 weakness
match the eager interpreter); anything else is left alone."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_warnings
from graphs import F32, I64, apply, array, const, evaluate, graph, ops

from astcompile.ir.graph import ConstAttr
from astcompile.ir.ops import Op
from astcompile.passes.constfold import constfold


def _folded(node):
    """The single constant that ``node`` (an output) folds to."""
    out, changed = constfold(graph([], [node]))
    assert changed
    (result,) = out.outputs
    assert result.op is Op.CONST and result.shape == ()
    return result


def test_a_constant_subexpression_becomes_one_constant_and_values_are_kept():
    x = array(0, dtype=F32)
    six = apply(Op.MUL, const(2.0, F32), const(3.0, F32))
    before = graph([x], [apply(Op.ADD, x, six)])
    after, changed = constfold(before)
    assert changed
    assert ops(after) == [Op.INPUT, Op.CONST, Op.ADD]
    (folded,) = [n for n in after.nodes() if n.op is Op.CONST]
    assert folded.attr == ConstAttr(6.0, False) and folded.dtype == F32
    leaf = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(evaluate(after, leaf)[0], evaluate(before, leaf)[0])


def test_chains_fold_inputs_first():
    node = apply(Op.SUB, apply(Op.MUL, const(2.0), const(3.0)), const(1.0))
    assert _folded(node).attr.value == 5.0


def test_integer_overflow_wraps_in_the_nodes_dtype_as_numpy_does():
    i8 = np.dtype(np.int8)
    result = _folded(apply(Op.ADD, const(100, i8), const(100, i8)))
    assert result.attr.value == -56  # 200 wrapped to int8
    assert result.dtype == i8


def test_float32_rounds_in_float32():
    result = _folded(apply(Op.ADD, const(0.1, F32), const(0.2, F32)))
    assert result.attr.value == float(np.float32(0.1) + np.float32(0.2))
    assert result.attr.value != 0.1 + 0.2


@pytest.mark.parametrize(
    "node",
    [
        pytest.param(apply(Op.TRUEDIV, const(1.0), const(0.0)), id="divide"),
        pytest.param(apply(Op.CAST, const(1e300, weak=True), dtype=F32), id="overflow in cast"),
    ],
)
def test_an_op_numpy_warns_of_stays_so_that_it_warns_at_every_call(node):
    before = graph([], [node])
    after, changed = constfold(before)
    assert not changed and after is before


def _times_1e300(x):
    return x * 1e300


def _plus_1e39(x):
    return x + 1e39


def _element_times_minus_1e300(x):
    return x[0] * -1e300


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_times_1e300, _plus_1e39, _element_times_minus_1e300])
def test_a_python_float_out_of_float32_range_warns_at_every_call_as_numpy_does(fn, backend):
    """NEP 50: NumPy casts the weak float to float32 at each call, "overflow encountered in
    cast" each time; folded to inf at compile time, compiled calls were silent."""
    assert_same_warnings(fn, np.ones(3, np.float32), backend=backend)


@pytest.mark.parametrize(("weak", "expected"), [((True, True), True), ((True, False), False)])
def test_the_result_is_weak_only_when_every_operand_is(weak, expected):
    node = apply(Op.ADD, const(1.0, weak=weak[0]), const(2.0, weak=weak[1]))
    assert _folded(node).attr.weak is expected


def test_a_cast_of_a_constant_folds_to_the_target_dtype():
    result = _folded(apply(Op.CAST, const(2.7), dtype=I64))
    assert result.attr.value == 2 and result.dtype == I64


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda x: apply(Op.ADD, x, const(1.0)), id="array operand"),
        pytest.param(
            lambda x: apply(Op.MUL, const(np.ones(4)), const(2.0), shape=(4,)),
            id="array constant",
        ),
    ],
)
def test_nodes_that_are_not_all_scalar_constants_are_left_alone(make):
    x = array(0)
    before = graph([x], [make(x)])
    after, changed = constfold(before)
    assert not changed and after is before


def test_constants_inside_a_loop_body_are_folded():
    from graphs import all_nodes
    from test_codegen_structured import F8, G

    g = G()
    x, n = g.array("x", F8, (None,)), g.scalar("n")
    zero, one, acc0 = g.const(0), g.const(1), g.const(0.0, F8)
    i, (acc,) = g.loop_vars(("acc", acc0))
    six = g.binary(Op.MUL, g.const(2.0, F8), g.const(3.0, F8))
    new = g.binary(Op.ADD, acc, g.binary(Op.MUL, g.at(x, i), six))
    loop = g.loop(zero, n, one, [i, acc], [new], [], inits=[acc0], captured=[x])
    before = g.graph([g.result(loop, 0, acc)], [loop])
    after, changed = constfold(before)
    assert changed
    assert [n.op for n in all_nodes(after)].count(Op.MUL) == 1
    xs = np.arange(4.0)
    assert evaluate(after, xs, 4) == evaluate(before, xs, 4) == [np.float64(36.0)]
