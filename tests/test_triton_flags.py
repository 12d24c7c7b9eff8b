"""targets/triton: Triton kernels report the IEEE flags of what they compute (a flags buffer,
raised on the CPU after the launch: runtime/triton_runtime.Flags), so a Triton region warns
as NumPy does through the C regions' mechanism (jit/fp_errors.py); max/min of signed zeros."""

from __future__ import annotations

import numpy as np
import pytest
from differential import (
    TRITON,
    assert_same_call,
    assert_same_signs,
    assert_same_warnings,
    runtime_warnings,
    target_mode,
)
from test_errstate import WARNING_CASES
from test_fp_errors_casts import int8_abs_sums, int64_item_product, sign_flips

import astcompile
from astcompile.runtime import triton_runtime

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")


def quotient_plus_max(x, y):
    return np.exp(x) / y + x.max()


def logs(x):
    return np.log(x) + np.sqrt(x) * 2.0


def inverse_trig(x):
    return np.arcsin(x) + np.arccos(x)


def powers(x, y):
    return np.power(x, y) - 1.0


def exp_scaled(x):
    return np.exp(x) * 1e-300  # underflow: "underflow encountered in multiply"


def narrowed(x):
    return (x * 2.0).astype(np.float32)  # "overflow encountered in cast"


def with_nans(x):
    return x * 2.0 + 1.0  # a NaN in is no NaN made: no warning


def short_ratio(x):
    return 1.0 / x  # three lanes of a block: the masked-off ones divide 0 by 0 unseen


def empty_mean(x):
    return x.mean()


def scaled_product(a, w):
    return (a @ w) * 1e300  # a matmul kernel's epilogue: "overflow encountered in multiply"


def remainders(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] % b[i]  # "divide by zero encountered in scalar remainder"
    return out


def folds(x):
    return x.sum() + x.mean() + np.prod(x)  # inf - inf: "invalid value encountered in reduce"


def scans(x):
    return np.cumsum(x) - np.cumprod(x)  # "invalid value encountered in accumulate"


ONES = np.ones(3)
CASES = [
    *WARNING_CASES,
    (quotient_plus_max, (np.array([1.0, 800.0, 3.0]), np.array([1.0, 0.0, 2.0]))),
    (logs, (np.array([1.0, 0.0, -1.0]),)),
    (inverse_trig, (np.array([0.5, 2.0, -3.0], np.float32),)),
    (powers, (np.array([0.0, -2.0, 10.0]), np.array([-1.0, 0.5, 400.0]))),
    (exp_scaled, (np.array([-1.0, 1.0]),)),
    (narrowed, (np.array([1e300, 1.0]),)),
    (with_nans, (np.array([np.nan, np.inf, 1.0]),)),
    (short_ratio, (np.array([1.0, 2.0, 4.0]),)),
    (empty_mean, (np.zeros(0),)),
    (folds, (np.array([1.0, np.inf, -np.inf]),)),
    (folds, (np.array([np.nan, np.inf, 2.0]),)),
    (folds, (np.full(17, 3e38, np.float32),)),  # float32 totals overflow, held in float64
    (folds, (np.full(40, 1e-3, np.float32),)),  # a float32 product underflows
    (scans, (np.array([1.0, np.inf, -np.inf, 2.0]),)),
    (scans, (np.array([np.nan, np.inf, 2.0]),)),
    (scans, (np.full(17, 3e38, np.float32),)),
    (scans, (np.full(3000, 0.5),)),  # a product underflows, in steps
    (scans, (np.r_[np.ones(70_000), np.inf, -np.inf],)),  # a long row's parts
    (scaled_product, (np.ones((4, 3)), np.ones((3, 2)))),
    (remainders, (np.arange(4, dtype=np.int32), np.array([1, 0, 2, 3], np.int32))),
    (sign_flips, (np.array([np.iinfo(np.int64).min, 1, 2], np.int64),)),
    (sign_flips, (np.array([3, 1, 2], np.uint8),)),
    (int8_abs_sums, (np.array([-128, 3], np.int8),)),
    (int64_item_product, (np.arange(1, 30, dtype=np.int64),)),
]


@pytest.mark.parametrize(
    "fn, args", CASES, ids=[f"{c[0].__name__}{k}" for k, c in enumerate(CASES)]
)
def test_triton_warns_as_numpy_does(fn, args):
    """Each call warns as the plain call does (divide, overflow, underflow, invalid; NumPy's
    integer scalar operators), and a filter making them errors raises as NumPy: Triton
    kernels raised no flag, and the interpreter's own NumPy ops warned of masked-off lanes."""
    assert_same_warnings(fn, *args, backend="triton")
    compiled = astcompile.compile(fn, backend="triton")
    assert_same_call(compiled, tuple(a.copy() for a in args), fn, args, "triton")


def test_kernels_compute_flags_only_while_numpy_reports_them(monkeypatch):
    """Under np.errstate(all="ignore") a kernel is launched with its flags off (``FP``), so it
    pays nothing for them; reported, they are on."""
    seen = []
    launch = triton_runtime._launch
    monkeypatch.setattr(
        triton_runtime, "_launch", lambda *a, **k: seen.append(k.get("FP")) or launch(*a, **k)
    )
    compiled = astcompile.compile(quotient_plus_max, backend="triton")
    args = (np.array([1.0, 800.0]), np.array([0.0, 1.0]))
    with target_mode("triton"):
        with np.errstate(all="ignore"):
            compiled(*args)
        assert seen and not any(seen)
        assert runtime_warnings(compiled, *args) == runtime_warnings(quotient_plus_max, *args)
    assert seen[-1] is True


def extremes(x):
    return x.max(), x.min(), np.max(x, axis=-1), np.min(x, axis=-1)


rng = np.random.default_rng(7)
ZEROS = [
    np.array([0.0, -0.0]),
    np.array([-0.0, 0.0]),
    np.array([-0.0, -1.0, 0.0, -2.0]),
    np.array([np.nan, -0.0]),
    *(np.where(rng.random(n) < 0.5, -0.0, 0.0) for n in (5, 7, 3000, 70_000)),
    np.where(rng.random((3, 5)) < 0.5, -0.0, 0.0).astype(np.float32),
]


@pytest.mark.parametrize("x", ZEROS, ids=[f"zeros{k}" for k in range(len(ZEROS))])
def test_max_min_of_equal_zeros_keep_the_later_one(x):
    """Of equal values (0.0 and -0.0) max/min keep the later one, as NumPy's loop and C do
    (``tl.max`` left the tie to the lanes): one block, a row in steps, parts of a long row."""
    compiled = astcompile.compile(extremes, backend="triton")
    with target_mode("triton"):
        got = compiled(x)
    expected = extremes(x)
    assert_same_call(compiled, (x,), extremes, (x,), "triton")
    assert_same_signs(got, expected)
