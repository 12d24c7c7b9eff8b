"""Loops compiled to C: Python ints that grow, NumPy ints that wrap, accumulators of mixed
types, in-place stencils reading what they wrote, math-module errors, early raises after
writes (tests/test_e2e_adversarial.py runs them)."""

import dataclasses
import math

import numpy as np


def loop_int_overflow(n):
    s = 1
    for i in range(1, n):
        s = s * i
    return s


def t_loop_python_int_grows(m, C, rec):
    f = C(m.loop_int_overflow)
    rec.call(f, 10)
    rec.call(f, 21)
    rec.call(f, 30)
    rec.call(f, 5)


def loop_np_int_overflow(a):
    s = a[0]
    for i in range(1, a.shape[0]):
        s = s * a[i] + 1
    return s


def t_loop_numpy_int_wraps(m, C, rec):
    f = C(m.loop_np_int_overflow)
    rec.call(f, np.array([3, 5, 7, 11], np.int64))
    rec.call(f, np.full(40, 1000, np.int64))
    rec.call(f, np.full(10, 100, np.int8))
    rec.call(f, np.full(10, 100, np.uint32))


def loop_mixed_accum(a):
    s = 0
    for i in range(a.shape[0]):
        if a[i] > 0:
            s += a[i]
        else:
            s += 1
    return s, type(s).__name__


def t_loop_mixed_type_accumulator(m, C, rec):
    f = C(m.loop_mixed_accum)
    rec.call(f, np.array([1.5, -2.0, 3.0]))
    rec.call(f, np.array([-1.0, -2.0]))
    rec.call(f, np.array([], np.float64))
    rec.call(f, np.array([1, -2, 3], np.int32))


def loop_inplace_alias(a, b):
    n = a.shape[0]
    for i in range(n):
        a[i] = a[i] + b[n - 1 - i]
    return a


def t_loop_inplace_reversed_alias(m, C, rec):
    f = C(m.loop_inplace_alias)
    x = np.arange(6.0)
    rec.call(f, x, x)
    y = np.arange(6.0)
    rec.call(f, y[:5], y[1:])
    rec.call(f, np.arange(6.0), np.ones(6))
    rec.note((x, y))


