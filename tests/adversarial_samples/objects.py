"""Dataclasses, NamedTuples, properties, class/staticmethods, partials, lru_cache helpers,
closures changed through nonlocal, generators: each ``t_*`` scenario calls a compiled function
several times with changes between calls (tests/test_e2e_adversarial.py runs them)."""

import dataclasses
import functools
import typing

import numpy as np


@dataclasses.dataclass
class State:
    x: np.ndarray
    v: np.ndarray
    k: float = 0.5


def dc_step(s, dt):
    s.v = s.v - s.k * s.x * dt
    s.x = s.x + s.v * dt
    return float(np.sum(s.x * s.x))


def t_dataclass_step(m, C, rec):
    f = C(m.dc_step)
    s = m.State(np.linspace(0, 1, 16), np.zeros(16))
    for dt in (0.1, 0.2, 0.1):
        rec.call(f, s, dt)
    s.k = 2  # int now
    rec.call(f, s, 0.1)
    s.x = s.x.astype(np.float32)
    rec.call(f, s, 0.1)
    rec.note(s)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: np.ndarray
    scale: float


def frozen_use(p, y):
    y += p.a * p.scale
    return y.sum(), p.a.dtype


def t_frozen_dataclass_inplace(m, C, rec):
    f = C(m.frozen_use)
    y = np.ones(8)
    rec.call(f, m.Frozen(np.arange(8.0), 2.0), y)
    rec.call(f, m.Frozen(np.arange(8), 3.0), y)
    rec.call(f, m.Frozen(np.arange(8, dtype=np.int8), 3), np.ones(8, np.int64))
    rec.note(y)


def frozen_write(p):
    p.scale = 3.0
    return p.a * 2


def t_frozen_dataclass_write_raises(m, C, rec):
    f = C(m.frozen_write)
    rec.call(f, m.Frozen(np.arange(4.0), 1.0))
    rec.call(f, m.Frozen(np.arange(4.0), 1.0))


class Pt(typing.NamedTuple):
    xy: np.ndarray
    w: float = 1.0


def nt_fn(p, q):
    d = p.xy - q.xy
    return Pt(d * p.w, q.w), p._replace(w=2.0).w, np.hypot(d[0], d[1])


def t_namedtuple_roundtrip(m, C, rec):
    f = C(m.nt_fn)
    rec.call(f, m.Pt(np.array([1.0, 2.0])), m.Pt(np.array([0.5, 0.25]), 3.0))
    rec.call(f, m.Pt(np.array([1, 2]), 2), m.Pt(np.array([0, 5])))
    rec.call(f, m.Pt(np.array([1.0, 2.0, 3.0])), m.Pt(np.array([1.0, 1.0, 1.0])))


def nt_unpack(p):
    xy, w = p
    a, b = xy
    return a * w + b, len(p), p[0] is xy


def t_namedtuple_unpack(m, C, rec):
    f = C(m.nt_unpack)
    rec.call(f, m.Pt(np.arange(6.0).reshape(2, 3), 2.0))
    rec.call(f, m.Pt(np.arange(4).reshape(2, 2), 1))
    rec.call(f, m.Pt(np.arange(3.0), 1))  # unpack error: 3 into 2


class Grid:
    def __init__(self, n):
        self.n = n
        self._cache = None

    @property
    def xs(self):
        return np.linspace(0.0, 1.0, self.n)

    @property
    def h(self):
        return 1.0 / (self.n - 1)

    def integrate(self, f):
        y = f(self.xs)
        return self.h * (y.sum() - 0.5 * (y[0] + y[-1]))


def prop_use(g, c):
    return g.integrate(np.sin) * c + g.xs[1]


def t_property_arrays(m, C, rec):
    f = C(m.prop_use)
    g = m.Grid(11)
    rec.call(f, g, 2.0)
    g.n = 21
    rec.call(f, g, 2.0)
    g.n = 1  # division by zero in a Python float
    rec.call(f, g, 1.0)


class Counter:
    """A log of reads kept by the property itself."""

    def __init__(self):
        self.log = []

    @property
    def data(self):
        self.log.append(len(self.log))
        return np.full(3, float(len(self.log)))


def prop_side_effect(c):
    return c.data * 2 + c.data, len(c.log)


def t_property_side_effect(m, C, rec):
    f = C(m.prop_side_effect)
    c = m.Counter()
    for _ in range(3):
        rec.call(f, c)


class Ops:
    factor = 2.0

    @classmethod
    def scale(cls, a):
        return a * cls.factor

    @staticmethod
    def norm(a):
        return np.sqrt(np.sum(a * a))


class Ops3(Ops):
    factor = 3


def t_classmethod_compiled(m, C, rec):
    f = C(m.Ops.scale)
    g = C(m.Ops3.scale)
    rec.call(f, np.arange(4.0))
    rec.call(g, np.arange(4.0))
    m.Ops.factor = -1.5
    rec.call(f, np.arange(4.0))
    rec.call(g, np.arange(4))


def t_staticmethod_compiled(m, C, rec):
    f = C(m.Ops.norm)
    rec.call(f, np.arange(4.0))
    rec.call(f, np.arange(4, dtype=np.int16))
    rec.call(f, np.array([], dtype=np.float32))
    rec.call(f, np.float64(-3.0))


def uses_static(a):
    return Ops.norm(a) + Ops3.scale(a)


