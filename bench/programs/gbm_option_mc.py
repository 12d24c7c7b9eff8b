"""Monte Carlo price of an Asian call on geometric Brownian paths: cumsum, exp, mean, maximum."""

import numpy as np


def gbm_option_mc(z, s0, strike, rate, sigma, maturity):
    steps = z.shape[1]
    dt = maturity / steps
    drift = (rate - 0.5 * sigma**2) * dt
    log_paths = np.log(s0) + np.cumsum(drift + sigma * np.sqrt(dt) * z, axis=1)
    average = np.exp(log_paths).mean(axis=1)
    payoff = np.maximum(average - strike, 0.0)
    price = np.exp(-rate * maturity) * payoff.mean()
    stderr = np.exp(-rate * maturity) * payoff.std(ddof=1) / np.sqrt(len(payoff))
    return price, stderr


def setup(small=False):
    rng = np.random.default_rng(43)
    shape = (8, 5) if small else (4000, 64)
    return rng.standard_normal(shape), 100.0, 100.0, 0.03, 0.2, 1.0
