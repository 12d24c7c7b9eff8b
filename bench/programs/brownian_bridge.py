"""Brownian bridges pinned at both ends from standard normals (cumsum, broadcasting, axis ops)."""

import numpy as np


def brownian_bridge(z, t_end):
    n_steps = z.shape[1]
    dt = t_end / n_steps
    w = np.cumsum(np.sqrt(dt) * z, axis=1)
    t = np.linspace(dt, t_end, n_steps)
    bridge = w - (t / t_end)[None, :] * w[:, -1:]
    return bridge.max(axis=1) - bridge.min(axis=1), bridge.var(axis=0)


def setup(small=False):
    rng = np.random.default_rng(61)
    return rng.standard_normal((3, 8) if small else (2000, 500)), 2.0
