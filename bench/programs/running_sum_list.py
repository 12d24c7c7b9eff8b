"""Running sums of a list of floats, appended to a new list (itertools.accumulate by hand)."""


def running_sum_list(values):
    total = 0.0
    sums = []
    for v in values:
        total += v
        sums.append(total)
    return sums


def setup(small=False):
    n = 10 if small else 5000
    return ([0.5 * ((i * 37) % 11) - 2.0 for i in range(n)],)
