"""Damped oscillator driven by a tabulated force, np.interp of the table at every time step."""

import numpy as np


def forced_oscillator(t_table, force_table, steps, dt):
    x, v = 0.0, 0.0
    trace = np.empty(steps)
    for k in range(steps):
        f = np.interp(k * dt, t_table, force_table)
        a = f - 0.3 * v - 4.0 * x
        v += a * dt
        x += v * dt
        trace[k] = x
    return trace


def setup(small=False):
    rng = np.random.default_rng(219)
    t_table = np.linspace(0.0, 20.0, 201)
    return t_table, np.sin(t_table) + 0.1 * rng.standard_normal(201), 50 if small else 20000, 1e-3
