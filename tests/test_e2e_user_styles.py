"""Programs written the way other people write NumPy and Python numerics (type checks on
arguments, ``isinstance`` dispatch, ``type(x).__name__`` in results), each called several times
with changed inputs, compiled against plain (tests/differential.py)."""

from __future__ import annotations

import collections
import enum

import numpy as np
import pytest
from differential import BACKENDS, assert_same_call, assert_same_calls

import astcompile
from astcompile.compare import copy_args


def dispatch_on_scalar_type(a, s):
    """A scalar argument steers the code by its Python type (a new type is a new trace)."""
    if isinstance(s, bool):
        return np.sin(a), "bool"
    if isinstance(s, int):
        return np.sin(a) * s, type(s).__name__
    if isinstance(s, (float, np.floating)):
        return np.cos(a) - s, type(s).__name__
    return np.tan(a), type(s)


def types_of_results(a, s):
    """``type()`` and ``isinstance()`` of values the region computes: a NumPy scalar, a
    loop-carried number, a view, a size."""
    t = 0
    for i in range(3):
        t = t + a[i] * s
    n = a.shape[0]
    b = np.sqrt(a) * t
    return b, type(t), isinstance(t, float), isinstance(a[0], np.float32), type(a[:1]), type(n)


SCALARS = [3, True, 3.5, np.float64(2.0), np.int32(1), 4, 1 + 2j]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [dispatch_on_scalar_type, types_of_results])
def test_type_checks_answer_for_the_traced_value(fn, backend):
    dtypes = [np.float64, np.float32]
    calls = [(np.linspace(0.5, 1.0, 50 + i, dtype=dtypes[i % 2]), s) for i, s in enumerate(SCALARS)]
    assert_same_calls(fn, calls, backend)


class Adam:
    """The optimiser as ML code writes it: a step counter on ``self`` and bias corrections
    ``beta ** t``, a float to a new int power at every call."""

    def __init__(self, n):
        self.m, self.v, self.t = np.zeros(n), np.zeros(n), 0
        self.b1, self.b2, self.lr = 0.9, 0.999, 1e-2

    def step(self, w, g):
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * g
        self.v = self.b2 * self.v + (1 - self.b2) * g * g
        mhat = self.m / (1 - self.b1**self.t)
        vhat = self.v / (1 - self.b2**self.t)
        w -= self.lr * mhat / (np.sqrt(vhat) + 1e-8)
        return w


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_float_to_a_changing_int_power_is_not_pinned(backend):
    """``b1 ** t`` had both sides pinned to their traced values: a new ``t`` at every call was
    a new trace, until cache_size_limit sent the region to Python (and every later call first
    tried its eight entries: 160 us a call against 2 us plain)."""
    compiled, plain = Adam(64), Adam(64)
    step = astcompile.compile(Adam.step, backend=backend)
    for k in range(12):
        g = np.sin(np.arange(64.0) + k)
        assert_same_call(step, (compiled, np.ones(64), g), Adam.step, (plain, np.ones(64), g))
    assert compiled.t == plain.t == 12
    assert [len(e) for r in step.regions for e in r.entries.values()] == [1]


def float_power(a, b, t):
    return a * (1 - b**t), b**t


def float_power_in_a_loop(a, x):
    for i in range(a.shape[0]):
        x = x**2
        a[i] = x
    return a


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "calls"),
    [
        (float_power, [(0.9, 300), (10.0, 400), (0.5, -3), (0.0, -5), (-2.0, -7), (np.inf, 9)]),
        (float_power_in_a_loop, [(1.5,), (3.0,), (-1.0001,), (0.0,)]),
    ],
)
def test_a_float_power_raises_where_python_raises(fn, calls, backend):
    """Python's ``float ** int`` raises OverflowError past the float range and
    ZeroDivisionError for ``0.0 ** -k``; C's pow gives inf: compiled code checks, for values it
    was not traced with too (same guard key) and for a float carried through a loop."""
    n = 40
    assert_same_calls(fn, [(np.ones(n), *c) for c in calls], backend)


def discounted_return(rewards, gamma):
    g = 0.0
    for t in range(len(rewards)):
        g += gamma**t * rewards[t]
    return g


def geometric_weights(a, r):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * r**i
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [discounted_return, geometric_weights])
def test_a_float_to_the_loop_variable_compiles(fn, backend):
    """``gamma ** t`` in a loop was a trace break (a power of a loop value), so the loop ran in
    Python calling its body's region once per iteration: 37x slower than plain. Python's
    OverflowError past the float range (``1.5 ** 3000``) is raised by the compiled loop."""
    calls = [(np.ones(300), 0.99), (np.arange(300.0), 0.5), (np.ones(3000), 1.5), (np.ones(9), 0.0)]
    assert_same_calls(fn, calls, backend)
    compiled = astcompile.compile(fn, backend=backend)
    compiled(np.ones(50), 0.9)
    assert all(r.stats.eager_calls == 0 and not r.stats.breaks for r in compiled.regions)


