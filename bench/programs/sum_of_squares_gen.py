"""Sum of squares over a generator expression and a filtered comprehension."""


def sum_of_squares_gen(n):
    total = sum(i * i for i in range(n))
    odd = [i for i in range(n) if i % 3 == 1]
    return total, len(odd), sum(odd)


def setup(small=False):
    return (20 if small else 200000,)
