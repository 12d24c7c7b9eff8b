"""NumPy and Python scalars: weak promotion, overflow warnings, casts of NaN to int, unions
of types from branches, signed zeros and NaN in min/max/sign, threads compiling new kinds
at once (tests/test_e2e_adversarial.py runs them)."""

import threading

import numpy as np


def same_twice(x):
    y = x * 2
    s = y.sum()
    return y, y, s, s


def t_returned_twice(m, C, rec):
    f = C(m.same_twice)
    r = rec.call(f, np.arange(3.0))
    rec.note((r[0] is r[1], r[2] is r[3]))
    r = rec.call(f, np.arange(3))
    rec.note((r[0] is r[1], r[2] is r[3]))


def inplace_methods(x, v):
    a = x.sort()
    b = x.fill(v) if v is not None else None
    np.copyto(x[:2], 7)
    np.put(x, [0, -1], [5, 6])
    x.flat[1] = 9
    return a, b, x


def t_inplace_methods_return_none(m, C, rec):
    f = C(m.inplace_methods)
    rec.call(f, np.array([3.0, 1.0, 2.0]), None)
    rec.call(f, np.array([3.0, 1.0, 2.0]), 4.0)
    rec.call(f, np.array([3, 1, 2]), 2.5)


def weak_scalars(a, b):
    return a + 1.0, a * 2, b + 300, a / b, type(a + 1.0).__name__


def t_numpy_scalar_weak_promotion(m, C, rec):
    f = C(m.weak_scalars)
    rec.call(f, np.float32(1.5), np.int8(2))
    rec.call(f, np.float16(1.5), np.int16(2))
    rec.call(f, np.float64(1.5), np.uint8(2))
    rec.call(f, 1.5, 2)


def scalar_wrap(a, b):
    return a + b, a * b, -a, abs(a), a - b


def t_numpy_scalar_overflow_warns(m, C, rec):
    f = C(m.scalar_wrap)
    rec.call(f, np.int8(100), np.int8(100))
    rec.call(f, np.int8(-128), np.int8(1))
    rec.call(f, np.int64(-(2**63)), np.int64(2))
    rec.call(f, np.uint8(200), np.uint8(100))
    rec.call(f, np.int8(1), np.int8(2))


def builtin_sum_int8(x):
    return sum(x), sum(x, 0.0), sum(v * 2 for v in x)


def t_builtin_sum_small_ints(m, C, rec):
    f = C(m.builtin_sum_int8)
    rec.call(f, np.array([100, 100], np.int8))
    rec.call(f, np.array([1, 2], np.int8))
    rec.call(f, np.array([200, 200], np.uint8))


def cast_nan(x):
    return x.astype(np.int64), x.astype(np.uint8), np.int32(x[0]) if np.isfinite(x[0]) else -1


def t_cast_nan_inf_to_int(m, C, rec):
    f = C(m.cast_nan)
    rec.call(f, np.array([1.5, 2.5]))
    rec.call(f, np.array([np.nan, 1.0]))
    rec.call(f, np.array([1e30, -1.0]))
    rec.call(f, np.array([300.0, -5.0]))


def where_mixed(c, x):
    return np.where(c, x, 0), np.where(c, x, 0.5), np.where(c, 1, 2), np.where(c, x, np.int8(1))


def t_where_mixed_types(m, C, rec):
    f = C(m.where_mixed)
    c = np.array([True, False, True])
    rec.call(f, c, np.arange(3, dtype=np.int8))
    rec.call(f, c, np.arange(3.0, dtype=np.float32))
    rec.call(f, c, np.array([True, True, False]))
    rec.call(f, True, np.arange(3))


def int_matmul(a, b):
    return a @ b, np.dot(a, b), (a * b).sum()


def t_int_matmul_overflow(m, C, rec):
    f = C(m.int_matmul)
    rec.call(f, np.full((2, 2), 2**40), np.full((2, 2), 2**40))
    rec.call(f, np.full((2, 2), 100, np.int8), np.full((2, 2), 100, np.int8))
    rec.call(f, np.eye(2, dtype=bool), np.eye(2, dtype=bool))


def cumsum_dtypes(x):
    return np.cumsum(x), np.cumprod(x), x.sum(), x.prod(), np.add.reduce(x), x.mean()


def t_accumulate_dtypes(m, C, rec):
    f = C(m.cumsum_dtypes)
    rec.call(f, np.array([100, 100, 100], np.int8))
    rec.call(f, np.array([200, 100], np.uint8))
    rec.call(f, np.array([True, True, False]))
    rec.call(f, np.array([1.5, 2.5], np.float16))


