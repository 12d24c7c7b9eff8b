"""One DFT bin of a list of samples: a complex phasor built from math.cos/sin, summed."""

import math


def goertzel_phasor(samples, freq, rate):
    s = 0j
    for i, v in enumerate(samples):
        t = 2.0 * math.pi * freq * i / rate
        s += v * complex(math.cos(t), -math.sin(t))
    return abs(s), math.atan2(s.imag, s.real)


def setup(small=False):
    import random

    rng = random.Random(136)
    return [rng.gauss(0.0, 1.0) for _ in range(16 if small else 20000)], 50.0, 1000.0
