"""Deterministic Miller-Rabin primality over a range of odd ints (Rosetta Code style)."""


def is_probable_prime(n):
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11):
        x = pow(a, d, n)
        if x == 1 or x == n - 1:
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def miller_rabin(start, stop):
    count = 0
    last = 0
    for n in range(start, stop, 2):
        if is_probable_prime(n):
            count += 1
            last = n
    return count, last


def setup(small=False):
    return (1_000_001, 1_000_101) if small else (10_000_001, 10_040_001)
