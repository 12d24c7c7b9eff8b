"""Constant-velocity Kalman filter on noisy 1-D positions: 2x2 predict/update per sample."""

import numpy as np


def kalman(zs, dt, q, r):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = q * np.array([[dt**3 / 3, dt**2 / 2], [dt**2 / 2, dt]])
    x = np.array([zs[0], 0.0])
    P = np.eye(2) * 10.0
    out = np.empty((zs.shape[0], 2))
    for k in range(zs.shape[0]):
        x = F @ x
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + r
        K = P @ H.T / S
        y = zs[k] - (H @ x)[0]
        x = x + K[:, 0] * y
        P = (np.eye(2) - K @ H) @ P
        out[k] = x
    return out


def setup(small=False):
    rng = np.random.default_rng(40)
    n = 10 if small else 2000
    t = np.arange(n) * 0.1
    return 3.0 * t + rng.normal(0.0, 2.0, n), 0.1, 0.5, 4.0
