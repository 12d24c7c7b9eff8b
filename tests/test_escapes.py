"""Nothing traced leaves a trace as a Python value, and a trace's changes to what it was given
are undone and break it: sets, dicts, hashes of computed scalars, list and dict arguments."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_value

import astcompile
from astcompile.ir.ops import Op
from astcompile.ir.results import OutSpec
from astcompile.trace import escapes
from astcompile.trace.context import TraceBreak, TraceContext
from astcompile.trace.symbolic import SymArray

HISTORY: list = []
TABLE = np.ones(3)


def set_of_a_sum(x):
    s = x.sum()
    seen = {s}
    return len(seen), s in seen


def set_of_a_sum_then_break(x):
    y = x * 2
    s = x.sum()
    seen = {s}
    print("graph break")
    return y, len(seen), s in seen


def set_of_a_scalar(x, n):
    y = x * 2
    s = n * 2
    seen = {s}
    print("graph break")
    return y, len(seen), s in seen


def dict_keyed_and_valued(x, n):
    y = x + 1
    s = n + 0.5
    by_key = {s: 1}
    by_value = {"total": x.sum()}
    print("graph break")
    return y, by_key[s], by_value["total"]


def hashes_and_frozensets(x, n):
    y = x * 2
    s = n + 1
    h = hash(s)
    frozen = frozenset([s, n])
    print("graph break")
    return y, h, len(frozen), s in frozen


def fresh_set_each_call(x):
    seen = set()
    y = x + 1
    print("graph break")
    seen.add(len(seen))
    return y, len(seen)


def fresh_array_from_a_global(x):
    table = TABLE * 2
    y = x + 1
    print("graph break")
    table[0] += 1
    return table, y


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args",
    [
        (set_of_a_sum, (np.arange(4.0),)),
        (set_of_a_sum_then_break, (np.arange(4.0),)),
        (set_of_a_scalar, (np.arange(4.0), 3)),
        (dict_keyed_and_valued, (np.arange(4.0), 3)),
        (hashes_and_frozensets, (np.arange(4.0), 3)),
        (fresh_set_each_call, (np.arange(3.0),)),
        (fresh_array_from_a_global, (np.arange(3.0),)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_python_values_of_computed_scalars(fn, args, backend):
    compiled = astcompile.compile(fn, backend=backend)
    for _ in range(3):  # later calls must not see state left by earlier ones
        expected = fn(*copy.deepcopy(args))
        assert_same_value(compiled(*copy.deepcopy(args)), expected)
    assert_same(fn, *args, backend=backend)


def append_to_argument(x, items):
    y = x * 2
    items.append(x.sum())
    return y


def store_into_list_argument(x, items):
    y = x * 2
    items[0] = y
    return y


def store_into_dict_argument(x, table):
    y = x * 2
    table["total"] = x.sum()
    table["count"] = table.get("count", 0) + 1
    return y


def append_to_global(x):
    y = x * 2
    HISTORY.append(len(HISTORY))
    return y


def _plain(value):
    """A dict or list argument as comparable values."""
    if isinstance(value, dict):
        return sorted((k, _plain(v)) for k, v in value.items())
    return [_plain(v) for v in value] if isinstance(value, list) else value


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, container",
    [
        (append_to_argument, []),
        (store_into_list_argument, [0]),
        (store_into_dict_argument, {"count": 5}),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_changes_to_arguments_happen_on_every_call(fn, container, backend):
    compiled = astcompile.compile(fn, backend=backend)
    for _ in range(3):
        expected_arg, got_arg = copy.deepcopy(container), copy.deepcopy(container)
        expected = fn(np.arange(4.0), expected_arg)
        assert_same_value(compiled(np.arange(4.0), got_arg), expected)
        assert repr(_plain(got_arg)) == repr(_plain(expected_arg))


@pytest.mark.parametrize("backend", BACKENDS)
def test_changes_to_globals_happen_on_every_call(backend):
    compiled = astcompile.compile(append_to_global, backend=backend)
    HISTORY.clear()
    for _ in range(3):
        compiled(np.arange(3.0))
    assert HISTORY == [0, 1, 2]


def test_holds_traced_looks_inside_containers_functions_and_objects():
    class Box:
        pass

    with TraceContext("t") as ctx:
        traced = SymArray(ctx.node(Op.CONST, (), np.dtype(float), ()))
        box = Box()
        box.value = [traced]
        assert escapes.holds_traced({"k": (1, frozenset({2}), box)})
        assert escapes.holds_traced(lambda: traced)
        assert not escapes.holds_traced({"k": [1, 2.0, "s", np.ones(2)]})


def test_constant_outputs_are_immutable_or_given():
    given = [1, 2]
    assert escapes.constant((1, "a", None), lambda v: False) == OutSpec(
        "const", value=(1, "a", None)
    )
    assert escapes.constant(given, lambda v: v is given).value is given
    with pytest.raises(TraceBreak, match="a set made in the region"):
        escapes.constant({1}, lambda v: False)


def test_a_watch_undoes_changes_to_what_it_was_given():
    items, table = [1], {"a": 1}
    watch = escapes.Watch([items, table])
    items.append(2)
    table["b"] = 2
    with pytest.raises(TraceBreak, match="side effect on a Python object"):
        watch.check()
    assert items == [1] and table == {"a": 1}
    escapes.Watch([items, table]).check()  # unchanged: nothing to say


def test_lists_of_numbers_and_of_number_pairs_are_looked_through_by_their_types(monkeypatch):
    """A list of 100,000 floats or of (x, y) tuples given to a region: no value of it is
    visited one by one (that took 0.2-0.6 s of a first call), and a change is still seen."""
    floats, pairs = [float(i) for i in range(100_000)], [(1.0, 2)] * 50_000
    visited = []
    kinds = escapes._state_kind
    monkeypatch.setattr(escapes, "_state_kind", lambda v: visited.append(v) or kinds(v))
    watch = escapes.Watch([floats, pairs])
    assert not escapes.holds_traced([floats, pairs])
    watch.check()
    assert len(visited) <= 6  # the two lists, once each way
    watch = escapes.Watch([floats, pairs])
    floats[-1], pairs[7] = 0.0, (1.0, 3)
    with pytest.raises(TraceBreak, match="side effect on a Python object"):
        watch.check()
    assert floats[-1] == 99_999.0 and pairs[7] == (1.0, 2)


def test_a_tuple_in_a_list_holding_what_a_trace_changes_is_still_watched():
    """Only tuples of numbers are passed over: a tuple holding a list is looked inside."""
    inner = [1.0]
    rows = [(0.5, 1.5)] * 3 + [(2.0, inner)]
    watch = escapes.Watch([rows])
    inner.append(2.0)
    with pytest.raises(TraceBreak):
        watch.check()
    assert inner == [1.0]
    with TraceContext("t") as ctx:
        traced = SymArray(ctx.node(Op.CONST, (), np.dtype(float), ()))
        assert escapes.holds_traced([(1.0, 2.0)] * 5 + [(1.0, traced)])
        assert escapes.holds_traced([[1.0, 2.0], [traced]])


def appends_in_a_for_loop(x, n):
    out = []
    for _ in range(n):
        x = x * 2
        out.append(x)
    return out


def appends_in_a_while_loop(y0, k, n):
    y, ys, i = y0, [y0], 0
    while i < n:
        y = y - k * y
        ys.append(y)
        i += 1
    return np.array(ys)


def sets_a_dict_entry_in_a_loop(x, n):
    seen = {}
    total = 0.0
    for i in range(n):
        total = total + x[i % x.shape[0]]
        seen["total"] = total
    return total, seen


LOOPS = [
    (appends_in_a_for_loop, (np.ones(2), 6)),
    (appends_in_a_for_loop, (1.5, 7)),
    (appends_in_a_while_loop, (1.0, 0.25, 9)),
    (sets_a_dict_entry_in_a_loop, (np.arange(3.0), 8)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args", LOOPS)
def test_a_loop_body_changing_a_list_made_before_it_runs_as_python(fn, args, backend):
    """The body is traced once: an append in it would happen once, and a traced value would
    leak into the list (a C compile error before). The loop runs as written instead, or, where
    it appends numbers to a list it grows, compiles its appends (``trace/growing_lists.py``)."""
    assert_same(fn, *args, backend=backend)
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
    grown = output.graph_count and not output.break_reasons  # appends of numbers compile
    assert grown or any(
        "made outside it" in r.detail or "append" in r.source_line for r in output.break_reasons
    ), str(output)


def test_a_loop_body_break_names_the_users_file_not_the_library():
    """The break is raised as the watch on the loop body closes: its line is the user's
    loop, not the standard library's context manager."""
    output = astcompile.explain(astcompile.compile(appends_in_a_for_loop), np.ones(2), 3)
    (found,) = [r for r in output.break_reasons if r.code == "GB012"]
    assert found.filename == __file__, str(output)
    assert found.source_line in ("for _ in range(n):", "out.append(x)"), str(output)


def sum_of_list(xs, weights):
    return xs[0] * weights[0] + xs[1] * weights[1]


def add_to_list_argument(xs):
    xs.append(xs[0] * 2)
    return xs[0] + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_argument_read_by_the_region_compiles(backend):
    """A list of arrays and a list of numbers, passed in and only read: traced, they are
    lists of traced values from the start, which is no leak."""
    args = ([np.arange(4.0), np.ones(4)], [0.5, 2.0])
    assert_same(sum_of_list, *args, backend=backend)
    explained = astcompile.explain(astcompile.compile(sum_of_list, backend=backend), *args)
    assert (explained.graph_count, explained.graph_break_count) == (1, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_argument_the_region_changes_still_breaks(backend):
    assert_same(add_to_list_argument, [np.arange(3.0)], backend=backend)
    explained = astcompile.explain(
        astcompile.compile(add_to_list_argument, backend=backend), [np.arange(3.0)]
    )
    assert [b.code for b in explained.break_reasons] == ["GB012"]
