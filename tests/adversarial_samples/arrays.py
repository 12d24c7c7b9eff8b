"""Object, float16, bool, uint64, structured and datetime64 dtypes; 0-d, empty, negatively
strided and read-only arrays; arguments aliasing each other; out= arguments; integer overflow
in Python and NumPy ints (tests/test_e2e_adversarial.py runs them)."""

import numpy as np


def obj_ops(x):
    y = x * 2
    return y, y.sum(), x[0]


def t_object_dtype(m, C, rec):
    f = C(m.obj_ops)
    rec.call(f, np.array([1, 2.5, 3], dtype=object))
    rec.call(f, np.array([10**20, 3], dtype=object))
    rec.call(f, np.array(["a", "b"], dtype=object))
    rec.call(f, np.array([1.0, 2.0]))


def f16_ops(x, y):
    z = x * y + np.float16(1)
    return z, z.sum(), z.mean(), np.exp(x), (x / 3).dtype


def t_float16(m, C, rec):
    f = C(m.f16_ops)
    x = np.linspace(-2, 2, 7).astype(np.float16)
    rec.call(f, x, x)
    rec.call(f, x * 100, x * 100)  # overflows to inf in float16
    rec.call(f, x, np.float32(0.1))
    rec.call(f, x, 0.1)


def bool_ops(a, b):
    return a & b, a ^ b, ~a, a + b, a.sum(), np.cumsum(a), -a.astype(int), a * 1.5


def t_bool_dtype(m, C, rec):
    f = C(m.bool_ops)
    rec.call(f, np.array([True, False, True]), np.array([True, True, False]))
    rec.call(f, np.array([], bool), np.array([], bool))
    rec.call(f, np.array([True]), True)


def bool_neg(a):
    return -a


def t_bool_negative_raises(m, C, rec):
    f = C(m.bool_neg)
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array([True, False]))


def u64_ops(a, b):
    return a + b, a - b, a * 3, a // b, a % b, a >> 1, a.sum(), a.max() - 1, a + 1, a - 1


def t_uint64(m, C, rec):
    f = C(m.u64_ops)
    a = np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)
    b = np.array([1, 2, 3, 4], dtype=np.uint64)
    rec.call(f, a, b)
    rec.call(f, a, np.uint64(7))
    rec.call(f, a[:2], b[:2].astype(np.int64))  # uint64 + int64 -> float64
    rec.call(f, a, b * 0)  # division by zero ints


def u64_scalar_mix(a, k):
    return a + k, a * k, (a - k).dtype


def t_uint64_python_int(m, C, rec):
    f = C(m.u64_scalar_mix)
    a = np.array([1, 2], dtype=np.uint64)
    rec.call(f, a, 3)
    rec.call(f, a, -1)  # NumPy 2: OverflowError for negative Python int to uint64
    rec.call(f, a, 2**64 - 1)
    rec.call(f, a, 2**64)
    rec.call(f, a, 1.5)


def struct_ops(r):
    return r["x"] * 2 + r["y"], r[0], r["x"].sum()


def t_structured(m, C, rec):
    f = C(m.struct_ops)
    dt = np.dtype([("x", "f8"), ("y", "i4")])
    r = np.array([(1.0, 2), (3.5, -1)], dtype=dt)
    rec.call(f, r)
    r2 = np.zeros(3, dtype=[("x", "f4"), ("y", "f4"), ("z", "i1")])
    rec.call(f, r2)


def struct_write(r, v):
    r["x"] += v
    r[0] = (9, 9)
    return r


def t_structured_write(m, C, rec):
    f = C(m.struct_write)
    dt = np.dtype([("x", "f8"), ("y", "i4")])
    rec.call(f, np.zeros(3, dt), 1.5)
    rec.call(f, np.zeros(3, dt), np.arange(3.0))


def dt_ops(t, d):
    u = t + d
    return u, u - t, (u - t) / np.timedelta64(1, "s"), np.diff(t), t.max()


def t_datetime64(m, C, rec):
    f = C(m.dt_ops)
    t = np.array(["2020-01-01", "2021-06-15", "2020-03-01"], dtype="datetime64[D]")
    rec.call(f, t, np.timedelta64(3, "D"))
    rec.call(f, t, np.timedelta64(5, "h"))
    rec.call(f, t.astype("datetime64[s]"), np.array([1, 2, 3], "timedelta64[s]"))
    rec.call(f, np.array(["NaT", "2020-01-01"], "datetime64[D]"), np.timedelta64(1, "D"))


def zero_d(a, b):
    c = a * b + 1
    return c, c[()], type(c), a.ndim, float(c), c.item()


