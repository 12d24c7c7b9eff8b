"""Python as people write it around NumPy: mutable defaults, objects by keyword, lists and
dicts of arrays, match, walrus, f-strings, print, enums, __getattr__, __array__ and
__array_ufunc__ objects, itertools, late-binding closures (tests/test_e2e_adversarial.py)."""

import enum
import functools
import itertools
import operator

import numpy as np

W = np.array([1.0, 2.0, 3.0])


def default_array(x, w=W):
    return x * w, w.sum()


def t_default_array_mutated(m, C, rec):
    f = C(m.default_array)
    rec.call(f, np.ones(3))
    m.W[0] = 10.0  # the default object itself, changed in place
    rec.call(f, np.ones(3))
    rec.call(f, np.ones(3), np.zeros(3))
    m.default_array.__defaults__ = (np.full(3, 7.0),)
    rec.call(f, np.ones(3))


class Params:
    def __init__(self):
        self.w = np.arange(3.0)
        self.b = 0.5


def kw_object(x, *, p):
    return x @ p.w + p.b


def t_kw_object_arg(m, C, rec):
    f = C(m.kw_object)
    p = m.Params()
    rec.call(f, np.ones((2, 3)), p=p)
    p.w = np.ones(3, np.float32)
    rec.call(f, np.ones((2, 3)), p=p)
    p.b = np.arange(2.0)
    rec.call(f, np.ones((2, 3)), p=p)


def tuple_with_partial(pair, x):
    g, y = pair
    return g(x) + y


def t_tuple_holding_partial(m, C, rec):
    f = C(m.tuple_with_partial)
    rec.call(f, (functools.partial(np.multiply, 3.0), np.ones(3)), np.arange(3.0))
    rec.call(f, (functools.partial(np.subtract, np.arange(3.0)), np.ones(3)), np.ones(3) * 5)


def list_of_arrays(xs):
    xs[0] += 1
    xs.append(xs[0] * 2)
    return functools.reduce(np.add, xs), len(xs)


def t_list_of_arrays_mutated(m, C, rec):
    f = C(m.list_of_arrays)
    lst = [np.arange(3.0), np.ones(3)]
    rec.call(f, lst)
    rec.call(f, lst)
    rec.call(f, [np.arange(2), np.arange(2)])
    rec.note(lst)


def dict_of_arrays(d, k):
    d["a"] += k
    d["b"] = d["a"] * 2
    return sum(v.sum() for v in d.values()), sorted(d)


def t_dict_of_arrays_mutated(m, C, rec):
    f = C(m.dict_of_arrays)
    d = {"a": np.arange(3.0)}
    rec.call(f, d, 1.0)
    rec.call(f, d, np.float32(2))
    rec.call(f, {"a": np.arange(3)}, 2)
    rec.note(d)


def rows_enumerate(x):
    for i, row in enumerate(x):
        row *= i + 1
        if row.sum() > 10:
            break
    return x


def t_rows_enumerate_views(m, C, rec):
    f = C(m.rows_enumerate)
    rec.call(f, np.ones((4, 3)))
    rec.call(f, np.ones((2, 2), np.int32))
    rec.call(f, np.ones((5, 1)) * 3)


def walrus_while(x, tol):
    n = 0
    while (err := np.abs(x).max()) > tol:
        x = x * 0.5
        n += 1
        if n > 50:
            break
    return x, n, err


def t_walrus_while(m, C, rec):
    f = C(m.walrus_while)
    rec.call(f, np.arange(4.0), 0.1)
    rec.call(f, np.arange(4.0), 10.0)
    rec.call(f, np.array([np.inf]), 1.0)
    rec.call(f, np.array([np.nan, 1.0]), 1.0)


def match_shape(x):
    match x.shape:
        case (n,):
            return x.sum(), "vec", n
        case (n, k) if n == k:
            return np.trace(x), "square", n
        case (n, k):
            return x.sum(axis=0), "mat", k
        case _:
            return None, "other", x.ndim


