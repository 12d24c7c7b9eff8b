"""frontend/rewrite.py, jit/regions.py and liveness.py: regions that compute what the original did."""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import inspect
import io
import sys
import traceback
from pathlib import Path

import numpy as np
import pytest
from differential import BACKENDS, assert_same
from frontend_samples import programs as P
from frontend_samples.harness import analyse, line_of, materialize, rewrite
from hypothesis import given, settings
from hypothesis import strategies as st

from astcompile.frontend.rewrite import rewrite_function

X = np.linspace(-1.0, 2.0, 6)
B = np.linspace(-3.0, 1.0, 6)

CASES = [
    (P.toy_example, lambda: (X, B)),
    (P.toy_example, lambda: (X, -B)),
    (P.straight, lambda: (X, B)),
    (P.loop_carried, lambda: (X, 4)),
    (P.used_after_break, lambda: (X,)),
    (P.static_if, lambda: (X,)),
    (P.static_if, lambda: (X.reshape(2, 3), 1)),
    (P.early_return, lambda: (X,)),
    (P.early_return, lambda: (X.reshape(2, 3), 0)),
    (P.dynamic_branches, lambda: (X,)),
    (P.dynamic_branches, lambda: (-5 * X,)),
    (P.dynamic_branches, lambda: (X * 0 - 0.1,)),
    (P.maybe_unbound, lambda: (X, True)),
    (P.maybe_unbound, lambda: (X, False)),
    (P.conditional_output, lambda: (X, True)),
    (P.conditional_output, lambda: (X, False)),
    (P.carried_without_init, lambda: (X, 4)),
    (P.loop_with_break, lambda: (X, 0.01)),
    (P.for_else, lambda: ([1, 2, 3, 4],)),
    (P.for_else, lambda: ([1, 2],)),
    (P.calls_helpers, lambda: (X,)),
    (P.keyword_and_star, lambda: (X, 0.0, 1.0)),
    (P.with_and_try, lambda: (np.abs(X),)),
    (P.one_liners, lambda: (X, 3)),
    (P.comprehension, lambda: ([np.abs(X), np.abs(B)], 2.0)),
    (P.tuple_returns, lambda: (X,)),
    (P.closure_maker(3), lambda: (X,)),
    (P.nested_static_ifs, lambda: (X, "double")),
    (P.nested_static_ifs, lambda: (X, "other")),
    (P.nested_static_ifs, lambda: (X.reshape(2, 3), "other")),
    (P.inplace_param, lambda: (X.copy(),)),
    (P.deletes, lambda: (X,)),
    (P.generator, lambda: (X, 3)),
    (P.side_effect_only, lambda: (X,)),
    (P.raising, lambda: (X,)),
    (P.raising, lambda: (X.reshape(2, 3),)),
]


