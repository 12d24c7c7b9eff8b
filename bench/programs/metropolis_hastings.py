"""Random-walk Metropolis sampler of a bimodal density, proposals and uniforms drawn beforehand."""

import math

import numpy as np


def log_density(x):
    return math.log(math.exp(-0.5 * (x - 2.0) ** 2) + math.exp(-0.5 * (x + 2.0) ** 2))


def metropolis_hastings(steps, uniforms, x0):
    chain = np.empty(len(steps))
    x = x0
    lp = log_density(x)
    accepted = 0
    for i in range(len(steps)):
        y = x + steps[i]
        lq = log_density(y)
        if math.log(uniforms[i]) < lq - lp:
            x, lp = y, lq
            accepted += 1
        chain[i] = x
    return chain.mean(), chain.std(), accepted


def setup(small=False):
    rng = np.random.default_rng(23)
    n = 20 if small else 20000
    return rng.normal(0.0, 1.5, n), rng.random(n), 0.1