def t_match_statement(m, C, rec):
    f = C(m.match_shape)
    rec.call(f, np.arange(3.0))
    rec.call(f, np.ones((2, 2)))
    rec.call(f, np.ones((2, 3)))
    rec.call(f, np.ones((1, 1, 1)))
    rec.call(f, np.float64(1.0))


def fstring(x):
    s = x.sum()
    return f"{s:.3f}|{x.dtype}|{x.shape}|{s!r}", str(x[0]), repr(x.max())


def t_fstrings(m, C, rec):
    f = C(m.fstring)
    rec.call(f, np.arange(3.0))
    rec.call(f, np.arange(3, dtype=np.int8))
    rec.call(f, np.array([1.5], np.float32))


def prints(x):
    print("sum", x.sum())
    y = x * 2
    print(y)
    return y


def t_prints(m, C, rec):
    f = C(m.prints)
    rec.call(f, np.arange(3.0))
    rec.call(f, np.arange(3))


class Mode(enum.Enum):
    ADD = 1
    MUL = 2


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 10


def enum_use(x, mode, level):
    if mode is Mode.ADD:
        y = x + level
    else:
        y = x * level
    return y, mode.name, int(level)


def t_enums(m, C, rec):
    f = C(m.enum_use)
    rec.call(f, np.arange(3.0), m.Mode.ADD, m.Level.LOW)
    rec.call(f, np.arange(3.0), m.Mode.MUL, m.Level.HIGH)
    rec.call(f, np.arange(3, dtype=np.int8), m.Mode.MUL, m.Level.HIGH)


class Lazy:
    def __init__(self, data):
        self._data = data

    def __getattr__(self, name):
        if name.startswith("scaled_"):
            return self._data * float(name[7:])
        raise AttributeError(name)


def getattr_obj(o, x):
    return o.scaled_2 + x, getattr(o, "scaled_3").sum(), hasattr(o, "nope")  # noqa: B009


def t_getattr_hook(m, C, rec):
    f = C(m.getattr_obj)
    o = m.Lazy(np.arange(3.0))
    rec.call(f, o, 1.0)
    o._data = np.ones(3, np.float32)
    rec.call(f, o, 1.0)


class ArrayLike:
    def __init__(self, v):
        self.v = v

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.v, dtype=dtype)


def array_protocol(a, x):
    return np.asarray(a) + x, np.sum(a)


def t_array_protocol(m, C, rec):
    f = C(m.array_protocol)
    rec.call(f, m.ArrayLike([1.0, 2.0]), 1.0)
    rec.call(f, [[1, 2], [3, 4]], 1)
    rec.call(f, (1.5, 2.5), np.float32(1))


class Tracked:
    calls = []  # noqa: RUF012

    def __init__(self, v):
        self.v = np.asarray(v)

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        Tracked.calls.append(ufunc.__name__)
        ins = [i.v if isinstance(i, Tracked) else i for i in inputs]
        return Tracked(getattr(ufunc, method)(*ins, **kw))


def ufunc_override(a, x):
    r = np.add(a, x)
    return r.v, len(Tracked.calls)


def t_array_ufunc_override(m, C, rec):
    f = C(m.ufunc_override)
    rec.call(f, m.Tracked([1.0, 2.0]), 1.0)
    rec.call(f, m.Tracked([1.0, 2.0]), np.ones(2))
    rec.call(f, np.ones(2), np.ones(2))


def big_literals(x):
    return x + 2**62, x * 3, x - (2**63 - 1)


def t_big_int_literals(m, C, rec):
    f = C(m.big_literals)
    rec.call(f, np.arange(3))
    rec.call(f, np.arange(3, dtype=np.int32))
    rec.call(f, np.arange(3, dtype=np.uint64))
    rec.call(f, np.arange(3.0))


def compare_big(a, n):
    return a[0] < n, a.max() == n, (a > n).any()


def t_compare_big_python_int(m, C, rec):
    f = C(m.compare_big)
    a = np.array([2**62, 5], np.int64)
    rec.call(f, a, 2**63)
    rec.call(f, a, 2**62)
    rec.call(f, a.astype(np.uint64), -1)
    rec.call(f, a.astype(np.int8) if False else np.array([1, 2], np.int8), 300)


