"""The data pointers a region wrapper passes its kernels (``targets/wrapper.py``): cffi's C
``from_buffer`` called without its Python method, and an array that is not C-contiguous
passed by its address, as before."""

from __future__ import annotations

import numpy as np
import pytest

cffi = pytest.importorskip("cffi")

from astcompile.targets.wrapper import _pointers, unit_last  # noqa: E402


def _address(ffi, pointer) -> int:
    return int(ffi.cast("uintptr_t", pointer))


@pytest.mark.parametrize(
    "array",
    [
        np.arange(6.0),
        np.arange(12.0).reshape(3, 4),
        np.arange(12.0).reshape(3, 4)[:, ::2],  # strided: by address
        np.arange(12.0).reshape(3, 4).T,  # Fortran order: by address
        np.broadcast_to(1.0, (3, 4)),  # read-only, stride 0
        np.zeros(0),
    ],
)
def test_every_array_is_passed_at_its_data_address(array):
    ffi = cffi.FFI()
    ptr, fb = _pointers(ffi)
    assert _address(ffi, ptr(array)) == array.ctypes.data
    if array.flags.c_contiguous:
        assert _address(ffi, fb(array)) == array.ctypes.data


def test_a_buffer_keeps_its_array_alive_and_refuses_what_is_not_contiguous():
    ffi = cffi.FFI()
    _, fb = _pointers(ffi)
    pointer = fb(np.arange(4.0))  # the cdata holds the buffer, as ffi.from_buffer's does
    assert ffi.cast("double *", pointer)[3] == 3.0
    with pytest.raises(ValueError):
        fb(np.arange(8.0)[::2])


@pytest.mark.parametrize(
    "view",
    [
        np.arange(12.0)[::2],
        np.arange(12.0)[::-1],
        np.arange(12.0).reshape(3, 4).T,
        np.asfortranarray(np.arange(12.0).reshape(3, 4))[:, 1:],
        np.arange(24.0).reshape(2, 3, 4)[:, ::-1, ::2],
    ],
    ids=["every-other", "reversed", "transposed", "fortran", "3-d"],
)
def test_unit_last_copies_a_strided_view(view):
    got = unit_last(view)
    assert got.strides[-1] == view.itemsize and np.array_equal(got, view)
    assert not np.shares_memory(got, view)


def test_unit_last_keeps_a_broadcast_axis_broadcast():
    """One row copied, not the whole (60000, 60000) array a broadcast input stands for."""
    wide = np.broadcast_to(np.arange(8.0)[::2], (60000, 60000 // 15000))
    got = unit_last(wide)
    assert got.strides == (0, 8) and np.array_equal(got[-1], wide[-1])
    huge = np.broadcast_to(np.arange(3.0)[:, None, None], (3, 40000, 40000))[..., ::2]
    assert unit_last(huge).strides[1:] == (0, 8)  # 3 rows of 20000 copied
