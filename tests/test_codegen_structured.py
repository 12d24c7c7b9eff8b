"""Structured graphs (loops, branches, stores) through the C backend, against NumPy.

The graphs are built by hand, node by node in program order, exactly as the tracer records
them; each test compares the compiled call with the same computation written in NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from astcompile.ir.graph import (
    ConstAttr,
    DynIndex,
    Graph,
    IfAttr,
    IndexItem,
    InputAttr,
    InputKind,
    LoopAttr,
    ReduceAttr,
    StoreAttr,
)
from astcompile.ir.ops import Op
from astcompile.ir.shapes import dim_sub, symbol
from astcompile.targets.c.c_backend import CBackend
from astcompile.targets.c.structured import generate_structured
from astcompile.targets.c.structured_wrapper import region_source
from astcompile.trace.context import TraceContext

F8, I8, B1 = np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_)


class G:
    """A tiny graph builder: ``g.add(x, y)`` appends nodes in program order."""

    def __init__(self) -> None:
        self.ctx = TraceContext("test")
        self.inputs: list = []

    def node(self, op, inputs, dtype, shape, attr=None):
        return self.ctx.node(op, tuple(inputs), dtype, tuple(shape), attr)

    def array(self, name, dtype, shape):
        k = len(self.inputs)
        dims = tuple(
            symbol(f"{name}_{a}", 10 + a, (k, a)) if d is None else d for a, d in enumerate(shape)
        )
        node = self.node(Op.INPUT, (), dtype, dims, InputAttr(k, name, InputKind.ARRAY))
        self.inputs.append(node)
        return node

    def scalar(self, name, dtype=I8):
        k = len(self.inputs)
        node = self.node(Op.INPUT, (), dtype, (), InputAttr(k, name, InputKind.SCALAR, True))
        self.inputs.append(node)
        return node

    def const(self, value, dtype=I8, weak=True):
        return self.node(Op.CONST, (), dtype, (), ConstAttr(value, weak))

    def binary(self, op, a, b, dtype=None):
        shape = a.shape if len(a.shape) >= len(b.shape) else b.shape
        return self.node(op, (a, b), dtype or a.dtype, shape)

    def at(self, array, *indices):
        """``array[i, j]`` with int64 scalar nodes: an INDEX with DynIndex items."""
        items = tuple(IndexItem("int", DynIndex(k + 1)) for k in range(len(indices)))
        return self.node(
            Op.INDEX, (array, *indices), array.dtype, array.shape[len(indices) :], items
        )

    def view(self, array, *items):
        shape = []
        for item, d in zip(items, array.shape):
            if item.kind == "slice":
                shape.append(item.length)
        return self.node(
            Op.INDEX, (array,), array.dtype, (*shape, *array.shape[len(items) :]), tuple(items)
        )

    def store(self, target, value, items=(), dyn=()):
        return self.node(
            Op.STORE, (target, value, *dyn), target.dtype, target.shape, StoreAttr(tuple(items))
        )

    def loop_vars(self, *carried):
        i = self.node(Op.INPUT, (), I8, (), InputAttr(0, "i", InputKind.LOOP_VAR))
        cs = [
            self.node(Op.INPUT, (), c.dtype, c.shape, InputAttr(k + 1, name, InputKind.CARRIED))
            for k, (name, c) in enumerate(carried)
        ]
        return i, cs

    def loop(self, start, stop, step, body_inputs, outputs, effects, inits=(), captured=()):
        body = Graph("body", list(body_inputs), list(outputs), list(effects))
        return self.node(
            Op.LOOP, (start, stop, step, *inits, *captured), F8, (), LoopAttr(body, len(inits))
        )

    def result(self, ctrl, k, like):
        return self.node(Op.RESULT, (ctrl,), like.dtype, like.shape, k)

    def graph(self, outputs, effects):
        return Graph("g", list(self.inputs), list(outputs), list(effects))


def sl(start, length, step=1):
    return IndexItem("slice", start, length, step)


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    return CBackend(cache_dir=str(tmp_path_factory.mktemp("cache")))


def compiled(backend, graph):
    region_source(graph, generate_structured(graph))  # raises what a fallback would hide
    fn = backend.compile(graph)
    assert hasattr(fn, "c_source"), "fell back to the eager interpreter"
    return fn


def test_scalar_accumulation_loop(backend):
    g = G()
    x, n = g.array("x", F8, (None,)), g.scalar("n")
    zero, one, acc0 = g.const(0), g.const(1), g.const(0.0, F8)
    i, (acc,) = g.loop_vars(("acc", acc0))
    xi = g.at(x, i)
    new = g.binary(Op.ADD, acc, g.binary(Op.MUL, xi, xi))
    loop = g.loop(zero, n, one, [i, acc], [new], [], inits=[acc0], captured=[x])
    total = g.result(loop, 0, acc)
    fn = compiled(backend, g.graph([total], [loop]))
    a = np.arange(7.0)
    for count in (0, 3, 7):
        (got,) = fn([a, count])
        assert float(got) == sum(a[k] * a[k] for k in range(count))
    (got,) = fn([a, -3])  # negative count: zero iterations
    assert float(got) == 0.0
    assert "for (int64_t i_" in fn.c_source


def test_one_buffer_holds_the_error_words_and_the_selectors(backend):
    """A call allocates one status buffer, not one for the error and one for the selectors (an
    ``np.empty`` and a ``from_buffer`` less on every call of every compiled loop)."""
    g = G()
    x, n = g.array("x", F8, (None,)), g.scalar("n")
    acc0 = g.const(0.0, F8)
    i, (acc,) = g.loop_vars(("acc", acc0))
    new = g.binary(Op.ADD, acc, g.at(x, i))
    loop = g.loop(g.const(0), n, g.const(1), [i, acc], [new], [], inits=[acc0], captured=[x])
    graph = g.graph([g.result(loop, 0, acc)], [loop])
    c, decl, wrapper = region_source(graph, generate_structured(graph))
    assert decl.splitlines()[0].count("void*") == 3  # x, the sum, the status words
    assert "int64_t* sel = err + 4;" in c and wrapper.source().count("_empty(") == 2


def _scatter_graph():
    """for i in range(start, stop): y[i] = x[-1 - i] * 2  (negative indices, bounds checks)."""
    g = G()
    x, y = g.array("x", F8, (None,)), g.array("y", F8, (None,))
    start, stop = g.scalar("start"), g.scalar("stop")
    one, m1 = g.const(1), g.const(-1)
    i, _ = g.loop_vars()
    j = g.binary(Op.SUB, m1, i)
    value = g.binary(Op.MUL, g.at(x, j), g.const(2.0, F8))
    st = g.store(y, value, [IndexItem("int", DynIndex(2))], [i])
    loop = g.loop(start, stop, one, [i], [], [st], captured=[x, y])
    return g.graph([], [loop])


def test_element_stores_with_dynamic_indices(backend):
    fn = compiled(backend, _scatter_graph())
    x, y = np.arange(5.0), np.zeros(6)
    assert fn([x, y, -3, 4]) == []
    expected = np.zeros(6)
    for k in range(-3, 4):
        expected[k] = np.arange(5.0)[-1 - k] * 2
    np.testing.assert_array_equal(y, expected)
    y2 = np.zeros(6)
    fn([x, y2, 2, 2])  # zero iterations
    assert not y2.any()
    y3 = np.zeros(9)
    with pytest.raises(IndexError, match="index -6 is out of bounds for axis 0 with size 5"):
        fn([x, y3, 4, 9])  # x[-5] is fine, x[-6] is not
    assert y3[4] == 0.0 * 2 and not y3[5:].any()  # stores before the error happened
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        fn([np.arange(20.0), np.zeros(6), 0, 10])


def test_nested_loops_fill_a_matrix(backend):
    """for i in range(n): for j in range(m): out[i, j] = x[i] * y[j] + i - j"""
    g = G()
    x, y, out = (
        g.array("x", F8, (None,)),
        g.array("y", F8, (None,)),
        g.array("out", F8, (None, None)),
    )
    n, m = g.scalar("n"), g.scalar("m")
    zero, one = g.const(0), g.const(1)
    i, _ = g.loop_vars()
    j = g.node(Op.INPUT, (), I8, (), InputAttr(0, "j", InputKind.LOOP_VAR))
    prod = g.binary(Op.MUL, g.at(x, i), g.at(y, j))
    diff = g.node(Op.CAST, (g.binary(Op.SUB, i, j),), F8, ())
    value = g.binary(Op.ADD, prod, diff)
    items = [IndexItem("int", DynIndex(2)), IndexItem("int", DynIndex(3))]
    st = g.store(out, value, items, [i, j])
    inner = g.loop(zero, m, one, [j], [], [st], captured=[x, y, out])
    outer = g.loop(zero, n, one, [i], [], [inner], captured=[x, y, out])
    fn = compiled(backend, g.graph([], [outer]))
    xs, ys = np.arange(3.0), np.arange(4.0) + 1
    got = np.zeros((3, 4))
    fn([xs, ys, got, 3, 4])
    np.testing.assert_array_equal(
        got, xs[:, None] * ys[None, :] + np.arange(3)[:, None] - np.arange(4)
    )
    assert fn.c_source.count("for (int64_t") == 2  # the loops themselves, no element nests


def _heat_graph():
    """u = u0; for t in range(steps): u = u + c * (roll-free 3-point stencil), then return u.

    The carried array is a fresh array each iteration (double-buffered); the stencil store
    ``tmp[1:-1] = u[2:] - 2*u[1:-1] + u[:-2]`` reads slices of the carried placeholder.
    """
    g = G()
    u0 = g.array("u0", F8, (None,))
    tmp = g.array("tmp", F8, (None,))
    steps = g.scalar("steps")
    c = g.scalar("c", F8)
    n = u0.shape[0]
    zero, one = g.const(0), g.const(1)
    t, (u,) = g.loop_vars(("u", u0))
    inner = dim_sub(n, 2)
    right, mid, left = g.view(u, sl(2, inner)), g.view(u, sl(1, inner)), g.view(u, sl(0, inner))
    lap = g.binary(Op.ADD, g.binary(Op.SUB, right, g.binary(Op.MUL, g.const(2.0, F8), mid)), left)
    st = g.store(tmp, lap, [sl(1, inner)])
    new = g.binary(Op.ADD, u, g.binary(Op.MUL, c, tmp))
    loop = g.loop(zero, steps, one, [t, u], [new], [st], inits=[u0], captured=[tmp, c])
    return g.graph([g.result(loop, 0, u)], [loop])


def _heat_numpy(u0, tmp, steps, c):
    u = u0
    for _ in range(steps):
        tmp[1:-1] = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u = u + c * tmp
    return u


def test_carried_array_and_slice_store(backend):
    fn = compiled(backend, _heat_graph())
    rng = np.random.default_rng(0)
    u0 = rng.random(12)
    for steps in (0, 1, 2, 5):
        tmp_c, tmp_n = np.zeros(12), np.zeros(12)
        (got,) = fn([u0, tmp_c, steps, 0.1])
        want = _heat_numpy(u0, tmp_n, steps, 0.1)
        np.testing.assert_allclose(got, want, rtol=1e-13)
        np.testing.assert_allclose(tmp_c, tmp_n, rtol=1e-13)
        if steps == 0:
            assert got is u0  # zero iterations: the very argument, as in NumPy
    strided = np.arange(30.0)[::3]
    (got,) = fn([strided, np.zeros(10), 3, 0.25])
    np.testing.assert_allclose(got, _heat_numpy(strided, np.zeros(10), 3, 0.25), rtol=1e-13)


def test_overlapping_store_uses_a_temporary(backend):
    """a[1:] = a[:-1] (NumPy copies first) and a[1:-1] = a[1:-1] * 2 (same view: in place)."""
    g = G()
    a = g.array("a", F8, (None,))
    n = a.shape[0]
    shifted = g.store(a, g.view(a, sl(0, dim_sub(n, 1))), [sl(1, dim_sub(n, 1))])
    mid = g.view(a, sl(1, dim_sub(n, 2)))
    doubled = g.store(a, g.binary(Op.MUL, mid, g.const(2.0, F8)), [sl(1, dim_sub(n, 2))])
    fn = compiled(backend, g.graph([], [shifted, doubled]))
    x = np.arange(6.0)
    fn([x])
    want = np.arange(6.0)
    want[1:] = want[:-1]
    want[1:-1] = want[1:-1] * 2
    np.testing.assert_array_equal(x, want)
    assert fn.c_source.count("compute it first") == 1


def test_store_into_a_view_of_an_input(backend):
    """v = A[1:, ::2].T; v[...] = v * 10 + 1 -- the caller's A changes, and v escapes as a view."""
    g = G()
    A = g.array("A", F8, (None, None))
    rows = dim_sub(A.shape[0], 1)
    view = g.view(A, sl(1, rows), sl(0, 6, 2))
    vt = g.node(Op.TRANSPOSE, (view,), F8, (6, rows), (1, 0))
    value = g.binary(Op.ADD, g.binary(Op.MUL, vt, g.const(10.0, F8)), g.const(1.0, F8))
    st = g.store(vt, value)
    fn = compiled(backend, g.graph([vt], [st]))
    x = np.arange(48.0).reshape(4, 12)
    want = x.copy()
    wv = want[1:, ::2].T
    wv[...] = wv * 10 + 1
    (got,) = fn([x])
    np.testing.assert_array_equal(x, want)
    assert np.shares_memory(got, x) and got.shape == (6, 3)
    got[0, 0] = -1.0
    assert x[1, 0] == -1.0


