"""Bresenham's line algorithm drawing many segments into an integer canvas (explicit loops)."""

import numpy as np


def draw_line(canvas, x0, y0, x1, y1):
    dx = abs(x1 - x0)
    dy = -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    while True:
        canvas[y0, x0] += 1
        if x0 == x1 and y0 == y1:
            break
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy


def bresenham_lines(segments, size):
    canvas = np.zeros((size, size), dtype=np.int32)
    for k in range(segments.shape[0]):
        draw_line(canvas, segments[k, 0], segments[k, 1], segments[k, 2], segments[k, 3])
    return canvas


def setup(small=False):
    rng = np.random.default_rng(43)
    size = 16 if small else 256
    return rng.integers(0, size, (5 if small else 3000, 4)), size
