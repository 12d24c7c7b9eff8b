"""D2Q9 lattice Boltzmann steps: equilibrium from moments, BGK collision, streaming by np.roll."""

import numpy as np


def lattice_boltzmann(f, steps, omega):
    cx = np.array([0, 1, 0, -1, 0, 1, -1, -1, 1])
    cy = np.array([0, 0, 1, 0, -1, 1, 1, -1, -1])
    w = np.array([4 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 9, 1 / 36, 1 / 36, 1 / 36, 1 / 36])
    f = f.copy()
    for _ in range(steps):
        rho = f.sum(axis=0)
        ux = (f * cx[:, None, None]).sum(axis=0) / rho
        uy = (f * cy[:, None, None]).sum(axis=0) / rho
        usq = ux * ux + uy * uy
        for k in range(9):
            cu = 3.0 * (cx[k] * ux + cy[k] * uy)
            feq = w[k] * rho * (1.0 + cu + 0.5 * cu * cu - 1.5 * usq)
            f[k] += omega * (feq - f[k])
        for k in range(9):
            f[k] = np.roll(np.roll(f[k], cx[k], axis=1), cy[k], axis=0)
    return f


def setup(small=False):
    rng = np.random.default_rng(11)
    n = 8 if small else 200
    f = 1.0 / 9 + 0.01 * rng.random((9, n, n))
    return f, 2 if small else 10, 1.2