def builtins_mix(x):
    return sum(x), len(x), min(x), max(x, key=abs), sorted(x)[:2], list(reversed(x))[0]  # noqa: RUF015


def t_builtins_on_arrays(m, C, rec):
    f = C(m.builtins_mix)
    rec.call(f, np.array([3.0, -5.0, 1.0]))
    rec.call(f, np.array([3, -5, 1], np.int16))
    rec.call(f, np.array([np.nan, 1.0]))


def itertools_use(xs):
    acc = list(itertools.accumulate(xs, operator.mul))
    pairs = [a - b for a, b in itertools.pairwise(xs)]
    return acc, pairs, list(map(np.sqrt, xs))[-1]


def t_itertools(m, C, rec):
    f = C(m.itertools_use)
    rec.call(f, np.arange(1.0, 5.0))
    rec.call(f, [1, 2, 3])
    rec.call(f, np.arange(1, 4, dtype=np.int8) * 50)


def late_binding(x):
    fs = [lambda v: v * i for i in range(3)]  # noqa: B023 - late binding is the point
    gs = [lambda v, i=i: v * i for i in range(3)]
    return [f(x) for f in fs], [g(x) for g in gs]


def t_late_binding_closures(m, C, rec):
    f = C(m.late_binding)
    rec.call(f, np.arange(2.0))
    rec.call(f, 2)


def local_class(x):
    class Acc:
        def __init__(self):
            self.t = 0

        def add(self, v):
            self.t = self.t + v
            return self

    a = Acc()
    for v in x:
        a.add(v)
    return a.t


def t_local_class(m, C, rec):
    f = C(m.local_class)
    rec.call(f, np.arange(4.0))
    rec.call(f, np.arange(4, dtype=np.uint8) * 100)


def yield_from_user(x):
    def inner(a):
        yield from a
        yield a.sum()

    return list(inner(x))


def t_yield_from(m, C, rec):
    f = C(m.yield_from_user)
    rec.call(f, np.arange(3.0))
    rec.call(f, np.arange(0))


def vectorized(x, k):
    g = np.vectorize(lambda v: v * k if v > 1 else -v)
    return g(x)


def t_np_vectorize(m, C, rec):
    f = C(m.vectorized)
    rec.call(f, np.arange(4.0), 2)
    rec.call(f, np.arange(4), 2.5)


def nditer_sum(x):
    s = 0.0
    for v in np.nditer(x):
        s += float(v)
    return s


def t_nditer(m, C, rec):
    f = C(m.nditer_sum)
    rec.call(f, np.arange(6.0).reshape(2, 3))
    rec.call(f, np.arange(6).reshape(3, 2)[::-1])


def sort_views(x):
    x[::-1].sort()
    y = np.sort(x)[::-1]
    x[:2].sort()
    return x, y


def t_sort_views(m, C, rec):
    f = C(m.sort_views)
    rec.call(f, np.array([3.0, 1.0, 2.0, 5.0]))
    rec.call(f, np.array([3, np.nan, 2.0, -0.0, 0.0]))


def shortcircuit(x, log):
    def side(v):
        log.append(v)
        return v

    return (x.sum() > 0 and side(1)) or side(2), x.any() or side(3)


def t_short_circuit(m, C, rec):
    f = C(m.shortcircuit)
    log = []
    rec.call(f, np.arange(3.0), log)
    rec.call(f, np.zeros(3), log)
    rec.call(f, -np.ones(3), log)
    rec.note(log)


def assert_msg(x):
    assert x.min() >= 0, f"negative: {x.min()}"
    return np.sqrt(x)


def t_assert_message(m, C, rec):
    f = C(m.assert_msg)
    rec.call(f, np.arange(3.0))
    rec.call(f, np.arange(3.0) - 1)


class ShapeError(ValueError):
    def __init__(self, shape):
        super().__init__(f"bad shape {shape}")
        self.shape = shape


def custom_raise(x):
    if x.ndim != 2:
        raise ShapeError(x.shape)
    return x.T @ x


