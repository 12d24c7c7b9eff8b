"""Log-likelihood of samples under a normal distribution, one NumPy expression."""

import numpy as np


def log_likelihood(data, mean, sigma):
    s = (data - mean) ** 2 / (2 * (sigma**2))
    pdfs = np.exp(-s)
    pdfs /= np.sqrt(2 * np.pi) * sigma
    return np.log(pdfs).sum()


def setup(small=False):
    rng = np.random.default_rng(111)
    return rng.standard_normal(10 if small else 1_000_000), 0.2, 1.3
