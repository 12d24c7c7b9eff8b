"""Escape-time Mandelbrot with Python complex numbers, one pixel at a time into an array."""

import numpy as np


def mandelbrot_complex(width, height, max_iter):
    out = np.zeros((height, width), dtype=np.int32)
    for row in range(height):
        for col in range(width):
            c = complex(-2.0 + 3.0 * col / width, -1.2 + 2.4 * row / height)
            z = 0j
            n = 0
            while abs(z) <= 2.0 and n < max_iter:
                z = z * z + c
                n += 1
            out[row, col] = n
    return out


def setup(small=False):
    return (8, 6, 20) if small else (120, 80, 60)
