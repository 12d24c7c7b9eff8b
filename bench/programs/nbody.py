"""Gravitational n-body, all pairs by broadcasting, leapfrog (kick-drift) time loop."""

import numpy as np


def accelerations(pos, mass, soft):
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
    r2 = (d**2).sum(axis=2) + soft**2
    inv3 = r2**-1.5
    return (d * (inv3 * mass[np.newaxis, :])[:, :, np.newaxis]).sum(axis=1)


def nbody(pos, vel, mass, dt, steps):
    pos = pos.copy()
    vel = vel.copy()
    acc = accelerations(pos, mass, 0.1)
    for _ in range(steps):
        vel += 0.5 * dt * acc
        pos += dt * vel
        acc = accelerations(pos, mass, 0.1)
        vel += 0.5 * dt * acc
    kinetic = 0.5 * np.sum(mass * np.sum(vel**2, axis=1))
    return pos, vel, kinetic


def setup(small=False):
    rng = np.random.default_rng(1)
    n, steps = (8, 3) if small else (100, 40)
    return (
        rng.standard_normal((n, 3)),
        rng.standard_normal((n, 3)) * 0.1,
        rng.random(n) + 0.5,
        0.01,
        steps,
    )
