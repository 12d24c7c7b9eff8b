"""Local lambdas and nested helper functions are inlined: traced where they are called.

Every program runs as plain Python and through astcompile (eager and C) and must agree; the
inlinable ones must compile without a graph break (loops included), and the others must report
why, at the right line, and still give Python's answer.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls, assert_same_value
from frontend_samples.harness import rewrite

import astcompile


def scaled_squares(x, k):
    sq = lambda v: v * v

    def scaled(v, s=2.0):
        return s * sq(v) + k  # closes over k and over sq

    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = scaled(x[i])
    return out + sq(x)


def vector_lambda(x):
    gelu = lambda v: 0.5 * v * (1.0 + np.tanh(0.7978845608 * (v + 0.044715 * v**3)))
    return gelu(x) + gelu(2.0 * x)


def keyword_call(x, y):
    def axpy(a, b, alpha=1.0):
        return alpha * a + b

    return axpy(x, y, alpha=3.0) - axpy(b=x, a=y)


def defined_in_loop(x):
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        g = lambda v: v * i + 1.0  # noqa: B023 - called in the same iteration: binds this i
        out[i] = g(x[i])
    return out


def late_binding(x):
    k = 1.0
    g = lambda v: v + k
    k = 5.0
    return g(x)


def static_branches(x, lo=None):
    def clip(v):
        if lo is None:
            return v
        return np.maximum(v, lo)

    return clip(x) * 2.0


def row_norms(x):
    norm = lambda v: np.sqrt(np.sum(v * v))
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] / norm(x[i])
    return out


def relu_loop(x):
    relu = lambda v: v if v > 0 else 0.0
    s = 0.0
    for i in range(x.shape[0]):
        s = s + relu(x[i])
    return s


def chained_helpers(x):
    def inner(v):
        return v + 1.0

    def outer(v):
        return inner(v) * inner(2.0 * v)

    return outer(x)


def _vec():
    return (np.linspace(-2.0, 3.0, 7),)


INLINED = [
    (scaled_squares, lambda: (np.linspace(-1.0, 2.0, 9), 3.0)),
    (vector_lambda, _vec),
    (keyword_call, lambda: (np.arange(5.0), np.linspace(0.0, 1.0, 5))),
    (defined_in_loop, _vec),
    (late_binding, _vec),
    (static_branches, _vec),
    (row_norms, lambda: (np.arange(1.0, 13.0).reshape(4, 3),)),
    (relu_loop, _vec),
    (chained_helpers, _vec),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", INLINED, ids=[p[0].__name__ for p in INLINED])
def test_inlined_local_functions_match_python(fn, make_args, backend):
    assert_same(fn, *make_args(), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", INLINED, ids=[p[0].__name__ for p in INLINED])
def test_inlined_local_functions_compile_without_breaks(fn, make_args, backend):
    output = astcompile.explain(astcompile.compile(fn, backend=backend), *make_args())
    assert output.graph_break_count == 0, output
    assert [r.compiled_calls for r in output.regions] == [1], output
    assert not output.python_loops, output


def test_the_closure_is_new_at_each_call_without_recompiling():
    compiled = astcompile.compile(scaled_squares, backend="eager")
    for k in (1.0, 2.0, 3.0):
        assert_same_value(compiled(np.arange(4.0), k), scaled_squares(np.arange(4.0), k))
    output = astcompile.explain(compiled, np.arange(4.0), 4.0)
    assert output.graph_count == 1


# -- local functions that stay in Python: right answer, reported where they break ---------------


def noisy_helper(x):
    def show(v):
        print("value", v.shape)
        return v * 2.0

    return show(x) + 1.0


def recursive_helper(n, x):
    def fact(m):
        return 1 if m <= 1 else m * fact(m - 1)

    return x * fact(n)


def escaping_helper(x):
    g = lambda v: v * 3.0
    return g


def stale_closure(x):
    acc = 0.0
    g = lambda v: v + acc
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        acc = acc + 1.0
        out[i] = g(x[i])
    return out


def decorated_helper(x):
    def twice(f):
        return lambda v: f(f(v))

    @twice
    def inc(v):
        return v + 1.0

    return inc(x)


def counting_helper(x):
    count = 0

    def bump(v):
        nonlocal count
        count += 1
        return v * 2.0

    y = bump(x) + bump(x)
    return y, count


def used_across_a_break(x):
    g = lambda v: v * 2.0
    print("between")
    return g(x) + 1.0


def rebound_helper(x):
    g = lambda v: v + 1.0
    y = g(x)
    g = lambda v: v * 10.0
    return y + g(x)


def _line(fn, text: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


BROKEN = [
    (noisy_helper, (np.arange(3.0),), [("GB012", 'print("value"'), ("GB022", "show(x)")]),
    (recursive_helper, (4, np.arange(3.0)), [("GB018", "def fact"), ("GB022", "fact(n)")]),
    (stale_closure, (np.arange(4.0),), [("GB018", "g = lambda"), ("GB022", "g(x[i])")]),
    (
        decorated_helper,
        (np.arange(3.0),),
        [("GB018", "def twice"), ("GB018", "def inc"), ("GB022", "inc(x)")],
    ),
    (counting_helper, (np.arange(3.0),), [("GB011", "nonlocal"), ("GB022", "bump(x) + bump")]),
    (used_across_a_break, (np.arange(3.0),), [("GB012", 'print("between")')]),
    (
        rebound_helper,
        (np.arange(3.0),),
        [
            ("GB018", "g = lambda v: v + 1"),
            ("GB022", "y = g(x)"),
            ("GB018", "g = lambda v: v * 10"),
            ("GB022", "y + g(x)"),
        ],
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args, expected", BROKEN, ids=[b[0].__name__ for b in BROKEN])
def test_local_functions_that_break_match_python(fn, args, expected, backend, capsys):
    assert_same(fn, *args, backend=backend)


@pytest.mark.parametrize("fn, args, expected", BROKEN, ids=[b[0].__name__ for b in BROKEN])
def test_local_functions_that_break_say_where(fn, args, expected, capsys):
    output = astcompile.explain(fn, *args)
    got = [(b.code, b.line) for b in output.break_reasons]
    assert got == [(code, _line(fn, text)) for code, text in expected], output


def test_break_messages_say_why():
    output = astcompile.explain(recursive_helper, 3, np.arange(2.0))
    details = [b.detail for b in output.break_reasons]
    assert details == [
        "nested function `fact` cannot be inlined: it is recursive",
        "fact() is a nested function that cannot be inlined; it runs in Python",
    ]
    output = astcompile.explain(stale_closure, np.arange(2.0))
    assert "`acc`, which it reads, is assigned inside a compound statement" in str(output)


def test_an_escaping_local_function_is_a_real_function():
    output = astcompile.explain(escaping_helper, np.arange(2.0))
    assert [b.code for b in output.break_reasons] == ["GB018"]
    assert "used as a value" in output.break_reasons[0].detail
    g = astcompile.compile(escaping_helper)(np.arange(2.0))
    assert_same_value(g(np.arange(3.0)), np.arange(3.0) * 3.0)


def test_check_reports_local_functions_statically(tmp_path):
    from astcompile.cli.scan import check_file

    path = tmp_path / "mod.py"
    path.write_text(
        "import numpy as np\nimport astcompile\n\n@astcompile.compile\ndef f(x, k):\n"
        "    sq = lambda v: v * v\n    def show(v):\n        print(v)\n        return v\n"
        "    out = np.empty_like(x)\n    for i in range(x.shape[0]):\n"
        "        out[i] = sq(x[i]) + k\n    return show(out)\n"
    )
    report = check_file(str(path))
    got = [(b.code, b.line) for fn in report.functions for b in fn.breaks]
    assert got == [("GB012", 8), ("GB022", 13)]


def rebound_after_the_def(x):
    scale = x.max()

    def f(v):
        return v * scale

    scale = scale + 1.0  # no statement after reads ``scale``: only f, through its cell
    return f, f(x)


def rebound_then_called(x, k):
    offset = np.zeros(1)
    shift = lambda v: v + offset
    hold = [shift]
    offset = x.sum() * k
    return hold[0](x)


def called_later(x):
    k = 1.0

    def g(v):
        print("g")  # not inlined: the call stays in Python, after the region
        return v + k

    k = x.sum()
    return g(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_local_a_closure_reads_is_written_back_from_a_region(backend):
    """A region rebinding a local that only a closure reads afterwards did not return it (not
    live by the text after it), so the closure's cell kept the old value: the function and the
    closure it returned both saw ``scale`` before ``+ 1``."""
    compiled = astcompile.compile(rebound_after_the_def, backend=backend)
    for x in (np.arange(3.0), np.linspace(-1.0, 2.0, 5)):
        (plain_f, expected), (got_f, got) = rebound_after_the_def(x), compiled(x)
        assert_same_value(got, expected)
        assert_same_value(got_f(np.ones(2)), plain_f(np.ones(2)))
    for k in (1.0, 3.0):
        assert_same(rebound_then_called, np.arange(4.0), k, backend=backend)
    assert_same_calls(called_later, [(np.arange(3.0),), (np.ones(2),)], backend=backend)


def called_through_an_alias(x):
    def total():
        return y.sum()

    y = x * 2.0
    again = total
    y = y + 1.0
    return again()


def called_from_a_class(x):
    y = x * 2.0

    class Sums:
        def of_y(self):
            return y.sum()

    y = y + 1.0
    return Sums().of_y()


def called_through_another_function(x):
    def total():
        return y.sum()

    def twice():
        return 2.0 * total()

    y = x * 2.0
    y = y + 1.0
    return twice()


def made_by_a_factory(x):
    def factory():
        def inner():
            return y.sum()

        return inner

    y = x * 2.0
    made = factory()
    y = y * 3.0
    return made()


def read_by_a_closure_beside_numpy(x):
    y = np.sin(x) * 2.0

    def at(i):
        return y[i]

    z = np.cos(y) + 1.0
    return z, at(0)


CALLED_INSIDE = (called_through_an_alias, called_from_a_class)
CALLED_INSIDE += (called_through_another_function, made_by_a_factory)


@pytest.mark.parametrize("fn", CALLED_INSIDE)
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_closure_called_inside_the_region_that_rebinds_its_cell_sees_the_new_value(fn, backend):
    """``y = y + 1.0; return again()`` made one region: ``y`` was the region's own local, and
    the closure (reached through an alias, a local class, another local function or a
    factory) read the cell's old value (6.0 where the plain code gives 9.0)."""
    assert_same(fn, np.arange(3.0), backend=backend)


def test_a_closure_read_beside_numpy_calls_keeps_its_regions():
    """A closure defined in the region reads the region's own cells: ``y``'s write stays."""
    assert [r.params for r in rewrite(read_by_a_closure_beside_numpy).regions] == [("x",)]
    assert_same(read_by_a_closure_beside_numpy, np.arange(3.0))
