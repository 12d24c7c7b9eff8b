"""Stores into views on the Triton target (lower/store_plan.py), against NumPy.

Each store runs as a Triton store kernel writing through the view's pointer and strides (the
interpreter runs it over the caller's own array); a region Triton cannot order runs on the C
target, with the same results, and ``explain`` says why.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import TRITON, assert_same
from graphs import lowered

import astcompile
from astcompile.trace.tracer import trace_callable

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

rng = np.random.default_rng(3)


def interior(out, x):
    out[1:-1] = x[1:-1] * 2.0
    out[:, 0] = 5
    return out


def strided_update(a, b):
    a[::2] += b
    return a


def reshaped_after_store(x):
    x[0] = 1.0
    return x.reshape(-1) * 2.0


def reshaped_before_store(x):
    y = x.reshape(-1)  # a view here, a copy for another layout: the store's effect differs
    x[0] = 1.0
    return y * 2.0


def swapped_in_a_row(a, q):
    a[:, 0] = q
    a[3] = (a[3, 1], a[3, 0], a[3, 2])  # element reads are copies, made before the store
    return a


def float_into_int(i, x):
    i[1:] = x[1:]  # the cast is a NumPy step, the store a Triton store kernel
    return i


def complex_store(z, w):
    z[1:] = w[1:] * 2j
    return z


def sum_after_store(a, b):
    a[::2] += b
    return a.sum()


def reversed_column(x):
    x[::-1, 1] = np.arange(x.shape[0]) * 1.5
    return x


def through_transpose(x, y):
    u = x.T
    u[1:3] = y
    return x


def int_into_float(x, k):
    x[:, 1:] = k * 2
    return x


def one_element_of_a_view(x):
    r = x[::-1]
    r[0] = -1.0  # x's last element
    return x


def into_a_fresh_array(x):
    out = np.zeros_like(x)
    out[1:] = x[1:] * 2.0
    out[0] = -1.0
    return out, x.sum()


def into_a_computed_array(x):
    y = x * 3.0
    y[:, ::2] = 0.5
    return y


def masked_assignment(x, m):
    x[m] = 0
    return x


def nothing_selected(x):
    x[2:2] = 1.0
    return x


def read_after_store(out, x):
    out[1:-1] = x[1:-1] * 2.0
    y = out + 1
    out[:, 0] = y[:, 1]
    return y


def shifted_onto_itself(out):
    out[1:] = out[:-1]
    return out


def read_after_the_stores(out, x):
    out[1:-1] = x[1:-1] * 2.0
    out[0] = x.max()
    return out.sum(axis=1), out[::2] + x[::2], x


def fresh_array_read_after(x):
    y = np.zeros_like(x)
    y[::2] = x[::2] ** 2
    return np.sqrt(y[1:]) * y.mean()


def stores_between_reads(x):
    a = x.sum()
    x[0] = a
    b = x[:2].max(axis=1)
    x[1:3, ::2] = b[1]
    x[-1] += x[0]
    return a, b, x.mean()


STORES = [
    (interior, (rng.standard_normal((6, 5)), rng.standard_normal((6, 5)))),
    (strided_update, (np.ones(9, np.float32), np.float32(3.0))),
    (reversed_column, (np.zeros((5, 3)),)),
    (through_transpose, (np.zeros((4, 6)), rng.standard_normal(4))),
    (int_into_float, (np.zeros((3, 4), np.float32), np.arange(3).reshape(3, 1))),
    (nothing_selected, (np.ones(5),)),
    (one_element_of_a_view, (np.ones(5),)),
    (into_a_fresh_array, (rng.standard_normal(7),)),
    (into_a_computed_array, (rng.standard_normal((3, 5)).astype(np.float32),)),
    (masked_assignment, (rng.standard_normal(6), np.arange(6) % 3 == 0)),
    (sum_after_store, (rng.standard_normal(7), 2.5)),
    (read_after_store, (rng.standard_normal((6, 5)), rng.standard_normal((6, 5)))),
    (shifted_onto_itself, (rng.standard_normal((6, 5)),)),
    (read_after_the_stores, (rng.standard_normal((5, 4)), rng.standard_normal((5, 4)))),
    (fresh_array_read_after, (rng.standard_normal(9).astype(np.float32),)),
    (stores_between_reads, (rng.standard_normal((4, 5)),)),
    (float_into_int, (np.zeros(5, np.int64), np.array([0.5, -2.7, 3.9, 1e3, -0.0]))),
    (reshaped_after_store, (rng.standard_normal((3, 4)),)),
    (swapped_in_a_row, (rng.standard_normal((4, 3)), -2.0)),
]


def _report(fn, args) -> str:
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    return str(astcompile.explain(astcompile.compile(fn, backend="triton"), *copies))


@pytest.mark.parametrize("fn, args", STORES, ids=[f.__name__ for f, _ in STORES])
def test_stores_into_views_run_as_triton_store_kernels(fn, args, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same(fn, *args, backend="triton")
    assert "on triton" in _report(fn, args)


def test_a_store_kernel_writes_through_the_views_strides(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(reversed_column, backend="triton")
    compiled(np.zeros((5, 3)))
    (run,) = [e.run for entries in compiled.regions[0].entries.values() for e in entries]
    assert "tl.store(dst_at" in run.triton_source and "dst_s0" in run.triton_source
    assert "_bcast(" in run.py_source  # the value broadcast to the view's shape


ON_C = [
    (reshaped_before_store, (rng.standard_normal((3, 4)),)),
    (complex_store, (np.zeros(4, complex), rng.standard_normal(4) + 1j)),
]


@pytest.mark.parametrize("fn, args", ON_C, ids=[f.__name__ for f, _ in ON_C])
def test_stores_triton_cannot_order_run_on_c_with_numpys_results(fn, args, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same(fn, *args, backend="triton")
    report = _report(fn, args)
    assert "on triton" not in report  # on C, or the plain body where C cannot either
    assert "on c (" not in report or "on c (stores Triton cannot lower" in report


def test_store_kernels_compile_for_sm80_and_sm90(tmp_path, monkeypatch):
    """Both phases' kernels and the store kernels, compiled ahead of time (no GPU needed)."""
    aot = pytest.importorskip("test_triton_aot")
    codes = {}
    aot_cases = [interior, strided_update, into_a_fresh_array, read_after_the_stores]
    for fn, args in [(f, a) for f, a in STORES if f in aot_cases]:
        code = lowered(trace_callable(fn, list(args)), "triton").code
        assert any(name.endswith("_s0") for name in code.signatures)
        codes[fn.__name__] = code
    aot.compiled_in_a_child(codes, tmp_path)


