"""What a region reads besides its arguments is seen at every call (trace/reads.py,
runtime/reads.py): each test changes the value between calls and compares the compiled result
with the plain function's, on both backends."""

from __future__ import annotations

import collections
import enum
import functools
import importlib
import sys
import textwrap
import types

import numpy as np
import pytest
from differential import EVERY_BACKEND, assert_same_value

import astcompile

A = np.arange(6.0)


def follows(fn, args, *changes, backend, call=None):
    """Compile ``fn``; after each change (and before the first), the compiled result must
    equal the plain one. ``call(f)`` makes the call (default ``f(*args)``)."""
    compiled = astcompile.compile(fn, backend=backend)
    call = call or (lambda f: f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))
    for change in (None, *changes):
        if change is not None:
            change()
        assert_same_value(call(compiled), call(fn))
    return compiled


# -- attributes --------------------------------------------------------------------------------


class Scale:
    bias = 1.0  # a class attribute

    def __init__(self, s):
        self.s = s

    def forward(self, x):
        return x * self.s + self.bias


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_instance_attribute_of_new_and_same_object(backend):
    obj = Scale(2.0)
    compiled = astcompile.compile(Scale.forward, backend=backend)
    assert_same_value(compiled(obj, A), obj.forward(A))
    other = Scale(5.0)
    assert_same_value(compiled(other, A), other.forward(A))
    obj.s = 7.0
    assert_same_value(compiled(obj, A), obj.forward(A))


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_class_attribute(backend):
    obj = Scale(2.0)

    def change():
        Scale.bias = 4.0

    try:
        follows(Scale.forward, (obj, A), change, backend=backend)
    finally:
        Scale.bias = 1.0


class Config:
    def __init__(self):
        self.k = 2.0
        self.mode = "relu"
        self.scale = np.float32(2)


class Model:
    def __init__(self):
        self.cfg = Config()
        self._v = 3.0
        self.w = np.ones(6)

    @property
    def v(self):
        return self._v

    def nested(self, x):
        return x * self.cfg.k

    def prop(self, x):
        return x + self.v

    def steer(self, x):
        if self.cfg.mode == "relu":
            return np.maximum(x, 0.0)
        return x * 2.0

    def typed(self, x):
        return x * self.cfg.scale

    def weights(self, x):
        return x @ self.w

    def helper(self, x):
        return x * self.cfg.k

    def calls_method(self, x):
        return self.helper(x) + 1.0


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(
    "method, change",
    [
        ("nested", lambda m: setattr(m.cfg, "k", 4.0)),
        ("nested", lambda m: setattr(m, "cfg", Config())),
        ("prop", lambda m: setattr(m, "_v", 9.0)),
        ("steer", lambda m: setattr(m.cfg, "mode", "linear")),
        ("typed", lambda m: setattr(m.cfg, "scale", np.float64(3.0))),
        ("weights", lambda m: m.w.__setitem__(slice(None), 5.0)),
        ("weights", lambda m: setattr(m, "w", np.full(6, 7.0))),
        ("weights", lambda m: setattr(m, "w", np.full(6, 7, dtype=np.int32))),
        ("calls_method", lambda m: setattr(m.cfg, "k", -1.0)),
    ],
)
def test_attribute_kinds(backend, method, change):
    model = Model()
    follows(getattr(Model, method), (model, A - 2.0), lambda: change(model), backend=backend)


# -- containers ----------------------------------------------------------------------------------


def scaled_by_dict(x, d):
    return x * d["s"] + d.get("b", 0.0)


def scaled_by_list(x, w):
    return x * w[0] + w[1]


def scaled_by_kwargs(x, **kw):
    return x * kw["scale"]


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_dict_contents(backend):
    d = {"s": 2.0}
    follows(
        scaled_by_dict, (A, d), lambda: d.update(s=3.0), lambda: d.update(b=1.5), backend=backend
    )


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_list_contents(backend):
    w = [2.0, 3.0]
    follows(scaled_by_list, (A, w), lambda: w.__setitem__(0, 9.0), backend=backend)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_kwargs_contents(backend):
    compiled = astcompile.compile(scaled_by_kwargs, backend=backend)
    for scale in (2.0, 3.0, 4.5):
        assert_same_value(compiled(A, scale=scale), scaled_by_kwargs(A, scale=scale))


