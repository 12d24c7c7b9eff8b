"""Every kind of Python callable compiles (jit/callables.py): bound methods, classmethods,
staticmethods, callable objects, ``functools.partial``, lambdas, nested functions. Each is
compiled (``explain`` shows its regions compiled), returns what the plain callable returns, and
sees every change to what it reads between calls."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_same_value

import astcompile

X = np.linspace(-2.0, 2.0, 16)


def compiled_regions(fn, *args):
    """``explain`` of ``fn``: no break, at least one graph, every region compiled."""
    out = astcompile.explain(fn, *args)
    assert out.graph_break_count == 0, str(out)
    assert out.graph_count >= 1, str(out)
    assert all(run.eager_calls == 0 for run in out.regions), str(out)
    return out


class Linear:
    bias = 0.5

    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return np.tanh(x * self.w) + self.bias

    @classmethod
    def shifted(cls, x):
        return x + cls.bias

    @staticmethod
    def squash(x):
        return x / (1.0 + np.abs(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_bound_method(backend):
    model = Linear(2.0)
    forward = astcompile.compile(model.forward, backend=backend)
    assert forward.__self__ is model
    assert_same_value(forward(X), model.forward(X))
    model.w = np.float32(3.0)  # a new value and a new type
    assert_same_value(forward(X), model.forward(X))
    Linear.bias = 1.5
    try:
        assert_same_value(forward(X), model.forward(X))
    finally:
        Linear.bias = 0.5
    out = compiled_regions(forward, X)
    assert {t for ts in out.targets.values() for t in ts} == {backend}


def test_the_model_forward_habit():
    model = Linear(2.0)
    model.forward = astcompile.compile(model.forward)
    assert_same_value(model.forward(X), np.tanh(X * 2.0) + 0.5)
    out = compiled_regions(model.forward, X)
    assert [t for ts in out.targets.values() for t in ts] == ["c"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_classmethod_and_staticmethod(backend):
    shifted = astcompile.compile(Linear.shifted, backend=backend)
    squash = astcompile.compile(Linear.squash, backend=backend)
    assert_same_value(shifted(X), X + 0.5)
    assert_same_value(squash(X), Linear.squash(X))
    Linear.bias = -1.0
    try:
        assert_same_value(shifted(X), X - 1.0)
    finally:
        Linear.bias = 0.5
    compiled_regions(shifted, X)


@dataclasses.dataclass
class Affine:
    scale: float
    shift: float = 0.0

    def __call__(self, x):
        return x * self.scale + self.shift


@pytest.mark.parametrize("backend", BACKENDS)
def test_callable_object(backend):
    layer = Affine(2.0)
    compiled = astcompile.compile(layer, backend=backend)
    assert_same_value(compiled(X), layer(X))
    layer.shift = 3
    assert_same_value(compiled(X), layer(X))
    compiled_regions(compiled, X)


def test_callable_object_whose_call_changes():
    class Layer:
        def __call__(self, x):
            return x * 2

    layer = Layer()
    compiled = astcompile.compile(layer)
    assert_same_value(compiled(X), X * 2)
    Layer.__call__ = lambda self, x: x * 3
    assert_same_value(compiled(X), X * 3)

    class Other:
        def __call__(self, x):
            return x - 1

    layer.__class__ = Other
    assert_same_value(compiled(X), X - 1)


def power(x, k=2, offset=0.0):
    return x**k + offset


@pytest.mark.parametrize("backend", BACKENDS)
def test_partial(backend):
    square = functools.partial(power, k=2)
    compiled = astcompile.compile(square, backend=backend)
    assert_same_value(compiled(X), square(X))
    assert_same_value(compiled(X, offset=1.0), square(X, offset=1.0))
    square.keywords["k"] = 3  # a partial's keywords dict can change: read at every call
    assert_same_value(compiled(X), square(X))
    compiled_regions(compiled, X)
    nested = functools.partial(functools.partial(power, X), 3)
    assert_same_value(astcompile.compile(nested, backend=backend)(), nested())


ACTIVATIONS = {
    "relu": lambda x: np.maximum(x, 0.0),
    "softplus": lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0),
}
cube = lambda x: x * x * x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [ACTIVATIONS["relu"], ACTIVATIONS["softplus"], cube])
def test_lambdas(backend, fn):
    compiled = astcompile.compile(fn, backend=backend)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # compiled: no "cannot read the source"
        assert_same_value(compiled(X), fn(X))
    compiled_regions(compiled, X)


def test_a_lambda_with_defaults_reads_its_globals_at_every_call():
    global OFFSET
    OFFSET = 1.0
    fn = lambda x, k=2.0: x * k + OFFSET
    compiled = astcompile.compile(fn)
    assert_same_value(compiled(X), X * 2 + 1)
    OFFSET = -4.0
    assert_same_value(compiled(X, 0.5), X * 0.5 - 4)


def test_two_lambdas_on_one_line_run_as_written_with_a_warning():
    pair = (lambda x: x + 1, lambda x: x - 1)
    with pytest.warns(RuntimeWarning, match="holds 2 lambdas"):
        assert_same_value(astcompile.compile(pair[0])(X), X + 1)
    with pytest.raises(astcompile.GraphBreakError, match="GB001"):
        astcompile.compile(pair[1], fullgraph=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_nested_function(backend):
    def make(scale):
        def inner(x):
            return np.sin(x) * scale

        return inner

    inner = make(2.0)
    compiled = astcompile.compile(inner, backend=backend)
    assert_same_value(compiled(X), inner(X))
    inner.__closure__[0].cell_contents = 5.0
    assert_same_value(compiled(X), inner(X))
    compiled_regions(compiled, X)


@pytest.mark.parametrize("fn", [len, np.sin, print])
def test_fullgraph_without_source_raises_gb001(fn):
    with pytest.raises(astcompile.GraphBreakError, match="GB001"):
        astcompile.compile(fn, fullgraph=True)


# -- calls of such objects inside a compiled function ------------------------------------------


class Dense:
    def __init__(self, w, b):
        self.w, self.b = w, b

    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


class MLP:
    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        self.layers = [
            Dense(rng.standard_normal((m, n)) / np.sqrt(m), np.zeros(n))
            for m, n in itertools.pairwise(sizes)
        ]
        self.activation = ACTIVATIONS["relu"]
        self.scale = functools.partial(power, k=1)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.scale(self.activation(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_nn_module_pattern(backend):
    net = MLP([4, 8, 3])
    x = np.random.default_rng(1).standard_normal((5, 4))
    forward = astcompile.compile(net.forward, backend=backend)
    assert_same_value(forward(x), net.forward(x))
    compiled_regions(forward, x)
    net.layers[1].b = np.ones(3)  # a weight changed in place of the old one
    assert_same_value(forward(x), net.forward(x))
    net.layers.append(Dense(np.eye(3), np.zeros(3)))  # one layer more
    assert_same_value(forward(x), net.forward(x))
    net.activation = ACTIVATIONS["softplus"]
    net.scale.keywords["k"] = 2
    assert_same_value(forward(x), net.forward(x))


# -- explain takes every kind ------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: Linear(2.0).forward,
        lambda: astcompile.compile(Linear(2.0).forward),
        lambda: Linear.shifted,
        lambda: Affine(2.0, 1.0),
        lambda: astcompile.compile(Affine(2.0)),
        lambda: functools.partial(power, k=3),
        lambda: astcompile.compile(functools.partial(power, k=3)),
        lambda: cube,
    ],
)
def test_explain_takes_every_kind(make):
    fn = make()
    out = compiled_regions(fn, X)
    assert_same_value(out.out, fn(X))


class Decorated:
    def __init__(self):
        self.k = 3.0

    @astcompile.compile
    def forward(self, x):
        return x * self.k


def test_explain_of_a_method_decorated_in_its_class():
    model = Decorated()
    out = compiled_regions(model.forward, X)
    assert_same_value(out.out, X * 3.0)
    model.k = 4.0
    assert_same_value(model.forward(X), X * 4.0)


class Scaled:
    def __init__(self, k):
        self.k = k

    @astcompile.compile
    def __call__(self, x):
        return x * self.k


@pytest.mark.parametrize("backend", BACKENDS)
def test_callable_object_compiled_in_its_class(backend):
    layer = Scaled(2.0)
    compiled = astcompile.compile(layer, backend=backend)
    assert_same_value(compiled(X), X * 2.0)
    layer.k = 3.0
    assert_same_value(compiled(X), X * 3.0)
    compiled_regions(compiled, X)

    def twice(layer, x):
        return layer(layer(x))

    assert_same_value(astcompile.compile(twice, backend=backend)(layer, X), X * 9.0)
    compiled_regions(astcompile.compile(twice, backend=backend), layer, X)


def test_a_compiled_partial_is_a_partial_and_compiles_again():
    model = Linear(2.0)
    p = functools.partial(model.forward)
    compiled = astcompile.compile(p)
    assert type(compiled) is functools.partial and compiled.keywords is p.keywords
    assert_same_value(compiled(X), model.forward(X))
    again = astcompile.compile(compiled, backend="eager")
    assert again.func.__func__.backend_name == "eager"
    model.w = 5.0
    assert_same_value(again(X), model.forward(X))
    compiled_regions(again, X)
