"""Loop kernels: explicit Python loops over arrays, as NumPy users write them.

The baseline is the same function run by CPython with NumPy (what the user has today); Numba
runs the same source under ``njit``. A case may name a ``numba_fn`` when Numba rejects the NumPy
form (the rewrite a Numba user would have to make is then what Numba is timed on).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bench.programs.branchy_sum import branchy_sum


def spring_chain(x0, v0, k, dt, steps):
    """A 1-D chain of masses joined by springs, explicit Euler steps: neighbour updates."""
    x = x0.copy()
    v = v0.copy()
    n = x.shape[0]
    force = np.zeros(n)
    for step in range(steps):
        force[:] = 0.0
        for i in range(1, n):
            stretch = x[i] - x[i - 1] - 1.0
            fvec = k * stretch
            force[i - 1] += fvec
            force[i] -= fvec
        for i in range(n):
            v[i] += dt * force[i]
            x[i] += dt * v[i]
    return x


def heat_stencil(u0, mu, steps):
    """A time-stepped 2-D heat equation: slice assignment into a buffer, copied back."""
    u = u0.copy()
    tmp = u0.copy()
    for t in range(steps):
        tmp[1:-1, 1:-1] = u[1:-1, 1:-1] + mu * (
            u[2:, 1:-1]
            - 2.0 * u[1:-1, 1:-1]
            + u[:-2, 1:-1]
            + u[1:-1, 2:]
            - 2.0 * u[1:-1, 1:-1]
            + u[1:-1, :-2]
        )
        u[:, :] = tmp
    return u


def pairwise_distance(A, B):
    """A double loop filling a result, a NumPy reduction over a column pair in the body."""
    n = A.shape[1]
    m = B.shape[1]
    D = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            D[i, j] = np.sqrt(((A[:, i] - B[:, j]) ** 2).sum())
    return D


def escape_time(C, maxit):
    """The Mandelbrot set's escape time: a masked update of the points not yet escaped."""
    Z = np.zeros_like(C)
    N = np.zeros(C.shape, dtype=np.int64)
    for n in range(maxit):
        inside = np.abs(Z) < 2.0
        N[inside] = n
        Z[inside] = Z[inside] ** 2 + C[inside]
    return N


def escape_time_numba(C, maxit):
    """``escape_time`` as a Numba user rewrites it: Numba rejects the 2-D mask assignment."""
    Z = np.zeros_like(C)
    N = np.zeros(C.shape, dtype=np.int64)
    for n in range(maxit):
        for i in range(C.shape[0]):
            for j in range(C.shape[1]):
                if abs(Z[i, j]) < 2.0:
                    N[i, j] = n
                    Z[i, j] = Z[i, j] ** 2 + C[i, j]
    return N


def lms_filter(x, d, mu, taps):
    """A complex least-mean-squares adaptive filter: a per-iteration window x[i:i + taps]."""
    w = np.zeros(taps, dtype=x.dtype)
    err = np.zeros(d.shape[0] - taps, dtype=x.dtype)
    for i in range(d.shape[0] - taps):
        window = x[i : i + taps]
        y = np.vdot(w, window)
        e = d[i] - y
        err[i] = e
        w += mu * np.conj(e) * window
    return w, err


def newton_sqrt(values, tol, maxit):
    """Newton's iteration per element, a ``while`` loop on a scalar error in a ``for`` loop."""
    out = np.empty_like(values)
    for i in range(values.shape[0]):
        a = values[i]
        guess = a if a > 1.0 else 1.0
        err = 1.0
        it = 0
        while err > tol and it < maxit:
            nxt = 0.5 * (guess + a / guess)
            err = abs(nxt - guess)
            guess = nxt
            it += 1
        out[i] = guess
    return out


