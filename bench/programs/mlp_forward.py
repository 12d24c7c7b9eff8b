"""Two-layer perceptron forward pass: matmuls, tanh, numerically stable softmax."""

import numpy as np


def mlp_forward(x, W1, b1, W2, b2):
    h = np.tanh(x @ W1 + b1)
    logits = h @ W2 + b2
    logits = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def setup(small=False):
    rng = np.random.default_rng(41)
    n, d, h, k = (4, 6, 5, 3) if small else (4096, 64, 256, 10)
    return (
        rng.standard_normal((n, d)).astype(np.float32),
        (rng.standard_normal((d, h)) * 0.1).astype(np.float32),
        np.zeros(h, dtype=np.float32),
        (rng.standard_normal((h, k)) * 0.1).astype(np.float32),
        np.zeros(k, dtype=np.float32),
    )
