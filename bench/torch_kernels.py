"""The bench kernels in PyTorch, for ``torch.compile``: the same math on tensors.

The inputs are the same arrays, shared with ``torch.from_numpy`` before timing. Imported only
when torch is installed (``bench/peers.py``).
"""

from __future__ import annotations

import torch


def gelu(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def softmax(x):
    m = x.amax(dim=1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=1, keepdim=True)


def layernorm(x, g, b):
    mu = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, correction=0)
    return (x - mu) / torch.sqrt(var + 1e-5) * g + b


def outer_sum(X, Y):
    return (X[:, :, None] * Y[:, None, :]).sum(dim=(-2, -1))


def stencil(A):
    return 0.25 * (A[1:-1, 2:] + A[1:-1, :-2] + A[2:, 1:-1] + A[:-2, 1:-1])


def matmul_bias_relu(a, w, b):
    return torch.clamp(a @ w + b, min=0.0)


def mean_var(x):
    return x.mean(), x.var(correction=0)


def black_scholes(S, K, T, r, sigma):
    d1 = (torch.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * torch.sqrt(T))
    d2 = d1 - sigma * torch.sqrt(T)
    cdf1 = 0.5 * (1.0 + torch.tanh(0.7978845608 * d1))
    cdf2 = 0.5 * (1.0 + torch.tanh(0.7978845608 * d2))
    return S * cdf1 - K * torch.exp(-r * T) * cdf2


def missing_values(x):
    return (x > 0).sum(), torch.where(x > 0, x, 0.0)


def small_affine(a):
    return a * 2.0 + 1.0
