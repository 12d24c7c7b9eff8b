"""Typed lists (trace/lists.py, runtime/pylists.py): loops over Python lists of numbers compile
to native loops, read into an array on entry and written back on exit, with Python's answers:
item types, in-place writes, aliasing, exceptions and what was written before them."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from differential import BACKENDS, EVERY_BACKEND, assert_same_calls, assert_same_value

import astcompile
from bench.programs.list_prefix_sums import list_prefix_sums as prefix_sums
from bench.programs.list_running_stats import list_running_stats as running_stats


def fill(out, n):
    for i in range(n):
        out[i] = i * 2.0 + 1.0
    return out


def bump_rows(grid, k):
    for i in range(len(grid)):
        for j in range(len(grid[0])):
            grid[i][j] += k * (i - j)
    return grid


def dot_rows(a, b):
    total = 0.0
    for i in range(len(a)):
        row = a[i]
        for j in range(len(b)):
            total += row[j] * b[j]
    return total


def centroid(points):
    sx = sy = 0.0
    for x, y in points:
        sx += x
        sy += y
    return sx / len(points), sy / len(points)


def shift_ints(xs, d):
    for i in range(len(xs)):
        xs[i] = xs[i] + d
    return xs


def copy_ahead(xs, out):
    for i in range(len(out)):
        out[i] = xs[i + 1]
    return out


def store_other_type(xs):
    for i in range(len(xs)):
        xs[i] = i  # an int into a list of floats
    return xs


def flags(mask, xs):
    count = 0
    for i in range(len(xs)):
        if mask[i]:
            count += 1
            xs[i] = -xs[i]
    return count


def complex_scale(zs, k):
    s = 0j
    for i in range(len(zs)):
        zs[i] = zs[i] * k
        s += zs[i] * zs[i]
    return s


def _floats(n, seed=0):
    rng = random.Random(seed)
    return [rng.uniform(-2, 2) for _ in range(n)]


CALLS = {
    running_stats: [(_floats(50),), (_floats(7, 1),), (_floats(300, 2),), ([1.0, 2.0],)],
    fill: [([0.0] * 20, 20), ([0.0] * 9, 9), ([5.0] * 30, 12)],
    bump_rows: [
        ([[float(i + j) for j in range(4)] for i in range(3)], 0.5),
        ([[1, 2], [3, 4]], 2),  # ints stay ints
        ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], 1.5),
    ],
    dot_rows: [([_floats(6, i) for i in range(5)], _floats(6, 9)), ([[1.0]], [2.0])],
    centroid: [([(1.0, 2.0), (3.0, 5.0), (-1.0, 0.5)],), ([(0.5, 0.25)] * 4,)],
    shift_ints: [([1, 2, 3, -4], 5), ([10] * 40, -3), ([2**62, 2**62], 2**62)],
    flags: [([True, False, True], [1.0, 2.0, 3.0]), ([False] * 5, _floats(5))],
    complex_scale: [([1 + 2j, 3 - 1j] * 10, 2j), ([0.5j] * 7, 1.5 + 0j)],
}


@pytest.mark.parametrize("fn", list(CALLS), ids=lambda f: f.__name__)
@pytest.mark.parametrize("backend", ["eager", "c"])
def test_loops_over_typed_lists_give_pythons_results(fn, backend):
    assert_same_calls(fn, CALLS[fn], backend=backend)


@pytest.mark.parametrize(
    "fn, args",
    [
        (running_stats, (_floats(64),)),
        (fill, ([0.0] * 64, 64)),
        (bump_rows, ([[float(i * j) for j in range(5)] for i in range(4)], 0.5)),
        (centroid, ([(float(i), float(-i)) for i in range(10)],)),
        (flags, ([True, False] * 4, _floats(8))),
        (complex_scale, ([1 + 2j, 3 - 1j] * 10, 2j)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_typed_list_loops_compile_without_a_break(fn, args):
    compiled = astcompile.compile(fn, backend="c")
    compiled(*copy.deepcopy(args))
    report = astcompile.explain(compiled, *copy.deepcopy(args))
    assert report.graph_break_count == 0, str(report)
    assert report.graph_count == 1


def test_a_new_length_does_not_recompile():
    compiled = astcompile.compile(fill, backend="c")
    for n in (5, 9, 40, 41, 200):
        out = [0.0] * n
        assert compiled(out, n) is out
        assert out == fill([0.0] * n, n)
    assert compiled.regions[0].stats.traces == 1


def test_items_written_back_keep_their_python_types():
    compiled = astcompile.compile(shift_ints, backend="c")
    xs = [1, 2, 3]
    result = compiled(xs, 4)
    assert result is xs and xs == [5, 6, 7]
    assert all(type(v) is int for v in xs)
    grid = [[1.0, 2.0], [3.0, 4.0]]
    rows = list(grid)
    astcompile.compile(bump_rows, backend="c")(grid, 1.0)
    assert all(a is b for a, b in zip(grid, rows))  # the same row objects, updated
    assert grid == bump_rows([[1.0, 2.0], [3.0, 4.0]], 1.0)
    assert all(type(v) is float for row in grid for v in row)


def test_int_items_beyond_int64_give_pythons_ints():
    """Sums past int64 are Python's exact ints: the region runs as written, the list as it
    was before (nothing written back from the abandoned compiled run)."""
    compiled = astcompile.compile(shift_ints, backend="c")
    for xs in ([1, 2], [2**62, 2**62 + 5], [2**63 - 1, 3], [2**70, 1]):
        want = shift_ints(list(xs), 2**62)
        got_list = list(xs)
        got = compiled(got_list, 2**62)
        assert_same_value(got, want)
        assert all(type(v) is int for v in got)


def test_index_error_raises_with_the_items_stored_before_it():
    compiled = astcompile.compile(copy_ahead, backend="c")
    assert compiled([1.0, 2.0, 3.0], [0.0, 0.0]) == [2.0, 3.0]
    xs, out = [1.0, 2.0, 3.0], [0.0] * 4
    with pytest.raises(IndexError):
        compiled(xs, out)
    assert out == [2.0, 3.0, 0.0, 0.0]  # Python stored two items before the error
    assert xs == [1.0, 2.0, 3.0]


def sum_first(xs, n, step=1):
    s = 0.0
    for i in range(n):
        s += xs[i * step]
    return s


def fill_first(xs, n, v):
    for i in range(n):
        xs[i] = v
    return xs


def sum_row(rows, r, n):
    s = 0.0
    for j in range(n):
        s += rows[r][j]
    return s


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_an_index_past_the_end_raises_pythons_message(backend):
    """The items are an array compiled, but the check that fails raises what Python's list
    (or tuple row) raises: ``list index out of range``, not NumPy's message naming an axis."""
    floats, pairs = [1.0, 2.0, 3.0], [(1.0, 2.0), (3.0, 4.0)]
    assert_same_calls(sum_first, [(floats, 3), (floats, 4), (floats, 5, -1)], backend=backend)
    assert_same_calls(fill_first, [(floats, 3, 0.5), (floats, 5, 0.5)], backend=backend)
    assert_same_calls(sum_row, [(pairs, 1, 2), (pairs, 1, 3)], backend=backend)
    assert_same_calls(sum_row, [([list(p) for p in pairs], 0, 2), (pairs, 0, 3)], backend=backend)


