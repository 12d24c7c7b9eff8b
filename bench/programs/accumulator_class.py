"""A small class holding NumPy arrays whose add() method loops over a batch (online mean/var)."""

import numpy as np


class Accumulator:
    def __init__(self, dim):
        self.n = 0
        self.mean = np.zeros(dim)
        self.m2 = np.zeros(dim)

    def add(self, batch):
        for row in range(batch.shape[0]):
            self.n += 1
            for j in range(batch.shape[1]):
                delta = batch[row, j] - self.mean[j]
                self.mean[j] += delta / self.n
                self.m2[j] += delta * (batch[row, j] - self.mean[j])

    def variance(self):
        return self.m2 / (self.n - 1)


def accumulator_class(data, chunk):
    acc = Accumulator(data.shape[1])
    for start in range(0, data.shape[0], chunk):
        acc.add(data[start : start + chunk])
    return acc.mean, acc.variance()


def setup(small=False):
    rng = np.random.default_rng(71)
    return rng.standard_normal((12 if small else 600, 4)), 4 if small else 50
