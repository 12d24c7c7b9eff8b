"""The benchmark suite: plain NumPy functions and their inputs (``quick`` shrinks them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def softmax(x):
    m = x.max(axis=1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def outer_sum(X, Y):
    return np.sum(X[:, :, None] * Y[:, None, :], axis=(-2, -1))


def stencil(A):
    return 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[2:, 1:-1] + A[:-2, 1:-1])


def matmul_bias_relu(a, w, b):
    return np.maximum(a @ w + b, 0.0)


def mean_var(x):
    return x.mean(), x.var()


def black_scholes(S, K, T, r, sigma):
    d1 = (np.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    cdf1 = 0.5 * (1.0 + np.tanh(0.7978845608 * d1))  # logistic-style approximation of N(d)
    cdf2 = 0.5 * (1.0 + np.tanh(0.7978845608 * d2))
    return S * cdf1 - K * np.exp(-r * T) * cdf2


def missing_values(x):
    return (x > 0).sum(), np.where(x > 0, x, 0.0)


def _with_nans(rng, n):
    """Data with missing values (every 100th a NaN): compiled comparisons must stay quiet."""
    x = rng.standard_normal(n)
    x[::100] = np.nan
    return x


def small_affine(a):
    return a * 2.0 + 1.0


@dataclass
class Case:
    name: str
    fn: Callable
    make: Callable[[bool, np.random.Generator], list]
    note: str = ""


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = [
    Case("gelu (16M f32)", gelu, lambda q, r: [_f32(r, 1 << (20 if q else 24))], "tanh, x**3"),
    Case("row softmax (4096x1024 f32)", softmax, lambda q, r: [_f32(r, 1024 if q else 4096, 1024)]),
    Case(
        "layernorm (4096x1024 f32)",
        layernorm,
        lambda q, r: [_f32(r, 1024 if q else 4096, 1024), _f32(r, 1024), _f32(r, 1024)],
    ),
    Case(
        "outer-product sum (256x256x256 f64)",
        outer_sum,
        lambda q, r: [r.random((128 if q else 256, 256)), r.random((128 if q else 256, 256))],
    ),
    Case("2-D stencil (4096^2 f64)", stencil, lambda q, r: [r.random((1024 if q else 4096,) * 2)]),
    Case(
        "matmul+bias+relu (1024^2 f32)",
        matmul_bias_relu,
        lambda q, r: [_f32(r, 512 if q else 1024, 1024), _f32(r, 1024, 1024), _f32(r, 1024)],
    ),
    Case("mean+var (16M f32)", mean_var, lambda q, r: [_f32(r, 1 << (20 if q else 24))]),
    Case(
        "black-scholes (4M f64)",
        black_scholes,
        lambda q, r: [
            r.random(1 << (18 if q else 22)) * 100 + 50,
            r.random(1 << (18 if q else 22)) * 100 + 50,
            r.random(1 << (18 if q else 22)) + 0.1,
            0.02,
            0.3,
        ],
    ),
    Case(
        "compare with NaN (4M f64)",
        missing_values,
        lambda q, r: [_with_nans(r, 1 << (20 if q else 22))],
        "(x > 0).sum(), np.where: 1% NaN",
    ),
    Case("call overhead (8 f64)", small_affine, lambda q, r: [r.random(8)]),
]
