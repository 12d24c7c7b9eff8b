"""Sieve of Eratosthenes on a list of booleans, returning the primes below n."""


def sieve_list(n):
    is_prime = [True] * (n + 1)
    is_prime[0] = is_prime[1] = False
    p = 2
    while p * p <= n:
        if is_prime[p]:
            for q in range(p * p, n + 1, p):
                is_prime[q] = False
        p += 1
    return [i for i in range(n + 1) if is_prime[i]]


def setup(small=False):
    return (50 if small else 50000,)
