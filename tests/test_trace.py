"""The tracer alone: graphs recorded from plain functions, run by the eager interpreter."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls, assert_same_value

import astcompile
from astcompile.ir.graph import verify
from astcompile.ir.ops import Op
from astcompile.jit.leaves import leaves_of, rebuilder
from astcompile.targets.eager import run_graph
from astcompile.trace.context import TraceBreak
from astcompile.trace.reasons import TraceReason
from astcompile.trace.tracer import trace


def trace_and_run(fn, *args):
    names = [f"a{i}" for i in range(len(args))]
    result = trace(fn, args, names, fn.__name__)
    verify(result.graph)
    leaves = leaves_of(args)
    return result, rebuilder(result.template)(run_graph(result.graph, leaves), leaves, ())


def check(fn, *args):
    result, got = trace_and_run(fn, *args)
    with np.errstate(all="ignore"):
        assert_same_value(got, fn(*args))
    return result


def test_elementwise_chain_is_one_graph():
    def gelu(x):
        return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))

    result = check(gelu, np.linspace(-3, 3, 101, dtype=np.float32))
    assert result.graph.nodes()[-1].dtype == np.float32  # NEP 50: Python floats are weak


def test_sizes_are_symbolic_and_guards_hold_for_new_sizes():
    def f(x, y):
        return x[1:] + y[:-1]

    result = check(f, np.arange(10.0), np.arange(10.0))
    shapes = [(17,), (17,)]
    assert all(g.holds(shapes) for g in result.graph.guards)
    got = run_graph(result.graph, [np.arange(17.0), np.ones(17)])[0]
    np.testing.assert_array_equal(got, np.arange(17.0)[1:] + 1)


@pytest.mark.parametrize(
    "key",
    [
        np.s_[1:-1],
        np.s_[::2],
        np.s_[::-1],
        np.s_[-3:],
        np.s_[5:2],
        np.s_[100:],
        np.s_[2:8:3],
        np.s_[None, ...],
        np.s_[..., None],
        np.s_[-1],
        np.s_[3, None],
    ],
)
def test_basic_indexing_matches_numpy(key):
    check(lambda x: x[key] * 2, np.arange(10.0))


def test_2d_indexing_and_transpose_views():
    x = np.arange(24.0).reshape(4, 6)
    check(lambda x: (x[1:, ::2].T + 1, x[:, None, 2], x[..., -1]), x)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "any", "all", "var", "std"])
def test_reductions(name, axis, keepdims):
    x = np.random.default_rng(0).random((3, 4))
    check(lambda x: getattr(np, name)(x, axis=axis, keepdims=keepdims), x)


def test_full_reduction_returns_numpy_scalar():
    _, got = trace_and_run(lambda x: x.sum(), np.ones(4, np.float32))
    assert type(got) is np.float32


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float32", "float64", "bool"])
def test_promotion_with_python_scalars(dtype):
    x = np.arange(5).astype(dtype)
    check(lambda x: (x + 1, x * 2.5, x / 2, x // 3 if dtype != "bool" else x, x > 2), x)


def test_python_int_overflow_raises_like_numpy():
    with pytest.raises(OverflowError):
        trace_and_run(lambda x: x + 300, np.arange(3, dtype=np.int8))


def test_shape_mismatch_raises_value_error():
    with pytest.raises(ValueError):
        trace_and_run(lambda x, y: x + y, np.ones(3), np.ones(4))


def test_data_dependent_bool_breaks():
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(TraceBreak) as info:
        trace_and_run(f, np.ones(3))
    assert info.value.reason is TraceReason.DATA_DEPENDENT_CONTROL
    assert "data-dependent control flow: the truth value of an array" in str(info.value)
    assert info.value.loc.line > 0


def test_unsupported_function_breaks():
    with pytest.raises(TraceBreak, match="not supported"):
        trace_and_run(lambda x: np.linalg.eig(x), np.ones((3, 3)))


def test_float_scalar_argument_is_an_input_not_a_constant():
    result, _ = trace_and_run(lambda x, a: x * a, np.ones(3), 2.0)
    assert [n.op for n in result.graph.inputs] == [Op.INPUT, Op.INPUT]
    assert result.value_guards == []
    np.testing.assert_array_equal(run_graph(result.graph, [np.ones(3), 5.0])[0], np.full(3, 5.0))


def test_scalar_steering_control_flow_is_guarded():
    def f(x, k):
        return x * 2 if k > 1 else x

    result, _ = trace_and_run(f, np.ones(3), 3)
    assert result.value_guards == [(1, 3)]


def test_size_arithmetic_stays_symbolic():
    result, _ = trace_and_run(lambda x: x.sum() / x.shape[0], np.arange(6.0))
    assert any(n.op is Op.DIM for n in result.graph.nodes())
    assert run_graph(result.graph, [np.arange(10.0)])[0] == 4.5


def test_reshape_and_ravel():
    x = np.arange(12.0)
    check(lambda x: (x.reshape(3, -1), x.reshape((2, 2, 3)).ravel(), x.reshape(-1, 2).T), x)


def test_matmul_and_dot():
    rng = np.random.default_rng(1)
    a, b, v = rng.random((3, 4)), rng.random((4, 5)), rng.random(4)
    check(lambda a, b, v: (a @ b, np.dot(a, v), v @ v, a @ b + 1.0), a, b, v)


def test_where_clip_maximum_nan():
    x = np.array([np.nan, -1.0, 0.5, 2.0, np.inf])
    check(
        lambda x: (np.where(x > 0, x, 0.0), np.clip(x, 0, 1), np.maximum(x, 0.0), np.minimum(x, 1)),
        x,
    )


def test_in_place_on_fresh_intermediate_is_modelled():
    def f(x):
        y = x * 2
        z = y
        y += 1
        return z

    check(f, np.arange(4.0))


def test_in_place_on_argument_writes_through():
    def f(x):
        x += 1
        return x

    x = np.arange(4.0)
    result, got = trace_and_run(f, x)
    assert got is x and list(x) == [1.0, 2.0, 3.0, 4.0]
    assert [n.op for n in result.graph.effects] == [Op.STORE]


def test_zero_d_and_empty_arrays():
    check(lambda x: (x + 1, np.exp(x), x.sum()), np.array(3.0))
    check(lambda x: (x + 1, x.sum(axis=0), x.mean()), np.ones((0, 3)))


def test_empty_max_raises_like_numpy():
    with pytest.raises(ValueError):
        trace_and_run(lambda x: x.max(), np.ones(0))


def test_argument_returned_unchanged_is_the_same_object():
    x = np.ones(3)
    _, got = trace_and_run(lambda x: (x, x + 1), x)
    assert got[0] is x


class _Model:
    def __init__(self, bias):
        self.bias = bias

    def forward(self, x):
        return x + self.bias


@pytest.mark.parametrize("argument", [_Model(1.0), {"bias": 1.0}], ids=["object", "dict"])
def test_what_a_region_reads_from_an_argument_is_an_input(argument):
    """Not a constant compiled in: a read (runtime/reads.py) passed in at every call."""
    from astcompile.runtime.reads import ReadKind

    read = (
        (lambda x, a: x + a.bias) if isinstance(argument, _Model) else (lambda x, a: x + a["bias"])
    )
    result = trace(read, (np.ones(2), argument), ["x", "a"], "f")
    assert [r.kind for r in result.reads] == [ReadKind.INPUT]
    assert result.leaf_names[-1] in ("a_bias", "a_bias_")


def test_a_random_generator_is_not_traced():
    with pytest.raises(TraceBreak, match=r"g\.normal is a function with side effects"):
        trace(
            lambda x, g: x + g.normal(size=2),
            (np.ones(2), np.random.default_rng(0)),
            ["x", "g"],
            "f",
        )


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_read_from_an_object_is_read_on_every_call(backend):
    import astcompile

    forward = astcompile.compile(_Model.forward, backend=backend)
    model = _Model(1.0)
    np.testing.assert_array_equal(forward(model, np.zeros(2)), np.ones(2))
    model.bias = 5.0
    np.testing.assert_array_equal(forward(model, np.zeros(2)), np.full(2, 5.0))
    rng = np.random.default_rng(0)
    draw = astcompile.compile(lambda x, g: x + g.normal(size=2), backend=backend)
    assert not np.array_equal(draw(np.zeros(2), rng), draw(np.zeros(2), rng))


def _mean(y):
    return y.sum() / len(y)


def _sum_by_index(y):
    total = 0.0
    for i in range(len(y)):
        total += y[i]
    return total


def _rows_and_empty(m, xs):
    return m * len(m) + len(xs) + len(m[0])


@pytest.mark.parametrize("fn", [_mean, _sum_by_index, _rows_and_empty])
@pytest.mark.parametrize("backend", BACKENDS)
def test_len_of_an_array_is_a_symbolic_size(fn, backend):
    """``len(y)`` is ``y.shape[0]``: new lengths reuse the one compiled entry (a list's length
    is part of its guard key, as ever), and the result is what NumPy gives."""
    n_args = fn.__code__.co_argcount
    calls = [(np.arange(float(n)).reshape(-1, 1) * 1.5, [1, 2])[:n_args] for n in (3, 7, 100)]
    if fn is not _rows_and_empty:
        calls = [(a[:, 0],) for a, *_ in calls]
    assert_same_calls(fn, calls, backend=backend)
    compiled = astcompile.compile(fn, backend=backend)
    for args in calls:
        compiled(*args)
    assert [region._count() for region in compiled.regions] == [1]


def converted(f, x):
    g = float(f)
    return g, x * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [2.5, np.float64(2.5), np.float32(2.5), 3, True])
def test_float_of_a_scalar_argument(backend, f):
    """``float(f)`` is ``f`` itself for a Python float (CPython returns it), a new Python
    float for anything else, a NumPy float64 (a float subclass) too."""
    compiled = astcompile.compile(converted, backend=backend)
    for _ in range(3):
        got, expected = compiled(f, np.ones(3))[0], converted(f, np.ones(3))[0]
        assert type(got) is type(expected) and got == expected
        assert (got is f) == (expected is f)
