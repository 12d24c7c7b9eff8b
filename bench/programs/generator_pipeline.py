"""A chain of user generators (yield) feeding sum(): count, square, keep the odd ones."""


def numbers(n):
    i = 0
    while i < n:
        yield i
        i += 1


def squares(it):
    for x in it:
        yield x * x


def generator_pipeline(n):
    total = sum(s for s in squares(numbers(n)) if s % 2 == 1)
    return total


def setup(small=False):
    return (30 if small else 100_000,)
