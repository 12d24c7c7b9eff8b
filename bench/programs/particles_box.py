"""Particles under gravity in a box, reflecting walls; one particle is pinned each step."""

import numpy as np


def particles_box(pos, vel, steps, dt):
    g = np.array([0.0, -9.81])
    for _ in range(steps):
        force = np.zeros_like(pos) + g
        force[0] = 0, 0
        vel += dt * force
        pos += dt * vel
        out = (pos < 0.0) | (pos > 1.0)
        vel = np.where(out, -vel, vel)
        pos = np.clip(pos, 0.0, 1.0)
    return pos, vel


def setup(small=False):
    rng = np.random.default_rng(3)
    n, steps = (4, 10) if small else (16, 4000)
    return rng.random((n, 2)), rng.standard_normal((n, 2)), steps, 0.001
