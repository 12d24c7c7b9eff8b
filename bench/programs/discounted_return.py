"""Reinforcement-learning style: the discounted return of an episode, gamma ** t in a loop."""

import numpy as np


def discounted_return(rewards, gamma):
    g = 0.0
    for t in range(len(rewards)):
        g += gamma**t * rewards[t]
    return g


def setup(small=False):
    rng = np.random.default_rng(41)
    return rng.standard_normal(64 if small else 20000), 0.99
