"""The bench kernels as a Numba user writes them: loops, ``prange`` over the parallel axis.

Same math as ``bench/kernels.py``, in the inputs' precision (float32 constants for float32
inputs, as NumPy's NEP 50 promotion gives). Imported only when Numba is installed; each
function is compiled with ``numba.njit(parallel=True)`` by ``bench/peers.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

F32 = np.float32
HALF, ONE, GELU_A, GELU_B = F32(0.5), F32(1.0), F32(0.7978845608), F32(0.044715)


def gelu(x):
    out = np.empty_like(x)
    for i in prange(x.size):
        v = x[i]
        out[i] = HALF * v * (ONE + np.tanh(GELU_A * (v + GELU_B * v * v * v)))
    return out


def softmax(x):
    out = np.empty_like(x)
    for i in prange(x.shape[0]):
        m = x[i, 0]
        for j in range(x.shape[1]):
            m = max(m, x[i, j])
        total = F32(0.0)
        for j in range(x.shape[1]):
            e = np.exp(x[i, j] - m)
            out[i, j] = e
            total += e
        for j in range(x.shape[1]):
            out[i, j] /= total
    return out


def layernorm(x, g, b):
    out = np.empty_like(x)
    n = x.shape[1]
    for i in prange(x.shape[0]):
        mu = 0.0
        for j in range(n):
            mu += x[i, j]
        mu /= n
        var = 0.0
        for j in range(n):
            var += (x[i, j] - mu) ** 2
        scale = 1.0 / math.sqrt(var / n + 1e-5)
        for j in range(n):
            out[i, j] = (x[i, j] - mu) * scale * g[j] + b[j]
    return out


def outer_sum(X, Y):
    out = np.empty(X.shape[0])
    for i in prange(X.shape[0]):
        total = 0.0
        for j in range(X.shape[1]):
            for k in range(Y.shape[1]):
                total += X[i, j] * Y[i, k]
        out[i] = total
    return out


def stencil(A):
    n, m = A.shape
    out = np.empty((n - 2, m - 2))
    for i in prange(1, n - 1):
        for j in range(1, m - 1):
            out[i - 1, j - 1] = 0.25 * (A[i, j + 1] + A[i, j - 1] + A[i + 1, j] + A[i - 1, j])
    return out


def matmul_bias_relu(a, w, b):
    out = a @ w  # Numba's matmul calls BLAS through SciPy
    for i in prange(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = max(out[i, j] + b[j], F32(0.0))
    return out


def mean_var(x):
    total = 0.0
    for i in prange(x.size):
        total += x[i]
    mean = total / x.size
    sq = 0.0
    for i in prange(x.size):
        sq += (x[i] - mean) ** 2
    return mean, sq / x.size


def black_scholes(S, K, T, r, sigma):
    out = np.empty_like(S)
    for i in prange(S.size):
        sqrt_t = math.sqrt(T[i])
        d1 = (math.log(S[i] / K[i]) + (r + 0.5 * sigma * sigma) * T[i]) / (sigma * sqrt_t)
        d2 = d1 - sigma * sqrt_t
        cdf1 = 0.5 * (1.0 + math.tanh(0.7978845608 * d1))
        cdf2 = 0.5 * (1.0 + math.tanh(0.7978845608 * d2))
        out[i] = S[i] * cdf1 - K[i] * math.exp(-r * T[i]) * cdf2
    return out


def missing_values(x):
    count = 0
    out = np.empty_like(x)
    for i in prange(x.size):
        positive = x[i] > 0.0
        count += positive
        out[i] = x[i] if positive else 0.0
    return count, out


def small_affine(a):
    return a * 2.0 + 1.0  # 8 elements: the call overhead, written as in NumPy
