"""Longest Collatz chain below a bound: integer while loops with a data-dependent branch."""


def collatz_lengths(limit):
    best, best_start = 0, 1
    for start in range(1, limit):
        n, steps = start, 0
        while n != 1:
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
        if steps > best:
            best, best_start = steps, start
    return best_start, best


def setup(small=False):
    return (30 if small else 20000,)