def t_custom_exception(m, C, rec):
    f = C(m.custom_raise)
    rec.call(f, np.ones((2, 3)))
    rec.call(f, np.ones(3))
    rec.call(f, np.ones((1, 1)))


def item_try(x):
    try:
        return x.item()
    except ValueError as e:
        return str(e)


def t_item_try(m, C, rec):
    f = C(m.item_try)
    rec.call(f, np.array([2.5]))
    rec.call(f, np.array([1.0, 2.0]))
    rec.call(f, np.array(3))


def seterr_inside(x):
    old = np.seterr(divide="ignore")
    r = 1.0 / x
    np.seterr(**old)
    return r, np.geterr()["divide"]


def t_seterr_inside(m, C, rec):
    f = C(m.seterr_inside)
    rec.call(f, np.array([0.0, 1.0]))
    rec.call(f, np.array([2.0, 1.0]))


def ping(x, n):
    return x if n <= 0 else pong(x + 1, n - 1)


def pong(x, n):
    return x if n <= 0 else ping(x * 2, n - 1)


def t_mutual_recursion(m, C, rec):
    f = C(m.ping)
    rec.call(f, np.arange(3.0), 4)
    m.pong = lambda x, n: x - 100  # rebinding the partner between calls
    rec.call(f, np.arange(3.0), 4)


def inplace_int_float(x, v):
    x += v
    return x


def t_inplace_int_float_cast(m, C, rec):
    f = C(m.inplace_int_float)
    rec.call(f, np.arange(3), 1)
    rec.call(f, np.arange(3), 1.5)
    rec.call(f, np.arange(3), np.float64(1.0))
    rec.call(f, np.arange(3, dtype=np.uint8), -1)
    rec.call(f, np.arange(3.0), 1j)


def fancy_dupes(x, idx, v):
    x[idx] += v
    np.add.at(x, idx, v)
    return x


def t_fancy_duplicate_indices(m, C, rec):
    f = C(m.fancy_dupes)
    rec.call(f, np.zeros(4), np.array([0, 0, 1]), 1.0)
    rec.call(f, np.zeros(4), np.array([3, -1]), np.array([1.0, 2.0]))
    rec.call(f, np.zeros(4), np.array([4]), 1.0)


def mask_assign(x, m_, v):
    x[m_] = v
    return x, x[~m_].sum()


def t_mask_assign(m, C, rec):
    f = C(m.mask_assign)
    rec.call(f, np.arange(4.0), np.array([True, False, True, False]), 9.0)
    rec.call(f, np.arange(4.0), np.array([True, False, True, False]), np.array([1.0, 2.0]))
    rec.call(f, np.arange(4.0), np.array([True, False, True, False]), np.array([1.0, 2.0, 3.0]))
    rec.call(f, np.arange(4), np.zeros(4, bool), 1.5)


def returns_views(x):
    return x, x[:], x.T, x.ravel(), x.reshape(-1), x.copy(), np.asarray(x), x[...]


def t_returned_identity(m, C, rec):
    f = C(m.returns_views)
    rec.call(f, np.arange(6.0).reshape(2, 3))
    rec.call(f, np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    rec.call(f, np.arange(6.0).reshape(2, 3)[:, ::2])


def complex_ops(z):
    return np.abs(z), z.real, z.imag, np.angle(z), z.conj() * 2, np.sqrt(z)


def t_complex(m, C, rec):
    f = C(m.complex_ops)
    rec.call(f, np.array([1 + 1j, -1 - 0j, 0j]))
    rec.call(f, np.array([1 + 1j], np.complex64))
    rec.call(f, np.arange(3.0))


def round_half(x):
    return np.round(x), np.round(x, 1), round(float(x[0])), np.rint(x), np.around(x, -1)


def t_round_half_even(m, C, rec):
    f = C(m.round_half)
    rec.call(f, np.array([0.5, 1.5, 2.5, -0.5, 0.25, 15.0, 25.0]))
    rec.call(f, np.array([0.5, 1.5], np.float32))
    rec.call(f, np.array([1, 5, 15]))