# -- closures and globals ------------------------------------------------------------------------


def _closure():
    c = 2.0

    def inner(x):
        return x * c

    def set_c(value):
        nonlocal c
        c = value

    return inner, set_c


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_closure_cell_rebound_through_nonlocal(backend):
    inner, set_c = _closure()
    follows(inner, (A,), lambda: set_c(8.0), lambda: set_c(-1.0), backend=backend)


K = 3.0
CONF = {"s": 2.0}
NS = types.SimpleNamespace(s=2.0)
W = np.ones(6)
N = 3
FLAG = True


def global_float(x):
    return x * K


def global_dict(x):
    return x * CONF["s"]


def global_namespace(x):
    return x * NS.s


def global_array(x):
    return x + W


def global_range(x):
    t = x * 0.0
    for _ in range(N):
        t = t + x
    return t


def global_bool(x):
    if FLAG:
        return x + 1.0
    return x - 1.0


def helper_reads_k(x):
    return x * K


def calls_helper(x):
    return helper_reads_k(x) + 1.0


def _set(name, value):
    return lambda: globals().__setitem__(name, value)


@pytest.fixture
def restore_globals():
    saved = {
        n: globals()[n]
        for n in ("K", "CONF", "NS", "W", "N", "FLAG", "helper_reads_k", "SCALE_BY_TWO")
    }
    yield
    globals().update(saved)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(
    "fn, changes",
    [
        (global_float, [_set("K", 5.0), _set("K", 7)]),
        (global_dict, [lambda: CONF.update(s=6.0)]),
        (global_namespace, [lambda: setattr(NS, "s", 6.0)]),
        (global_array, [lambda: W.__setitem__(slice(None), 5.0), _set("W", np.full(6, 7.0))]),
        (global_range, [_set("N", 5), _set("N", 0)]),
        (global_bool, [_set("FLAG", False)]),
        (calls_helper, [_set("K", 5.0), _set("helper_reads_k", lambda x: x - 1.0)]),
    ],
)
def test_globals(backend, fn, changes, restore_globals):
    follows(fn, (A,), *changes, backend=backend)


