"""frontend/analysis.py and resolve.py: call classification and statement verdicts."""

from __future__ import annotations

import json
import math
import operator
import textwrap

import libcst as cst
import numpy as np
import pytest
from frontend_samples import programs
from frontend_samples.harness import analyse

from astcompile import registry
from astcompile.frontend.analysis import CallKind, analyze_function
from astcompile.frontend.exprs import is_static
from astcompile.frontend.resolve import RuntimeResolver
from astcompile.frontend.source import sources_in_module
from astcompile.frontend.static_resolve import StaticResolver

GLOBAL_ARRAY = np.ones(3)
GLOBAL_OBJECT = json.JSONEncoder()


def recursive(n):
    return recursive(n - 1) if n else 0


def mutual_a(x):
    return mutual_b(x)


def mutual_b(x):
    return mutual_a(x)


def compiled_like(fn):
    """What astcompile.compile returns, as far as the resolver can tell."""

    def wrapper(*args):
        return fn(*args)

    wrapper.__wrapped__ = fn
    setattr(wrapper, registry.COMPILED_ATTR, True)
    return wrapper


COMPILED_PURE = compiled_like(programs.helper_pure)


def allowed_black_box(x):
    print("trusted by the user")
    return x


@pytest.fixture(autouse=True)
def _marks():
    """Marks are process-wide: set them per test, whatever other tests did."""
    registry.mark_allowed(allowed_black_box)


def breaker():
    pass


breaker.__astcompile_graph_break__ = True


def kind_of(fn, expr: str) -> CallKind:
    node = cst.parse_expression(expr)
    from astcompile.frontend.exprs import dotted_name

    return RuntimeResolver(fn).classify_call(node, dotted_name(node))[0]


def host(x):
    return x


@pytest.mark.parametrize(
    "expr, kind",
    [
        ("np.sum", CallKind.GRAPHABLE),
        ("np.add", CallKind.GRAPHABLE),
        ("np.linalg.svd", CallKind.GRAPHABLE),
        ("np.float32", CallKind.GRAPHABLE),
        ("np.ndarray.sum", CallKind.GRAPHABLE),
        ("math.sqrt", CallKind.GRAPHABLE),
        ("operator.add", CallKind.GRAPHABLE),
        ("len", CallKind.GRAPHABLE),
        ("isinstance", CallKind.GRAPHABLE),
        ("GLOBAL_ARRAY.sum", CallKind.GRAPHABLE),
        ("print", CallKind.SIDE_EFFECT),
        ("open", CallKind.SIDE_EFFECT),
        ("np.random.rand", CallKind.SIDE_EFFECT),
        ("np.random.default_rng", CallKind.SIDE_EFFECT),
        ("np.save", CallKind.SIDE_EFFECT),
        ("json.dumps", CallKind.UNKNOWN),
        ("GLOBAL_OBJECT.encode", CallKind.UNKNOWN),
        ("no_such_name", CallKind.UNKNOWN),
        ("np.no_such_function", CallKind.UNKNOWN),
        ("dict.fromkeys", CallKind.UNKNOWN),
        ("pytest.raises", CallKind.UNKNOWN),
        ("programs.helper_pure", CallKind.INLINE_USER),
        ("programs.helper_noisy", CallKind.BREAK_USER),
        ("programs.loop_carried", CallKind.INLINE_USER),  # its loop becomes the caller's
        ("recursive", CallKind.BREAK_USER),
        ("mutual_a", CallKind.BREAK_USER),
        ("COMPILED_PURE", CallKind.INLINE_USER),
        ("allowed_black_box", CallKind.GRAPHABLE),
        ("breaker", CallKind.GRAPH_BREAK),
        ("compiled_like", CallKind.BREAK_USER),  # it defines a function
        ("f()", CallKind.UNKNOWN),
        ("(a + b).sum", CallKind.GRAPHABLE),
    ],
)
def test_runtime_resolver_kinds(expr, kind):
    assert kind_of(host, expr) is kind


