"""2-D value noise: lattice values smoothly interpolated per pixel with floor and fade (loops)."""

import math

import numpy as np


def fade(t):
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


def value_noise(lattice, width, height, scale):
    out = np.empty((height, width))
    m = lattice.shape[0]
    for j in range(height):
        for i in range(width):
            x = i * scale
            y = j * scale
            x0 = math.floor(x)
            y0 = math.floor(y)
            tx = fade(x - x0)
            ty = fade(y - y0)
            a = lattice[y0 % m, x0 % m]
            b = lattice[y0 % m, (x0 + 1) % m]
            c = lattice[(y0 + 1) % m, x0 % m]
            d = lattice[(y0 + 1) % m, (x0 + 1) % m]
            top = a + tx * (b - a)
            bottom = c + tx * (d - c)
            out[j, i] = top + ty * (bottom - top)
    return out


def setup(small=False):
    rng = np.random.default_rng(53)
    size = 8 if small else 400
    return rng.random((16, 16)), size, size, 0.037
