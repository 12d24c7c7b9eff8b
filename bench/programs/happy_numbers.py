"""Happy numbers below a bound: digit-square sums by divmod, a set to detect the cycle."""


def is_happy(n):
    seen = set()
    while n != 1 and n not in seen:
        seen.add(n)
        total = 0
        while n:
            n, d = divmod(n, 10)
            total += d * d
        n = total
    return n == 1


def happy_numbers(limit):
    return [n for n in range(1, limit) if is_happy(n)]


def setup(small=False):
    return (30 if small else 5000,)