@pytest.fixture
def user_modules(tmp_path, monkeypatch):
    """Two modules of the user's: ``cfg`` (a constant) and ``ops`` (a callee reading one)."""
    (tmp_path / "cfg_mod.py").write_text("SCALE = 2.0\n")
    (tmp_path / "ops_mod.py").write_text(
        textwrap.dedent("""
        OFFSET = 1.0

        def shift(x):
            return x + OFFSET
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("cfg_mod"), importlib.import_module("ops_mod")
    for name in ("cfg_mod", "ops_mod"):
        sys.modules.pop(name, None)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_other_modules_attribute_and_callee_globals(backend, user_modules):
    cfg, ops = user_modules

    def uses_modules(x):
        return ops.shift(x) * cfg.SCALE

    follows(
        uses_modules,
        (A,),
        lambda: setattr(cfg, "SCALE", 3.0),
        lambda: setattr(ops, "OFFSET", -2.0),
        backend=backend,
    )


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_callee_default_argument(backend):
    def helper(x, s=2.0):
        return x * s

    def outer(x):
        return helper(x) + 1.0

    def change():
        helper.__defaults__ = (4.0,)

    follows(outer, (A,), change, backend=backend)


# -- identity, types and enums: what a stand-in must not change ----------------------------------


class Mode(enum.Enum):
    A = 1
    B = 2


def relu(x):
    return np.maximum(x, 0.0)


def shifted(x):
    return x - 1.0


class Layer:
    def __init__(self):
        self.act, self.mode = relu, Mode.A

    def by_identity(self, x):
        if self.act is relu:
            return x + 1.0
        return x - 1.0

    def by_enum(self, x):
        if self.mode == Mode.A:
            return x * 2.0
        return x * 3.0

    def by_type(self, x):
        if type(self) == Layer:  # noqa: E721 - an exact-type test is what is compiled here
            return x + 10.0
        return x


class SubLayer(Layer):
    pass


Pair = collections.namedtuple("Pair", "a b")


def unpacks_namedtuple(x, p):
    a, b = p
    return x * a + b + p.a


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize("method", ["by_identity", "by_enum", "by_type"])
def test_identity_enum_and_type_follow_the_object(backend, method):
    layer = Layer()

    def change():
        layer.act, layer.mode = shifted, Mode.B

    compiled = follows(getattr(Layer, method), (layer, A), change, backend=backend)
    sub = SubLayer()
    assert_same_value(compiled(sub, A), getattr(Layer, method)(sub, A))


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_namedtuple_items(backend):
    compiled = astcompile.compile(unpacks_namedtuple, backend=backend)
    for p in (Pair(2.0, 1.0), Pair(3.0, -1.0)):
        assert_same_value(compiled(A, p), unpacks_namedtuple(A, p))


class Constants:
    EPS = 1e-3
    k = 2.0

    @classmethod
    def scaled(cls, x):
        return x * cls.k

    def through_type(self, x):
        return x + type(self).EPS


def through_class(x):
    return x / (x.std() + Constants.EPS)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(
    "fn, args",
    [
        (Constants.scaled.__func__, (Constants, A)),
        (Constants.through_type, (Constants(), A)),
        (through_class, (A,)),
    ],
)
def test_class_attributes_read_through_the_class(backend, fn, args):
    def change():
        Constants.EPS, Constants.k = 0.5, 3.0

    try:
        follows(fn, args, change, backend=backend)
    finally:
        Constants.EPS, Constants.k = 1e-3, 2.0


# -- what a region must not change, and what it does not compile ---------------------------------


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_write_into_a_read_object_runs_plain(backend):
    def fills(x, d):
        d["seen"] = 1.0
        return x * d["s"]

    d1, d2 = {"s": 2.0}, {"s": 2.0}
    compiled = astcompile.compile(fills, backend=backend)
    assert_same_value(compiled(A, d1), fills(A, d2))
    assert d1 == d2


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_attribute_that_disappears_runs_plain(backend):
    class Holder:
        pass

    def reads(x, h):
        return x * h.s

    h = Holder()
    h.s = 2.0
    compiled = astcompile.compile(reads, backend=backend)
    assert_same_value(compiled(A, h), reads(A, h))
    del h.s
    with pytest.raises(AttributeError):
        compiled(A, h)


def test_hoisted_reads_are_inputs_not_recompiles():
    """A float attribute that changes every call is passed in: one trace for many values."""
    obj = Scale(2.0)
    compiled = astcompile.compile(Scale.forward, backend="c")
    for s in np.linspace(0.5, 3.0, 12):
        obj.s = float(s)
        assert_same_value(compiled(obj, A), obj.forward(A))
    region = compiled.regions[0]
    assert sum(len(found) for found in region.entries.values()) == 1  # traced (or loaded) once
    assert region.stats.compiled_calls == 12
    assert "_a1.s" in region.guards.py_source  # read in the generated guard function


def test_reads_are_described_in_the_users_words():
    from astcompile.runtime.reads import describe

    assert describe((("arg", 0), ("attr", "cfg"), ("item", "k")), ("self",)) == "self.cfg['k']"
    assert describe((("fn",), ("gdict",), ("item", "K"))) == "K"
    assert (
        describe((("fn",), ("gdict",), ("item", "helper"), ("gdict",), ("item", "K")))
        == "K (global of helper)"
    )
    assert describe((("fn",), ("cell", 0, "c"))) == "c"


class Fresh:
    """Properties that make a new array at every read: two of them are never one object."""

    @property
    def a(self):
        return np.ones(6)

    @property
    def b(self):
        return np.full(6, 2.0)

    def uses_both(self, x):
        first = x * self.a
        return first + self.b


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_temporary_values_from_properties_are_not_taken_for_one_another(backend):
    obj = Fresh()
    follows(Fresh.uses_both, (obj, A), backend=backend)
    reads = astcompile.explain(Fresh.uses_both, obj, A).guards
    assert not [r for r in reads if " is self." in r]  # no SAME read between a and b


def _scaled(x, s):
    return x * s * K


SCALE_BY_TWO = functools.partial(_scaled, s=2.0)


def calls_partial(x):
    return SCALE_BY_TWO(x) + 1.0


def test_partial_of_a_user_function_is_seen_through():
    """What the function inside a partial reads is recorded (the frontend breaks at calls of
    partials today; a region that reaches one in a trace must still see its globals)."""
    from astcompile.trace.tracer import trace

    result = trace(calls_partial, (A,), ["x"], "f", root=calls_partial)
    words = [read.describe(("x",)) for read in result.reads]
    assert "K (global of SCALE_BY_TWO.func): read at every call" in words
    assert "SCALE_BY_TWO.keywords['s']: read at every call" in words


def _a_x_plus_y(a, x, y):
    return a * x + y


def calls_what_it_is_given(g, x, y):
    return g(x, y)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_partials_bound_argument_is_a_leaf_after_the_argument_arrays(backend):
    """``partial(f, 2.0)`` passed before two arrays: its bound 2.0, read from the argument,
    was numbered as the first input while a call passes the argument arrays first, so the
    compiled call computed ``f(x, y, 2.0)``."""
    x, y = np.arange(4.0), np.ones(4)
    compiled = astcompile.compile(calls_what_it_is_given, backend=backend)
    for bound in (2.0, 3, np.float32(0.5), np.arange(4.0)):
        g = functools.partial(_a_x_plus_y, bound)
        assert_same_value(compiled(g, x, y), calls_what_it_is_given(g, x, y))


class CountsItsReads:
    """Properties that change state at each read: a count on the class, a log on the object
    (a method call the callee analysis lets the trace inline, but a getter runs as Python)."""

    reads = 0

    def __init__(self):
        self.log = []

    @property
    def data(self):
        CountsItsReads.reads += 1
        return np.arange(5.0) * CountsItsReads.reads

    @property
    def logged(self):
        self.log.append(len(self.log))
        return np.full(3, float(len(self.log)))

    def twice(self):
        first = self.data
        return first + self.data, CountsItsReads.reads

    def logged_twice(self):
        return self.logged * 2 + self.logged, len(self.log)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize("method", [CountsItsReads.twice, CountsItsReads.logged_twice])
def test_a_property_with_side_effects_runs_at_every_read(backend, method):
    """The trace saw one read at ``self.data`` for both, and the guards and binding ran the
    getter as often as they read it (once, or three times, a call) where plain code runs it
    twice: other values, another count."""
    compiled = astcompile.compile(method, backend=backend)
    for _ in range(3):
        CountsItsReads.reads = 0
        expected = method(CountsItsReads())
        CountsItsReads.reads = 0
        assert_same_value(compiled(CountsItsReads()), expected)


# -- a user's __getattr__ runs as often as in Python ---------------------------------------------

LOOKUPS: list[str] = []


class Lazy:
    """Settings computed on first use, counting lookups, the way configuration objects often
    are (the count changes the object: the trace sees that, undoes it and runs as Python)."""

    def __init__(self, **values):
        self._values = values
        self.lookups = 0

    def __getattr__(self, name):
        self.lookups += 1
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None


class Quiet:
    """A __getattr__ that changes nothing of the object's (it counts in a module list)."""

    def __getattr__(self, name):
        LOOKUPS.append(name)
        if name in ("scale", "offset"):
            return {"scale": 2.0, "offset": np.arange(6.0)}[name]
        raise AttributeError(name)


def scaled(x, cfg):
    return x * cfg.scale + cfg.offset


def _lookups(cfg) -> list:
    return [cfg.__dict__["lookups"]] if isinstance(cfg, Lazy) else list(LOOKUPS)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(
    "make", [lambda: Lazy(scale=2.0, offset=1.0), Quiet], ids=["counted-on-self", "quiet"]
)
def test_getattr_runs_as_often_as_in_python(backend, make):
    compiled = astcompile.compile(scaled, backend=backend)
    expected, counts = scaled(A, make()), []
    for fn in (scaled, compiled):
        LOOKUPS.clear()
        cfg = make()
        for _ in range(3):
            assert_same_value(fn(A, cfg), expected)
        counts.append(_lookups(cfg))
    assert counts[1] == counts[0]
    assert counts[0] in ([6], ["scale", "offset"] * 3)
