"""The data pointers a region wrapper passes its kernels (``targets/wrapper.py``): cffi's C
``from_buffer`` called without its Python method, and an array that is not C-contiguous
passed by its address, as before."""

from __future__ import annotations

import numpy as np
import pytest

cffi = pytest.importorskip("cffi")

from astcompile.targets.wrapper import _pointers  # noqa: E402


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
