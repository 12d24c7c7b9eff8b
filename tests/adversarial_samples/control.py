"""errstate and catch_warnings inside the function, try/except/finally around NumPy errors,
global writes, np.random.Generator arguments, super(), __slots__, NumPy subclasses, threads,
recursion and every way of passing arguments (tests/test_e2e_adversarial.py runs them)."""

import threading
import warnings

import numpy as np


def errstate_inside(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        q = x / y
    r = np.log(x)
    return q, r


def t_errstate_inside(m, C, rec):
    f = C(m.errstate_inside)
    rec.call(f, np.array([1.0, 0.0, -1.0]), np.array([0.0, 0.0, 2.0]))
    rec.call(f, np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    rec.call(f, np.array([0.0, -1.0], np.float32), np.array([0.0, 1.0], np.float32))


def errstate_raise(x):
    with np.errstate(over="raise"):
        return np.exp(x) * 2


def t_errstate_raise(m, C, rec):
    f = C(m.errstate_raise)
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array([1.0, 1000.0]))
    rec.call(f, np.array([1.0, 100.0], np.float32))
    rec.call(f, np.array([1.0, 2.0]))


def catch_inside(x):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = np.sqrt(x)
        n = len(w)
    return y, n


def t_catch_warnings_inside(m, C, rec):
    f = C(m.catch_inside)
    rec.call(f, np.array([4.0, 9.0]))
    rec.call(f, np.array([4.0, -9.0]))
    rec.call(f, np.array([-1.0, -9.0]))


def catch_error(x):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            y = np.log(x)
        except RuntimeWarning as e:
            return None, str(e)
    return y, "ok"


def t_warning_as_error_caught(m, C, rec):
    f = C(m.catch_error)
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array([0.0, 2.0]))
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array([-1.0, 2.0]))


def try_finally(x, log):
    try:
        y = x.reshape(3, -1)
        return y.sum(axis=1)
    except ValueError:
        log.append("bad")
        return x * 0
    finally:
        log.append(x.shape[0])


def t_try_except_finally(m, C, rec):
    f = C(m.try_finally)
    log = []
    rec.call(f, np.arange(6.0), log)
    rec.call(f, np.arange(7.0), log)
    rec.call(f, np.arange(9), log)
    rec.note(log)


def try_index(x, i):
    try:
        return x[i] * 2
    except IndexError:
        return -1.0


def t_try_indexerror(m, C, rec):
    f = C(m.try_index)
    rec.call(f, np.arange(3.0), 1)
    rec.call(f, np.arange(3.0), 5)
    rec.call(f, np.arange(3.0), -4)
    rec.call(f, np.arange(3.0), -3)


def try_floatingpoint(x):
    old = np.seterr(all="raise")
    try:
        return (1.0 / x).sum()
    except FloatingPointError as e:
        return str(e)
    finally:
        np.seterr(**old)


def t_try_floatingpointerror(m, C, rec):
    f = C(m.try_floatingpoint)
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array([1.0, 0.0]))
    rec.call(f, np.array([1.0, 4.0]))


total = np.zeros(3)
calls = 0


def global_write(x):
    global total, calls
    total = total + x
    calls += 1
    return total * calls


def t_global_write(m, C, rec):
    f = C(m.global_write)
    rec.call(f, np.ones(3))
    rec.call(f, np.arange(3.0))
    m.total = np.zeros(3, np.float32)
    rec.call(f, np.ones(3, np.float32))
    rec.note((m.total, m.calls))


def global_inplace(x):
    total[:] += x
    return total.sum()


def t_global_inplace(m, C, rec):
    f = C(m.global_inplace)
    rec.call(f, np.ones(3))
    rec.call(f, np.arange(3.0))
    m.total = np.zeros(3, np.int64)
    rec.call(f, np.arange(3))
    rec.call(f, np.ones(3))  # float into int in place: UFuncTypeError
    rec.note(m.total)


def rng_draw(rng, n, loc):
    a = rng.standard_normal(n)
    b = rng.integers(0, 10, size=n)
    return a * 2 + loc, b, rng.random()


def t_rng_generator(m, C, rec):
    f = C(m.rng_draw)
    g = np.random.default_rng(42)
    rec.call(f, g, 4, 1.0)
    rec.call(f, g, 4, 1.0)
    rec.call(f, np.random.default_rng(7), 3, np.float32(0.5))
    rec.call(f, g, 0, 0.0)


def rng_shuffle(rng, x):
    rng.shuffle(x)
    return x[:2].copy(), rng.permutation(4)


def t_rng_shuffle_inplace(m, C, rec):
    f = C(m.rng_shuffle)
    rec.call(f, np.random.default_rng(1), np.arange(6.0))
    rec.call(f, np.random.default_rng(2), np.arange(5))


class Base:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return x @ self.w

    def loss(self, x, y):
        return float(np.mean((self.forward(x) - y) ** 2))


class Relu(Base):
    def forward(self, x):
        return np.maximum(super().forward(x), 0)


class Scaled(Relu):
    scale = 2.0

    def forward(self, x):
        return super().forward(x) * self.scale


