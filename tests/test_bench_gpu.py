"""bench/gpu.py imports everywhere and measures nothing where there is no GPU."""

from __future__ import annotations

import numpy as np
import pytest
from differential import gpu_present

from bench import gpu


@pytest.mark.skipif(gpu_present(), reason="a GPU is here: the benchmark would run")
def test_without_a_gpu_it_says_so_and_succeeds(capsys):
    assert gpu.main() == 0
    assert "no GPU here" in capsys.readouterr().out


def test_matmul_cases_are_float32_and_float64_products():
    cases = gpu.matmul_cases((5, 3, 4))
    assert [args[0].dtype for _, args in cases] == [np.float32, np.float64]
    for fn, (a, w, b) in cases:
        assert (a.shape, w.shape, b.shape) == ((5, 4), (4, 3), (3,))
        assert fn.__name__ == "matmul_bias_relu"