def test_if_with_results(backend):
    """if s > 0: r = s * 2; y = x + 1  else: r = -s; y = x * x  (RESULTs of both kinds)."""
    g = G()
    x, s = g.array("x", F8, (None,)), g.scalar("s", F8)
    cond = g.binary(Op.GT, s, g.const(0.0, F8), B1)
    r1 = g.binary(Op.MUL, s, g.const(2.0, F8))
    y1 = g.binary(Op.ADD, x, g.const(1.0, F8))
    r2 = g.node(Op.NEG, (s,), F8, ())
    y2 = g.binary(Op.MUL, x, x)
    then_g, else_g = Graph("then", [], [r1, y1]), Graph("else", [], [r2, y2])
    ctrl = g.node(Op.IF, (cond, x, s), F8, (), IfAttr(then_g, else_g))
    r, y = g.result(ctrl, 0, r1), g.result(ctrl, 1, y1)
    fn = compiled(backend, g.graph([r, y], [ctrl]))
    xs = np.arange(4.0)
    got_r, got_y = fn([xs, 3.0])
    assert float(got_r) == 6.0
    np.testing.assert_array_equal(got_y, xs + 1)
    got_r, got_y = fn([xs, -2.0])
    assert float(got_r) == 2.0
    np.testing.assert_array_equal(got_y, xs * xs)


