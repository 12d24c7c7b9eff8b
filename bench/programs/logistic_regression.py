"""Logistic regression by batch gradient descent: sigmoid, gradient, L2 penalty."""

import numpy as np


def logistic_regression(X, y, lr, lam, iterations):
    w = np.zeros(X.shape[1])
    b = 0.0
    n = X.shape[0]
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
        err = p - y
        w -= lr * (X.T @ err / n + lam * w)
        b -= lr * err.mean()
    loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
    return w, b, loss


def setup(small=False):
    rng = np.random.default_rng(47)
    n, d = (20, 3) if small else (5000, 20)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.float64)
    return X, y, 0.5, 1e-3, (5 if small else 200)
