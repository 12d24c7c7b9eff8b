"""GrowCut cellular-automaton segmentation step, as in the numpy-benchmarks (nested loops)."""

import math

import numpy as np


def growcut(image, state, state_next, window_radius):
    changes = 0
    sqrt_3 = math.sqrt(3.0)
    height = image.shape[0]
    width = image.shape[1]
    for j in range(width):
        for i in range(height):
            winning_colony = state[i, j, 0]
            defense_strength = state[i, j, 1]
            for jj in range(max(j - window_radius, 0), min(j + window_radius + 1, width)):
                for ii in range(max(i - window_radius, 0), min(i + window_radius + 1, height)):
                    if ii != i or jj != j:
                        d = image[i, j, 0] - image[ii, jj, 0]
                        s = d * d
                        for k in range(1, 3):
                            d = image[i, j, k] - image[ii, jj, k]
                            s += d * d
                        gval = 1.0 - math.sqrt(s) / sqrt_3
                        attack_strength = gval * state[ii, jj, 1]
                        if attack_strength > defense_strength:
                            defense_strength = attack_strength
                            winning_colony = state[ii, jj, 0]
                            changes += 1
            state_next[i, j, 0] = winning_colony
            state_next[i, j, 1] = defense_strength
    return changes


def setup(small=False):
    rng = np.random.default_rng(201)
    n = 6 if small else 50
    image = rng.random((n, n, 3))
    state = np.zeros((n, n, 2))
    state[0, 0] = [1, 1]
    state[n - 1, n - 1] = [-1, 1]
    return image, state, np.empty_like(state), 1
