"""Damped oscillators stepped in time, printing the energy every 100 steps (a print mid-loop)."""

import numpy as np


def progress_print(x, v, k, dt, steps):
    for step in range(steps):
        a = -k * x - 0.01 * v
        v = v + dt * a
        x = x + dt * v
        if step % 100 == 0:
            energy = 0.5 * np.sum(v**2 + k * x**2)
            print(f"step {step}: energy {energy:.6f}")
    return x, v


def setup(small=False):
    rng = np.random.default_rng(43)
    n = 4 if small else 64
    return rng.standard_normal(n), np.zeros(n), rng.random(n) + 0.5, 0.01, (150 if small else 2000)
