"""Normalised histogram of samples with its bin centres and widths, from one np.histogram call."""

import numpy as np


def histogram_density(samples, bins):
    counts, edges = np.histogram(samples, bins=bins, range=(0.0, 1.0))
    widths = edges[1:] - edges[:-1]
    centres = 0.5 * (edges[1:] + edges[:-1])
    return counts / (len(samples) * widths), centres


def setup(small=False):
    rng = np.random.default_rng(216)
    return rng.beta(2.0, 5.0, 40 if small else 2000), 8 if small else 32