def test_disabled_and_disallowed_marks_are_read_from_the_registry():
    def callee(v):
        return v

    assert kind_of(lambda: callee, "callee") is CallKind.INLINE_USER
    setattr(callee, registry.DISABLED_ATTR, "shallow")
    assert kind_of(lambda: callee, "callee") is CallKind.DISABLED
    registry.mark_disallowed(np.linalg.svd)
    try:
        assert kind_of(host, "np.linalg.svd") is CallKind.DISALLOWED
    finally:
        registry.mark_allowed(np.linalg.svd)
        registry._allowed.pop(id(np.linalg.svd), None)
    assert kind_of(host, "np.linalg.svd") is CallKind.GRAPHABLE


def test_closure_cells_are_resolved_at_analysis_time():
    def outer():
        helper = programs.helper_noisy

        def inner(x):
            return helper(x)

        return inner

    inner = outer()
    assert kind_of(inner, "helper") is CallKind.BREAK_USER

    def late():
        def inner(x):
            return later(x)

        return inner

        later = np.sin

    assert kind_of(late(), "later") is CallKind.UNKNOWN


def test_calls_on_locals():
    """A local bound in the body and a parameter are graph-able in the source: the trace
    judges what each holds when it reads it (frontend/callees.py, trace/reads.py), as the
    ``for layer in self.layers: x = layer(x)`` pattern needs."""

    def fn(x, callback, op):
        y = x.reshape(-1).sum()
        callback = callback.pick
        return callback(op(y))

    assert analyse(fn).breaks == ()


@pytest.mark.parametrize(
    "expr, static",
    [
        ("x is None", True),
        ("x.ndim == 2 and x.shape[0] > 1", True),
        ("len(x) > 3", True),
        ("isinstance(x, np.ndarray)", True),
        ("x.dtype == np.float32", True),
        ("not flag", True),
        ("n % 2 == 0", True),
        ("mode in ('a', 'b')", True),
        ("f(x).shape[-1] == 3", True),
        ("b.sum() < 0", False),
        ("x[0] > 0", False),
        ("np.any(x)", False),
        ("len(np.nonzero(x)[0]) > 0", False),
        ("x.shape[x[0]]", False),
        ("helper(x)", False),
    ],
)
def test_static_test_heuristic(expr, static):
    assert is_static(cst.parse_expression(expr)) is static


def _graphable_lines(fn) -> set[int]:
    analysis = analyse(fn)
    return {analysis.source.def_line + span[0] - 1 for span in analysis.graphable}


def test_static_if_is_graphable_as_a_whole():
    analysis = analyse(programs.static_if)
    assert analysis.breaks == () and analysis.fully_graphable
    text_lines = analysis.source.text.splitlines()
    starts = sorted(span[0] for span in analysis.graphable)
    assert text_lines[starts[0] - 1].strip() == "if axis is None:"


def test_early_return_in_static_if_needs_a_trailing_return():
    assert analyse(programs.early_return).breaks == ()

    def no_trailing(x, axis=None):
        if axis is None:
            return np.sum(x)
        y = x * 2
        print(y)

    breaks = analyse(no_trailing).breaks
    assert [b.code for b in breaks] == ["GB017", "GB012"]
    assert breaks[0].detail.startswith("`return` inside a nested block")


def test_data_dependent_elif_is_reported_once_per_test():
    codes = [(b.code, b.source_line) for b in analyse(programs.dynamic_branches).breaks]
    assert codes == [
        ("GB007", "if x.mean() > 0:"),
        ("GB007", "elif x.mean() < -1:"),
    ]


def test_generators_are_eager_with_one_break():
    analysis = analyse(programs.generator)
    assert analysis.eager_only and analysis.graphable == frozenset()
    assert [b.code for b in analysis.breaks] == ["GB010"]


def test_user_calls_are_recorded_for_routing():
    analysis = analyse(programs.calls_helpers)
    assert len(analysis.user_calls) == 3
    assert [b.detail for b in analysis.breaks] == [
        "helper_noisy() has graph breaks of its own; it is compiled separately"
    ]


