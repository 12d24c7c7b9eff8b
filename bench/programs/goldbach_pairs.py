"""Goldbach decomposition of even numbers: the first prime pair, `return` inside a nested loop."""


def _is_prime(n):
    if n < 2:
        return False
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
        k += 1
    return True


def _first_pair(n):
    for p in range(2, n // 2 + 1):
        if _is_prime(p):
            for q in (n - p,):
                if _is_prime(q):
                    return p, q
    return 0, 0


def goldbach_pairs(limit):
    return [_first_pair(n) for n in range(4, limit, 2)]


def setup(small=False):
    return (20 if small else 1500,)
