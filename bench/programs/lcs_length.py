"""Length of the longest common subsequence of two sequences, two rolling rows of a DP table."""


def lcs_length(a, b):
    prev = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
            else:
                cur[j] = max(prev[j], cur[j - 1])
        prev = cur
    return prev[len(b)]


def setup(small=False):
    import random

    rng = random.Random(138)
    n = 8 if small else 400
    return [rng.randint(0, 9) for _ in range(n)], [rng.randint(0, 9) for _ in range(n + 5)]