def t_static_called_inside(m, C, rec):
    f = C(m.uses_static)
    rec.call(f, np.arange(3.0))
    m.Ops3.factor = 10
    rec.call(f, np.arange(3.0))
    m.Ops.norm = staticmethod(lambda a: a.max())
    rec.call(f, np.arange(3.0))


def axpy(a, x, y):
    return a * x + y


def partial_user(g, x, y):
    return g(x, y) * 2


def t_partial_passed(m, C, rec):
    f = C(m.partial_user)
    rec.call(f, functools.partial(m.axpy, 2.0), np.arange(4.0), np.ones(4))
    rec.call(f, functools.partial(m.axpy, 3), np.arange(4.0), np.ones(4))
    rec.call(f, functools.partial(m.axpy, y=np.zeros(4)), np.arange(4.0), np.arange(4.0))
    rec.call(f, functools.partial(np.add, out=np.zeros(4)), np.arange(4.0), np.ones(4))


half = functools.partial(np.multiply, 0.5)


def partial_global(x):
    return half(x) + 1


def t_partial_global_rebound(m, C, rec):
    f = C(m.partial_global)
    rec.call(f, np.arange(4.0))
    m.half = functools.partial(np.multiply, 3)
    rec.call(f, np.arange(4.0))
    m.half = functools.partial(np.multiply, np.int8(3))
    rec.call(f, np.arange(4, dtype=np.int8) * 40)


@functools.lru_cache(maxsize=None)  # noqa: UP033 - as older code writes it
def weights(n):
    return np.hanning(n)


def lru_user(x):
    w = weights(x.shape[0])
    return np.dot(w, x), weights.cache_info().currsize


def t_lru_cache_helper(m, C, rec):
    f = C(m.lru_user)
    rec.call(f, np.arange(8.0))
    rec.call(f, np.arange(8.0) * 2)
    rec.call(f, np.arange(5.0))
    m.weights.cache_clear()
    rec.call(f, np.arange(5.0))


@functools.lru_cache(maxsize=4)
def shared_table(n):
    t = np.zeros(n)
    return t


def lru_mutates(x):
    t = shared_table(x.shape[0])
    t += x  # mutates the cached array: a later call sees it
    return t.copy()


def t_lru_cached_array_mutated(m, C, rec):
    f = C(m.lru_mutates)
    for k in range(3):
        rec.call(f, np.arange(4.0) + k)
    rec.call(f, np.arange(3.0))


def make_acc():
    total = np.zeros(3)
    count = 0

    def acc(x):
        nonlocal total, count
        total = total + x
        count += 1
        return total / count

    def reset(v):
        nonlocal total
        total = v

    return acc, reset


def t_closure_nonlocal(m, C, rec):
    acc, reset = m.make_acc()
    f = C(acc)
    rec.call(f, np.ones(3))
    rec.call(f, np.arange(3.0))
    reset(np.arange(3, dtype=np.int32))
    rec.call(f, np.ones(3, np.int32))
    reset(np.zeros(4))
    rec.call(f, np.ones(3))  # shape mismatch -> ValueError
    rec.call(f, np.ones(4))


def make_scaler(s):
    def scale(x):
        return x * s

    def set_s(v):
        nonlocal s
        s = v

    return scale, set_s


def t_closure_cell_changed(m, C, rec):
    scale, set_s = m.make_scaler(2.0)
    f = C(scale)
    rec.call(f, np.arange(3.0))
    set_s(np.float32(0.5))
    rec.call(f, np.arange(3.0))
    set_s(np.arange(3))
    rec.call(f, np.arange(3.0))
    set_s("ab")
    rec.call(f, np.arange(3.0))
    set_s(3)
    rec.call(f, np.arange(3, dtype=np.uint8) * 100)


def gen_use(x):
    def chunks(a, k):
        for i in range(0, a.shape[0], k):
            yield a[i : i + k]

    return [c.sum() for c in chunks(x, 3)]


def t_generator_inside(m, C, rec):
    f = C(m.gen_use)
    rec.call(f, np.arange(10.0))
    rec.call(f, np.arange(7))
    rec.call(f, np.arange(0.0))


def genexpr_sum(x, n):
    return sum(x[i] * x[i] for i in range(n)), max(v for v in x), any(v < 0 for v in x)


def t_genexpr(m, C, rec):
    f = C(m.genexpr_sum)
    rec.call(f, np.arange(5.0), 5)
    rec.call(f, np.arange(5.0) - 2, 3)
    rec.call(f, np.arange(5, dtype=np.int8) * 50, 5)
    rec.call(f, np.array([np.nan, 1.0]), 2)
    rec.call(f, np.arange(5.0), 7)


def compiled_generator(x):
    for i in range(x.shape[0]):
        yield x[i] * 2


def t_compiled_generator_function(m, C, rec):
    f = C(m.compiled_generator)
    g = rec.call(f, np.arange(3.0))
    rec.note(list(g))
    g = rec.call(f, np.arange(2))
    rec.note(list(g))


def gen_send(x):
    def running():
        s = 0.0
        while True:
            v = yield s
            s += v

    g = running()
    next(g)
    out = []
    for v in x:
        out.append(g.send(v))
    return np.array(out)


def t_generator_send(m, C, rec):
    f = C(m.gen_send)
    rec.call(f, np.arange(4.0))
    rec.call(f, np.arange(4, dtype=np.float32))
