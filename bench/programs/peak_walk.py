"""Score a long noisy signal (vectorised), then walk it from a start bin, adding the bins it
visits to the caller's set: a Python loop calling a small region, next to a big fused one."""

import numpy as np


def peak_walk(signal, start, steps, visited):
    s2 = signal * signal
    score = ((0.2 * s2 - 1.5) * s2 + 2.0) * signal / (1.0 + s2) + 0.1 * np.abs(signal)
    score = score / (np.abs(score).max() + 1e-12)
    n = score.shape[0]
    pos = start
    speed = 0.0
    for _ in range(steps):
        speed = 0.9 * speed + 0.5 * score[pos] + 1.0
        pos = (pos + int(speed)) % n
        visited.add(pos)
    return score, len(visited), speed


def setup(small=False):
    rng = np.random.default_rng(61)
    return rng.standard_normal(2_000 if small else 400_000), 7, 50 if small else 2_000, set()
