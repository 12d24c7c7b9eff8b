"""Compiled entries and the guard function generated for them: an entry runs only where every
guard it was traced under holds (argument kinds, dtypes, ranks, layouts, specialised values,
size relations, values read from globals and attributes), and gives back what the region
returned: graph outputs, the argument itself, or a constant."""

from __future__ import annotations

import types

import numpy as np
import pytest

from astcompile.ir.results import Box, OutKind, OutSpec
from astcompile.jit.entries import MISS, Entry, leaves_of, specialised_guards
from astcompile.jit.leaves import rebuilder
from astcompile.runtime import guards as G
from astcompile.targets.eager import EagerBackend
from astcompile.trace.tracer import trace

SCALE = 2.0


class _Stats:
    compiled_calls = 0


def _entry(fn, *args):
    """``fn`` traced on ``args`` and run by the eager interpreter, as a region's entry."""
    names = fn.__code__.co_varnames[: len(args)]
    result = trace(fn, args, names, fn.__name__, root=fn)
    return Entry(G.call_key(args), result, EagerBackend().compile(result.graph))


def _guards(fn, entries, stats=None, **options):
    names = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    return specialised_guards("r", names, entries, fn, stats or _Stats(), **options)


def rows(x, n):
    return x.reshape(n, -1).sum(axis=0), x, 3


def head(x):  # a region body returns a tuple of its outputs
    return (x[:3] * SCALE,)


def scaled(p, x):
    return (x * p.scale,)


def test_leaves_are_flattened_and_each_distinct_array_counted_once():
    a, b = np.zeros(2), np.ones(2)
    assert leaves_of((a, [b, (a, 1.5)], "name", None, True, 3)) == [a, b, 1.5, 3]


def test_an_entry_returns_graph_outputs_the_argument_itself_and_constants():
    x = np.arange(6.0)
    entry = _entry(rows, x, 2)
    assert not entry.plain  # the template has a leaf and a constant
    total, same, three = entry(entry.bind((x, 2), rows))
    np.testing.assert_array_equal(total, rows(x, 2)[0])
    assert same is x and three == 3


def mixed(x, start):
    s = start * 2.0  # a Python float from a Python float, a NumPy one from NumPy's
    return (s, [x.sum(), x], start)


def test_an_entry_rebuilds_its_results_without_walking_the_template_per_call():
    """The template becomes one function per entry (it was walked at every call: 0.6 us of a
    compiled loop's 3 us call): Python and NumPy scalars as the plain body gives them,
    tuples and lists nested, the argument itself."""
    x = np.array([0.2, 0.7, 0.9])
    entry = _entry(mixed, x, 0.5)
    assert callable(entry.rebuild)
    for args in [(x, 0.5), (x[:1], 1.5)]:
        got, expected = entry(entry.bind(args, mixed), args), mixed(*args)
        assert [type(v) for v in got] == [type(v) for v in expected]
        assert got[0] == expected[0] and type(got[1][0]) is type(expected[1][0])
        assert got[1][1] is args[0] and got[2] is args[1]


@pytest.mark.parametrize("flag", [True, False])
def test_a_lone_number_that_is_a_python_one_where_its_flag_holds(flag):
    """``s = 0.0; for ...: s += x[i]; return s``: a Python float where the loop ran no
    iteration (the flag), NumPy's float64 otherwise, alone in the region's result."""
    spec = OutSpec(OutKind.GRAPH, 1, (Box.PYTHON, float, 0))
    outputs = [np.array(flag), np.array(2.5)]
    (got,) = rebuilder((spec,))(outputs, [], ())
    assert got == 2.5 and type(got) is (float if flag else np.float64)


def test_the_guards_run_an_entry_that_writes_no_list_without_its_call():
    """Entry.__call__'s frame is a tenth of a loop's call on the Python path: the guard
    function runs the entry's wrapper and rebuild itself, with the same results."""
    x = np.arange(6.0)
    entry = _entry(rows, x, 2)
    guards = _guards(rows, [entry])
    assert "_entry0(" not in guards.py_source and "_rebuild0(_run0(" in guards.py_source
    total, same, three = guards(x, 2)
    np.testing.assert_array_equal(total, entry(entry.bind((x, 2), rows))[0])
    assert same is x and three == 3


def test_a_plain_entry_returns_its_arrays_as_a_tuple():
    x = np.arange(5.0)
    entry = _entry(head, x)
    assert entry.plain
    (got,) = entry(entry.bind((x,), head))
    np.testing.assert_array_equal(got, head(x)[0])


