"""``backend="auto"`` picks per call by the arguments' kind (targets.resolve_for_call): device
arrays go to Triton, NumPy arrays to the function's own choice (C, or Triton under
``astcompile.device("cuda")``). The whole path with a device array needs a GPU and CuPy."""

from __future__ import annotations

import numpy as np
import pytest
from differential import TRITON, gpu_present

import astcompile
from astcompile.targets import on_device, resolve_for_call


def scale(x, a):
    return np.tanh(x) * a + 1.0


class CudaInterface:
    """Only the attribute the decision reads (the decision alone, not a compile)."""

    @property
    def __cuda_array_interface__(self) -> dict:
        return {"shape": (3,), "typestr": "<f8", "data": (0, False), "version": 3}


def test_numpy_arguments_leave_the_choice_to_the_function():
    x = np.ones(4)
    assert resolve_for_call("auto", (x, 2.0)) is None
    assert resolve_for_call("auto", ((x, x), [x])) is None


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
def test_a_device_array_anywhere_in_the_arguments_picks_triton():
    assert on_device(((1, CudaInterface()),))
    assert resolve_for_call("auto", (np.ones(3), [CudaInterface()])) == "triton"
    assert resolve_for_call("c", (CudaInterface(),)) is None  # an explicit backend wins


def test_auto_with_numpy_arrays_runs_on_c():
    x = np.linspace(-2, 2, 11)
    report = astcompile.explain(astcompile.compile(scale), x, 3.0)
    assert "on c" in str(report)
    np.testing.assert_allclose(report.out, scale(x, 3.0))


@pytest.mark.skipif(not gpu_present(), reason="needs a CUDA GPU and CuPy")
def test_auto_runs_device_arrays_on_triton_and_numpy_arrays_on_c():
    import cupy as cp

    compiled = astcompile.compile(scale)
    x = np.linspace(-2, 2, 1000)
    on_gpu = compiled(cp.asarray(x), 3.0)
    assert isinstance(on_gpu, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(on_gpu), scale(x, 3.0), rtol=1e-12)
    np.testing.assert_allclose(compiled(x, 3.0), scale(x, 3.0), rtol=1e-12)
    targets = {e.run.target for entries in compiled.regions[0].entries.values() for e in entries}
    assert targets == {"triton", "c"}