def test_reduction_inside_a_loop_body(backend):
    """for i: for j: D[i, j] = sqrt(sum((A[:, i] - B[:, j]) ** 2))"""
    g = G()
    A, B = g.array("A", F8, (None, None)), g.array("B", F8, (None, None))
    D = g.array("D", F8, (None, None))
    k = A.shape[0]
    zero, one = g.const(0), g.const(1)
    i, _ = g.loop_vars()
    j = g.node(Op.INPUT, (), I8, (), InputAttr(0, "j", InputKind.LOOP_VAR))
    col_a = g.node(Op.INDEX, (A, i), F8, (k,), (sl(0, k), IndexItem("int", DynIndex(1))))
    col_b = g.node(Op.INDEX, (B, j), F8, (k,), (sl(0, k), IndexItem("int", DynIndex(1))))
    diff = g.binary(Op.SUB, col_a, col_b)
    sq = g.node(Op.POW, (diff, g.const(2)), F8, (k,))
    total = g.node(Op.SUM, (sq,), F8, (), ReduceAttr((0,), False))
    dist = g.node(Op.SQRT, (total,), F8, ())
    st = g.store(D, dist, [IndexItem("int", DynIndex(2)), IndexItem("int", DynIndex(3))], [i, j])
    na, nb = A.shape[1], B.shape[1]
    inner = g.loop(zero, g.node(Op.DIM, (), I8, (), nb), one, [j], [], [st], captured=[A, B, D, i])
    outer = g.loop(zero, g.node(Op.DIM, (), I8, (), na), one, [i], [], [inner], captured=[A, B, D])
    fn = compiled(backend, g.graph([], [outer]))
    rng = np.random.default_rng(1)
    a, b = rng.random((5, 3)), rng.random((5, 4))
    d = np.zeros((3, 4))
    fn([a, b, d])
    want = np.sqrt(((a[:, :, None] - b[:, None, :]) ** 2).sum(axis=0))
    np.testing.assert_allclose(d, want, rtol=1e-14)