def test_storing_another_type_runs_as_written():
    compiled = astcompile.compile(store_other_type, backend="c")
    xs = [0.5, 1.5, 2.5]
    assert compiled(xs) == [0, 1, 2]
    assert [type(v) for v in xs] == [int, int, int]


@pytest.mark.parametrize(
    "lists",
    [
        lambda: ([1.0, 2.0], [1, 2.0]),  # mixed types
        lambda: ([1.0, 2.0], [True, 2]),
        lambda: ([1.0], [[1.0, 2.0], [3.0]]),  # ragged rows
        lambda: ([1.0], [[1.0, 2.0], (3.0, 4.0)]),  # a list row and a tuple row
        lambda: ([1.0], ["a", "b"]),
    ],
)
def test_untyped_lists_run_as_written(lists):
    def first_plus(a, b):
        total = 0.0
        for i in range(len(a)):
            total += a[i]
        return total, b

    a, b = lists()
    got = astcompile.compile(first_plus, backend="c")(a, b)
    assert_same_value(got, first_plus(*lists()))


def test_rows_shared_by_one_list_run_as_written():
    compiled = astcompile.compile(bump_rows, backend="c")
    shared = [[0.0] * 3] * 2  # one row object twice: a write is seen through both
    expected = bump_rows([[0.0] * 3] * 2, 1.0)
    got = compiled(shared, 1.0)
    assert got == expected and got[0] is got[1]