def sgd_step(params, grads, lr):
    for p, g in zip(params, grads):
        p -= lr * g
    return params


def with_a_result(params, x):
    return params, np.sin(x) * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [sgd_step, with_a_result])
def test_a_list_argument_returned_is_the_callers_list(fn, backend):
    """``params = step(params, grads, lr)``: the list handed back is the caller's own list (a
    later ``append`` reaches it), not a new list of the same arrays."""
    compiled = astcompile.compile(fn, backend=backend)
    for n in (40, 41):
        params = [np.ones((4, n)), np.zeros(n)]
        args = (params, [np.full((4, n), 0.5), np.arange(float(n))], 0.1)
        if fn is with_a_result:
            args = (params, np.linspace(0.0, 1.0, n))
        plain_args = (copy_args(args[0]), *args[1:])
        assert_same_call(compiled, args, fn, plain_args, backend)
        result = compiled(*args)
        assert (result if fn is sgd_step else result[0]) is params


class Act(enum.Enum):
    RELU = "relu"
    TANH = "tanh"
    GELU = "gelu"


Config = collections.namedtuple("Config", ["act", "scale"])


class Holder:
    def __init__(self, act):
        self.act = act


def activate(x, cfg):
    if cfg.act is Act.RELU:
        y = np.maximum(x, 0)
    elif cfg.act is not Act.GELU:
        y = np.tanh(x)
    else:
        y = 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x**3)))
    return y * cfg.scale


def is_member(x, holder):
    return np.sin(x), holder.act is Act.TANH, holder is Act.TANH


@pytest.mark.parametrize("backend", BACKENDS)
def test_enum_members_compared_with_is(backend):
    """``cfg.act is Act.RELU``, the usual way to test an Enum, sent the region to Python (any
    ``is`` but ``x is None`` did): a member is read as itself, so ``is`` against one is exact."""
    x = np.linspace(-3.0, 3.0, 50)
    calls = [(x, Config(a, s)) for a, s in [(Act.RELU, 1.0), (Act.TANH, 2.0), (Act.GELU, 0.5)]]
    assert_same_calls(activate, calls, backend)
    compiled = astcompile.compile(activate, backend=backend)
    out = astcompile.explain(compiled, x, Config(Act.GELU, 1.0))
    assert out.graph_break_count == 0 and all(r.eager_calls == 0 for r in out.regions), str(out)
    holders = [(x, Holder(Act.TANH)), (x, Holder(Act.RELU)), (x, Holder("tanh"))]
    assert_same_calls(is_member, holders, backend)


def window_means(x, k):
    return [x[i : i + k].mean() for i in range(len(x) - k + 1)]


def windowed_max_total(x, n):
    return sum(x[i : i + 3].max() for i in range(n))


def windowed_maxima(x, n):
    return tuple(x[i : i + 3].max() for i in range(n))


def row_sums(a):
    return [a[i].sum() for i in range(a.shape[0])]


def scaled_items(x):
    return [x[i] * 2.0 + 1.0 for i in range(len(x))]