def test_array_constants_are_c_tables(backend):
    """An array constant is read from a ``static const`` table; one stored into is copied into
    its own buffer first, so every call starts from the constant's values."""
    g = G()
    x = g.array("x", F8, (3,))
    table = np.array([1.5, -0.0, np.nan])
    c = g.node(Op.CONST, (), F8, (3,), ConstAttr(table))
    st = g.store(c, g.const(7.0, F8), [IndexItem("int", 0)])
    total = g.store(x, g.binary(Op.ADD, x, st), [])
    fn = compiled(backend, g.graph([st], [st, total]))
    for _ in range(2):
        got = np.zeros(3)
        (out,) = fn([got])
        np.testing.assert_array_equal(out, [7.0, -0.0, np.nan])
        np.testing.assert_array_equal(got, [7.0, -0.0, np.nan])
    assert table[0] == 1.5 and "static const double" in fn.c_source


def test_unsupported_is_unlowerable(backend):
    """A reshape of a strided argument is not compiled: the backend says so (the region then
    runs the user's statements, never the graph interpreter)."""
    from astcompile.errors import Unlowerable

    g = G()
    x = g.array("x", F8, (4, 6))
    r = g.node(Op.RESHAPE, (x,), F8, (24,), (24,))
    st = g.store(r, g.const(1.0, F8), [IndexItem("int", 0)])
    with pytest.raises(Unlowerable, match="reshape"):
        backend.compile(g.graph([], [st]))