def clip_branches(x, lo, hi):
    """A clip written as ``if``/``elif``/``else``, each arm storing into the output."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        v = x[i]
        if v < lo:
            out[i] = lo
        elif v > hi:
            out[i] = hi
        else:
            out[i] = v
    return out


def clip_into(x, out, lo, hi):
    """The same clip into an output the caller passes (NumPy's ``out=`` style)."""
    for i in range(x.shape[0]):
        v = x[i]
        if v < lo:
            out[i] = lo
        elif v > hi:
            out[i] = hi
        else:
            out[i] = v
    return out


def piecewise(x):
    """A piecewise function: ``y`` first bound in the arms of an ``if`` on the element."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        t = x[i]
        if t < 0.0:
            y = t * t
        else:
            y = 2.0 * t + 1.0
        out[i] = y
    return out


def count_above(a, t):
    """A count of the elements above a threshold: an integer bumped under an ``if``."""
    n = 0
    for i in range(a.shape[0]):
        if a[i] > t:
            n += 1
    return n


def unread_temporaries(x):
    """A running sum beside temporaries nothing reads (left from debugging): a float bound in
    one arm of an ``if``, a Python complex. NumPy may warn computing the float, so it is kept;
    until it was, the loop ran as written."""
    s = 0.0
    for i in range(x.shape[0]):
        z = complex(x[i], s)  # noqa: F841 - unread on purpose
        if x[i] > 0.5:
            t = x[i] * 2.0  # noqa: F841 - unread on purpose
            s += x[i]
        else:
            s -= x[i]
    return s


def first_above(a, t):
    """The first index above a threshold, None until found: a ``while`` on ``found is None``
    carries the flag and the index (trace/optionals.py)."""
    found = None
    i = 0
    while found is None and i < a.shape[0]:
        if a[i] > t:
            found = i
        i += 1
    return found


def smallest_positive(a):
    """The smallest positive element, None if there is none: ``best is None or a[i] < best``
    under a test that may leave ``best`` None."""
    best = None
    for i in range(a.shape[0]):
        if a[i] > 0 and (best is None or a[i] < best):
            best = a[i]
    return best


@dataclass
class LoopCase:
    name: str
    fn: Callable
    make: Callable[[bool, np.random.Generator], list]
    numba_fn: Callable | None = None


def _chain(quick: bool, rng: np.random.Generator) -> list:
    n = 1000 if quick else 4000
    return [
        np.arange(n, dtype=np.float64) + 0.01 * rng.standard_normal(n),
        np.zeros(n),
        0.5,
        0.01,
        5 if quick else 10,
    ]


def _plane(quick: bool, rng: np.random.Generator) -> list:
    n = 60 if quick else 200
    re, im = np.meshgrid(np.linspace(-2.0, 0.6, n), np.linspace(-1.2, 1.2, n))
    return [re + 1j * im, 20 if quick else 40]


def _signal(quick: bool, rng: np.random.Generator) -> list:
    n, taps = (2000 if quick else 20000), 16
    x = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    h = rng.standard_normal(taps) + 1j * rng.standard_normal(taps)
    d = np.convolve(x, h)[:n]
    return [x, d, 0.01, taps]


def _clip_args(quick: bool, rng: np.random.Generator) -> list:
    return [rng.standard_normal(65_536 if quick else 262_144), -0.5, 0.5]


def _clip_into_args(quick: bool, rng: np.random.Generator) -> list:
    x, lo, hi = _clip_args(quick, rng)
    return [x, np.empty_like(x), lo, hi]


LOOP_CASES = [
    LoopCase("1-D spring chain (n=4000, 10 steps)", spring_chain, _chain),
    LoopCase(
        "heat stencil (256^2, 50 steps)",
        heat_stencil,
        lambda q, r: [r.random((128 if q else 256,) * 2), 0.1, 20 if q else 50],
    ),
    LoopCase(
        "pairwise distance (3x300 vs 3x300)",
        pairwise_distance,
        lambda q, r: [r.random((3, 100 if q else 300)), r.random((3, 100 if q else 300))],
    ),
    LoopCase("escape-time fractal (200^2, 40 its)", escape_time, _plane, escape_time_numba),
    LoopCase("complex LMS filter (20k, 16 taps)", lms_filter, _signal),
    LoopCase(
        "scalar branch per element, summed (262k)",
        branchy_sum,
        lambda q, r: [r.random(65_536 if q else 262_144)],
    ),
    LoopCase("branch: clip as if/elif/else stores (262k)", clip_branches, _clip_args),
    LoopCase("branch: clip into a passed-in out (262k)", clip_into, _clip_into_args),
    LoopCase(
        "branch: piecewise, y bound in both arms (262k)",
        piecewise,
        lambda q, r: [r.standard_normal(65_536 if q else 262_144)],
    ),
    LoopCase(
        "branch: count above a threshold (262k)",
        count_above,
        lambda q, r: [r.standard_normal(65_536 if q else 262_144), 0.3],
    ),
    LoopCase(
        "None until found: first index above, while loop (262k)",
        first_above,
        lambda q, r: [r.standard_normal(65_536 if q else 262_144), 6.0],
    ),
    LoopCase(
        "None until found: smallest positive element (262k)",
        smallest_positive,
        lambda q, r: [r.standard_normal(65_536 if q else 262_144)],
    ),
    LoopCase(
        "unread temporaries: a float in a branch, a complex (262k)",
        unread_temporaries,
        lambda q, r: [r.random(65_536 if q else 262_144)],
    ),
    LoopCase(
        "Newton sqrt, while loop (100k)",
        newton_sqrt,
        lambda q, r: [r.random(10_000 if q else 100_000) * 100.0, 1e-12, 50],
    ),
]