def loop_break_return(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i, x[i]
    else:
        return -1, None


def t_loop_for_else(m, C, rec):
    f = C(m.loop_break_return)
    rec.call(f, np.arange(5.0), 2.5)
    rec.call(f, np.arange(5.0), 10.0)
    rec.call(f, np.array([np.nan, 3.0]), 1.0)
    rec.call(f, np.arange(5), 2)


@dataclasses.dataclass
class Particle:
    pos: np.ndarray
    vel: np.ndarray
    mass: float


def loop_particles(ps, dt, steps):
    for _ in range(steps):
        for p in ps:
            p.pos = p.pos + p.vel * dt
            p.vel = p.vel * (1 - 0.1 / p.mass)
    return sum(float(p.pos.sum()) for p in ps)


def t_loop_over_dataclasses(m, C, rec):
    f = C(m.loop_particles)
    ps = [m.Particle(np.arange(2.0), np.ones(2), 1.0), m.Particle(np.zeros(2), -np.ones(2), 2.0)]
    rec.call(f, ps, 0.1, 3)
    ps[1].mass = 0  # ZeroDivisionError from Python float
    rec.call(f, ps, 0.1, 1)
    rec.note(ps)


def loop_math(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = math.sqrt(x[i]) if x[i] >= 0 else math.nan
    return out


def t_loop_math_module(m, C, rec):
    f = C(m.loop_math)
    rec.call(f, np.arange(4.0))
    rec.call(f, np.array([-1.0, 4.0]))
    rec.call(f, np.array([np.nan, np.inf]))
    rec.call(f, np.arange(4, dtype=np.float32))


def loop_math_domain(x):
    s = 0.0
    for v in x:
        s += math.log(v)
    return s


def t_loop_math_domain_error(m, C, rec):
    f = C(m.loop_math_domain)
    rec.call(f, np.arange(1.0, 4.0))
    rec.call(f, np.array([1.0, 0.0]))
    rec.call(f, np.array([1.0, -1.0]))
    rec.call(f, np.array([1.0, np.nan]))


def loop_2d_stencil(u, k):
    n, m_ = u.shape
    out = u.copy()
    for i in range(1, n - 1):
        for j in range(1, m_ - 1):
            out[i, j] = u[i, j] + k * (
                u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4 * u[i, j]
            )
    return out


def t_loop_stencil(m, C, rec):
    f = C(m.loop_2d_stencil)
    rec.call(f, np.arange(16.0).reshape(4, 4), 0.1)
    rec.call(f, np.arange(16.0).reshape(4, 4).T, 0.1)
    rec.call(f, np.ones((2, 2)), 0.1)
    rec.call(f, np.arange(12, dtype=np.int32).reshape(3, 4), 1)


def loop_inplace_stencil(u, k):
    n = u.shape[0]
    for i in range(1, n - 1):
        u[i] = u[i] + k * (u[i - 1] - 2 * u[i] + u[i + 1])  # reads what it wrote
    return u


def t_loop_inplace_gauss_seidel(m, C, rec):
    f = C(m.loop_inplace_stencil)
    rec.call(f, np.arange(8.0) ** 2, 0.25)
    rec.call(f, (np.arange(8.0) ** 2)[::-1], 0.25)
    rec.call(f, np.arange(8) ** 2, 1)


def loop_while_data(x):
    i = 0
    while i < x.shape[0] and x[i] != 0:
        i += 1
    return i


def t_loop_while_data_dependent(m, C, rec):
    f = C(m.loop_while_data)
    rec.call(f, np.array([1.0, 2.0, 0.0, 4.0]))
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array([], np.float64))
    rec.call(f, np.array([-0.0]))


def loop_index_error(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    return s


def t_loop_index_error(m, C, rec):
    f = C(m.loop_index_error)
    rec.call(f, np.arange(4.0), 4)
    rec.call(f, np.arange(4.0), 5)
    rec.call(f, np.arange(4.0), -1)
    rec.call(f, np.arange(4.0)[::-1], 4)


def loop_negative_index(x):
    s = 0.0
    for i in range(-1, -x.shape[0] - 1, -1):
        s = s * 2 + x[i]
    return s


def t_loop_negative_indices(m, C, rec):
    f = C(m.loop_negative_index)
    rec.call(f, np.arange(5.0))
    rec.call(f, np.arange(1.0))


def loop_list_build(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] % 2 == 0:
            out.append(x[i] * 2)
    return out, np.array(out)


def t_loop_list_build(m, C, rec):
    f = C(m.loop_list_build)
    rec.call(f, np.arange(6))
    rec.call(f, np.arange(6.0))
    rec.call(f, np.array([1, 3]))


def loop_float32_accum(x):
    s = np.float32(0)
    for v in x:
        s += v
    return s, type(s)


def t_loop_float32_accum(m, C, rec):
    f = C(m.loop_float32_accum)
    rec.call(f, np.full(100, 0.1, np.float32))
    rec.call(f, np.full(100, 0.1))
    rec.call(f, np.arange(5))


def loop_complex_accum(z):
    s = 0j
    for v in z:
        s = s * 1j + v
    return s


def t_loop_complex_accum(m, C, rec):
    f = C(m.loop_complex_accum)
    rec.call(f, np.array([1 + 2j, 3 - 1j]))
    rec.call(f, np.arange(4.0))
    rec.call(f, np.array([np.inf + 0j, 1]))


def loop_uint_underflow(a):
    d = a[0]
    for i in range(1, a.shape[0]):
        d = d - a[i]
    return d


def t_loop_uint_underflow(m, C, rec):
    f = C(m.loop_uint_underflow)
    rec.call(f, np.array([5, 3, 1], np.uint8))
    rec.call(f, np.array([1, 3], np.uint64))
    rec.call(f, np.array([1, 3], np.uint16))


def loop_shift(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] << k
    return out


def t_loop_shift_past_width(m, C, rec):
    f = C(m.loop_shift)
    rec.call(f, np.arange(4), 3)
    rec.call(f, np.arange(4), 63)
    rec.call(f, np.arange(4), 64)
    rec.call(f, np.arange(4, dtype=np.int8), 7)
    rec.call(f, np.arange(4, dtype=np.int8), 9)


def loop_int_pow(a, k):
    s = 0
    for v in a:
        s += v**k
    return s


def t_loop_int_pow(m, C, rec):
    f = C(m.loop_int_pow)
    rec.call(f, np.arange(4), 2)
    rec.call(f, np.arange(4), -1)  # integers to negative powers: ValueError
    rec.call(f, np.arange(4.0), -1)
    rec.call(f, np.arange(4), 70)


def loop_mod_neg(a, b):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] % b[i] + a[i] // b[i]
    return out


def t_loop_mod_negative(m, C, rec):
    f = C(m.loop_mod_neg)
    rec.call(f, np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3]))
    rec.call(f, np.array([7.5, -7.5, 0.0, -0.0]), np.array([2.0, 2.0, -2.0, 2.0]))
    rec.call(f, np.array([1, 2]), np.array([0, 1]))
    rec.call(f, np.array([np.iinfo(np.int64).min, 1]), np.array([-1, 1]))


def loop_minmax(a):
    lo, hi = a[0], a[0]
    for v in a:
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


def t_loop_min_max_nan(m, C, rec):
    f = C(m.loop_minmax)
    rec.call(f, np.array([3.0, 1.0, 2.0]))
    rec.call(f, np.array([3.0, np.nan, 2.0]))
    rec.call(f, np.array([np.nan, 1.0]))
    rec.call(f, np.array([0.0, -0.0]))
    rec.call(f, np.array([-0.0, 0.0]))


def loop_early_mutation(a, log):
    for i in range(a.shape[0]):
        a[i] *= 2
        if a[i] > 5:
            log.append(i)
            raise ValueError(f"too big at {i}")
    return a


def t_loop_raise_after_partial_writes(m, C, rec):
    f = C(m.loop_early_mutation)
    log = []
    rec.call(f, np.arange(5.0), log)
    rec.call(f, np.arange(2.0), log)
    rec.note(log)
