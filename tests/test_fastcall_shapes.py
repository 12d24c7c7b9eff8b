"""Regions that read an argument's sizes (``x.shape[0]``, ``len(x)``, ``x.size``) or take an
array with a length-1 axis, on the C-level call path (lower/fastplan.py, runtime/fastcall*):
a size read as a value is the size expression the wrapper binds, a flat region's NumPy scalar
is boxed from its 0-d output, and a length-1 axis keeps its stride as NumPy left it. Each
call's result is the plain function's, also after the sizes change between calls."""

from __future__ import annotations

import functools
import types

import numpy as np
import pytest
from differential import assert_same_call, runtime_warnings

import astcompile
from astcompile.jit import regions
from astcompile.runtime.fastcall_program import COMMIT, DATA, END, MAX_REGS, RET, UNIT, assemble
from tests.test_fastcall_views import _in_c

pytestmark = pytest.mark.usefixtures("fast")  # the extension, built and loaded


def times_length(x):
    return x * x.shape[0]


def mean_by_len(x):
    n = len(x)
    return x.sum() / n


def over_size(a):
    return a / a.size


def halves_and_rest(x):
    return x * (x.shape[0] // 2) + x.shape[0] % 3


def plus_columns(a):
    return a * 2.0 + a.shape[1]


def total(x):
    return x.sum()


FLAT = [times_length, mean_by_len, over_size, halves_and_rest, total]
DTYPES = [np.float64, np.float32, np.int64, np.int32]


def _data(shape, dtype) -> np.ndarray:
    return (np.arange(np.prod(shape, dtype=int)).reshape(shape) * 3 % 17 - 5).astype(dtype)


@pytest.fixture
def python_calls(monkeypatch) -> list:
    """The calls each region's Python guard function ran (the C path runs none of them)."""
    calls: list = []
    make = regions.specialised_guards

    def counted(*args, **kwargs):
        guard = make(*args, **kwargs)

        @functools.wraps(guard)  # its attributes too (its source, for the debug dump)
        def guarded(*call_args, **call_kwargs):
            calls.append(call_args)
            return guard(*call_args, **call_kwargs)

        return guarded

    monkeypatch.setattr(regions, "specialised_guards", counted)
    return calls


def _same_calls(compiled, fn, arrays) -> None:
    for args in arrays:
        assert_same_call(compiled, tuple(a.copy() for a in args), fn, args, "c")


def _in_c_for_each_length(fn, dtype, sizes: list[int], python_calls: list):
    """``fn`` compiled and called with 1-d arrays of ``sizes`` in turn, twice: results as
    plain's, and the second time round every call in C (no Python guard call)."""
    compiled = astcompile.compile(fn, backend="c")
    _same_calls(compiled, fn, [(_data((n,), dtype),) for n in sizes])
    assert _in_c(compiled)
    del python_calls[:]
    _same_calls(compiled, fn, [(_data((n,), dtype),) for n in sizes])
    assert python_calls == []
    return compiled


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", FLAT)
def test_a_size_read_as_a_value_runs_in_c(fn, dtype, python_calls):
    """Results (a NumPy scalar where plain returns one) as plain's while the length changes
    between calls, one element included; once compiled for each, no call runs Python guards."""
    compiled = _in_c_for_each_length(fn, dtype, [16, 1, 1000, 3, 16, 1], python_calls)
    _same_calls(compiled, fn, [(_data((0,), dtype),)])  # empty: its own entry


@pytest.mark.parametrize("shape", [(3, 5), (1, 5), (5, 1), (1, 1)])
def test_sizes_of_each_axis_with_length_1_axes(shape, python_calls):
    compiled = astcompile.compile(plus_columns, backend="c")
    _same_calls(compiled, plus_columns, [(_data(s, np.float64),) for s in (shape, (4, 7), shape)])
    assert _in_c(compiled)
    del python_calls[:]
    _same_calls(compiled, plus_columns, [(_data(shape, np.float64),)] * 2)
    assert python_calls == []


def scaled_sum(a, b):
    return a * b + 1.0


def _odd_strides(column: np.ndarray) -> list[np.ndarray]:
    """C-contiguous (n, 1) arrays of ``column``'s values whose last stride is not the item
    size: NumPy ignores it (``x[:, None]``: 0), and so must the C path."""
    item = column.itemsize
    return [
        column[:, None],
        np.lib.stride_tricks.as_strided(column, (column.size, 1), (item, 5 * item)),
    ]


@pytest.mark.parametrize("a_shape, b_shape", [((1, 6), (4, 6)), ((6, 1), (6, 4)), ((1, 1), (3, 3))])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_a_length_1_axis_broadcasts_in_c(a_shape, b_shape, dtype, python_calls):
    compiled = astcompile.compile(scaled_sum, backend="c")
    pairs = [(_data(a_shape, dtype), _data(b_shape, dtype)) for _ in range(3)]
    _same_calls(compiled, scaled_sum, pairs)
    assert _in_c(compiled)
    del python_calls[:]
    _same_calls(compiled, scaled_sum, pairs)
    assert python_calls == []
    if a_shape[1] == 1:
        b = _data(b_shape, dtype)
        for a in _odd_strides(_data((a_shape[0],), dtype)):
            assert a.flags.c_contiguous
            assert_same_call(compiled, (a, b.copy()), scaled_sum, (a, b))


def weighted_rows(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i] += a[i, j] * (j + 1)
    return out


def neighbours(x):
    n = x.shape[0]
    out = np.zeros(n)
    for i in range(1, n - 1):
        out[i] = x[i - 1] + x[i + 1]
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_a_loop_over_the_sizes_of_a_column_runs_in_c(dtype, python_calls):
    """A loop region reads its read-only arguments' last axis with stride 1 (the Python
    wrapper copies one with another stride): for a last axis of length 1 only index 0 is
    read, so the C path passes the argument as it is."""
    compiled = astcompile.compile(weighted_rows, backend="c")
    shapes = [(5, 3), (5, 1), (1, 5), (1, 1), (40, 1)]
    _same_calls(compiled, weighted_rows, [(_data(s, dtype),) for s in shapes])
    assert _in_c(compiled)
    del python_calls[:]
    columns = [(a,) for a in _odd_strides(_data((7,), dtype))]
    _same_calls(compiled, weighted_rows, [*columns, (_data((5, 1), dtype),)])
    assert python_calls == []


def test_a_loop_bounded_by_a_size_read_once():
    compiled = astcompile.compile(neighbours, backend="c")
    _same_calls(compiled, neighbours, [(_data((n,), np.float64),) for n in (16, 2, 3, 1000, 16)])
    assert _in_c(compiled)


def second_difference(x):
    return x[2:] - 2.0 * x[1:-1] + x[:-2]


def steps(x):
    n = x.shape[0]
    return x[1:n] - x[0 : n - 1]


def first_half(x):
    return x[: len(x) // 2] * 2.0


def neighbours_of_a_result(x):
    y = x * 2.0
    return y[1:] + y[:-1]


def rows_below(a):
    return a[1:] * 2.0 + a[:-1]


@pytest.mark.parametrize("fn", [second_difference, steps, first_half, neighbours_of_a_result])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_views_the_kernels_read_are_made_in_c(fn, dtype, python_calls):
    """``x[1:] - x[:-1]``: the plan makes each view (of an argument or of an array it
    allocated) before the kernels, and checks its last stride is the item size (as the
    wrapper does before it copies one)."""
    _in_c_for_each_length(fn, dtype, [16, 3, 2, 1000, 5, 16], python_calls)


def every_other_pair(x):
    return x[::2] + x[1::2]


def symmetric(a):
    return a + a.T


def first_column(a):
    return a[:, 0] * 2


def real_twice(z):
    return z.real * 2


def backwards_plus(x):
    return x[::-1] * 3.0 + x


def pairs_of_a_result(x):
    y = x * 2.0 + 1.0
    return y[::2] + y[1::2]


def doubled_then_pairs(x):
    x *= 2.0
    return x[::2] - x[1::2]


COPIED = [
    (every_other_pair, [(16,), (6,), (1000,), (2,)], np.float64),
    (symmetric, [(4, 4), (1, 1), (30, 30)], np.float64),
    (first_column, [(16, 3), (5, 1), (2, 7)], np.int64),
    (real_twice, [(16,), (3,), (500,)], np.complex128),
    (backwards_plus, [(16,), (1,), (999,)], np.float32),
    (pairs_of_a_result, [(16,), (4,), (1000,)], np.float64),
]


@pytest.mark.parametrize("fn, shapes, dtype", COPIED, ids=[c[0].__name__ for c in COPIED])
def test_views_whose_last_stride_is_never_the_item_size_run_in_c(fn, shapes, dtype, python_calls):
    """A view whose last stride is never the item size (``x[::2]``, ``a.T``, ``z.real``, a
    view of a result the region computes): the kernels read it with its strides, as the C
    program passes them; results as plain's, and the second time round no call goes to the
    Python path."""
    compiled = astcompile.compile(fn, backend="c")
    _same_calls(compiled, fn, [(_data(shape, dtype),) for shape in shapes])
    assert _in_c(compiled)
    del python_calls[:]
    _same_calls(compiled, fn, [(_data(shape, dtype),) for shape in shapes])
    assert python_calls == []


def reversed_into_itself(x):
    x += x[::-1]
    return x


def times_own_transpose(a):
    a *= a.T
    return a.sum()


@pytest.mark.parametrize(
    "fn, shape", [(reversed_into_itself, (16,)), (times_own_transpose, (5, 5))]
)
def test_a_write_over_a_strided_view_of_itself_is_plains(fn, shape):
    """The argument written reads itself through another stride: NumPy's result (its ufuncs
    buffer an overlapping operand), however the compiled code reads the view."""
    compiled = astcompile.compile(fn, backend="c")
    _same_calls(compiled, fn, [(_data(shape, np.float64),)] * 3)


VECTORS = [
    lambda: _data((24,), np.float64)[::3],
    lambda: _data((24,), np.float64)[::-2],
    lambda: np.asfortranarray(_data((12, 3), np.float64))[:, 1],
    lambda: np.broadcast_to(_data((1,), np.float64), (8,)),
]
SQUARES = [
    lambda: np.asfortranarray(_data((6, 6), np.float64)),
    lambda: _data((6, 12), np.float64)[::-1, ::2],
    lambda: _data((5, 5), np.float64).T,
    lambda: np.broadcast_to(_data((6,), np.float64), (6, 6)),
]


@pytest.mark.parametrize("fn", [every_other_pair, backwards_plus, doubled_then_pairs])
def test_copied_views_of_strided_arguments_are_plains(fn):
    """Arguments that are themselves views (strided, negative strides, a column of an
    F-ordered matrix, broadcast): the same results as plain (a read-only one's error), and
    the arguments (and their bases) hold what plain left in them."""
    compiled = astcompile.compile(fn, backend="c")
    for make in [lambda: _data((16,), np.float64), *VECTORS]:
        assert_same_call(compiled, (make(),), fn, (make(),), "c")


@pytest.mark.parametrize("make", SQUARES, ids=["fortran", "reversed-strided", "T", "broadcast"])
def test_transposed_views_of_other_layouts_are_plains(make):
    compiled = astcompile.compile(symmetric, backend="c")
    for again in [lambda: _data((6, 6), np.float64), make]:
        assert_same_call(compiled, (again(),), symmetric, (again(),), "c")


def test_a_view_of_a_column_keeps_its_strides():
    """``a[1:]`` of an (n, 1) argument whose last stride is not the item size: the kernel
    reads the length-1 axis at index 0 only, with the view's strides as NumPy made them."""
    compiled = astcompile.compile(rows_below, backend="c")
    _same_calls(compiled, rows_below, [(_data((8, 1), np.float64),)] * 3)
    assert _in_c(compiled)
    for a in _odd_strides(_data((8,), np.float64)):
        assert_same_call(compiled, (a,), rows_below, (a,), "c")


def _plan(shape: tuple) -> dict:
    """A flat plan that allocates its one output, of ``shape``, and returns it."""
    made = ("empty", ("t", 1), np.dtype(np.float64), shape)
    return {"inputs": (("array", 1),), "conds": (), "calls": (made,), "outputs": (("t", 1),)}


@pytest.mark.parametrize("box", ["scalar", float])
def test_only_a_0d_output_is_boxed_as_a_number(fast, box):
    """DATA reads the bytes of a 0-d output the plan allocates, for BOXRET to box; another
    output boxed as a number keeps the Python wrapper (None)."""
    key = ((np.ndarray, np.dtype(np.float64), (-1,), "C"),)
    boxes = [("graph", 0, box, None)]
    assert assemble(key, _plan((("d", 0, 0),)), ((), (), ()), {}, boxes) is None
    program = assemble(key, _plan(()), ((), (), ()), {}, boxes)
    assert DATA in np.frombuffer(program[0], np.int64)
    fast.Guards([program], print, None, {})  # well formed


def test_a_data_word_out_of_range_is_refused(fast):
    words = [COMMIT, DATA, 0, MAX_REGS, END]
    with pytest.raises(ValueError, match="malformed"):
        fast.Guards([(np.asarray(words, np.int64).tobytes(), (), 0)], print, None, {})


def test_the_unit_step_copies_another_last_stride(fast):
    """UNIT: slot 1 is the array in slot 0 where its last stride is the item size (or it has
    no last axis), else a C-ordered copy of it in which a broadcast axis stays broadcast."""
    words = [COMMIT, UNIT, 1, 0, 8, RET, 1, 1, END]
    stats = types.SimpleNamespace(compiled_calls=0)
    program = (np.asarray(words, np.int64).tobytes(), (), 1)
    guards = fast.Guards([program], lambda x: "python", stats, {})
    x = np.arange(12.0)
    assert guards(x)[0] is x and stats.compiled_calls == 1
    zero = np.zeros(())
    assert guards(zero)[0] is zero
    wide = np.broadcast_to(x[::3], (100000, 4))
    for view in (x[::2], x[::-1], x.reshape(3, 4).T, x.reshape(3, 4)[:, ::2], wide):
        (got,) = guards(view)
        assert got.strides[-1] == 8 and np.array_equal(got, view)
        assert not np.shares_memory(got, x)
    assert guards(wide)[0].strides == (0, 8)  # one row copied, not 100000
    assert stats.compiled_calls == 8


def to_the_length(x):
    return x ** (len(x) - 2)


def to_the_power(x, n):
    return x**n


@pytest.mark.parametrize(
    "fn, calls",
    [
        (to_the_length, [(np.ones(n, bool),) for n in (5, 4, 3, 4, 4)]),
        (to_the_length, [(np.arange(n) - 0.0,) for n in (5, 1, 3, 1)]),
        (to_the_power, [(np.ones(4, bool), n) for n in (3, 2, 3, 2, 2)]),
    ],
)
def test_a_size_or_a_number_as_the_exponent_is_the_one_numpy_saw(fn, calls):
    """NumPy's ``a ** 2`` squares: a bool array's square is int8, its other int powers int64.
    A length, or an int argument that changes between calls, as a bool array's exponent gives
    NumPy's dtype (a float array's ``a ** -1`` warns as its reciprocal does)."""
    compiled = astcompile.compile(fn, backend="c")
    for args in calls:
        assert_same_call(compiled, args, fn, args, "c")
        assert runtime_warnings(compiled, *args) == runtime_warnings(fn, *args)