def t_inheritance_super(m, C, rec):
    f = C(m.Base.loss)
    x = np.arange(6.0).reshape(3, 2) - 2
    y = np.ones(3)
    for obj in (
        m.Base(np.array([1.0, -1.0])),
        m.Relu(np.array([1.0, -1.0])),
        m.Scaled(np.array([1.0, -1.0])),
        m.Base(np.array([2.0, 0.5])),
    ):
        rec.call(f, obj, x, y)
    m.Scaled.scale = 3
    rec.call(f, m.Scaled(np.array([1.0, -1.0])), x, y)


def t_super_method_compiled(m, C, rec):
    f = C(m.Scaled.forward)
    x = np.arange(6.0).reshape(3, 2) - 2
    rec.call(f, m.Scaled(np.array([1.0, -1.0])), x)
    rec.call(f, m.Scaled(np.array([1, -1])), x.astype(np.int32))


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b


def slots_use(s, x):
    return s.a * x + s.b


def slots_write(s, x):
    s.a = s.a + x
    return s.a


def t_slots(m, C, rec):
    f = C(m.slots_use)
    g = C(m.slots_write)
    s = m.Slotted(np.arange(3.0), 1.0)
    rec.call(f, s, 2.0)
    s.b = np.ones(3, np.float32)
    rec.call(f, s, 2.0)
    rec.call(g, s, np.ones(3))
    rec.call(g, s, np.ones(3))
    del s.b
    rec.call(f, s, 2.0)  # AttributeError


class MyArr(np.ndarray):
    pass


def sub_ops(x):
    y = x * 2 + 1
    return y, type(y).__name__, y.sum()


def t_ndarray_subclass(m, C, rec):
    f = C(m.sub_ops)
    rec.call(f, np.arange(3.0))
    rec.call(f, np.arange(3.0).view(m.MyArr))
    rec.call(f, np.arange(3.0))


def masked_ops(x):
    y = np.sqrt(x) + 1
    return y, y.sum(), np.ma.getmaskarray(y)


def t_masked_array(m, C, rec):
    f = C(m.masked_ops)
    rec.call(f, np.arange(4.0))
    rec.call(f, np.ma.masked_array(np.arange(4.0) - 1, mask=[0, 1, 0, 0]))
    rec.call(f, np.ma.masked_array(np.arange(4.0) - 2, mask=[1, 0, 0, 0]))
    rec.call(f, np.arange(4.0))


def matrix_ops(a, b):
    c = a * b
    return c, c.shape, (a + 1).sum(axis=0)


def t_matrix(m, C, rec):
    f = C(m.matrix_ops)
    rec.call(f, np.arange(4.0).reshape(2, 2), np.arange(4.0).reshape(2, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        a = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    rec.call(f, a, a)
    rec.call(f, np.arange(4.0).reshape(2, 2), np.arange(4.0).reshape(2, 2))


def thread_fn(x, k):
    return np.sin(x) * k + x.sum()


def t_threads(m, C, rec):
    f = C(m.thread_fn)
    out = [None] * 8
    xs = [np.arange(5.0 + (i % 3)) * (i + 1) for i in range(8)]

    def work(i):
        for _ in range(5):
            out[i] = f(xs[i], i)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    rec.note(out)


def recurse(x, n):
    if n == 0:
        return x
    return recurse(x * 0.5 + 1, n - 1) + n


def t_recursion(m, C, rec):
    f = C(m.recurse)
    rec.call(f, np.arange(3.0), 3)
    rec.call(f, np.arange(3.0), 0)
    rec.call(f, np.arange(3, dtype=np.float32), 5)
    rec.call(f, 2.0, 4)


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def big_fact(n, x):
    return fact(n), x * fact(n)


def t_recursion_bigint(m, C, rec):
    f = C(m.big_fact)
    rec.call(f, 5, np.arange(3))
    rec.call(f, 20, np.arange(3))
    rec.call(f, 21, np.arange(3))  # past int64: OverflowError or object


def call_styles(x, *args, scale=1.0, offset=0, **kw):
    s = x * scale + offset
    for a in args:
        s = s + a
    for k in sorted(kw):
        s = s * kw[k]
    return s, len(args), tuple(sorted(kw))


def t_call_styles(m, C, rec):
    f = C(m.call_styles)
    x = np.arange(3.0)
    rec.call(f, x)
    rec.call(f, x, 1, 2)
    rec.call(f, x, scale=2)
    rec.call(f, x, np.ones(3), offset=np.int8(3), z=2.0, a=np.float32(0.5))
    rec.call(f, x=x, scale=0.5)
    rec.call(f, x, np.ones(2))
    rec.call(f, x, bogus=None)


def kwonly(x, /, y=None, *, mode="add"):
    if y is None:
        y = np.ones_like(x)
    if mode == "add":
        return x + y
    elif mode == "mul":
        return x * y
    raise ValueError(mode)


def t_kwonly_defaults(m, C, rec):
    f = C(m.kwonly)
    x = np.arange(3.0)
    rec.call(f, x)
    rec.call(f, x, x, mode="mul")
    rec.call(f, x, mode="div")
    rec.call(f, x, 2)
    rec.call(f, x=x)  # positional-only: TypeError


def mutable_default(x, acc=[]):  # noqa: B006 - the shared default is the point
    acc.append(x.sum())
    return len(acc), np.array(acc)


def t_mutable_default(m, C, rec):
    f = C(m.mutable_default)
    for k in range(3):
        rec.call(f, np.arange(3.0) + k)
    rec.call(f, np.arange(3.0), [])