def _observe(fn, args):
    """Result (or exception), printed output, and arguments after the call (in-place writes)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = fn(*args)
            if inspect.isgenerator(result):
                result = list(result)
        except Exception as exc:  # noqa: BLE001 - compared by type and message
            result = (type(exc).__name__, str(exc))
    return repr(result), out.getvalue(), repr(args)


@pytest.mark.parametrize("fn, make_args", CASES, ids=[c[0].__name__ for c in CASES])
def test_rewritten_function_computes_the_same(fn, make_args):
    compiled, _, _, _ = materialize(fn)
    assert _observe(compiled, make_args()) == _observe(fn, make_args())


@pytest.mark.parametrize("fn, make_args", CASES[::3], ids=[c[0].__name__ for c in CASES[::3]])
def test_all_eager_has_no_regions_and_computes_the_same(fn, make_args):
    compiled, regions, _, result = materialize(fn, all_eager=True)
    assert regions == [] and "__ac_region" not in result.source
    assert _observe(compiled, make_args()) == _observe(fn, make_args())


def test_global_rebinding_in_eager_code():
    compiled, _, _, _ = materialize(P.global_counter)
    saved = P.SCALE
    try:
        first, second = compiled(X), compiled(X)
    finally:
        P.SCALE = saved
    np.testing.assert_array_equal(second, X * (saved + 1))
    assert first is not None


def test_toy_example_rewrite_reads_like_code():
    result = rewrite(P.toy_example)
    first = line_of(P.toy_example, "def toy_example")
    assert result.source == "\n" * (first - 1) + (
        "def toy_example(a, b):\n"
        "    (x,) = __ac_region_0(a)\n"
        '    print("woo")\n'
        "    if b.sum() < 0:\n"
        "        (b,) = __ac_region_1(b)\n"
        "    (__ac_ret,) = __ac_region_2(b, x); return __ac_ret\n"
    )
    region = result.regions[0]
    assert region.body_source == "\n" * (first - 1) + (
        "def __ac_region_0(a):\n    x = a / (np.abs(a) + 1)\n    return (x,)\n"
    )
    assert (region.params, region.outputs, region.globals_read) == (("a",), ("x",), ("np",))
    assert (region.first_line, region.last_line, region.statement_count) == (
        first + 1,
        first + 1,
        1,
    )
    assert [r.name for r in result.regions] == ["__ac_region_0", "__ac_region_1", "__ac_region_2"]
    assert result.regions[2].outputs == ("__ac_ret",)


def _file_lines(fn) -> list[str]:
    with open(inspect.getsourcefile(fn)) as handle:
        return handle.read().splitlines()


@pytest.mark.parametrize("fn", sorted({c[0] for c in CASES}, key=lambda f: f.__name__))
def test_every_kept_line_is_on_its_original_line(fn):
    result = rewrite(fn)
    original = _file_lines(fn)
    sources = [result.source] + [r.body_source for r in result.regions]
    for source in sources:
        for number, line in enumerate(source.splitlines(), start=1):
            if line.strip() and "__ac_" not in line and "return (" not in line:
                assert line.strip() in original[number - 1], (fn.__name__, number)


def test_values_used_after_a_break_are_outputs():
    regions = rewrite(P.used_after_break).regions
    assert (regions[0].params, regions[0].outputs) == (("x",), ("y", "z"))


def test_values_used_in_later_iterations_are_carried():
    (region,) = rewrite(P.loop_carried).regions
    (loop,) = region.structured
    assert loop.target == "i"
    assert loop.carried == ("prev", "total")  # cur is dead at the end of the body
    assert region.outputs == ("__ac_ret",)


def test_output_unassigned_on_some_path_is_also_a_parameter():
    def fn(x, flag):
        y = x
        print("y")
        if flag:
            y = x * 2
        print(y)

    (region,) = rewrite(fn).regions  # ``y = x`` alone computes nothing: no region
    assert (region.params, region.outputs) == (("x", "flag", "y"), ("y",))  # signature order first


def test_output_never_bound_before_demotes_the_branch():
    result = rewrite(P.conditional_output)
    assert "    if flag:\n        (extra,) = __ac_region_0(x)\n" in result.source


def test_loop_carried_value_without_initial_binding_stays_in_python():
    result = rewrite(P.carried_without_init)
    assert "out.append(float((x * prev).sum()))" in result.source
    assert [r.outputs for r in result.regions] == [("prev",)]


def test_assignments_read_by_handlers_are_not_lost_when_a_region_raises():
    result = rewrite(P.with_and_try)
    assert "        (z,) = __ac_region_1(y)\n        (bad,) = __ac_region_2()\n" in result.source


def test_eager_user_calls_are_routed_with_their_arguments():
    def fn(x, *rest, **options):
        y = P.helper_noisy(x, *rest, **options)
        print(P.helper_pure(v=y))
        return P.helper_pure(y)

    source = rewrite(fn).source
    assert "y = __ac_call(P.helper_noisy, x, *rest, **options)" in source
    assert "print(__ac_call(P.helper_pure, v=y))" in source
    assert "(__ac_ret,) = __ac_region_0(y); return __ac_ret" in source
    compiled, _, routed, _ = materialize(fn)
    with contextlib.redirect_stdout(io.StringIO()):
        np.testing.assert_array_equal(compiled(X), fn(X))
    assert routed.callees == ["helper_noisy", "helper_pure"]


def test_one_line_loops_are_lowered_with_their_region():
    result = rewrite(P.one_liners)
    assert "    (__ac_ret,) = __ac_region_0(x, n)\n" in result.source
    assert [type(s).__name__ for s in result.regions[0].structured] == ["LoopSpec"]


def test_nested_returns_return_a_tuple_from_the_region():
    body = rewrite(P.early_return).regions[0].body_source
    assert "        return (np.sum(x),)\n" in body
    assert "    __ac_ret = np.sum(y, axis=axis)\n    return (__ac_ret,)\n" in body


def _frames(exc: BaseException) -> list[tuple[str, int, str]]:
    return [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(exc.__traceback__)]


def singular(x):
    y = x * 2
    z = np.linalg.inv(np.zeros((2, 2)))
    print("unreachable")
    return y, z


def failing_break(x):
    y = x * 2
    print(y.missing_attribute)
    return y


def test_tracebacks_point_at_the_original_lines():
    compiled, _, _, _ = materialize(singular)
    with pytest.raises(np.linalg.LinAlgError) as info:
        compiled(X)
    frames = [f for f in _frames(info.value) if f[0] == __file__]
    assert frames[-2:] == [
        (__file__, line_of(singular, "y = x * 2"), "singular"),
        (__file__, line_of(singular, "np.linalg.inv"), "singular"),  # the region's frame
    ]
    compiled, _, _, _ = materialize(failing_break)
    with pytest.raises(AttributeError) as info:
        compiled(X)
    assert _frames(info.value)[-1] == (__file__, line_of(failing_break, "missing"), "failing_break")


def test_graph_break_call_is_kept_in_place():
    from test_breaks import explicit

    source = rewrite(explicit).source
    assert "    graph_break()\n" in source
    assert sys.modules["test_breaks"].graph_break.__astcompile_graph_break__


def test_rewrite_without_stored_module_reparses():
    analysis = analyse(P.straight)
    bare = type(analysis)(analysis.source, analysis.breaks, analysis.fully_graphable)
    again = rewrite_function(analysis.source, bare)
    assert again.regions == () and "__ac_region" not in again.source
    full = rewrite_function(analysis.source, analysis)
    assert len(full.regions) == 1


# -- generated programs -------------------------------------------------------------------------

STATEMENTS = [
    "v{a} = v{b} * 2 + {c}",
    "v{a} = np.tanh(v{b}) - v{c}",
    "v{a} += v{b}",
    "print(float(v{b}.sum()))",
    "del v{a}",
    "if v{b}.sum() > {c}:\n    v{a} = v{b} + 1",
    "if flag:\n    v{a} = v{b} - {c}",
    "if flag:\n    v{a} = v{b} - {c}\nelse:\n    v{a} = v{c} * 3",
    "for _ in range({c}):\n    v{a} = v{a} + v{b}\n    print(float(v{a}.sum()))",
    "while float(v{b}.sum()) < {c}:\n    v{b} = v{b} + 1\n    if flag:\n        break",
    "if flag:\n    return v{b}",
    "for i in range({c}):\n    if i == 1:\n        continue\n    v{a} = v{b} * i",
    "for i in range(2):\n    if flag:\n        return v{a}\n    v{b} = v{b} + i",
    "if v{b}.sum() > {c}:\n    return v{a}",
    "with np.errstate(all='ignore'):\n    v{a} = np.sqrt(v{b} - {c})",
    (
        "try:\n    v{a} = v{b} / (v{c} * v{c} + 1)\n    v{b} = np.linalg.inv(v{c})\n"
        "except np.linalg.LinAlgError:\n    v{a} = v{a} + 1"
    ),
]


def _program(choices: list[tuple[int, int, int, int]]) -> str:
    body = []
    for kind, a, b, c in choices:
        text = STATEMENTS[kind].format(a=a, b=b, c=c)
        body += ["    " + line for line in text.splitlines()]
    body.append("    return v0 + v1 + v2")
    return "import numpy as np\n\n\ndef generated(v0, v1, flag):\n" + "\n".join(body) + "\n"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(STATEMENTS) - 1),
            st.integers(0, 3),
            st.integers(0, 3),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=7,
    ),
    st.booleans(),
)
def test_generated_programs_compute_the_same(tmp_path_factory, choices, flag):
    """Random mixes of regions, breaks, branches, loops, early returns and possibly-unbound
    variables: the rewritten function must raise, print and return exactly as the original."""
    folder = tmp_path_factory.mktemp("generated")
    path = folder / "generated_module.py"
    path.write_text(_program(choices))
    spec = importlib.util.spec_from_file_location(f"generated_{id(path)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = module.generated
    compiled, _, _, _ = materialize(fn)

    def args():
        return (np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, -1.0], [2.0, 0.0]]), flag)

    assert _observe(compiled, args()) == _observe(fn, args())


def _sorts_first(x):
    x.sort()
    return x.sum()


def _documented(x):
    """A docstring: not code."""
    return x.sum()


def test_a_first_statement_that_is_no_string_is_code_not_a_docstring():
    (region,) = rewrite(_sorts_first).regions
    assert region.first_line == line_of(_sorts_first, "x.sort()")
    (region,) = rewrite(_documented).regions
    assert region.first_line == line_of(_documented, "return x.sum()")


def test_statement_counts_are_libcsts_without_rebuilding_the_tree(monkeypatch):
    """A region's ``statement_count`` counts nested statements as libcst's visitor meets them
    (on this repository's frontend files), without ``visit``, which rebuilds every node."""
    import libcst as cst

    from astcompile.frontend import rewrite as rewrite_module

    kinds = (cst.BaseSmallStatement, cst.BaseCompoundStatement)

    class Count(cst.CSTVisitor):
        def __init__(self) -> None:
            self.count = 0

        def on_visit(self, node: cst.CSTNode) -> bool:
            self.count += isinstance(node, kinds)
            return True

    root = Path(__file__).resolve().parent.parent / "astcompile" / "frontend"
    units = [u for p in sorted(root.glob("*.py")) for u in cst.parse_module(p.read_text()).body]
    expected = []
    for unit in units:
        counter = Count()
        unit.visit(counter)
        expected.append(counter.count)
    counts = [rewrite_module._count_statements(u) for u in units]  # node types learnt
    monkeypatch.setattr(cst.CSTNode, "visit", None)  # then counting must not rebuild the tree
    assert [rewrite_module._count_statements(u) for u in units] == counts == expected
    assert sum(expected) > 1000


def _named_locals(x):
    a = x * 2
    b = a + 1
    return sorted(locals()), b


def _vars_of_frame(x):
    a = x * 2
    return list(vars()), a


def _evaluated_in_frame(x):
    y = x + 1  # noqa: F841 - read by eval
    return eval("y * 2 + x")


def _evaluated_with_a_star(x, *namespaces):
    y = x + 1  # noqa: F841 - read by eval
    return eval("y * 2", *namespaces)


def _frame_locals(x):
    y = x * 2
    return sorted(inspect.currentframe().f_locals), y


def _getframe_locals(x):
    y = x * 2
    return sorted(sys._getframe().f_locals), y


def _evaluated_with_none_namespaces(x):
    y = x + 1  # noqa: F841 - read by eval
    return eval("y * 2", None), eval("y - x", None, None)


def _evaluated_by_builtins(x):
    y = x + 1  # noqa: F841 - read by eval
    return builtins.eval("y * 2")


@pytest.mark.parametrize(
    "fn",
    [
        _named_locals,
        _vars_of_frame,
        _evaluated_in_frame,
        _evaluated_with_a_star,
        _frame_locals,
        _getframe_locals,
        _evaluated_with_none_namespaces,
        _evaluated_by_builtins,
    ],
)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_function_reading_its_own_locals_has_no_regions(fn, backend):
    """``locals()`` showed the rewrite's region objects and missed the names they bind, so
    did the ``f_locals`` of ``inspect.currentframe()``; ``eval(s)`` without namespaces of its
    own raised NameError for ``y``, a region's local; so did ``eval(s, None)`` (None: the
    frame's namespaces) and ``builtins.eval(s)``."""
    assert not rewrite(fn).regions
    assert_same(fn, X, backend=backend)


def _evaluated_in_a_namespace(x):
    y = x + 1
    return eval("k * 2", {"k": 3}) + y


def test_eval_given_its_own_namespace_keeps_the_regions():
    assert rewrite(_evaluated_in_a_namespace).regions
    assert_same(_evaluated_in_a_namespace, X)
