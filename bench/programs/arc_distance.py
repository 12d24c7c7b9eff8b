"""Great-circle distances between two sets of points given as angles (vectorised NumPy)."""

import numpy as np


def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = (
        np.sin((theta_2 - theta_1) / 2) ** 2
        + np.cos(theta_1) * np.cos(theta_2) * np.sin((phi_2 - phi_1) / 2) ** 2
    )
    return 2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp))


def setup(small=False):
    rng = np.random.default_rng(108)
    n = 10 if small else 500_000
    return tuple(rng.random(n) for _ in range(4))
