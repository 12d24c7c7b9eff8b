"""NumPy's shape and layout functions (trace/numpy_layout.py): which results are views of their
argument and which are copies, as NumPy decides it from the argument's layout."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from differential import BACKENDS, TRITON, assert_same, assert_same_calls, target_mode

import astcompile


def _ravel_then_write(x):
    r = x.ravel()
    r[0] = 99.0
    return r, x.reshape(-1)


def _ravel(x):
    return x.ravel(), np.ravel(x) * 2.0


def _ravel_of_a_slice_then_write(x):
    r = x[1:].ravel()
    r += 1.0
    return x * 2.0


def _arrays():
    base = np.arange(24.0).reshape(4, 6)
    return [base[0], base[0, ::2], base[:, ::2], base.T, np.asfortranarray(base), base[::-1]]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_ravel, _ravel_then_write, _ravel_of_a_slice_then_write])
@pytest.mark.parametrize("k", range(len(_arrays())))
def test_ravel_is_a_view_only_of_a_c_contiguous_array(backend, fn, k):
    """``x.ravel()`` copies any array that is not C-contiguous, also where ``reshape(-1)``
    would be a view (``x[::2]``, ``x[:, ::2]``): writing into it must not reach ``x``."""
    assert_same(fn, _arrays()[k], backend=backend)


def _squeezed(x):
    return x.squeeze(), np.squeeze(x, axis=())


@pytest.mark.parametrize("backend", BACKENDS)
def test_squeeze_with_nothing_to_squeeze_is_the_array_itself(backend):
    """NumPy returns the array itself (``x.squeeze() is x``), not a new view of it."""
    assert_same(_squeezed, np.ones(3), backend=backend)
    assert_same(_squeezed, np.ones((2, 1)), backend=backend)


def _sums(x):
    return x.sum(), (x[:, ::2] > 1.0).sum(axis=0)


def _add_into(x):
    x += 1.0
    return x


def _peak_bytes(fn, *args):
    """The most memory NumPy held at once during ``fn(*args)`` (NumPy reports to tracemalloc)."""
    tracemalloc.start()
    try:
        fn(*args)
    except ValueError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


@pytest.mark.parametrize("backend", BACKENDS + TRITON)
def test_a_broadcast_argument_is_read_through_its_strides(backend):
    """``np.broadcast_to(1.5, (n, n))`` holds one number: compiled code reads it through its
    zero strides (it was copied into a whole array, a MemoryError where NumPy returns), and a
    write into it raises NumPy's ValueError before anything is computed (``x + 1`` was)."""
    x = np.broadcast_to(1.5, (1000, 1000))
    assert_same(_sums, x, backend=backend)
    assert_same_calls(_add_into, [(x,)], backend=backend)
    for fn in (_sums, _add_into):
        compiled = astcompile.compile(fn, backend=backend)
        with target_mode(backend):
            _peak_bytes(compiled, x)  # compiles
            copied = x.size * x.itemsize  # a copy of x would cost this much
            assert _peak_bytes(compiled, x) < _peak_bytes(fn, x) + copied // 4, fn.__name__


def _copies_in_fortran_order(x):
    return x.copy(order="F"), np.copy(x[::-1], order="F"), x.astype(np.float32, order="F")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_copy_in_fortran_order_is_fortran_ordered(backend):
    """``x.copy(order="F")`` and ``astype(..., order="F")`` are F-contiguous (they came back
    C-contiguous: a later ``reshape`` would be a view where NumPy copies). Found by the
    NumPy-semantics generator (tests/generated_semantics.py)."""
    assert_same(_copies_in_fortran_order, np.arange(6.0).reshape(2, 3, 1), backend=backend)
    assert_same(_copies_in_fortran_order, np.arange(12.0).reshape(3, 4)[:, ::2], backend=backend)
