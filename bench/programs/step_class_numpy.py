"""A simulator class holding NumPy arrays whose step() a Python loop calls (heat rod)."""

import numpy as np


class Rod:
    def __init__(self, temps, alpha):
        self.u = temps.copy()
        self.alpha = alpha

    def step(self):
        u = self.u
        u[1:-1] = u[1:-1] + self.alpha * (u[2:] - 2 * u[1:-1] + u[:-2])


def step_class_numpy(temps, alpha, steps):
    rod = Rod(temps, alpha)
    for _ in range(steps):
        rod.step()
    return rod.u


def setup(small=False):
    rng = np.random.default_rng(222)
    return rng.random(10 if small else 5000), 0.25, 5 if small else 300
