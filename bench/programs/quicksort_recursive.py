"""Quicksort of a Python list by recursion on new lists (the textbook functional version)."""


def quicksort_recursive(xs):
    if len(xs) <= 1:
        return xs
    pivot = xs[len(xs) // 2]
    less = [x for x in xs if x < pivot]
    equal = [x for x in xs if x == pivot]
    greater = [x for x in xs if x > pivot]
    return quicksort_recursive(less) + equal + quicksort_recursive(greater)


def setup(small=False):
    import random

    rng = random.Random(128)
    return ([rng.random() for _ in range(15 if small else 5000)],)
