"""SIR epidemic model, forward Euler in a Python loop, history stored in preallocated arrays."""

import numpy as np


def sir_model(beta, gamma, n_pop, i0, days, dt):
    steps = int(days / dt)
    S = np.empty(steps + 1)
    I = np.empty(steps + 1)
    R = np.empty(steps + 1)
    S[0] = n_pop - i0
    I[0] = i0
    R[0] = 0.0
    for t in range(steps):
        new_inf = beta * S[t] * I[t] / n_pop
        new_rec = gamma * I[t]
        S[t + 1] = S[t] - dt * new_inf
        I[t + 1] = I[t] + dt * (new_inf - new_rec)
        R[t + 1] = R[t] + dt * new_rec
    peak = np.argmax(I)
    return S, I, R, peak


def setup(small=False):
    return 0.3, 0.1, 1e6, 10.0, (10.0 if small else 200.0), (0.5 if small else 0.02)