def test_the_same_list_passed_twice_runs_as_written():
    def add_into(dst, src):
        for i in range(len(src)):
            dst[i] = dst[i] + src[i]
        return dst

    compiled = astcompile.compile(add_into, backend="c")
    assert compiled([1.0, 2.0], [3.0, 4.0]) == [4.0, 6.0]
    xs = [1.0, 2.0, 3.0]
    assert compiled(xs, xs) == add_into([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    grid = [[1.0, 2.0], [3.0, 4.0]]
    assert compiled(grid[0], grid[1]) == [4.0, 6.0]
    assert grid == [[4.0, 6.0], [3.0, 4.0]]


def test_a_list_growing_in_a_loop_is_traced_a_bounded_number_of_times(monkeypatch):
    """The list ``out`` grows by one item per iteration: its key is its type and size class,
    not one key per item, so the region around ``out.append`` is traced once per class of its
    int arguments (sign and bit length: a dozen here), not once per iteration (400 traces,
    quadratic time and memory)."""
    from astcompile.jit.regions import Region

    traced = []
    trace = Region.trace
    monkeypatch.setattr(
        Region, "trace", lambda self, *a, **k: traced.append(1) or trace(self, *a, **k)
    )
    compiled = astcompile.compile(prefix_sums, backend="c")
    xs = list(range(-100, 300))
    assert compiled(xs) == prefix_sums(xs)
    assert compiled(xs) == prefix_sums(xs)
    assert len(traced) <= 20, len(traced)
    keys = [k for r in compiled.regions for k in (*r.eager_keys, *r.entries)]
    assert len(keys) <= 20 and all(len(repr(k)) < 200 for k in keys), keys


def test_a_long_untyped_list_has_a_short_key():
    from astcompile.runtime import guards as G

    mixed = [1, 2.5, "x"] * 1000
    key = G.call_key((mixed,))
    assert len(repr(key)) < 100
    assert G.call_key(([1.5] * 5000,)) == G.call_key(([2.5] * 7000,))


def test_a_guard_function_reads_each_list_once_per_call(monkeypatch):
    """However many entries and plain keys a region has, its generated guard function looks
    at a list argument's items once per call (a region called from a Python loop pays it on
    every iteration)."""
    from astcompile.runtime import pylists

    kind = pylists.kind_function()
    seen = []
    monkeypatch.setattr(pylists, "kind_function", lambda: lambda v: seen.append(1) or kind(v))
    compiled = astcompile.compile(shift_ints, backend="c")
    for d in (1, -1, 2**20, -(2**40), 3):  # one entry per int class of d
        compiled(list(range(30)), d)
    region = compiled.regions[0]
    assert sum(len(v) for v in region.entries.values()) >= 3
    seen.clear()
    assert region.guards(list(range(20)), 7) == (list(range(7, 27)),)
    assert len(seen) == 1


def sum_of_array_of_list(xs, x):
    return np.array(xs).sum(), np.asarray(xs).sum(axis=0), x * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_array_made_of_a_list_argument_is_numpys(backend):
    """``np.array(xs).sum()`` of a list argument: NumPy made an object array of the traced
    items and ``.sum()`` folded it with Python's ``+``, a Python ``int`` out where NumPy
    returns ``np.int64``. The first call warms the tracer's imports (a lazy import seen while
    tracing sent the region to Python, hiding the bug)."""
    assert_same_calls(sum_of_array_of_list, [([1, 2], np.ones(2))], backend)
    calls = [([3, 1], np.ones(2)), ([1.5, 2.0], np.ones(3)), ([[1, 2], [3, 4]], np.ones(2))]
    assert_same_calls(sum_of_array_of_list, calls, backend)


def test_tracing_a_list_never_waits_for_the_call_path_build(monkeypatch, tmp_path):
    """The C passes over a list's items live in the call-path extension, built once a machine
    (about half a second of gcc). A trace of a list argument on a machine without it asked for
    it and waited: a 0.3 ms function's second call took 0.5-0.75 s (bench polyfit_residuals,
    first ten calls 0.012x plain). It is asked for in the background now; the trace and the
    call use the Python passes meanwhile, same items."""
    from astcompile.runtime import fastcall

    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))  # nothing built there
    monkeypatch.setattr(fastcall, "_state", {})  # nor loaded in this process
    asked = []
    monkeypatch.setattr(fastcall, "build_in_background", asked.append)
    compiled = astcompile.compile(fill, backend="c")
    out = [0.0] * 50
    assert compiled(out, 50) is out and out == fill([0.0] * 50, 50)
    assert compiled.regions[0].stats.traces == 1
    assert fastcall.loaded() is None, "the call ran gcc for the extension"
    assert asked == [str(tmp_path)]


def swap_through_table(data):
    """RC4's state: a list made from ``range(256)`` (a constant array whose repr spans lines,
    once written into a C comment that broke the build) permuted by the loop."""
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + data[i % len(data)]) % 256
        s[i], s[j] = s[j], s[i]
    return s


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_of_a_long_range_builds(backend):
    assert_same_calls(swap_through_table, [([3, 1, 4, 1, 5],), ([9, 2, 6],)], backend=backend)
