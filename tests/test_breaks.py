"""frontend/breaks.py and the analysis that produces breaks: codes, places and wording."""

from __future__ import annotations

import json

import numpy as np
import pytest
from differential import BACKENDS
from frontend_samples import programs
from frontend_samples.harness import analyse, line_of, where

import astcompile
from astcompile import registry
from astcompile.frontend.breaks import BreakReason, GraphBreak, catalogue_markdown

COUNTER = 0


def graph_break():
    """Stands for astcompile.graph_break: the runtime marks it with this attribute."""


graph_break.__astcompile_graph_break__ = True


def noisy(v):
    print(v)
    return v


def disabled_fn(v):
    return v


setattr(disabled_fn, registry.DISABLED_ATTR, "recursive")


def fake_op(v):
    return v


@pytest.fixture(autouse=True)
def _marks():
    """Marks are process-wide: set them per test, whatever other tests did."""
    registry.mark_disallowed(fake_op)


# -- one small function per reason -------------------------------------------------------------


def side_effect(x):
    y = x + 1
    print("woo", y)
    return y


def unknown_call(x):
    return json.dumps(x)


def star_unknown(x, *args):
    return json.dumps(x, *args)


def breaking_user(x):
    return noisy(x) * 2


def disabled_call(x):
    return disabled_fn(x) + 1


def disallowed_call(x):
    return fake_op(x) + 1


def explicit(x):
    y = x + 1
    graph_break()
    return y


def data_if(b):
    if b.sum() < 0:
        b = -b
    return b


def data_while(x):
    while np.abs(x).max() > 1:
        x = x / 2
        print(x)  # keeps the loop in Python (a graph-able while compiles to a native loop)
    return x


def data_ternary(x):
    y = x if x.mean() > 0 else -x
    return y


def data_assert(x):
    assert np.all(x > 0), "positive"
    return x


def data_and(x):
    y = x.any() and x.all()
    return y


def try_statement(x):
    try:
        y = 1 / x
    except ZeroDivisionError:
        y = 0
    return y


def raise_statement(x):
    raise ValueError(x)


def with_statement(x):
    with np.errstate(all="ignore"):
        y = np.log(x)
    return y


def generator_fn(x):
    yield x


def global_decl(x):
    global COUNTER
    COUNTER = COUNTER + 1
    return x


def attribute_store(x, obj):
    obj.value = x * 2
    return x


def subscript_store(x):
    x[0] = 1.0
    return x


def aug_subscript(x):
    x[1:] += 1.0
    return x


def aug_param(x):
    x *= 2
    return x


def delete(x):
    y = x * 2
    del x
    return y


def nested_jump(xs):
    total = 0
    for v in xs:
        if v is None:
            break
        total = total + v
        print(total)  # keeps the loop in Python
    return total


def nested_def(x):
    def inner(v):
        return v if v.ndim == 0 else inner(v[0])

    return inner(x)


def local_call(x):
    def noisy(v):
        open("log").close()
        return v

    return noisy(x) + 1


def nested_class(x):
    class Inner:
        pass

    return x


def lambda_expr(x):
    return np.apply_along_axis(lambda v: v + 1, 0, x)


def local_import(x):
    import math

    return math.sqrt(x)


CASES = [
    (side_effect, "GB012", 'print("woo", y)', "print", "print() has side effects"),
    (
        unknown_call,
        "GB002",
        "json.dumps",
        None,
        "json.dumps() is not a NumPy, math or user function",
    ),
    (
        star_unknown,
        "GB019",
        "json.dumps",
        None,
        "json.dumps(*args/**kwargs) calls an unknown function",
    ),
    (breaking_user, "GB003", "noisy(x)", None, "noisy() has graph breaks of its own"),
    (disabled_call, "GB004", "disabled_fn(x)", None, "disabled_fn() is marked astcompile.disable"),
    (disallowed_call, "GB005", "fake_op(x)", None, "fake_op() is marked disallow_in_graph"),
    (explicit, "GB006", "graph_break()", None, "explicit graph_break()"),
    (data_if, "GB007", "if b.sum() < 0:", None, "`if` test `b.sum() < 0` depends on array values"),
    (
        data_while,
        "GB007",
        "while np.abs",
        "while",
        "`while` test `np.abs(x).max() > 1` depends on array",
    ),
    (
        data_assert,
        "GB007",
        "assert np.all",
        "assert",
        "`assert` test `np.all(x > 0)` depends on array values",
    ),
    (data_and, "GB007", "x.any() and", None, "`and` test `x.any() and x.all()` depends"),
    (try_statement, "GB008", "try:", None, "`try` statement runs in Python"),
    (raise_statement, "GB008", "raise ValueError", "raise", "`raise` statement runs in Python"),
    (with_statement, "GB009", "with np.errstate", "with", "`with` statement runs in Python"),
    (generator_fn, "GB010", "def generator_fn", "def", "generator_fn() is a generator"),
    (global_decl, "GB011", "global COUNTER", None, "`global` declaration of `COUNTER`"),
    (attribute_store, "GB013", "obj.value =", "obj.value", "store to attribute `obj.value`"),
    (delete, "GB015", "del x", None, "`del x` runs in Python"),
    (nested_jump, "GB017", "break", None, "`break` inside a nested block cannot be moved"),
    (nested_def, "GB018", "def inner", None, "nested function `inner` cannot be inlined: it is"),
    (local_call, "GB012", "open(", None, "open() has side effects"),
    (nested_class, "GB018", "class Inner", None, "nested class `Inner` is created at run time"),
    (lambda_expr, "GB018", "lambda v", None, "nested lambda `<lambda>` is created at run time"),
    (
        local_import,
        "GB020",
        "import math",
        None,
        "`import math` inside the function runs in Python",
    ),
]


