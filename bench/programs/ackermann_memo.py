"""Memoised recursion with a dict: binomial coefficients by Pascal's rule, plus Catalan numbers."""


def binom(n, k, memo):
    if k == 0 or k == n:
        return 1
    key = (n, k)
    if key in memo:
        return memo[key]
    value = binom(n - 1, k - 1, memo) + binom(n - 1, k, memo)
    memo[key] = value
    return value


def ackermann_memo(n):
    memo = {}
    catalan = [binom(2 * i, i, memo) // (i + 1) for i in range(n)]
    return sum(catalan) % 1_000_000_007, len(memo)


def setup(small=False):
    return (6 if small else 200,)
