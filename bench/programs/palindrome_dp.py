"""Longest palindromic substring by a table of booleans (list of lists) over a string."""


def palindrome_dp(s):
    n = len(s)
    table = [[False] * n for _ in range(n)]
    start, length = 0, 1 if n else 0
    for i in range(n):
        table[i][i] = True
    for i in range(n - 1):
        if s[i] == s[i + 1]:
            table[i][i + 1] = True
            start, length = i, 2
    for size in range(3, n + 1):
        for i in range(n - size + 1):
            j = i + size - 1
            if s[i] == s[j] and table[i + 1][j - 1]:
                table[i][j] = True
                if size > length:
                    start, length = i, size
    return s[start : start + length]


def setup(small=False):
    import random

    rng = random.Random(313)
    return ("".join(rng.choice("abc") for _ in range(12 if small else 300)),)