#: Python iteration the trace runs as Python, over many items: a copy of the line per item.
MANY_ITEMS = [(windowed_maxima, (np.arange(100.0), 90))]
#: List comprehensions of array work, and sum/max/min/any/all of such generators: one loop
#: (frontend/comprehensions.py), any item count.
MANY_ITEMS_LOOPED = [
    (windowed_max_total, (np.arange(100.0), 90)),
    (window_means, (np.arange(200.0), 5)),
    (row_sums, (np.ones((60, 7)),)),
    (scaled_items, (np.arange(300.0),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", MANY_ITEMS, ids=[fn.__name__ for fn, _ in MANY_ITEMS])
def test_python_iteration_over_many_items_is_not_unrolled(fn, args, backend):
    """Each item's copy of the line (a reduction per window) would fuse into one kernel, and
    gcc took a minute for 56 windows (plain: 0.1 ms): past its line's budget the region runs
    as written, and explain names that line."""
    assert_same_calls(fn, [args, args], backend)
    out = astcompile.explain(astcompile.compile(fn, backend="eager"), *args)
    assert max(out.ops_per_graph, default=0) < 100, out.ops_per_graph
    line = fn.__code__.co_firstlineno + 1
    assert [(b.code, b.line) for b in out.break_reasons] == [("GB021", line)], str(out)
    assert "unrolled" in out.break_reasons[0].detail


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args", MANY_ITEMS_LOOPED, ids=[fn.__name__ for fn, _ in MANY_ITEMS_LOOPED]
)
def test_list_comprehensions_over_many_items_are_one_loop(fn, args, backend):
    """The comprehension is lowered to a loop appending to a list (or adding to a sum): one
    small graph, no break, whatever the item count."""
    assert_same_calls(fn, [args, args], backend)
    out = astcompile.explain(astcompile.compile(fn, backend="eager"), *args)
    assert (out.graph_count, out.graph_break_count) == (1, 0), str(out)
    assert out.ops_per_graph[0] < 40, out.ops_per_graph


def windowed_sum(x):
    s = 0.0
    for i in range(200):
        s = s + x[i : i + 5].sum()
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_few_items_and_for_loops_still_compile(backend):
    """Under the budget a comprehension still compiles (six window means, one graph); a
    ``for`` over a fixed range is one loop, its body traced once, whatever the trip count."""
    short = (np.arange(10.0), 5)
    assert_same_calls(window_means, [short, (np.arange(10.0) ** 2, 5)], backend)
    out = astcompile.explain(astcompile.compile(window_means, backend="eager"), *short)
    assert (out.graph_count, out.graph_break_count) == (1, 0), str(out)
    assert_same_calls(windowed_sum, [(np.arange(210.0),), (np.linspace(0, 1, 205),)], backend)
    out = astcompile.explain(astcompile.compile(windowed_sum, backend="eager"), np.arange(210.0))
    assert (out.graph_count, out.graph_break_count) == (1, 0), str(out)
    assert out.ops_per_graph[0] < 20, out.ops_per_graph


def spread(v):
    return v.max() - v.min()


def spreads(a, b, c, d):
    """Fourteen calls of one helper, each from its own line: not a line copied per item."""
    s = spread(a) + spread(b) + spread(c) + spread(d)
    s = s + spread(a * b) + spread(a * c) + spread(a * d)
    s = s + spread(b * c) + spread(b * d) + spread(c * d)
    s = s + spread(a + b) + spread(a + c) + spread(a + d)
    return s + spread(b + c)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_called_from_many_lines_is_not_an_unrolled_line(backend):
    args = tuple(np.linspace(-1.0, k, 7) for k in range(4))
    assert_same_calls(spreads, [args, tuple(a[::-1] for a in args)], backend)
    out = astcompile.explain(astcompile.compile(spreads, backend="eager"), *args)
    assert (out.graph_count, out.graph_break_count) == (1, 0), str(out)


def max_of_prefix(x, k):
    return x[:k].max()


def min_of_prefix(x, k):
    return np.min(x[:k], axis=0)


def argmax_of_prefix(x, k):
    return np.argmax(x[:k])


def argmin_of_prefix(x, k):
    return x[:k].argmin(axis=0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [max_of_prefix, min_of_prefix, argmax_of_prefix, argmin_of_prefix])
def test_an_empty_reduction_raises_numpys_message(fn, backend):
    """``x[:0].argmax()`` raises NumPy's own text ("attempt to get argmax of an empty
    sequence", max/min name their op): compiled code raised one message for all four, which a
    ``str(e)`` in an ``except`` sees."""
    compiled = astcompile.compile(fn, backend=backend)
    compiled(np.arange(5.0), 3)
    for _ in range(2):
        with pytest.raises(ValueError) as plain:
            fn(np.arange(5.0), 0)
        with pytest.raises(ValueError) as got:
            compiled(np.arange(5.0), 0)
        assert str(got.value).split("\n")[0] == str(plain.value)


def reductions_of_a_tuple(t, x):
    return np.sum(t), np.max(t), np.mean(t), np.argmin(t), np.asarray(t) * x


def other_functions_of_a_tuple(t, x):
    return np.dot(t, t), np.nanmax(t), np.nanmin(t), np.asarray(t) * x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [reductions_of_a_tuple, other_functions_of_a_tuple])
def test_a_reduction_of_a_tuple_of_numbers_is_numpys(fn, backend):
    """``np.sum(t)`` of a tuple argument ``(1, 2)``: NumPy saw no traced value to dispatch on
    and folded an object array of the traced items with Python's ``+`` and ``>``, so the
    compiled region returned a Python ``int``/``float`` where NumPy returns ``np.int64``. A
    function the tracer has no handler for (``np.nanmax``) breaks instead."""
    calls = [((1, 2), 2.0), ((1.5, np.nan, 0.5), 1.0), ([3, 1], 2), ((True, False), 1)]
    assert_same_calls(fn, calls, backend)