STATIC_MODULE = textwrap.dedent(
    """\
    import numpy as np
    import numpy.linalg as la
    from numpy import exp as e
    import astcompile as ac
    from astcompile import graph_break, disable, allow_in_graph
    import json

    ac.disallow_in_graph(np.linalg.eigh)
    THRESHOLD = 3

    def pure(x):
        return np.tanh(x) * 2

    def noisy(x):
        print(x)
        return x

    @disable
    def off(x):
        return x

    @ac.disable(recursive=False)
    def off_shallow(x):
        return x

    @allow_in_graph
    def trusted(x):
        print(x)
        return x

    @ac.compile(fullgraph=True)
    def compiled(x):
        return pure(x)

    @some_other_decorator
    def wrapped(x):
        return x

    def user(x):
        a = e(x) + la.norm(x) + math.pi
        b = pure(a) + trusted(a) + compiled(a)
        c = noisy(b)
        d = off(c) + off_shallow(c) + wrapped(c)
        graph_break()
        f = np.linalg.eigh(d)
        g = json.loads(f)
        h = THRESHOLD(g)
        return np.random.rand(3)
    """
)


def test_static_resolver_kinds():
    resolver = StaticResolver(cst.parse_module(STATIC_MODULE), "/m.py")

    def kind(expr: str) -> CallKind:
        from astcompile.frontend.exprs import dotted_name

        return resolver.classify_call(
            cst.parse_expression(expr), dotted_name(cst.parse_expression(expr))
        )[0]

    assert resolver.qualify("la.norm") == "numpy.linalg.norm"
    expected = {
        "e": CallKind.GRAPHABLE,
        "la.norm": CallKind.GRAPHABLE,
        "np.linalg.eigh": CallKind.DISALLOWED,
        "np.random.rand": CallKind.SIDE_EFFECT,
        "pure": CallKind.INLINE_USER,
        "compiled": CallKind.INLINE_USER,
        "noisy": CallKind.BREAK_USER,
        "off": CallKind.DISABLED,
        "off_shallow": CallKind.DISABLED,
        "trusted": CallKind.GRAPHABLE,
        "wrapped": CallKind.UNKNOWN,
        "graph_break": CallKind.GRAPH_BREAK,
        "json.loads": CallKind.UNKNOWN,
        "THRESHOLD": CallKind.UNKNOWN,
        "print": CallKind.SIDE_EFFECT,
        "abs": CallKind.GRAPHABLE,
        "math.sqrt": CallKind.UNKNOWN,  # math is not imported in that module
    }
    assert {expr: kind(expr) for expr in expected} == expected


def test_static_analysis_of_a_file_reports_without_importing():
    module = cst.parse_module(STATIC_MODULE)
    sources = {s.name: s for s in sources_in_module(STATIC_MODULE, "/m.py")}
    analysis = analyze_function(sources["user"], StaticResolver(module, "/m.py"))
    assert [(b.line, b.col, b.code) for b in analysis.breaks] == [
        (42, 9, "GB003"),
        (43, 9, "GB004"),
        (43, 18, "GB004"),
        (43, 35, "GB002"),
        (44, 5, "GB006"),
        (45, 9, "GB005"),
        (46, 9, "GB002"),
        (47, 9, "GB002"),
        (48, 12, "GB012"),
    ]
    assert analysis.breaks[3].detail == "wrapped() is not a NumPy, math or user function"


def test_static_and_runtime_resolvers_agree_on_a_real_module():
    with open(programs.__file__) as handle:
        text = handle.read()
    module = cst.parse_module(text)
    static = StaticResolver(module, programs.__file__)
    for src in sources_in_module(text, programs.__file__, methods=False):
        runtime = analyse(getattr(programs, src.name))
        found = analyze_function(src, static)
        assert found.breaks == runtime.breaks, src.name
        assert found.fully_graphable == runtime.fully_graphable, src.name


def test_math_and_operator_modules_are_pure():
    assert kind_of(host, "math.exp") is CallKind.GRAPHABLE
    assert math and operator  # imported for the resolver to find
