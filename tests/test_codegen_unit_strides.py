"""Loop regions index an argument's last axis with the constant stride 1 where the entry's
guard key assures it C-contiguous (read or written), so gcc vectorises its loads and stores;
another layout is another guard key, so another entry with the strided code."""

from __future__ import annotations

import re

import numpy as np
import pytest

import astcompile
from bench.loop_kernels import clip_into
from tests.differential import assert_same_call


def shifted_rows(a, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * 2.0 + i
    return out


@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))  # no warm entries


def _entries(compiled) -> list:
    return [e.run for r in compiled.regions for found in r.entries.values() for e in found]


def test_a_contiguous_argument_is_indexed_with_unit_stride(private_cache):
    x = np.random.default_rng(0).standard_normal(1000)
    compiled = astcompile.compile(clip_into, backend="c")
    assert_same_call(
        compiled, (x, np.empty_like(x), -0.5, 0.5), clip_into, (x, np.empty_like(x), -0.5, 0.5)
    )
    (run,) = _entries(compiled)
    assert re.search(r"\n\s*out_\d+\[i_\d+\] = t\d+;", run.c_source), run.c_source
    assert not re.search(r"\[i_\d+ \* \w+_s0\]", run.c_source)  # no run-time stride
    assert "_contiguous(" not in run.py_source  # the key checked it: no copy to make


def test_a_contiguous_matrix_keeps_its_row_stride(private_cache):
    a = np.arange(12.0).reshape(3, 4)
    compiled = astcompile.compile(shifted_rows, backend="c")
    assert_same_call(compiled, (a, np.empty_like(a)), shifted_rows, (a, np.empty_like(a)))
    (run,) = _entries(compiled)
    assert re.search(r"out_\d+\[i_\d+ \* out_\d+_s0 \+ j_\d+\] = ", run.c_source), run.c_source


@pytest.mark.parametrize(
    "make_out",
    [
        lambda a: np.empty_like(a, order="F"),
        lambda a: np.empty((a.shape[0], 2 * a.shape[1]))[:, ::2],
        lambda a: np.empty((a.shape[1], a.shape[0])).T,
    ],
    ids=["fortran", "every-other-column", "transposed"],
)
def test_other_layouts_get_their_own_strided_entry(private_cache, make_out):
    """The contiguous entry first, then the same compiled function on another layout of the
    written argument (and of the read one): a second entry, indexed by run-time strides."""
    a = np.random.default_rng(1).standard_normal((5, 7))
    compiled = astcompile.compile(shifted_rows, backend="c")
    assert_same_call(compiled, (a, np.empty_like(a)), shifted_rows, (a, np.empty_like(a)))
    for read in (a, np.asfortranarray(a), np.repeat(a, 2, axis=1)[:, ::2]):
        got, want = make_out(a), make_out(a)
        assert_same_call(compiled, (read, got), shifted_rows, (read, want))
    strided = [r for r in _entries(compiled) if re.search(r"j_\d+ \* out_\d+_s1", r.c_source)]
    assert len(_entries(compiled)) >= 2 and strided


def test_a_strided_vector_is_written_through_its_stride(private_cache):
    x = np.random.default_rng(2).standard_normal(301)
    compiled = astcompile.compile(clip_into, backend="c")
    outs = [lambda: np.empty(301), lambda: np.zeros(602)[::2], lambda: np.zeros(903)[::-3]]
    for out in outs:
        assert_same_call(
            compiled, (x[::-1], out(), -0.5, 0.5), clip_into, (x[::-1], out(), -0.5, 0.5)
        )
    assert any(re.search(r"\[i_\d+ \* out_\d+_s0\]", r.c_source) for r in _entries(compiled))


def running_sum(x, out):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * 1.5
        out[i] = s
    return s


def test_a_carried_sum_into_a_unit_stride_argument_stays_in_order(private_cache):
    """Unit strides let gcc vectorise; a sum carried round the loop must still add in the
    order Python adds, bit for bit (values of wildly different sizes would show a reorder)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(10_007) * 10.0 ** rng.integers(-8, 8, 10_007)
    got, want = np.empty_like(x), np.empty_like(x)
    compiled = astcompile.compile(running_sum, backend="c")
    assert compiled(x, got) == running_sum(x, want)
    assert np.array_equal(got, want)
    assert any(re.search(r"out_\d+\[i_\d+\] = ", r.c_source) for r in _entries(compiled))


def every_other_pair(x):
    return x[::2] + x[1::2]


def transposed_sum(a):
    return a.T + a * 2.0


@pytest.mark.parametrize(
    "fn, args",
    [
        (every_other_pair, (np.arange(18.0),)),
        (every_other_pair, (np.arange(40.0)[::-3],)),
        (transposed_sum, (np.arange(36.0).reshape(6, 6),)),
        (transposed_sum, (np.asfortranarray(np.arange(16.0).reshape(4, 4)),)),
    ],
)
def test_a_view_never_of_unit_stride_is_read_with_its_strides(private_cache, fn, args):
    """``x[::2]``, ``a.T``: a flat kernel reads the view through its last stride rather than
    have the wrapper copy it (a C-contiguous argument keeps its constant stride 1)."""
    compiled = astcompile.compile(fn, backend="c")
    assert_same_call(compiled, args, fn, args, "c")
    (run,) = _entries(compiled)
    assert "_contiguous(" not in run.py_source
    assert re.search(r"\[t\d+_o\d+ \+ i\d+ \* t\d+_s\d+\]", run.c_source), run.c_source


def reversed_plus(x):
    return x[::-1] * 3.0 + x


def _field(n: int, name: str) -> np.ndarray:
    records = np.zeros(n, dtype=[("x", "f8"), ("y", "i4")])  # 12-byte records
    records["x"], records["y"] = np.arange(n) * 1.5, np.arange(n)
    return records[name]


def doubled_evens_sum(x):
    x[::2] *= 2
    return x.sum()


def running_sum_in_place(x):
    for i in range(1, len(x)):
        x[i] += x[i - 1]
    return x


@pytest.mark.parametrize("name", ["x", "y"])
@pytest.mark.parametrize(
    "fn", [reversed_plus, every_other_pair, doubled_evens_sum, running_sum_in_place]
)
def test_a_field_whose_strides_are_not_whole_items_is_read_right(private_cache, fn, name):
    """A field of 12-byte records (a byte stride no multiple of the f8's size) cannot be
    addressed by strides the C divides by the item size (a loop region's `x[::2] *= 2`
    returned 1e-314): its guard key's layout is "P" and the trace refuses it, so the
    statements run as written, writing into the caller's records."""
    compiled = astcompile.compile(fn, backend="c")
    for n in [0, 1, 2, 5, 16, 17, 16]:
        assert_same_call(compiled, (_field(n, name),), fn, (_field(n, name),), "c")
