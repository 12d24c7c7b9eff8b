"""Run-length encoding of a string into (char, count) pairs and the decoded length."""


def run_length(text):
    runs = []
    prev = ""
    count = 0
    for ch in text:
        if ch == prev:
            count += 1
        else:
            if count:
                runs.append((prev, count))
            prev, count = ch, 1
    if count:
        runs.append((prev, count))
    return len(runs), sum(c for _, c in runs), runs[:5]


def setup(small=False):
    import random

    rng = random.Random(210)
    n = 40 if small else 200_000
    return ("".join(rng.choice("aaabbc") for _ in range(n)),)
