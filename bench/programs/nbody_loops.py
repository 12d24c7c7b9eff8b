"""n-body with explicit Python loops over pairs of bodies, as written from a textbook."""

import math

import numpy as np


def nbody_loops(pos, vel, mass, dt, steps):
    n = pos.shape[0]
    for _ in range(steps):
        for i in range(n):
            ax = 0.0
            ay = 0.0
            for j in range(n):
                if i != j:
                    dx = pos[j, 0] - pos[i, 0]
                    dy = pos[j, 1] - pos[i, 1]
                    r = math.sqrt(dx * dx + dy * dy + 0.01)
                    ax += mass[j] * dx / (r * r * r)
                    ay += mass[j] * dy / (r * r * r)
            vel[i, 0] += dt * ax
            vel[i, 1] += dt * ay
        for i in range(n):
            pos[i, 0] += dt * vel[i, 0]
            pos[i, 1] += dt * vel[i, 1]
    return pos


def setup(small=False):
    rng = np.random.default_rng(2)
    n, steps = (5, 2) if small else (40, 10)
    return rng.standard_normal((n, 2)), np.zeros((n, 2)), rng.random(n), 0.001, steps
