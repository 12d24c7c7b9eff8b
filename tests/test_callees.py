"""One callee analysis for every user callee, however the region reaches it
(frontend/callees.py): a method through ``self``, a function on an attribute or in a container,
a callable object, a partial, a closure, an alias of a library function. Side effects (NumPy's
global random state, ``print``, appends, counters) happen at every call, as in Python, never
once at trace time; each test compares with the plain function, the global RNG seeded alike."""

from __future__ import annotations

import dataclasses
import functools
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
from differential import EVERY_BACKEND, assert_same_value

import astcompile
from astcompile.cli.scan import check_file
from astcompile.frontend.analysis import CallKind
from astcompile.frontend.callee_rules import callee_of

X = np.linspace(-1.0, 1.0, 8)


def same_with_seed(compiled, plain, *args, calls=3):
    """Each call of ``compiled`` returns what ``plain`` returns from the same RNG state."""
    for seed in range(calls):
        np.random.seed(seed)
        expected = plain(*args)
        np.random.seed(seed)
        assert_same_value(compiled(*args), expected)


# -- methods through self ----------------------------------------------------------------------


class Dropout:
    def __init__(self, p=0.5):
        self.p = p

    def forward(self, x):
        return x * self.mask(x) / (1 - self.p)

    def mask(self, x):
        return np.random.rand(*x.shape) > self.p


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_method_drawing_random_numbers_draws_at_every_call(backend):
    layer = Dropout()
    compiled = astcompile.compile(Dropout.forward, backend=backend)
    same_with_seed(lambda x: compiled(layer, x), layer.forward, X)
    masks = {compiled(layer, np.ones(1000)).tobytes() for _ in range(20)}
    assert len(masks) == 20


def test_the_break_is_reported_at_the_callees_own_line():
    layer = Dropout()
    out = astcompile.explain(astcompile.compile(Dropout.forward), layer, X)
    call, own = out.break_reasons  # the call, then the callee compiled on its own
    assert call.code == "GB003" and "self.mask() has graph breaks" in call.detail
    assert (own.code, own.function) == ("GB012", "mask")
    assert own.source_line == "return np.random.rand(*x.shape) > self.p"


def test_fullgraph_raises_naming_the_callee():
    with pytest.raises(astcompile.GraphBreakError, match=r"GB003 self\.mask\(\)"):
        astcompile.compile(Dropout.forward, fullgraph=True)  # the class exists: at once

    class Late:
        @astcompile.compile(fullgraph=True)  # a class in a function: the trace finds it
        def forward(self, x):
            return x * self.mask(x)

        mask = Dropout.mask
        p = 0.5

    with pytest.raises(astcompile.GraphBreakError, match=r"self\.mask is Dropout\.mask\(\)"):
        Late().forward(X)


def test_fullgraph_raises_for_a_callee_only_the_trace_meets():
    class Holder:
        fn = staticmethod(jitter)

        @astcompile.compile(fullgraph=True)
        def forward(self, x):
            f = self.fn
            return f(x)

    with pytest.raises(astcompile.GraphBreakError, match=r"self\.fn is jitter\(\)"):
        Holder().forward(X)


class Logged:
    def __init__(self):
        self.seen = []
        self.calls = 0

    @astcompile.compile
    def __call__(self, x):
        y = self.note(x)
        return self.count(y) * 2.0

    def note(self, x):
        print("norm", float(np.abs(x).max()))
        return x + 1

    def count(self, y):
        self.calls += 1
        return y


def test_print_and_counters_in_methods_run_at_every_call(capsys):
    model = Logged()
    for k in range(3):
        assert_same_value(model(X * k), (X * k + 1) * 2.0)
    assert model.calls == 3
    printed = capsys.readouterr().out.splitlines()
    assert printed == [f"norm {float(np.abs(X * k).max())}" for k in range(3)]


class Base:
    scale = 2.0

    @astcompile.compile
    def forward(self, x):
        return self.act(x) * self.scale

    def act(self, x):
        return np.tanh(x)


class Noisy(Base):
    def act(self, x):
        return np.tanh(x) + np.random.normal(size=x.shape)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_subclass_overriding_a_pure_method_with_a_noisy_one(backend):
    compiled = astcompile.compile(Base.forward.__wrapped__, backend=backend)
    for model in (Base(), Noisy(), Base()):
        same_with_seed(
            lambda x, m=model: compiled(m, x), model.forward.__wrapped__.__get__(model), X
        )


def test_a_pure_method_is_still_inlined():
    out = astcompile.explain(Base.forward, Base(), X)
    assert out.graph_break_count == 0 and out.graph_count == 1


def test_an_instance_attribute_shadowing_a_pure_method():
    model = Base()
    model.act = lambda x: x + np.random.rand(*x.shape)
    same_with_seed(model.forward, lambda x: model.act(x) * 2.0, X)


