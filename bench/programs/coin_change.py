"""Number of ways to make change for an amount, the dynamic programming array as a NumPy vector."""

import numpy as np


def coin_change(coins, amount):
    ways = np.zeros(amount + 1, dtype=np.int64)
    ways[0] = 1
    for coin in coins:
        for a in range(coin, amount + 1):
            ways[a] += ways[a - coin]
    return ways[amount]


def setup(small=False):
    return np.array([1, 2, 5, 10, 20, 50, 100, 200]), 30 if small else 5000
