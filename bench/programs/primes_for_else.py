"""Primes by trial division against the primes found so far: `for ... else` appends a prime."""


def primes_for_else(limit):
    primes = []
    for n in range(2, limit):
        for p in primes:
            if p * p > n:
                primes.append(n)
                break
            if n % p == 0:
                break
        else:
            primes.append(n)
    return primes


def setup(small=False):
    return (30 if small else 6000,)