def test_a_max_over_an_empty_axis_after_a_store_raises_numpys_error(monkeypatch):
    def stored_then_max(x):
        x[0] = 1.0
        return x.max(axis=1)

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(stored_then_max, backend="triton")
    compiled(np.ones((2, 3)))
    x, expected = np.ones((2, 0)), np.ones((2, 0))
    with pytest.raises(ValueError):
        stored_then_max(expected)
    with pytest.raises(ValueError):
        compiled(x)
    np.testing.assert_array_equal(x, expected)


def test_a_store_into_one_argument_orders_the_reads_of_another(monkeypatch):
    """``f(x, x[1:])``: two arguments may be one array, so a store into one is seen by the
    reads of the other that follow it."""

    def through_a_view(x, tail):
        tail[0] = 5.0
        return x * 2.0

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    x, expected_x = np.arange(4.0), np.arange(4.0)
    got = astcompile.compile(through_a_view, backend="triton")(x, x[1:])
    np.testing.assert_array_equal(got, through_a_view(expected_x, expected_x[1:]))
    np.testing.assert_array_equal(x, expected_x)


def stored_then_checked(x, w):
    x[0] = 7.0
    return np.average(x, axis=1, weights=w)  # raises ZeroDivisionError where w sums to 0


def test_a_check_raises_after_the_stores_before_it(monkeypatch):
    """A check (NumPy's error, ``assert``) runs between the stores, where the program has it."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(stored_then_checked, backend="triton")
    x, w = rng.standard_normal((3, 4)), rng.random(4) + 0.5
    assert_same(stored_then_checked, x, w, backend="triton")
    assert "on triton" in _report(stored_then_checked, (x, w))
    got, expected = x.copy(), x.copy()
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        stored_then_checked(expected, np.zeros(4))
    with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
        compiled(got, np.zeros(4))
    np.testing.assert_array_equal(got, expected)  # the store before the check was made


def test_a_store_into_a_read_only_argument_raises_numpys_error(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    out = np.zeros((6, 5))
    out.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        astcompile.compile(interior, backend="triton")(out, np.ones((6, 5)))
    assert not out.any()


@pytest.mark.parametrize("fn", [interior, read_after_the_stores], ids=["one phase", "phases"])
def test_a_later_call_with_a_read_only_argument_stores_nothing(fn, monkeypatch):
    """The compiled entry's first phase checks the written arguments before anything is
    stored: a read-only one raises NumPy's error, as the plain statements do."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(fn, backend="triton")
    compiled(np.zeros((6, 5)), np.ones((6, 5)))
    out = np.zeros((6, 5))
    out.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        compiled(out, np.ones((6, 5)))
    assert not out.any()
