"""Integer partition counts p(n, k) by recursion memoised with functools.lru_cache."""

from functools import lru_cache


@lru_cache(maxsize=None)  # noqa: UP033 - as most code still writes it
def parts(n, k):
    if n == 0:
        return 1
    if n < 0 or k == 0:
        return 0
    return parts(n - k, k) + parts(n, k - 1)


def partitions_lru(n):
    parts.cache_clear()
    return [parts(m, m) for m in range(n)]


def setup(small=False):
    return (10 if small else 120,)
