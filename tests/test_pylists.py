"""runtime/pylists.py: the C passes over a list's items (fastcall_lists.c) and the Python ones
give the same kinds, arrays and written-back lists."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from astcompile.runtime import fastcall, pylists

ROW = [1.0, 2.0]
KINDS = [
    ([1.5, -2.0, float("nan")], ("d", 3)),
    ([1, -(2**63), 2**63 - 1], ("q", 3)),
    # one-digit ints are read from their digit: both sides of each digit boundary, and zero
    ([0, -1, 2**30 - 1, 2**30, -(2**30) + 1, -(2**30), 2**60, -(2**62)], ("q", 8)),
    ([5, 2**64], None),
    ([-(2**63) - 1, 0], None),
    ([1j, 2 + 0j], ("D", 2)),
    ([True, False], ("?", 2)),
    ([[1.0, 2.0], [3.0, 4.0]], ("d", 2, 2, list)),
    ([(1, 2), (3, 4), (5, 6)], ("q", 3, 2, tuple)),
    ([], None),
    ([[]], None),
    ([1, 2.0], None),
    ([1, True], None),
    ([2**63], None),
    ([np.float64(1.0)], None),
    ([[1.0], [2.0, 3.0]], None),
    ([[1.0], (2.0,)], None),
    ([ROW, ROW], None),  # one row object twice
    (["a"], None),
]


@pytest.fixture(params=["c", "python"])
def passes(request, monkeypatch):
    """The C passes (the extension built into the test cache) or the Python ones."""
    module = fastcall.extension(astcompile.config.cache_dir)
    if request.param == "c":
        assert module is not None and hasattr(module, "list_kind")
    else:
        monkeypatch.setattr(fastcall, "loaded", lambda: None)
    return request.param


@pytest.mark.parametrize("value, expected", KINDS, ids=repr)
def test_kinds(passes, value, expected):
    assert pylists.kind(value) == expected


@pytest.mark.parametrize("value, expected", [k for k in KINDS if k[1] is not None], ids=repr)
def test_unbox_then_box_gives_the_list_back(passes, value, expected):
    array = pylists.unbox(value, expected)
    assert array.dtype == pylists.ITEMS[expected[0]][1]
    np.testing.assert_array_equal(array, np.array(value, dtype=array.dtype))
    if expected[-1] is tuple:
        return  # tuple rows are never written
    copy = [list(r) if type(r) is list else r for r in value]
    pylists.box(copy, array)
    assert repr(copy) == repr(value)
    assert [type(v) for v in np.ravel(np.array(copy, dtype=object))] == [
        pylists.ITEMS[expected[0]][0]
    ] * array.size


def test_box_writes_changed_items_with_the_lists_types(passes):
    xs = [1, 2, 3]
    pylists.box(xs, np.array([1, 5, -(2**63)], dtype=np.int64))
    assert xs == [1, 5, -(2**63)] and all(type(v) is int for v in xs)
    grid = [[0.0, 0.0], [0.0, 0.0]]
    rows = list(grid)
    pylists.box(grid, np.array([[1.0, -0.0], [np.inf, 2.5]]))
    assert grid == [[1.0, -0.0], [np.inf, 2.5]] and grid[0] is rows[0]
    assert str(grid[0][1]) == "-0.0"


def test_overlap_and_classify(passes):
    grid = [[1.0], [2.0]]
    assert pylists.overlap((grid, grid[1]))
    assert not pylists.overlap((grid, [1.0]))
    found = pylists.classify((grid, grid[0], 3, [1, "x"] * 40, [1, "x"]))
    assert found == {0: pylists.ALIASED, 1: pylists.ALIASED, 3: pylists.LONG_LIST}
