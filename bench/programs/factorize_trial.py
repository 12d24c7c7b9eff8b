"""Prime factors of many integers by trial division, each a list built in while loops."""


def factorize_trial(numbers):
    total = 0
    largest = []
    for n in numbers:
        factors = []
        while n % 2 == 0:
            factors.append(2)
            n //= 2
        d = 3
        while d * d <= n:
            while n % d == 0:
                factors.append(d)
                n //= d
            d += 2
        if n > 1:
            factors.append(n)
        total += len(factors)
        largest.append(factors[-1])
    return total, largest


def setup(small=False):
    import random

    rng = random.Random(307)
    return ([rng.randint(2, 10**6) for _ in range(10 if small else 600)],)
