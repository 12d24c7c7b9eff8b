"""Predator-prey model integrated with classic RK4; the derivative builds a small array."""

import numpy as np


def derivative(state, a, b, c, d):
    x, y = state[0], state[1]
    return np.array([a * x - b * x * y, d * x * y - c * y])


def lotka_volterra(state, params, dt, steps):
    a, b, c, d = params
    path = np.empty((steps + 1, 2))
    path[0] = state
    for t in range(steps):
        k1 = derivative(state, a, b, c, d)
        k2 = derivative(state + 0.5 * dt * k1, a, b, c, d)
        k3 = derivative(state + 0.5 * dt * k2, a, b, c, d)
        k4 = derivative(state + dt * k3, a, b, c, d)
        state = state + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        path[t + 1] = state
    return path


def setup(small=False):
    return np.array([10.0, 5.0]), (1.1, 0.4, 0.4, 0.1), 0.01, (10 if small else 2000)
