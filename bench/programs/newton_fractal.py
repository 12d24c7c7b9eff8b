"""Newton's method on z**3 - 1 for each pixel: Python complex division, abs, early exits."""

import numpy as np


def newton_fractal(xs, ys, max_iter):
    out = np.zeros((len(ys), len(xs)), dtype=np.int64)
    for i in range(len(ys)):
        for j in range(len(xs)):
            z = complex(xs[j], ys[i])
            k = 0
            while k < max_iter:
                dz = 3 * z * z
                if dz == 0:
                    break
                z_new = z - (z * z * z - 1) / dz
                if abs(z_new - z) < 1e-10:
                    break
                z = z_new
                k += 1
            out[i, j] = k
    return out


def setup(small=False):
    n = 6 if small else 120
    return np.linspace(-1.5, 1.5, n), np.linspace(-1.5, 1.5, n), 40
