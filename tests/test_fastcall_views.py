"""Views a region returns (loop regions beside a store, flat regions), made by the C-level
call path (runtime/fastcall_views.c): the same values, strides, flags and ``.base`` as NumPy's,
and writes through them reach what NumPy's reach."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from differential import assert_same_call

import astcompile
from astcompile.jit.entries import fast_programs
from astcompile.runtime import fastcall
from astcompile.runtime.fastcall_program import END, VIEW
from astcompile.runtime.fastcall_views import (
    ITEM_SLICE,
    VIEW_INDEX,
    VIEW_PART,
    VIEW_RESHAPE,
    VIEW_TRANSPOSE,
)
from tests.test_structured_plan import every_other_stored


def backwards_beside_its_base(x, out):
    y = x * 2
    out[:] = y.sum()
    return y[-1::-3], y


def a_view_of_the_argument(x, out):
    out[:] = x * 2
    return x[1::2], out[::3]


def rows_columns_and_new_axes(x, out):
    y = x * 2
    out[:] = x + 1
    return y[1, ::2], y[:, None, 1:], y.T, y.T[::2], y[..., 0]


def parts(z, out):
    w = z * 2j + z
    out[:] = z.real
    return w.real, w.imag[::2], w.imag.T


def broadcast(x, out):
    y = x * 2
    out[:] = x
    return np.broadcast_to(y, (3, *y.shape)), np.broadcast_to(y[::2, None], (2, 4, 3))


def flat_every_other(x):
    return (x * 2)[::2]


def flat_beside_its_base(x):
    y = np.sin(x) + 1
    return y[1::3], y


def flat_rows_columns_and_parts(x):
    y = x * 2
    w = x * 1j
    return y.T[::2], np.broadcast_to(y[0], (3, y.shape[1])), y[:, None, -1], w.imag[::-1]


def reshaped(x, out):
    y = x * 2
    out[:] = x
    return y.reshape(2, -1)[:, ::2], y.reshape(-1, 1)


def flat_reshaped(x):
    y = x * 2
    return y.reshape(-1)[::2], y.reshape(-1, 3)


def one_view_twice(x, out):
    y = x * 2.0
    out[:] = x + 1.0
    v = y[::2]
    return v, v, y[::2], y, y


def one_view_of_the_argument_twice(x, out):
    out[:] = x * 2.0
    w = x[1:]
    return w, w, x[1:], x, x, out, out


def flat_one_view_twice(x):
    y = x * 2.0
    v = y[::2]
    return v, v, y[::2], y, y


CASES = [
    (every_other_stored, lambda n: (np.arange(float(n)), np.zeros(n))),
    (backwards_beside_its_base, lambda n: (np.arange(float(n)), np.zeros(n))),
    (a_view_of_the_argument, lambda n: (np.arange(float(n)), np.zeros(n))),
    (rows_columns_and_new_axes, lambda n: (np.ones((3, n)), np.zeros((3, n)))),
    (parts, lambda n: (np.arange(n) + 0.5j, np.zeros(n))),
    (broadcast, lambda n: (np.arange(8.0), np.zeros(8))),
    (reshaped, lambda n: (np.arange(2.0 * n), np.zeros(2 * n))),
    (one_view_twice, lambda n: (np.arange(float(n)), np.zeros(n))),
    (one_view_of_the_argument_twice, lambda n: (np.arange(float(n)), np.zeros(n))),
    (flat_every_other, lambda n: (np.arange(float(n)),)),
    (flat_one_view_twice, lambda n: (np.arange(float(n)),)),
    (flat_beside_its_base, lambda n: (np.arange(float(n)),)),
    (flat_rows_columns_and_parts, lambda n: (np.ones((3, n)),)),
    (flat_reshaped, lambda n: (np.arange(3.0 * n).reshape(3, n),)),
]


def layout(result, args) -> list:
    """What NumPy says of each returned array besides its values: strides, flags, and what its
    ``.base`` is (an argument, another result, or an array of the call's own)."""
    items = list(result) if isinstance(result, tuple) else [result]
    found = []
    for v in items:
        base = v.base
        if base is None:
            owner = None
        elif any(base is a for a in args):
            owner = ("argument", next(k for k, a in enumerate(args) if base is a))
        elif any(base is r for r in items):
            owner = ("result", next(k for k, r in enumerate(items) if base is r))
        else:
            owner = ("own", base.shape, base.strides, base.flags.owndata, base.base is None)
        flags = v.flags
        found.append(
            (v.shape, v.strides, flags.c_contiguous, flags.f_contiguous, flags.owndata)
            + (flags.writeable, flags.aligned, owner)
        )
    return found


def _in_c(compiled) -> bool:
    """Whether every entry of the compiled function's region has a C-level program."""
    (region,) = compiled.regions
    entries = [e for found in region.entries.values() for e in found]
    return isinstance(region.guards, fastcall.loaded().Guards) and len(
        fast_programs(entries, region.owner.fn)
    ) == len(entries)


@pytest.mark.parametrize("n", [1, 2, 5, 16])
@pytest.mark.parametrize("fn, make", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_a_returned_view_is_numpys_view(fast, fn, make, n):
    """Results, layouts and ``.base`` as NumPy's, on the C path (a value returned twice is
    one object, a second view expression another: the differential helper's ``is``); writing into the first result
    changes what it changes in NumPy's (its base, the other views)."""
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(3):
        assert_same_call(compiled, make(n), fn, make(n), "c")
    assert _in_c(compiled)  # one element too (a length-1 axis: its stride as it is)
    got_args, want_args = make(n), make(n)
    got, want = compiled(*got_args), fn(*want_args)
    assert layout(got, got_args) == layout(want, want_args)
    for result in (got, want):
        first = result[0] if isinstance(result, tuple) else result
        if first.flags.writeable:
            first[...] = -1.0
    assert_same_call(lambda: got, (), lambda: want, (), "c")
    for g, w in zip(got_args, want_args):
        np.testing.assert_array_equal(g, w)


def test_a_read_only_argument_gives_a_read_only_view(fast):
    compiled = astcompile.compile(a_view_of_the_argument, backend="c")
    calls = []
    for _ in range(3):
        x, out = np.arange(6.0), np.zeros(6)
        x.flags.writeable = False
        calls.append((compiled(x, out), (x, out)))
    assert _in_c(compiled)
    (view, _), args = calls[-1]
    assert not view.flags.writeable and view.base is args[0]


@pytest.mark.parametrize(
    "length, step, made",
    [(9, 1, True), (10, 1, False), (5, 2, True), (5, 3, False), (5, 2**62, False)],
)
def test_a_slice_past_its_axis_goes_to_the_python_path(fast, length, step, made):
    """A view the program names outside its array (also where ``(length - 1) * step``
    overflows) is never made: the call returns what the Python guard function returns."""
    code = [VIEW, 1, 0, VIEW_INDEX, 1, ITEM_SLICE, 0, 1, step]  # x[r0::step][:r1]
    code = [1, 0, 0, 1, 7, 0, 0, 7, 1, length, 11, *code, 22, 1, 1, END]  # ARRAY, CONSTs, COMMIT
    consts = (np.dtype(np.float64),)
    stats = types.SimpleNamespace(compiled_calls=0)
    guards = fast.Guards([(np.asarray(code, np.int64).tobytes(), consts, 1)], len, stats, {})
    x = np.arange(9.0)
    if not made:
        assert guards(x) == 9  # the fallback: len
        return
    (view,) = guards(x)
    assert view.base is x and not view.flags.owndata
    np.testing.assert_array_equal(view, x[::step][:length])
    assert view.strides == x[::step].strides


def test_a_reshape_that_would_copy_goes_to_the_python_path(fast):
    """x.T.reshape(-1) copies bytes that the kernels have not written yet: never in C."""
    transpose = [VIEW, 1, 0, VIEW_TRANSPOSE, 2, 1, 0]
    reshape = [VIEW, 2, 1, VIEW_RESHAPE, 1, 2]  # to r2 = 6 elements
    code = [1, 0, 0, 2, 2, 0, 0, 0, 2, 1, 0, 1, 7, 2, 6, 11, *transpose, *reshape, 22, 1, 2, END]
    consts = (np.dtype(np.float64),)
    stats = types.SimpleNamespace(compiled_calls=0)
    guards = fast.Guards([(np.asarray(code, np.int64).tobytes(), consts, 1)], len, stats, {})
    assert guards(np.ones((2, 3))) == 2  # the fallback: len
    x = np.ones((1, 6))
    (view,) = guards(x)  # x.T of one row is C-contiguous too: its reshape is a view
    assert view.base is x and view.shape == (6,)


@pytest.mark.parametrize(
    "words",
    [
        [VIEW, 1, 0, VIEW_INDEX, 1, ITEM_SLICE, 0, 0, 0],  # a step of 0
        [VIEW, 1, 0, 9, 0],  # no such kind
        [VIEW, 1, 0, VIEW_PART, 1, 0],  # the attribute's name is no str
        [VIEW, 1, 0, VIEW_INDEX, 2, ITEM_SLICE, 0, 0, 1],  # words missing
    ],
)
def test_malformed_views_are_refused(fast, words):
    code = np.asarray([*words, END], np.int64).tobytes()
    with pytest.raises(ValueError, match="malformed"):
        fast.Guards([(code, (np.dtype(np.float64),), 1)], print, None, {})


def views_of_a_numpy_scalar(x):
    y = x * 2  # a NumPy scalar of a 0-d x: each view below views its own fresh array
    return y[...], y[None], np.broadcast_to(y, (3,)), y.reshape(1), y.reshape(())


def views_of_a_sum(x):
    s = x.sum()
    return s[None], np.broadcast_to(s, (2,)), s


@pytest.mark.parametrize(
    "fn, make",
    [
        (views_of_a_numpy_scalar, lambda: (np.array(3.0),)),
        (views_of_a_numpy_scalar, lambda: (np.array(2.5, np.float32),)),
        (views_of_a_sum, lambda: (np.arange(5.0),)),
    ],
)
def test_views_of_a_numpy_scalar_share_no_byte(fn, make):
    """``s[None]`` and ``np.broadcast_to(s, n)`` of a NumPy scalar view fresh arrays: writing
    into one result leaves the others as they are, as in NumPy."""
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(3):
        assert_same_call(compiled, make(), fn, make(), "c")
    got_args, want_args = make(), make()
    got, want = compiled(*got_args), fn(*want_args)
    assert layout(got, got_args) == layout(want, want_args)
    for result in (got, want):
        result[0][...] = -1.0
    assert_same_call(lambda: got, (), lambda: want, (), "c")


def test_a_view_leaks_no_reference(fast):
    """Many calls on the C path leave the argument's, the result's and its base's reference
    counts as they were."""
    compiled = astcompile.compile(backwards_beside_its_base, backend="c")
    x, out = np.arange(9.0), np.zeros(9)
    for _ in range(5):
        compiled(x, out)
    assert _in_c(compiled)
    before = sys.getrefcount(x), sys.getrefcount(out)
    for _ in range(1000):
        view, y = compiled(x, out)
    assert (sys.getrefcount(x), sys.getrefcount(out)) == before
    assert view.base is y and sys.getrefcount(y) == 4  # y, view.base, the call's argument, this


def tail_every_other(x):
    return (x * 2.0)[5::2]


def test_an_empty_slice_is_numpys(fast):
    """An empty slice (``[5::2]`` of 4 elements) as NumPy makes it: from the axis's start,
    step 1, so its stride is the axis's own, not ``step`` times it (16 bytes before)."""
    compiled = astcompile.compile(tail_every_other, backend="c")
    for n in (16, 16, 4, 5, 16, 4):
        x = np.arange(float(n))
        got, want = compiled(x.copy()), tail_every_other(x)
        assert layout(got, ()) == layout(want, ())
        np.testing.assert_array_equal(got, want)
    assert _in_c(compiled)
