"""NumPy's memory order of new arrays (trace/memory_order.py): an elementwise result is laid
out like its operands (``order='K'``), so ``flags``, ``strides``, a later ``reshape`` (a view
or a copy) and writes through it are NumPy's."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same, copy_args, target_mode

import astcompile


def _layout(value):
    """What a later reshape, ``.T`` or ``.flags`` sees of an array: its flags and strides."""
    if isinstance(value, tuple):
        return tuple(_layout(v) for v in value)
    flags = value.flags
    return flags.c_contiguous, flags.f_contiguous, value.strides


def assert_same_layout(fn, *args, backend, whole=True):
    """Values as NumPy's (the differential helper), then each result's flags and strides, of
    a function compiled ``whole`` (a region run as written would hold nothing to account)."""
    expected = fn(*copy_args(args))
    with target_mode(backend):
        compiled = astcompile.compile(fn, backend=backend)
        got = compiled(*copy_args(args))
        report = astcompile.explain(compiled, *copy_args(args))
    assert report.graph_break_count == 0 or not whole, str(report)
    assert_same(fn, *args, backend=backend)
    assert _layout(got) == _layout(expected)


def _chain(a):
    return np.exp(a) * 2.0 + a


def _mixed(a, c, row):
    return a + 0, a + row, a + c, a.T + 1.0, np.where(a > 3, a, -a), (a * 2).astype(np.float32)


def _reshape_then_write(a):
    b = a + 0
    c = b.reshape(-1)  # NumPy: a copy of the F-ordered b, so the loop leaves b alone
    for i in range(c.shape[0]):
        c[i] += 1.0
    return b.sum(axis=1), c


def _flat_reshape_then_write(a):
    b = a * 1.0
    c = b.reshape(-1)
    c[0] = 99.0
    return b, c


def _fortran(shape=(3, 4)):
    return np.asfortranarray(np.arange(float(np.prod(shape))).reshape(shape))


@pytest.mark.parametrize("backend", BACKENDS)
def test_elementwise_results_of_fortran_arrays_are_fortran_ordered(backend):
    assert_same_layout(_chain, _fortran(), backend=backend)
    assert_same_layout(_chain, _fortran((2, 3, 4)), backend=backend)
    assert_same_layout(_mixed, _fortran(), np.ones((3, 4)), np.ones(4), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_transposed_argument_gives_a_fortran_ordered_result(backend):
    """``x.T + 1.0`` of a C-ordered ``x`` is F-ordered in NumPy (its operand's order)."""
    assert_same_layout(lambda x: (x.T + 1.0, np.sin(x.T) * x.T), np.ones((3, 4)), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_of_a_fortran_result_is_a_copy(backend):
    """The reshape copies in NumPy: writes through it do not reach ``b`` (compiled, they did:
    off by one everywhere)."""
    assert_same(_reshape_then_write, _fortran(), backend=backend)
    assert_same_layout(_flat_reshape_then_write, _fortran(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_broadcast_operands_stay_c_ordered_and_compiled(backend):
    """Arrays of zero strides (what Dask's stand-ins are) have no say: C order, one graph."""
    x = np.broadcast_to(1.0, (3, 4))
    fn = lambda x: x * 2.0 + 1.0
    assert_same_layout(fn, x, backend=backend)
    assert astcompile.explain(fn, x).graph_count == 1


def _layouts():
    """Arguments of every kind of layout the guard key tells apart, (3, 4) or (2, 3, 4)."""
    c2, c3 = np.arange(12.0).reshape(3, 4), np.arange(24.0).reshape(2, 3, 4)
    wide = np.arange(48.0).reshape(6, 8)
    return {
        "C": c2,
        "F": np.asfortranarray(c2),
        "F-step": np.asfortranarray(wide)[::2, ::2],
        "T-step": np.arange(48.0).reshape(8, 6).T[::2, ::2],
        "C-step": wide[::2, ::2],
        "3-D strided (2, 0, 1)": np.arange(96.0).reshape(4, 6, 4)[::2, ::2].transpose(2, 0, 1),
        "reversed": np.asfortranarray(c2)[::-1],
        "broadcast": np.broadcast_to(np.arange(4.0), (3, 4)),
        "3-D F": np.asfortranarray(c3),
        "3-D (1, 0, 2)": np.arange(24.0).reshape(3, 2, 4).transpose(1, 0, 2),
    }


def _two(a, b):
    return a + b, np.where(a > 2.0, a, b * 2.0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", list(_layouts()))
def test_results_take_numpys_layout_from_any_argument_layout(backend, kind):
    """One argument of each layout, alone and with an F- and a C-ordered partner (where they
    disagree NumPy takes C order) or a broadcast row."""
    a = _layouts()[kind]
    partners = [np.ones(a.shape), np.asfortranarray(np.ones(a.shape)), np.ones(a.shape[-1])]
    assert_same_layout(_chain, a, backend=backend)
    for b in partners:
        assert_same_layout(_two, a, b, backend=backend)


def _reductions(a):
    return a.sum(axis=1), a.max(axis=2), a.mean(0), np.var(a, axis=1), a.sum(0, keepdims=True)


def _scans_and_indexing(a):
    return np.cumsum(a, axis=1), np.exp(a).sum(axis=2) + a[:, :, 0], a.argmax(0), a[1] * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["3-D F", "3-D (1, 0, 2)", "3-D strided (2, 0, 1)"])
def test_reductions_scans_and_indexing_keep_the_arrays_order(backend, kind):
    """A reduction keeps the order of the axes it keeps (``F3.sum(axis=1)`` is F-ordered;
    argmax is C-ordered), so does ``np.cumsum`` along an axis, and ``a[:, :, 0]`` of an F
    array is F-ordered."""
    a = _layouts()[kind]
    assert_same_layout(_reductions, a, backend=backend)
    assert_same_layout(_scans_and_indexing, a, backend=backend)


def _copies(a):
    made = (np.copy(a), a.copy(), np.array(a), np.array(a, order="C"), np.asarray(a, np.float32))
    return made + (np.zeros_like(a), np.full_like(a, 2.0), a.astype(np.float32, order="C"))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["F", "T-step", "3-D (1, 0, 2)"])
def test_copies_and_like_arrays_take_the_order_asked_for(backend, kind):
    """``np.copy``, ``np.array`` and the ``*_like`` functions keep the array's order
    (``order='K'``); ``x.copy()`` and ``order="C"`` make C-ordered arrays."""
    assert_same_layout(_copies, _layouts()[kind], backend=backend)


def _split_then_write(a):
    r = a.reshape(3, 2, 2)  # a view of the F-ordered argument in NumPy: no axes merged
    r[0, 0, 0] = 100.0
    return r, (a + 1.0).reshape(3, 2, 2)


def _merge_then_write(a):
    r = a.reshape(-1)  # a copy in NumPy: the long axes are merged
    r[0] = 100.0
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_is_a_view_or_a_copy_as_numpy_decides(backend):
    """Writes through the reshape reach the argument exactly when NumPy's is a view (a store
    through a reshape of a strided array is beyond the C target's loops: that region runs
    as written)."""
    assert_same_layout(_split_then_write, _fortran(), backend=backend, whole=False)
    assert_same_layout(_merge_then_write, _fortran(), backend=backend)


def _joins(a):
    return np.concatenate([a, a * 2.0]), np.stack([a, a]), np.hstack([a, a]), np.roll(a, 1, 0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["C", "F", "T-step"])
def test_joined_arrays_take_their_parts_order(backend, kind):
    """``np.concatenate`` (and stack, hstack, roll through it) lays its result out in the
    order of its parts' strides, as NumPy does."""
    assert_same_layout(_joins, _layouts()[kind], backend=backend)


def _carried(a, n):
    b = np.zeros_like(a)
    c = a + 0.0
    for i in range(n):
        b += a
        c = c * 2.0
    return b, c, c.reshape(-1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["F", "3-D (1, 0, 2)"])
def test_arrays_carried_through_loops_keep_their_order(backend, kind):
    """The buffer a loop carries an array in is laid out as NumPy's array (its axes in their
    memory order), whether updated in place or rebound."""
    assert_same_layout(_carried, _layouts()[kind], 3, backend=backend)


@pytest.mark.parametrize("backend", TRITON)
def test_the_triton_target_keeps_numpys_order(backend):
    """The same transposes on Triton (its interpreter without a GPU): one chain, a reduction,
    an array carried through a loop."""
    a = _fortran()
    assert_same_layout(_chain, a, backend=backend)
    assert_same_layout(lambda a: a.sum(axis=1) + a[:, 0], _fortran((2, 3, 4)), backend=backend)
    assert_same_layout(_carried, a, 2, backend=backend)