def t_zero_d(m, C, rec):
    f = C(m.zero_d)
    rec.call(f, np.array(2.0), np.array(3.0))
    rec.call(f, np.array(2), np.array(3))
    rec.call(f, np.array(2.0), 3.0)
    rec.call(f, np.float64(2.0), np.array(3.0))
    rec.call(f, np.array(2.0, np.float32), np.array(3, np.int8))


def zero_d_inplace(a, v):
    a += v
    a[...] = a * 2
    return a


def t_zero_d_inplace(m, C, rec):
    f = C(m.zero_d_inplace)
    rec.call(f, np.array(1.0), 2.0)
    rec.call(f, np.array(1), 2)
    rec.call(f, np.array(1), 2.5)  # cast error


def empty_ops(x):
    return x.sum(), x.prod(), x.mean(), x.max(), x * 2


def t_empty_arrays(m, C, rec):
    f = C(m.empty_ops)
    rec.call(f, np.arange(3.0))
    rec.call(f, np.zeros(0))
    rec.call(f, np.zeros((0, 3)))
    rec.call(f, np.zeros((2, 0), np.int32))


def empty_axis(x):
    return x.sum(axis=0), x.min(axis=1, initial=np.inf), np.argmax(x, axis=0) if x.shape[0] else -1


def t_empty_axis(m, C, rec):
    f = C(m.empty_axis)
    rec.call(f, np.ones((2, 3)))
    rec.call(f, np.ones((0, 3)))
    rec.call(f, np.ones((3, 0)))


def neg_stride(x, y):
    x[::-1] += y
    return x[::-2] * 2, np.cumsum(x[::-1])


def t_negative_strides(m, C, rec):
    f = C(m.neg_stride)
    rec.call(f, np.arange(6.0), np.arange(6.0))
    rec.call(f, np.arange(6.0)[::-1], np.ones(6))
    base = np.arange(12.0)
    rec.call(f, base[10:0:-2], np.arange(5.0))
    rec.call(f, np.arange(5), 1)


def neg_2d(a):
    b = a[::-1, ::-1]
    return b @ np.ones(b.shape[1]), b.T.copy(), np.flip(a, 0).sum(axis=1)


def t_negative_strides_2d(m, C, rec):
    f = C(m.neg_2d)
    a = np.arange(12.0).reshape(3, 4)
    rec.call(f, a)
    rec.call(f, a[::-1])
    rec.call(f, np.asfortranarray(a)[:, ::-2])


def ro_write(x, v):
    x += v
    return x


def ro_setitem(x):
    x[0] = 5
    return x.sum()


def t_readonly_write(m, C, rec):
    f = C(m.ro_write)
    g = C(m.ro_setitem)
    a = np.arange(3.0)
    rec.call(f, a, 1.0)
    a.flags.writeable = False
    rec.call(f, a, 1.0)
    rec.call(g, a)
    b = np.arange(3.0)
    rec.call(g, b)
    b.flags.writeable = False
    rec.call(g, b)
    rec.call(f, np.broadcast_to(np.arange(3.0), (2, 3)), 1.0)
    rec.call(f, np.frombuffer(b"\x00" * 24, dtype=np.float64), 1.0)


def ro_readonly_ok(x):
    return x * 2, x.flags.writeable


def t_readonly_read(m, C, rec):
    f = C(m.ro_readonly_ok)
    a = np.arange(3.0)
    a.flags.writeable = False
    rec.call(f, a)
    rec.call(f, np.arange(3.0))


def alias_add(a, b):
    a += b
    b *= 2
    return a + b


def t_alias_same(m, C, rec):
    f = C(m.alias_add)
    x = np.arange(4.0)
    rec.call(f, x, x)
    rec.call(f, np.arange(4.0), np.ones(4))
    y = np.arange(4.0)
    rec.call(f, y, y)
    rec.note((x, y))


def alias_shift(a, b):
    a[:] = b + 1
    return a


def t_alias_overlap(m, C, rec):
    f = C(m.alias_shift)
    x = np.arange(6.0)
    rec.call(f, x[1:], x[:-1])
    rec.call(f, x[:-1], x[1:])
    z = np.arange(6.0)
    rec.call(f, z[1:], np.arange(5.0))
    w = np.arange(6.0)
    rec.call(f, w[1:], w[:-1])
    rec.note((x, z, w))


def alias_inplace_ufunc(a, b):
    np.add(a, b, out=a)
    a -= b[::-1]
    return a


def t_alias_overlap_ufunc(m, C, rec):
    f = C(m.alias_inplace_ufunc)
    x = np.arange(8.0)
    rec.call(f, x[2:], x[:-2])
    rec.call(f, x[:4], x[4:])
    y = np.arange(8.0)
    rec.call(f, y[::2], y[1::2])
    rec.note((x, y))


