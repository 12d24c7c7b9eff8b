"""Reshapes late: elementwise ops on a reshaped array (with scalars) run before the reshape, in
the kernel that makes the array; values, dtypes, shapes and identity stay NumPy's."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls
from graphs import apply, array, const, graph, ops

import astcompile
from astcompile import config
from astcompile.ir.ops import Op
from astcompile.passes.reshape_late import reshape_late


def _reshape(x, shape):
    return apply(Op.RESHAPE, x, shape=shape, attr=shape)


def test_elementwise_ops_move_before_the_reshape():
    x = array(0, shape=(3, 4))
    flat = _reshape(x, (12,))
    out = apply(Op.ADD, apply(Op.MUL, flat, const(2.0)), const(1.0))
    after, changed = reshape_late(graph([x], [out]))
    assert changed
    assert ops(after) == [Op.INPUT, Op.CONST, Op.MUL, Op.CONST, Op.ADD, Op.RESHAPE]
    (result,) = after.outputs
    assert result.shape == (12,) and result.inputs[0].shape == (3, 4)


def test_an_array_operand_of_another_shape_keeps_the_reshape():
    x, y = array(0, shape=(3, 4)), array(1, shape=(12,))
    out = apply(Op.ADD, _reshape(x, (12,)), y)
    assert not reshape_late(graph([x, y], [out]))[1]


def upsample(x, k):
    y = np.repeat(x, k)
    return y * 0.5 + 0.25


def flat_scaled(a, b):
    return a.reshape(-1) * 2.0 - b.reshape(-1), (a.T.reshape(-1) + 1).astype(np.float32)


def kept_and_scaled(x):
    flat = x.reshape(-1)
    return flat, flat * 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_repeat_then_arithmetic_gives_numpys_answer(backend):
    x = np.random.default_rng(5).random(1000)
    calls = [(x, 4), (x[:7], 3), (x[:0], 4), (x[::3], 2), (x[:3], 20_000), (x.astype(np.int32), 4)]
    assert_same_calls(upsample, calls, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reshaped_operands_and_a_kept_reshape(backend):
    a, b = np.arange(12.0).reshape(3, 4), np.ones((2, 6))
    assert_same(flat_scaled, a, b, backend=backend)
    assert_same(kept_and_scaled, a, backend=backend)  # the kept reshape: a view of ``a``


def test_repeat_then_arithmetic_is_one_kernel_with_its_row_length_known(tmp_path, monkeypatch):
    """The row of ``np.repeat(x, 4)`` is 4 long in the C (GCC unrolls it), not a size read at
    run time, and the arithmetic after it is in the same kernel."""
    monkeypatch.setattr(config, "debug_dir", str(tmp_path))
    monkeypatch.setattr(config, "tiering", False)
    astcompile.compile(upsample, backend="c")(np.random.default_rng(5).random(100), 4)
    (c_file,) = glob.glob(os.path.join(str(tmp_path), "*", "*.lower.c"))
    with open(c_file) as f:
        code = f.read()
    assert code.count("_rows(const") == 1
    assert "const int64_t n1 = 4;" in code and "nch = 1;" in code