def test_unlowerable_region_runs_the_users_statements():
    """End to end: the region's own body runs (no graph interpreter), with NumPy's result, and
    explain names the region with GB023."""
    import astcompile
    from astcompile.targets import eager

    def flat_first(x):
        y = x[:, ::2].reshape(-1)  # (x.T.reshape(-1) compiles: it reshapes a copy)
        y[0] = 5.0
        return y

    interpreted = []
    original = eager.EagerBackend.compile
    try:
        eager.EagerBackend.compile = lambda self, graph: (
            interpreted.append(graph) or original(self, graph)
        )
        f = astcompile.compile(flat_first, backend="c")
        x = np.arange(24.0).reshape(4, 6)
        np.testing.assert_array_equal(f(x.copy()), flat_first(x.copy()))
        np.testing.assert_array_equal(f(x.copy()), flat_first(x.copy()))
    finally:
        eager.EagerBackend.compile = original
    assert interpreted == []
    assert f.regions[0].stats.eager_calls == 2
    report = astcompile.explain(f, x.copy())
    assert any(b.code == "GB023" for b in report.break_reasons), str(report)


def _upd(u, x):
    v = u[1:-1]
    v += x[1:-1] * 2
    w = u * 3
    u[0] = 7.0
    return w, v


def _shift(a):
    a[1:] = a[:-1]
    return a


@pytest.mark.parametrize("fn", [_upd, _shift])
def test_traced_stores_match_numpy(backend, fn):
    """Graphs from the tracer: in-place updates through views, a value computed before a store."""
    from astcompile.trace.tracer import trace_callable

    args = [np.arange(6.0), np.ones(6)][: fn.__code__.co_argcount]
    graph = trace_callable(fn, [a.copy() for a in args])
    compiled_fn = compiled(backend, graph)
    mine, ref = [a.copy() for a in args], [a.copy() for a in args]
    got, want = compiled_fn(mine), fn(*ref)
    want = want if isinstance(want, tuple) else ()
    for g_out, w_out in zip(got, want):
        np.testing.assert_array_equal(g_out, w_out)
    for m, r in zip(mine, ref):
        np.testing.assert_array_equal(m, r)
    if fn is _upd:
        assert np.shares_memory(got[1], mine[0])  # v escapes as a view of u