def loop_alias(a, b):
    for i in range(1, a.shape[0]):
        a[i] = a[i - 1] + b[i]
    return a


def t_loop_alias(m, C, rec):
    f = C(m.loop_alias)
    x = np.arange(6.0)
    rec.call(f, x, x)
    y = np.arange(6.0)
    rec.call(f, y[1:], y[:-1])
    z = np.arange(6.0)
    rec.call(f, z, np.ones(6))
    rec.note((x, y, z))


def out_arg(a, b, out):
    np.multiply(a, b, out=out)
    np.add(out, 1, out=out)
    r = np.sqrt(a, out=out if out.dtype == a.dtype else None)
    return out, r, r is out


def t_out_args(m, C, rec):
    f = C(m.out_arg)
    a, b = np.arange(4.0), np.full(4, 2.0)
    rec.call(f, a, b, np.zeros(4))
    rec.call(f, a, b, np.zeros(4, np.float32))
    rec.call(f, a, b, np.zeros(4, np.int64))  # casting error
    rec.call(f, a, b, np.zeros(3))  # shape error
    o = np.zeros(4)
    rec.call(f, o, b, o)


def out_reduce(a, out):
    np.sum(a, axis=0, out=out)
    np.cumsum(a[0], out=a[1])
    return out, a


def t_out_reduce(m, C, rec):
    f = C(m.out_reduce)
    rec.call(f, np.arange(6.0).reshape(2, 3), np.zeros(3))
    rec.call(f, np.arange(6).reshape(2, 3), np.zeros(3, np.float32))
    rec.call(f, np.arange(6).reshape(2, 3), np.zeros(3, np.int8))


def out_tuple(a, o1, o2):
    q, r = np.divmod(a, 3, out=(o1, o2))
    return q is o1, r is o2, o1 + o2


def t_out_tuple(m, C, rec):
    f = C(m.out_tuple)
    rec.call(f, np.arange(7.0), np.zeros(7), np.zeros(7))
    rec.call(f, np.arange(7), np.zeros(7, np.int64), np.zeros(7, np.int64))


def py_int_ops(n, k):
    a = n * k
    b = n**k
    c = a << 40
    return a, b, c, -n // k, n % -k


def t_python_int_overflow(m, C, rec):
    f = C(m.py_int_ops)
    rec.call(f, 3, 5)
    rec.call(f, 2**40, 3)
    rec.call(f, 2**62, 2)
    rec.call(f, -(2**63), 3)
    rec.call(f, 7, 30)


def np_int_ops(a, k):
    s = a * k
    t = a[0] * a[1]
    u = np.int64(2**62) * 4
    return s, t, u, a.sum(), a + 2**40


def t_numpy_int_overflow(m, C, rec):
    f = C(m.np_int_ops)
    rec.call(f, np.array([2**31 - 1, 2], np.int32), 2)
    rec.call(f, np.array([2**62, 4], np.int64), 2)
    rec.call(f, np.array([100, 100], np.int8), np.int8(3))
    rec.call(f, np.array([100, 100], np.int8), 300)


def scalar_overflow_loop(x, n):
    s = x[0]
    for i in range(n):
        s = s * x[1]
    return s, type(s)


def t_numpy_scalar_overflow_loop(m, C, rec):
    f = C(m.scalar_overflow_loop)
    rec.call(f, np.array([3, 7], np.int64), 10)
    rec.call(f, np.array([3, 7], np.int64), 40)
    rec.call(f, np.array([3, 7], np.int16), 10)
    rec.call(f, np.array([3, 7], np.uint8), 5)


def int_mix(a, n):
    return a + n, (a * n).dtype, a // n, np.int32(n) + a


def t_int_scalar_mix(m, C, rec):
    f = C(m.int_mix)
    a = np.arange(4, dtype=np.int16)
    rec.call(f, a, 3)
    rec.call(f, a, 40000)  # out of int16 range: OverflowError in NumPy 2
    rec.call(f, a, np.int64(40000))
    rec.call(f, a, 0)


def int_div_loop(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i] // (i - 2)
    return s


def t_int_div_zero_loop(m, C, rec):
    f = C(m.int_div_loop)
    rec.call(f, np.arange(5))
    rec.call(f, np.arange(2))
    rec.call(f, np.arange(5.0))


def py_int_div_zero(a, k):
    return a.sum() // k, 7 // k


def t_python_zero_division(m, C, rec):
    f = C(m.py_int_div_zero)
    rec.call(f, np.arange(4), 2)
    rec.call(f, np.arange(4), 0)
    rec.call(f, np.arange(4.0), 0)
