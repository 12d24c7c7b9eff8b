"""Buffers with an identity: two equal fresh arrays stay two arrays through every pass, the same
object stays one, and a no-op on a buffer that escapes or is written is kept."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same
from graphs import passed

from astcompile.ir.ops import Op, is_fresh
from astcompile.passes.identity import buffer_of, identity
from astcompile.trace.tracer import trace_callable


def zeros_then_break(n):
    w = np.zeros(2)
    g = np.zeros(2)
    print("graph break")
    w[0] = 1
    return w, g


def zeros_and_empty(n):
    w = np.zeros(n)
    g = np.empty(n)
    g[:] = 3.0
    print("graph break")
    w[0] = 1
    return w, g


def same_object(n):
    a = np.zeros(3)
    b = a
    print("graph break")
    b[0] = 1
    return a, b, a is b


def equal_constructors(x):
    return (
        np.zeros(3),
        np.zeros(3),
        np.ones(2),
        np.ones(2),
        np.full(2, 7.0),
        np.full(2, 7.0),
        np.zeros_like(x),
        np.zeros_like(x),
        np.arange(3),
        np.arange(3),
        np.linspace(0, 1, 3),
        np.linspace(0, 1, 3),
        np.eye(2),
        np.eye(2),
    )


def equal_computations(x):
    return (
        x + 1,
        x + 1,
        x.copy(),
        np.copy(x),
        np.array(x),
        x.astype(np.float32),
        x.astype(np.float32),
        x.sum(axis=0),
        x.sum(axis=0),
        +x,
        +x,
        x.flatten(),
        x.flatten(),
    )


def zero_d_arrays(x):
    return np.zeros(()), np.zeros(()), x + 1


def views_of_equal_arrays(x):
    a = x * 2
    b = x * 2
    return a, b[1:], a[1:], a[1:]


def view_of_a_no_op(x):
    y = +x
    return y[1:]


def mean_with_and_without_keepdims(x):
    return x.mean(axis=1, keepdims=True), x.mean(axis=1), x.var(axis=1)


def write_after_break(x):
    a = x + 1
    b = x + 1
    print("graph break")
    a[0, 0] = 50.0
    return a, b


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, arg",
    [
        (zeros_then_break, 2),
        (zeros_and_empty, 3),
        (same_object, 3),
        (equal_constructors, np.arange(4.0)),
        (equal_computations, np.arange(6.0).reshape(2, 3)),
        (zero_d_arrays, np.arange(3.0)),
        (views_of_equal_arrays, np.arange(4.0)),
        (view_of_a_no_op, np.arange(4.0)),
        (mean_with_and_without_keepdims, np.ones((2, 3))),
        (write_after_break, np.ones((2, 3))),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_fresh_arrays_keep_their_identity(fn, arg, backend):
    """Values, dtypes, shapes, and which results are one object or share memory: NumPy's."""
    assert_same(fn, arg, backend=backend)


def test_fresh_is_a_property_of_the_op_table():
    assert is_fresh(Op.COPY) and is_fresh(Op.ADD) and is_fresh(Op.SUM) and is_fresh(Op.MATMUL)
    assert not any(is_fresh(op) for op in (Op.INDEX, Op.RESHAPE, Op.INPUT, Op.CONST, Op.STORE))


def test_identity_follows_views_to_the_buffer():
    graph = trace_callable(lambda x: (x[1:].T, x * 2), [np.ones((3, 3))])
    found = identity(graph)
    view, product = graph.outputs
    assert buffer_of(view) is graph.inputs[0]
    assert {view.id, graph.inputs[0].id, product.id} <= found.escaping
    assert found.interchangeable(product)


def test_a_store_through_views_writes_the_buffer():
    x = np.ones(4)

    def fn(x):
        w = x * 1.0
        w[1:][0] = 5.0
        return w + 1

    graph = trace_callable(fn, [x])
    store = graph.effects[-1]
    found = identity(graph)
    assert buffer_of(store.inputs[0]).id in found.written
    assert not found.interchangeable(graph.outputs[0])  # reads the written buffer


def test_cse_keeps_equal_outputs_apart_and_merges_what_nobody_sees():
    graph = passed(trace_callable(lambda x: (x + 1, x + 1, (x + 1) * 2), [np.ones(3)]))
    first, second, _ = graph.outputs
    assert first is not second
    assert [n.op for n in graph.nodes()].count(Op.ADD) == 2  # the third merged into one


def test_dce_keeps_a_no_op_whose_view_escapes():
    graph = passed(trace_callable(lambda x: (+x)[1:], [np.ones(3)]))
    assert Op.POS in [n.op for n in graph.nodes()]
