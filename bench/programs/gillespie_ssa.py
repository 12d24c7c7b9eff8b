"""Gillespie simulation of a birth-death process: a while loop on time, draws given beforehand."""

import math

import numpy as np


def gillespie_ssa(uniforms, birth, death, n0, t_end):
    t = 0.0
    n = n0
    i = 0
    area = 0.0
    while t < t_end and i + 1 < len(uniforms):
        a1 = birth
        a2 = death * n
        total = a1 + a2
        dt = -math.log(uniforms[i]) / total
        area += n * dt
        t += dt
        if uniforms[i + 1] * total < a1:
            n += 1
        else:
            n -= 1
        i += 2
    return n, t, area / t, i // 2


def setup(small=False):
    rng = np.random.default_rng(42)
    return rng.random(40 if small else 200000), 10.0, 0.1, 5, 5.0 if small else 5000.0