def union_ternary(x, k):
    v = x[0] if k > 0 else 0
    w = 1.5 if k > 1 else x.sum()
    return v, w, v + w, type(v).__name__, type(w).__name__


def t_union_ternary_types(m, C, rec):
    f = C(m.union_ternary)
    for k in (2, 1, 0, -1, 2):
        rec.call(f, np.arange(1.0, 4.0), k)
    rec.call(f, np.arange(1, 4), 1)


def union_loop(x):
    best = None
    for v in x:
        if best is None or v > best:
            best = v
    return best, type(best).__name__


def t_none_or_value_loop(m, C, rec):
    f = C(m.union_loop)
    rec.call(f, np.array([3.0, 5.0, 1.0]))
    rec.call(f, np.array([], np.float64))
    rec.call(f, np.array([np.nan, 1.0]))
    rec.call(f, np.array([2, 7], np.int16))


def int_div_types(a, b):
    return a / b, a // b, a % b, divmod(a, b), a**b


def t_int_scalar_division(m, C, rec):
    f = C(m.int_div_types)
    rec.call(f, np.int64(7), np.int64(-2))
    rec.call(f, np.int64(7), np.int64(0))
    rec.call(f, 7, -2)
    rec.call(f, np.int32(-7), 2)
    rec.call(f, np.int64(2), np.int64(-1))


def threaded_kinds(x):
    return (x * 2 + 1).sum(), x.dtype


def t_threads_different_kinds(m, C, rec):
    f = C(m.threaded_kinds)
    inputs = [
        np.arange(5, dtype=d)
        for d in (np.float64, np.float32, np.int64, np.int8, np.uint16, np.float16)
    ]
    out = [None] * len(inputs)
    errors = []

    def work(i):
        try:
            for _ in range(4):
                out[i] = f(inputs[i])
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    ts = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    rec.note((out, errors))


def float_repr_results(x):
    s = 0.0
    for v in x:
        s += float(v)
    return s, int(s), round(s, 2), s.is_integer(), s.hex()


def t_python_float_methods(m, C, rec):
    f = C(m.float_repr_results)
    rec.call(f, np.array([0.1, 0.2, 0.3]))
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array([np.inf]))


def argmax_ties(x):
    return (
        np.argmax(x),
        np.argmin(x),
        x.argmax(axis=0) if x.ndim > 1 else -1,
        np.nanargmax(np.where(np.isnan(x), -np.inf, x)),
    )


def t_argmax_nan_ties(m, C, rec):
    f = C(m.argmax_ties)
    rec.call(f, np.array([1.0, 3.0, 3.0, 2.0]))
    rec.call(f, np.array([1.0, np.nan, 3.0]))
    rec.call(f, np.array([[1.0, 2.0], [2.0, 1.0]]))
    rec.call(f, np.array([-0.0, 0.0]))


def clip_ops(x, lo, hi):
    return np.clip(x, lo, hi), x.clip(lo), np.minimum(np.maximum(x, lo), hi)


def t_clip_edge(m, C, rec):
    f = C(m.clip_ops)
    rec.call(f, np.arange(5.0), 1.0, 3.0)
    rec.call(f, np.arange(5.0), 3.0, 1.0)  # lo > hi
    rec.call(f, np.array([np.nan, 1.0]), 0.0, 0.5)
    rec.call(f, np.arange(5, dtype=np.int8), 1, 300)


def minimum_nan_zero(a, b):
    return np.minimum(a, b), np.fmin(a, b), np.maximum(a, b), min(a[0], b[0]), max(b[0], a[0])


def t_minmax_signed_zero_nan(m, C, rec):
    f = C(m.minimum_nan_zero)
    rec.call(f, np.array([0.0, np.nan]), np.array([-0.0, 1.0]))
    rec.call(f, np.array([-0.0, 1.0]), np.array([0.0, np.nan]))


def sign_ops(x):
    return np.sign(x), np.copysign(1.0, x), np.signbit(x), np.abs(x), -x, np.negative(x)


def t_sign_of_zero_nan(m, C, rec):
    f = C(m.sign_ops)
    rec.call(f, np.array([-0.0, 0.0, np.nan, -np.nan, -np.inf, 2.0]))
    rec.call(f, np.array([-3, 0, 3], np.int8))
    rec.call(f, np.array([-128], np.int8))
