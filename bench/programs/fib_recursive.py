"""Naive recursive Fibonacci numbers, the classic first benchmark of any JIT."""


def fib_recursive(n):
    if n < 2:
        return n
    return fib_recursive(n - 1) + fib_recursive(n - 2)


def setup(small=False):
    return (10 if small else 22,)
