"""Merge sort of a list by recursion on halves, merged with a two-index while loop."""


def merge_sort_recursive(xs):
    if len(xs) <= 1:
        return xs
    mid = len(xs) // 2
    left = merge_sort_recursive(xs[:mid])
    right = merge_sort_recursive(xs[mid:])
    out = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    out.extend(left[i:])
    out.extend(right[j:])
    return out


def setup(small=False):
    import random

    rng = random.Random(51)
    return ([rng.random() for _ in range(12 if small else 5000)],)
