"""Programs where a variable starts as None and a loop may set it (trace/optionals.py)."""

import numpy as np

from bench.programs.first_crossing import first_crossing as first_above


def argbest(x):
    best = None
    best_i = -1
    for i in range(len(x)):
        v = x[i] * x[i] - 3.0 * x[i]
        if best is None or v < best:
            best = v
            best_i = i
    return best_i, best


def first_above_for(x, t):
    found = None
    for i in range(len(x)):
        if x[i] > t:
            found = i
            break
    return found


def last_above_value(x, t):
    found = None
    for i in range(len(x)):
        if x[i] > t:
            found = x[i]
    return found


def diff_sum(x):
    prev = None
    d = 0.0
    for i in range(len(x)):
        if prev is not None:
            d += x[i] - prev
        prev = x[i]
    return d


def min_positive(x):
    best = None
    for v in x:
        if v > 0 and (best is None or v < best):
            best = v
    return best


def min_positive_after_store(x, out):
    out[0] = 1.0
    best = None
    for i in range(len(x)):
        if x[i] > 0 and (best is None or x[i] < best):
            best = x[i]
    return best


def min_positive_elif(x):
    best = None
    for i in range(len(x)):
        if x[i] <= 0:
            continue
        if best is None:  # noqa: SIM114 - as people write it
            best = x[i]
        elif x[i] < best:
            best = x[i]
    return best


def first_above_or_minus_one(x, t):
    found = None
    i = 0
    while found is None and i < len(x):
        if x[i] > t:
            found = i
        i += 1
    if found is None:
        return -1
    return found


def last_index_plus_one(x, t):
    found = None
    for i in range(len(x)):
        if x[i] > t:
            found = i
    return found + 1


def largest_gap(x):
    prev = None
    gap = None
    for i in range(len(x)):
        if prev is not None and (gap is None or x[i] - prev > gap):
            gap = x[i] - prev
        prev = x[i]
    return gap


def running_max_count(x):
    best = None
    count = 0
    for i in range(len(x)):
        if best is not None and x[i] <= best:
            continue
        best = x[i]
        count += 1
    return count, best


def python_float_or_none(x, t):
    found = None
    for i in range(len(x)):
        if x[i] > t:
            found = 0.5 * i
    return found


def mixed_number_types(x, t):
    found = None
    for i in range(len(x)):
        if x[i] > t:
            found = i
        elif x[i] < -t:
            found = 0.5
    return found


def seen_flag(x, t):
    found = None
    hits = 0
    for i in range(len(x)):
        if x[i] > t:
            found = i
        hits += found is None
    return hits, found


def min_of_positives_by_min(x):
    best = None
    for i in range(len(x)):
        if x[i] > 0:
            best = x[i] if best is None else min(best, x[i])
    return best


def is_missing(b):
    return b is None


def scale(v):
    return 2.0 * v


def through_a_helper(x):
    best = None
    misses = 0
    for i in range(len(x)):
        misses += is_missing(best)
        if x[i] > 0:
            best = x[i]
    return misses, best


def starts_number_becomes_none(x):
    best = 0.0
    for i in range(len(x)):
        if x[i] < -1.0:
            best = None
        elif best is not None:
            best = best + x[i]
    return best


def nested_reset(x):
    out = 0.0
    for r in range(x.shape[0]):
        best = None
        for c in range(x.shape[1]):
            if x[r, c] > 0 and (best is None or x[r, c] < best):
                best = x[r, c]
        if best is not None:
            out += best
    return out


def while_true_break(x, t):
    found = None
    i = 0
    while True:
        if i >= len(x):
            break
        if x[i] > t:
            found = x[i]
            break
        i += 1
    return found


def bool_optional(x):
    found = None
    for i in range(len(x)):
        if x[i] > 0:
            found = x[i] > 1
    return found


PROGRAMS = [
    argbest,
    first_above,
    first_above_for,
    last_above_value,
    diff_sum,
    min_positive,
    min_positive_elif,
    first_above_or_minus_one,
    last_index_plus_one,
    largest_gap,
    running_max_count,
    python_float_or_none,
    mixed_number_types,
    seen_flag,
    min_of_positives_by_min,
    through_a_helper,
    starts_number_becomes_none,
    while_true_break,
    bool_optional,
]


def arrays():
    """Arguments: float and int arrays, empty, all below the threshold, NaN."""
    rng = np.random.default_rng(3)
    floats = rng.standard_normal(50)
    with_nan = floats.copy()
    with_nan[[0, 7]] = np.nan
    return {
        "floats": floats,
        "ints": rng.integers(-20, 20, 40),
        "empty": np.zeros(0),
        "empty_ints": np.zeros(0, np.int64),
        "negative": -np.abs(floats) - 1.0,
        "nan": with_nan,
        "one": np.array([2.5]),
    }


def formatted(x):
    best = None
    for v in x:
        if v > 0 and (best is None or v < best):
            best = v
    return f"{best}", "%s" % (best,)  # noqa: UP031 - as people write it


def formatted_total(x):
    total = 0.0
    n = len(x)
    for i in range(n):
        total += x[i]
    return f"{total} over {n}", "%s" % (total,)  # noqa: UP031
