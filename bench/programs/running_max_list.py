"""Running maximum and drawdown of a price list, pure Python floats."""


def running_max_list(prices):
    peak = prices[0]
    worst = 0.0
    drawdowns = []
    for p in prices:
        if p > peak:
            peak = p
        dd = (peak - p) / peak
        drawdowns.append(dd)
        if dd > worst:
            worst = dd
    return worst, drawdowns


def setup(small=False):
    import random

    rng = random.Random(137)
    price, prices = 100.0, []
    for _ in range(20 if small else 50000):
        price *= 1.0 + rng.gauss(0, 0.01)
        prices.append(price)
    return (prices,)
