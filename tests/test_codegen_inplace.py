"""Kernel outputs written over an extern matmul's fresh result, and only when nothing else
can see that result."""

from __future__ import annotations

import numpy as np
import pytest

from tests.c_helpers import check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _args(seed=3, dtype=np.float32):
    rng = np.random.default_rng(seed)
    return [
        rng.random((8, 5)).astype(dtype),
        rng.random((5, 4)).astype(dtype),
        rng.random(4).astype(dtype),
    ]


def test_epilogue_writes_into_the_matmul_result(tmp_path):
    compiled = check(lambda a, w, b: np.maximum(a @ w + b, 0.0), _args(), str(tmp_path))
    assert "_empty(" not in compiled.py_source  # no second array
    assert "float* out_" in compiled.c_source and "restrict out_" not in compiled.c_source


def test_matmul_result_that_leaves_the_region_is_not_overwritten(tmp_path):
    compiled = check(lambda a, w, b: (a @ w, np.maximum(a @ w + b, 0.0)), _args(), str(tmp_path))
    product, relu = compiled(_args())
    assert not np.shares_memory(product, relu)


def test_matmul_result_read_by_two_kernels_is_not_overwritten(tmp_path):
    def two_reads(a, w, b):
        p = a @ w
        return np.tanh(p) + b, p.sum(axis=1)

    compiled = check(two_reads, _args(), str(tmp_path))
    assert "_empty(" in compiled.py_source


def test_other_dtype_or_broadcast_output_gets_its_own_array(tmp_path):
    widened = check(lambda a, w, b: (a @ w) * 2.0 + b.astype(np.float64), _args(), str(tmp_path))
    assert "_empty(" in widened.py_source
    rng = np.random.default_rng(0)
    col = [rng.random((8, 5)), rng.random((5, 1)), rng.random(4)]
    outer = check(lambda a, w, b: (a @ w) + b, col, str(tmp_path))  # (8, 1) + (4,) -> (8, 4)
    assert "_empty(" in outer.py_source