def test_bind_fails_where_a_value_or_shape_guard_fails():
    entry = _entry(rows, np.arange(6.0), 2)
    assert entry.result.value_guards == [(1, 2)]  # n was specialised: reshape needs it
    assert entry.bind((np.arange(6.0), 3), rows) is None  # another n
    assert entry.bind((np.arange(8.0), 2), rows) is not None  # another size, still even
    assert entry.bind((np.arange(7.0), 2), rows) is None  # odd: 7 % 2 != 0
    assert _entry(head, np.arange(5.0)).bind((np.arange(2.0),), head) is None  # len < 3


def test_the_specialised_guards_run_the_entry_or_miss():
    entry = _entry(rows, np.arange(6.0), 2)
    stats = _Stats()
    guards = _guards(rows, [entry], stats)
    x = np.arange(4.0)
    total, same, _ = guards(x, 2)
    np.testing.assert_array_equal(total, rows(x, 2)[0])
    assert same is x and stats.compiled_calls == 1
    misses = [
        (np.arange(4.0), 3),  # value guard
        (np.arange(5.0), 2),  # shape guard
        (np.arange(4, dtype=np.float32), 2),  # dtype
        (np.arange(4.0).reshape(2, 2), 2),  # rank
        (np.arange(8.0)[::2], 2),  # layout: not contiguous
        ([0.0, 1.0], 2),  # not an array
        (np.arange(4.0), 2.0),  # a float where an int was traced
    ]
    for args in misses:
        assert guards(*args) is MISS, args
    assert stats.compiled_calls == 1


def test_with_no_entries_every_call_misses():
    assert _guards(head, [])(np.arange(5.0)) is MISS


def test_the_first_entry_whose_guards_hold_runs():
    narrow, wide = _entry(head, np.arange(5.0)), _entry(head, np.arange(5, dtype=np.int64))
    guards = _guards(head, [narrow, wide])
    assert guards(np.arange(4.0))[0].dtype == np.float64
    assert guards(np.arange(4))[0].dtype == np.float64  # int * 2.0
    assert guards(np.arange(4, dtype=np.int32)) is MISS


def test_a_global_read_is_a_leaf_checked_on_every_call(monkeypatch):
    """``head`` reads the module global SCALE: its value is an input of the graph, its type
    a guard, so rebinding it to another float reuses the entry with the new value."""
    entry = _entry(head, np.arange(5.0))
    code, read = entry.reads  # first: the function still runs the code traced
    assert code.path == (("fn",), ("code",)) and code.expected is head.__code__
    assert read.expected is float
    guards = _guards(head, [entry])
    monkeypatch.setattr(f"{__name__}.SCALE", 10.0)
    np.testing.assert_array_equal(guards(np.ones(3))[0], np.full(3, 10.0))
    monkeypatch.setattr(f"{__name__}.SCALE", "not a float")
    assert guards(np.ones(3)) is MISS
    assert entry.bind((np.ones(3),), head) is None


def test_a_read_that_raises_skips_the_entry():
    """``p.scale`` of an object without the attribute: the entry does not apply (the user's
    statements then raise the AttributeError themselves)."""
    p = types.SimpleNamespace(scale=3.0)
    entry = _entry(scaled, p, np.ones(2))
    guards = _guards(scaled, [entry])
    np.testing.assert_array_equal(guards(p, np.ones(2))[0], np.full(2, 3.0))
    gone = types.SimpleNamespace()
    assert guards(gone, np.ones(2)) is MISS
    assert entry.bind((gone, np.ones(2)), scaled) is None


def test_eager_keys_go_to_the_users_statements():
    """A key that compiles to nothing (scalar-only code) calls ``eager`` with the arguments."""
    calls = []
    key = G.call_key((np.arange(3.0),))
    guards = _guards(head, [], eager_keys=(key,), eager=lambda args: calls.append(args) or "ran")
    x = np.arange(3.0)
    assert guards(x) == "ran" and calls[0][0] is x
    assert guards(np.arange(3)) is MISS


@pytest.mark.parametrize("aliased", [False, True])
def test_the_same_array_twice_is_another_key(aliased):
    """``f(a, a)`` and ``f(a, b)`` are traced apart (writes through one alias show in the
    other); the specialised guards leave the aliased call to the generic path."""

    def add(a, b):
        return a + b

    a, b = np.ones(3), np.ones(3)
    entry = _entry(add, a, a if aliased else b)
    guards = _guards(add, [entry])
    assert guards(a, b) is MISS if aliased else guards(a, b) is not MISS
    assert guards(a, a) is MISS
