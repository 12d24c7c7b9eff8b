"""Sliding-window sums of a list of floats, the window kept by adding one end, dropping the other."""


def window_sums_list(values, width):
    total = 0.0
    for i in range(width):
        total += values[i]
    sums = [total]
    for i in range(width, len(values)):
        total += values[i] - values[i - width]
        sums.append(total)
    return sums


def setup(small=False):
    n = 12 if small else 8000
    return [((i * 31) % 17) * 0.25 for i in range(n)], 4 if small else 50
