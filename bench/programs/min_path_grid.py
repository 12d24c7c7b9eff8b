"""Cheapest right/down path through a grid of costs, DP written into a list of lists in place."""


def min_path_grid(grid):
    rows, cols = len(grid), len(grid[0])
    cost = [[0.0] * cols for _ in range(rows)]
    cost[0][0] = grid[0][0]
    for j in range(1, cols):
        cost[0][j] = cost[0][j - 1] + grid[0][j]
    for i in range(1, rows):
        cost[i][0] = cost[i - 1][0] + grid[i][0]
        for j in range(1, cols):
            cost[i][j] = min(cost[i - 1][j], cost[i][j - 1]) + grid[i][j]
    return cost[rows - 1][cols - 1]


def setup(small=False):
    import random

    rng = random.Random(309)
    n = 5 if small else 150
    return ([[rng.random() for _ in range(n)] for _ in range(n)],)