# -- functions on attributes, in containers, callable objects, partials, closures ----------------


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def jitter(x):
    return x + np.random.uniform(-0.1, 0.1, size=x.shape)


class Block:
    def __init__(self, act):
        self.act = act
        self.acts = {"gelu": gelu, "jitter": jitter}
        self.chain = [gelu, jitter]

    def by_attribute(self, x):
        return self.act(x) * 2

    def by_key(self, x, name):
        return self.acts[name](x) - 1

    def by_constant_key(self, x):
        return self.acts["jitter"](x) + self.acts["gelu"](x)

    def by_list(self, x):
        for f in self.chain:
            x = f(x)
        return x


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize(
    "method, extra",
    [
        ("by_attribute", ()),
        ("by_constant_key", ()),
        ("by_key", ("jitter",)),
        ("by_key", ("gelu",)),
        ("by_list", ()),
    ],
)
def test_functions_reached_through_objects(backend, method, extra):
    block = Block(jitter)
    compiled = astcompile.compile(getattr(Block, method), backend=backend)
    plain = getattr(block, method)
    same_with_seed(lambda x: compiled(block, x, *extra), lambda x: plain(x, *extra), X)
    block.act = gelu  # a pure one now: compiled, and the change is seen
    block.acts["jitter"] = gelu
    block.chain = [gelu, gelu]
    same_with_seed(lambda x: compiled(block, x, *extra), lambda x: plain(x, *extra), X)


@dataclasses.dataclass
class Step:
    rate: float
    noise: object = None

    def __call__(self, x):
        y = x * self.rate
        return y if self.noise is None else y + self.noise(x.shape)


def gaussian(shape):
    return np.random.standard_normal(shape)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_callable_dataclass_with_a_noise_source(backend):
    def run(step, x):
        return step(x) + step(x)

    compiled = astcompile.compile(run, backend=backend)
    quiet, noisy = Step(0.5), Step(0.5, gaussian)
    for step in (quiet, noisy, quiet):
        same_with_seed(lambda x, s=step: compiled(s, x), lambda x, s=step: run(s, x), X)
    quiet.rate = 3.0
    same_with_seed(lambda x: compiled(quiet, x), lambda x: run(quiet, x), X)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_partial_and_closure_callees(backend):
    def noisy_scale(x, k):
        return x * k + np.random.rand()

    def make(k):
        def inner(x):
            return noisy_scale(x, k)

        return inner

    class Holder:
        def __init__(self):
            self.p = functools.partial(noisy_scale, k=2.0)
            self.c = make(3.0)

        def run(self, x):
            return self.p(x) + self.c(x)

    holder = Holder()
    compiled = astcompile.compile(Holder.run, backend=backend)
    same_with_seed(lambda x: compiled(holder, x), holder.run, X)


class Appender:
    def __init__(self):
        self.history = []

    def record(self, x):
        self.history.append(x.sum())
        return x

    @astcompile.compile
    def step(self, x):
        return self.record(x * 2) + 1


def test_appends_in_a_method_happen_at_every_call():
    model = Appender()
    for k in range(4):
        model.step(X + k)
    assert [float(v) for v in model.history] == [float((X + k).sum() * 2) for k in range(4)]


# -- library functions reached without their name ---------------------------------------------


class Clocked:
    def __init__(self):
        self.rng = np.random
        self.rand = np.random.rand
        self.clock = time

    def by_module(self, x):
        return x * self.rng.rand(*x.shape)

    def by_function(self, x):
        return x * self.rand(*x.shape)

    def by_time(self, x):
        return x + self.clock.perf_counter()


@pytest.mark.parametrize("method", ["by_module", "by_function"])
def test_numpy_random_through_attributes(method):
    obj = Clocked()
    compiled = astcompile.compile(getattr(Clocked, method))
    same_with_seed(lambda x: compiled(obj, x), getattr(obj, method), X)


def test_a_clock_on_an_attribute_is_read_at_every_call():
    obj = Clocked()
    compiled = astcompile.compile(Clocked.by_time)
    first = compiled(obj, X)
    time.sleep(0.01)
    assert compiled(obj, X)[0] > first[0]


def test_local_aliases_of_side_effect_functions(capsys):
    def drawn(x):
        r = np.random
        return x * r.rand(x.shape[0])

    def logged(x):
        log = print
        log("called")
        return x + 1

    same_with_seed(astcompile.compile(drawn), drawn, X)
    compiled = astcompile.compile(logged)
    for _ in range(3):
        compiled(X)
    assert capsys.readouterr().out == "called\n" * 3


def digits(x):
    return np.round(x, np.get_printoptions()["precision"] - 6)


