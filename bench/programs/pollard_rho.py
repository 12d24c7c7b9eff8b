"""Pollard's rho factorisation of semiprimes with Floyd cycle detection and math.gcd."""

import math


def rho(n):
    if n % 2 == 0:
        return 2
    c = 1
    while True:
        x = y = 2
        d = 1
        while d == 1:
            x = (x * x + c) % n
            y = (y * y + c) % n
            y = (y * y + c) % n
            d = math.gcd(abs(x - y), n)
        if d != n:
            return d
        c += 1


def pollard_rho(numbers):
    factors = []
    for n in numbers:
        p = rho(n)
        factors.append((min(p, n // p), max(p, n // p)))
    return factors


def setup(small=False):
    primes = [1009, 2003, 3001, 4001, 5003, 6007, 7001, 8009, 9001, 10007, 100003, 1000003]
    pairs = [(p, q) for p in primes for q in primes if p < q]
    if small:
        pairs = pairs[:4]
    return ([p * q for p, q in pairs],)
