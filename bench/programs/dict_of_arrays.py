"""Leapfrog steps on a state kept as a dict of NumPy arrays, updated in place by key."""

import numpy as np


def dict_of_arrays(state, dt, steps):
    for _ in range(steps):
        state["v"] += -state["k"] * state["x"] * dt
        state["x"] += state["v"] * dt
        state["t"] += dt
    return {key: value.copy() for key, value in state.items()}


def setup(small=False):
    rng = np.random.default_rng(206)
    n = 8 if small else 10_000
    return (
        {"x": rng.random(n), "v": np.zeros(n), "k": 1 + rng.random(n), "t": np.zeros(1)},
        0.01,
        5 if small else 50,
    )