def error_mode(x):
    return x * len(np.geterr()["divide"])


@pytest.mark.parametrize("backend", EVERY_BACKEND)
@pytest.mark.parametrize("fn", [digits, error_mode])
def test_numpy_settings_are_read_at_every_call(backend, fn):
    """np.get_printoptions/np.geterr read process-wide state, as their setters write it."""
    compiled = astcompile.compile(fn, backend=backend)
    x = np.array([1.23456, 2.5])
    assert_same_value(compiled(x), fn(x))
    with np.printoptions(precision=7), np.errstate(divide="ignore"):
        assert_same_value(compiled(x), fn(x))


# -- the static report ------------------------------------------------------------------------


def test_check_reports_a_method_with_side_effects(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(
        textwrap.dedent(
            """\
            import numpy as np
            import astcompile

            class Dropout:
                @astcompile.compile(fullgraph=True)
                def forward(self, x):
                    return x * self.mask(x)

                def mask(self, x):
                    return np.random.rand(*x.shape) > 0.5

                @astcompile.compile
                def pure(self, x):
                    return self.scale(x) + 1

                def scale(self, x):
                    return x * 2
            """
        )
    )
    report = check_file(str(path))
    assert [(b.line, b.code) for b in report.breaks] == [(7, "GB003")]
    assert "self.mask() has graph breaks" in report.breaks[0].detail


@astcompile.compile
def compiled_gelu(x):
    return gelu(x)


@astcompile.compile
def compiled_jitter(x):
    return jitter(x)


def test_a_compiled_function_on_an_attribute_is_inlined_or_called():
    block = Block(compiled_gelu)
    compiled = astcompile.compile(Block.by_attribute)
    out = astcompile.explain(compiled, block, X)
    assert (out.graph_break_count, out.graph_count) == (0, 1)
    assert_same_value(out.out, block.by_attribute(X))
    block.act = compiled_jitter
    same_with_seed(lambda x: compiled(block, x), block.by_attribute, X)


def _binom(n, k, memo):
    if k == 0 or k == n:
        return 1
    if (n, k) in memo:
        return memo[(n, k)]
    value = _binom(n - 1, k - 1, memo) + _binom(n - 1, k, memo)
    memo[(n, k)] = value
    return value


def _catalan_sum(n):
    memo = {}
    return sum(_binom(2 * i, i, memo) // (i + 1) for i in range(n)), len(memo)


@pytest.mark.parametrize("backend", ["eager", "c"])
def test_deep_recursion_of_a_callee_reaches_the_depth_plain_does(backend):
    """A recursion 400 levels deep (a memoised binomial, written as people write it) cost
    6 Python frames per level on the compiled path and raised RecursionError; past the first
    levels the user's function recurses on its own (jit/dispatch.recurse)."""
    compiled = astcompile.compile(_catalan_sum, backend=backend)
    assert compiled(200) == _catalan_sum(200)


# -- callees that look at their caller's frame ---------------------------------------------------


def deprecated_scale(x):
    warnings.warn("deprecated_scale is deprecated", DeprecationWarning, stacklevel=2)
    return x * 2.0


def caller_of():
    return sys._getframe(1).f_code.co_name


def uses_old_helpers(x):
    y = np.sin(x)
    who = caller_of()
    return deprecated_scale(y), who


def warned_at(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, [(w.filename, w.lineno, str(w.message)) for w in caught]


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_callee_reading_its_caller_s_frame_is_called_as_written(backend):
    """A helper warning with ``stacklevel=2`` (a deprecation) or reading
    ``sys._getframe(1)`` was called through our dispatch: the warning named
    astcompile/jit/function.py (hidden by the default filters, which show a
    DeprecationWarning in ``__main__`` only) and the caller's name was ``_full_call``."""
    compiled = astcompile.compile(uses_old_helpers, backend=backend)
    (expected, who), warned = warned_at(uses_old_helpers, X)
    for _ in range(3):
        (got, got_who), got_warned = warned_at(compiled, X)
        assert_same_value(got, expected)
        assert (got_who, got_warned) == (who, warned) == ("uses_old_helpers", warned)


def checked_square(x):
    if x.ndim > 2:
        warnings.warn("expected at most 2-D")  # noqa: B028 - warns from this line
    return x**2


def deprecated_positional(x):
    warnings.warn("deprecated", DeprecationWarning, 2)
    return x * 2.0


def test_a_helper_that_warns_of_its_own_line_is_still_compiled():
    """Any int of 2 or more beside ``warn`` (``x**2``, ``ndim > 2``) made a helper look like it
    warned from its caller's line, and it was never compiled; ``warn(m, W, 2)`` still does."""
    assert callee_of(checked_square) is checked_square
    assert callee_of(deprecated_positional) is CallKind.UNKNOWN
