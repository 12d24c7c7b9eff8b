"""Largest-sum contiguous run of a list of floats (Kadane), with its start and end."""


def kadane_list(values):
    best, best_start, best_end = values[0], 0, 1
    run, run_start = 0.0, 0
    for i, v in enumerate(values):
        if run <= 0.0:
            run, run_start = v, i
        else:
            run += v
        if run > best:
            best, best_start, best_end = run, run_start, i + 1
    return best, best_start, best_end


def setup(small=False):
    import random

    rng = random.Random(310)
    return ([rng.gauss(0.0, 1.0) for _ in range(12 if small else 50000)],)