@pytest.mark.parametrize(
    "fn, code, snippet, token, detail", CASES, ids=[c[0].__name__ for c in CASES]
)
def test_each_reason_has_code_place_and_message(fn, code, snippet, token, detail):
    analysis = analyse(fn)
    assert [b.code for b in analysis.breaks][:1] == [code], [b.describe() for b in analysis.breaks]
    found = analysis.breaks[0]
    assert (found.line, found.col) == where(fn, snippet, token)
    assert found.detail.startswith(detail)
    assert found.filename == __file__
    assert found.function == fn.__name__
    assert snippet in found.source_line
    assert not analysis.fully_graphable


def test_global_store_is_reported_at_each_assignment():
    codes = [(b.code, b.detail) for b in analyse(global_decl).breaks]
    assert codes == [
        ("GB011", "`global` declaration of `COUNTER`"),
        ("GB011", "assignment to global/nonlocal `COUNTER`"),
    ]


def test_toy_example_matches_the_faq():
    """Two breaks, as Dynamo reports for the FAQ's toy_example: print, then the branch."""
    fn = programs.toy_example
    breaks = analyse(fn).breaks
    assert [(b.code, b.line, b.col) for b in breaks] == [
        ("GB012", line_of(fn, 'print("woo")'), 5),
        ("GB007", line_of(fn, "if b.sum() < 0:"), 5),
    ]
    assert breaks[0].source_line == 'print("woo")'
    assert breaks[1].source_line == "if b.sum() < 0:"
    assert breaks[1].describe() == (
        f"{programs.__file__}:{breaks[1].line}:5: GB007 `if` test `b.sum() < 0` depends on "
        "array values (fix: compute both branches and select with np.where, or test only "
        "shapes and dtypes)"
    )


@pytest.mark.parametrize("fn", [subscript_store, aug_subscript, aug_param])
def test_stores_and_in_place_updates_are_not_breaks(fn):
    """The tracer models them as STOREs into the buffer they alias."""
    assert analyse(fn).breaks == ()


def test_loops_and_static_branches_are_not_breaks():
    for fn in (programs.loop_carried, programs.static_if, programs.nested_static_ifs):
        assert analyse(fn).breaks == ()
    assert not analyse(programs.loop_carried).fully_graphable  # loops are not inlined
    assert analyse(programs.static_if).fully_graphable


def test_catalogue_codes_are_unique_and_complete():
    codes = [r.code for r in BreakReason]
    assert len(set(codes)) == len(codes) == 23
    assert BreakReason.SIDE_EFFECT.code == "GB012"
    assert BreakReason.TRACE_UNSUPPORTED.format(feature="np.unique") == (
        "np.unique is not supported by the tracer"
    )
    assert BreakReason.SIDE_EFFECT.format() == "?() has side effects"
    for reason in BreakReason:
        assert reason.title and reason.fix and reason.message


def test_describe_is_the_cli_format():
    found = GraphBreak(
        BreakReason.SIDE_EFFECT, "print() has side effects", "/a/b.py", 3, 5, "print(x)", "f"
    )
    assert found.code == "GB012"
    assert found.describe() == (
        "/a/b.py:3:5: GB012 print() has side effects (fix: move it out or use astcompile.disable)"
    )


def test_catalogue_markdown_lists_every_reason():
    text = catalogue_markdown()
    lines = text.strip().splitlines()
    assert lines[0] == "| Code | Reason | Fix |"
    assert len(lines) == 2 + len(BreakReason)
    assert "| GB012 | side-effect call | move it out or use astcompile.disable |" in lines


@pytest.mark.parametrize("backend", BACKENDS)
def test_conditional_expression_on_array_values_is_a_branch_not_a_break(backend):
    """``x if x.mean() > 0 else -x`` becomes an IF node: no break, NumPy's answer. (The C
    backend cannot yet return a view out of a branch: that region runs as written, GB023.)"""
    for x in (np.array([1.0, -0.5, 2.0]), np.array([-3.0, 1.0])):
        output = astcompile.explain(astcompile.compile(data_ternary, backend=backend), x)
        codes = [b.code for b in output.break_reasons]
        assert codes == ([] if backend == "eager" else ["GB023"]), output
        np.testing.assert_array_equal(output.out, data_ternary(x))


def test_calls_of_a_local_function_that_breaks_are_reported():
    codes = [(b.code, b.line) for b in analyse(local_call).breaks]
    assert codes == [
        ("GB012", line_of(local_call, "open(")),
        ("GB022", line_of(local_call, "noisy(x)")),
    ]
