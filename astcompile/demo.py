"""``python -m astcompile.demo``: a decorated NumPy function, its speedup, and ``explain``."""

from __future__ import annotations

import time

import numpy as np

import astcompile


def gelu_numpy(x):
    """GELU (tanh approximation), written as plain NumPy."""
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


gelu = astcompile.compile(gelu_numpy)


@astcompile.compile
def toy_example(a, b):
    x = a / (np.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b


def best_of(fn, *args, repeat: int = 5) -> float:
    fn(*args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    x = np.random.default_rng(0).standard_normal(1 << 22).astype(np.float32)
    start = time.perf_counter()
    gelu(x)
    first = time.perf_counter() - start
    numpy_s = best_of(gelu_numpy, x)
    compiled_s = best_of(gelu, x)
    np.testing.assert_allclose(gelu(x), gelu_numpy(x), rtol=1e-5, atol=1e-6)
    backend = gelu.target().name
    print(f"gelu on {x.size:,} float32 values, backend {backend!r}:")
    print(f"  NumPy      {numpy_s * 1e3:8.2f} ms")
    print(
        f"  astcompile {compiled_s * 1e3:8.2f} ms   ({numpy_s / compiled_s:.1f}x NumPy; "
        f"first call with compilation {first * 1e3:.0f} ms)"
    )
    print()
    print("explain(toy_example, a, b):")
    a, b = np.random.default_rng(1).standard_normal((2, 10))
    print(astcompile.explain(toy_example, a, b))


if __name__ == "__main__":
    main()
