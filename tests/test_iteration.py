"""A lowered ``for`` iterates as Python does (trace/iteration.py): dicts give their keys in
order, sets and views their own order, generators and iterators are consumed once; nothing but
a sequence is ever read by position. Programs written the way people write them: weights in
dicts keyed by names, sets of indices, generator arguments."""

from __future__ import annotations

import numpy as np
import pytest
from differential import EVERY_BACKEND, assert_same, assert_same_calls, assert_same_value

import astcompile

X = np.arange(12.0).reshape(4, 3)


def weighted_by_key(x, weights):
    out = np.zeros_like(x)
    for k in weights:
        out = out * 2.0 + x * weights[k] + k
    return out


def named_layers(x, params):
    for name in params:
        x = np.tanh(x @ params[name]) if name.startswith("w") else x + params[name]
    return x


def rows_of(x, idx):
    acc = np.zeros(x.shape[1])
    for i in idx:
        acc = acc * 0.5 + x[i]
    return acc


def enumerate_keys(x, d):
    acc = np.zeros(x.shape[1])
    for n, k in enumerate(d):
        acc = acc + n * x[k]
    return acc


def zip_keys(x, d):
    acc = np.zeros(x.shape[1])
    for k, row in zip(d, x):
        acc = acc * 2.0 + k * row
    return acc


def stop_at(x, items):
    acc = np.zeros(x.shape[1])
    for v in items:
        if v > 2:
            break
        acc = acc + v * x[v]
    return acc


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_dict_keys_are_iterated_not_positions(backend):
    assert_same_calls(
        weighted_by_key,
        [
            (np.ones(2), {1: 1.0, 0: 5.0}),
            (np.ones(2), {0: 1.0, 1: 0.0}),  # the same keys in another order
            (np.ones(2), {3: 2.0, 7: 1.0}),
            (np.ones(2), {3: 2.0}),
            (np.ones(2), {2: 1.0, 1: 2.0, 0: 3.0, 5: 4.0, 4: 5.0, 6: 6.0, 9: 7.0, 8: 8.0, 7: 9.0}),
        ],
        backend=backend,
    )
    compiled = astcompile.compile(weighted_by_key, backend=backend)
    assert astcompile.explain(compiled, np.ones(2), {1: 1.0, 0: 5.0}).graph_break_count == 0


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_string_keys_compile_over_the_dict_order(backend):
    rng = np.random.default_rng(0)
    params = {"w1": rng.random((3, 3)), "b1": rng.random(3), "w2": rng.random((3, 3))}
    swapped = {"b1": params["b1"], "w1": params["w1"], "w2": params["w2"]}
    assert_same_calls(named_layers, [(X, params), (X, swapped), (X, params)], backend=backend)
    compiled = astcompile.compile(named_layers, backend=backend)
    assert astcompile.explain(compiled, X, params).graph_break_count == 0


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(
    "make",
    [
        lambda: {3, 1},
        lambda: frozenset([1, 9]),
        lambda: frozenset([9, 1]),  # equal to the one before, iterated the other way
        lambda: {1: "a", 3: "b"}.keys(),
        lambda: {"a": 3, "b": 1}.values(),
        lambda: reversed([1, 3]),
        lambda: map(int, "31"),
        lambda: range(2, 4),
        lambda: [3, 0],
    ],
    ids=[
        "set",
        "frozenset",
        "frozenset-reordered",
        "keys",
        "values",
        "reversed",
        "map",
        "range",
        "list",
    ],
)
def test_sets_views_iterators_and_sequences_of_indices(backend, make):
    x = np.arange(40.0).reshape(10, 4)
    compiled = astcompile.compile(rows_of, backend=backend)
    for _ in range(2):
        assert_same_value(compiled(x, make()), rows_of(x, make()))


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_frozensets_equal_but_ordered_otherwise_do_not_share_an_entry(backend):
    x = np.arange(40.0).reshape(10, 4)
    calls = [(x, frozenset([1, 9])), (x, frozenset([9, 1])), (x, frozenset([1, 9]))]
    assert [list(c[1]) for c in calls[:2]] == [[1, 9], [9, 1]]  # CPython's order, the premise
    assert_same_calls(rows_of, calls, backend=backend)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_enumerate_and_zip_of_a_dict(backend):
    d = {3: "x", 1: "y", 2: "z"}
    assert_same(enumerate_keys, X, d, backend=backend)
    assert_same(zip_keys, X, d, backend=backend)
    assert_same(zip_keys, X, {3: 0, 1: 0, 2: 0, 0: 0, 1.5: 0}, backend=backend)  # zip stops


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_generator_argument_is_consumed_once(backend):
    compiled = astcompile.compile(stop_at, backend=backend)
    for _ in range(2):  # the first call and the one after a break
        plain_items, compiled_items = iter([1, 2, 3, 0, 1]), iter([1, 2, 3, 0, 1])
        gen = (v for v in [1, 2, 3, 0])
        assert_same_value(compiled(X, compiled_items), stop_at(X, plain_items))
        assert list(compiled_items) == list(plain_items) == [0, 1]  # stopped after the 3
        assert_same_value(compiled(X, gen), stop_at(X, (v for v in [1, 2, 3, 0])))
        assert list(gen) == [0]


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_generator_in_a_zip_is_taken_in_zips_order(backend):
    def pairs(x, gen):
        acc = np.zeros(x.shape[1])
        for row, v in zip(x, gen):
            acc = acc + v * row
        return acc

    compiled = astcompile.compile(pairs, backend=backend)
    plain_gen, compiled_gen = iter(range(10)), iter(range(10))
    assert_same_value(compiled(X, compiled_gen), pairs(X, plain_gen))
    assert next(compiled_gen) == next(plain_gen) == 4  # zip took 4 items, none lost


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_strings_iterate_by_character(backend):
    def counts(x, text):
        acc = np.zeros_like(x)
        for ch in text:
            acc = acc + x * (ord(ch) % 7)
        return acc

    assert_same_calls(counts, [(X, "abc"), (X, "hello world"), (X, "")], backend=backend)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_iterating_what_is_not_iterable_raises_pythons_error(backend):
    with pytest.raises(TypeError, match="not iterable"):
        astcompile.compile(rows_of, backend=backend)(X, 3)
