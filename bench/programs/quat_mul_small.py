"""Hamilton product of two quaternions held in length-4 arrays (tiny, called many times)."""

import numpy as np


def quat_mul_small(q, r):
    w0, x0, y0, z0 = q
    w1, x1, y1, z1 = r
    return np.array(
        [
            w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
            w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
            w0 * y1 - x0 * z1 + y0 * w1 + z0 * x1,
            w0 * z1 + x0 * y1 - y0 * x1 + z0 * w1,
        ]
    )


def setup(small=False):
    return np.array([0.9, 0.1, 0.3, -0.2]), np.array([0.5, -0.5, 0.5, 0.5])
