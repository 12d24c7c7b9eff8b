"""The public API against the seeds: disable, allow/disallow, graph_break, fullgraph, explain."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_matches, assert_same_calls
from programs import seeds

import astcompile

SEED_FILE = inspect.getsourcefile(seeds)


def line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    for offset, line in enumerate(lines):
        if text in line:
            return start + offset
    raise AssertionError(f"{text!r} not in {fn.__name__}")


def region_runs(output, function):
    return [r for r in output.regions if r.function == function]


def test_seed_f_runs_outer1_untouched_and_traces_the_return():
    x = np.ones(3)
    np.testing.assert_array_equal(seeds.f(x), np.full(3, 8.0))
    output = astcompile.explain(seeds.f, x)
    np.testing.assert_array_equal(output.out, np.full(3, 8.0))
    # outer1 is disabled (recursively): neither it nor inner1 is compiled.
    assert output.compiled_functions == ["f"]
    assert output.graph_count == 1 and output.ops_per_graph == [1]
    (run,) = region_runs(output, "f")
    assert run.lines == (line_of(seeds.f, "return x + 4"),) * 2
    assert run.compiled_calls == 1 and run.eager_calls == 0
    (only_break,) = output.break_reasons
    assert only_break.code == "GB004" and only_break.line == line_of(seeds.f, "x = outer1(x)")


def test_seed_g_compiles_inner2_around_its_graph_break():
    x = np.ones(3)
    np.testing.assert_array_equal(seeds.g(x), np.full(3, 8.0))
    output = astcompile.explain(seeds.g, x)
    # outer2 (recursive=False) runs its statements eagerly but inner2 is compiled.
    assert "inner2" in output.compiled_functions
    assert not any(r.function.startswith("outer2") for r in output.regions if r.compiled_calls)
    inner_runs = region_runs(output, "inner2")
    assert [r.lines[0] for r in inner_runs] == [line_of(seeds.inner2, "return x + 1")]
    assert all(r.compiled_calls == 1 for r in inner_runs)
    g_runs = region_runs(output, "g")
    assert [r.lines[0] for r in g_runs] == [line_of(seeds.g, "return x + 4")]
    codes = {(b.function, b.code) for b in output.break_reasons}
    assert ("inner2", "GB006") in codes and ("g", "GB004") in codes


def test_toy_example_explain_reports_both_breaks_with_lines(capsys):
    a, b = np.random.default_rng(0).standard_normal((2, 10))
    output = astcompile.explain(seeds.toy_example, a, b)
    assert capsys.readouterr().out == "woo\n"
    assert_matches(output.out, seeds.toy_example(a, b))
    capsys.readouterr()
    reasons = [(b.code, b.line) for b in output.break_reasons]
    assert reasons == [
        ("GB012", line_of(seeds.toy_example, 'print("woo")')),
        ("GB007", line_of(seeds.toy_example, "if b.sum() < 0:")),
    ]
    assert all(b.filename == SEED_FILE for b in output.break_reasons)
    assert output.graph_break_count == 2
    assert output.graph_count >= 2 and sum(output.ops_per_graph) >= 4
    text = str(output)
    assert 'print("woo")' in text and "if b.sum() < 0:" in text and "GB007" in text


def test_explain_unpacks_as_torchs_did_and_tells_compiling_apart(capsys):
    """The seed's ``explanation, out_guards, graphs, ops_per_graph = dynamo.explain(...)``."""
    a, b = np.random.default_rng(0).standard_normal((2, 10))
    output = astcompile.explain(seeds.toy_example, a, b)
    explanation, out_guards, graphs, ops_per_graph = output
    assert explanation == str(output) and explanation.startswith("astcompile produced")
    assert (out_guards, graphs, ops_per_graph) == (
        output.guards,
        output.graphs,
        output.ops_per_graph,
    )
    compiled = [run for run in output.regions if run.compiled_calls]
    assert compiled and all(0 < run.compile_seconds <= run.seconds for run in compiled)
    for run in compiled:
        assert (
            f"{run.seconds * 1e3:.3f} ms ({run.compile_seconds * 1e3:.3f} ms of it compiling)"
            in explanation
        )


def test_fullgraph_raises_at_decoration_time_with_location():
    def noisy(x):
        y = x * 2
        print(y)
        return y

    with pytest.raises(astcompile.GraphBreakError) as info:
        astcompile.compile(noisy, fullgraph=True)
    message = str(info.value)
    assert f"{__file__}:{line_of(noisy, 'print(y)')}" in message and "GB012" in message


def test_fullgraph_trace_time_break_raises_at_first_call():
    def uses_eig(x):
        return np.linalg.eig(x)[0].sum() * x  # real or complex eigenvalues: the data decides

    compiled = astcompile.compile(uses_eig, fullgraph=True)  # fine statically: np.* is graph-able
    with pytest.raises(astcompile.GraphBreakError, match="not supported"):
        compiled(np.ones((3, 3)))


def test_disallow_in_graph_breaks_and_allow_undoes_it():
    def decompose(x):
        y = x + 1
        _u, s, _vt = np.linalg.svd(y)
        return s * 2

    x = np.random.default_rng(2).random((4, 4))
    astcompile.disallow_in_graph(np.linalg.svd)
    try:
        output = astcompile.explain(decompose, x)
        assert [b.code for b in output.break_reasons] == ["GB005"]
        assert output.graph_count == 2
        assert_matches(output.out, np.linalg.svd(x + 1)[1] * 2)
    finally:
        astcompile.allow_in_graph(np.linalg.svd)


def test_allow_in_graph_traces_helper_as_black_box(capsys):
    calls = []

    @astcompile.allow_in_graph
    def helper(x):
        print("helper runs")
        calls.append(1)
        return x * 3

    @astcompile.compile(backend="eager")
    def uses_helper(x):
        return helper(x) + 1

    for n in (4, 5, 6):
        np.testing.assert_array_equal(uses_helper(np.ones(n)), np.full(n, 4.0))
    assert capsys.readouterr().out == "helper runs\n"  # once, at trace time
    assert len(calls) == 1


def test_recompiles_on_dtype_not_on_size():
    @astcompile.compile(backend="eager")
    def double(x):
        return x * 2

    for n in (3, 10, 100):
        double(np.ones(n))
    (region,) = double.regions
    assert region.stats.traces == 1
    double(np.ones(5, dtype=np.float32))
    assert region.stats.traces == 2


def test_cache_size_limit_warns_once_naming_the_guard(monkeypatch):
    monkeypatch.setattr(astcompile.config, "cache_size_limit", 2)

    @astcompile.compile(backend="eager")
    def inc(x):
        return x + 1

    dtypes = [np.float64, np.float32, np.int32, np.int16, np.int8]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for dtype in dtypes:
            np.testing.assert_array_equal(inc(np.zeros(3, dtype)), np.ones(3, dtype))
    limit_warnings = [w for w in caught if "cache_size_limit" in str(w.message)]
    assert len(limit_warnings) == 1
    assert "last guard failure: x: dtype float32 → int32." in str(limit_warnings[0].message)


def test_suppress_errors_turns_backend_failure_into_warning(monkeypatch):
    from astcompile.targets.eager import EagerBackend

    def broken(self, graph):
        raise RuntimeError("backend exploded")

    monkeypatch.setattr(EagerBackend, "compile", broken)

    def add(x):
        return x + 1

    with pytest.raises(astcompile.CompileError, match="backend exploded"):
        astcompile.compile(add, backend="eager")(np.ones(2))
    monkeypatch.setattr(astcompile.config, "suppress_errors", True)
    with pytest.warns(RuntimeWarning, match="backend exploded"):
        out = astcompile.compile(add, backend="eager")(np.ones(2))
    np.testing.assert_array_equal(out, np.full(2, 2.0))


def test_shape_mismatch_raises_numpy_error_at_user_line():
    @astcompile.compile(backend="eager")
    def add(x, y):
        return x + y

    with pytest.raises(ValueError, match="could not be broadcast") as info:
        add(np.ones(3), np.ones(4))
    lines = [entry.lineno + 1 for entry in info.traceback]  # pytest counts from 0
    assert line_of(add.__wrapped__, "return x + y") in lines


def test_wrong_type_raises_numpy_type_error():
    @astcompile.compile(backend="eager")
    def add(x, y):
        return np.add(x, y)

    with pytest.raises(TypeError):
        add(np.ones(3), "a")


def test_compile_keeps_signature_name_and_doc():
    def documented(x, scale=2.0):
        """Scale x."""
        return x * scale

    compiled = astcompile.compile(documented)
    assert compiled.__name__ == "documented" and compiled.__doc__ == "Scale x."
    assert compiled.__wrapped__ is documented
    assert list(inspect.signature(compiled).parameters) == ["x", "scale"]
    np.testing.assert_array_equal(compiled(np.ones(2), scale=3.0), np.full(2, 3.0))


def test_frozen_mode_uses_existing_entries_and_never_compiles():
    @astcompile.compile(backend="eager")
    def square(x):
        return x * x

    frozen = astcompile.run(square)
    np.testing.assert_array_equal(frozen(np.arange(3.0)), np.arange(3.0) ** 2)
    assert square.regions[0].stats.traces == 0  # the miss ran eagerly
    square(np.arange(3.0))
    frozen(np.arange(4.0))
    assert square.regions[0].stats.traces == 1
    with pytest.raises(astcompile.Unsupported):
        astcompile.run(square, strict=True)(np.arange(3, dtype=np.int8))


def test_methods_and_closures():
    scale = 3.0

    class Model:
        def __init__(self):
            self.bias = 1.0

        @astcompile.compile(backend="eager")
        def forward(self, x):
            return x * scale + self.bias

    np.testing.assert_array_equal(Model().forward(np.ones(2)), np.full(2, 4.0))


def test_compile_times_and_reset():
    @astcompile.compile(backend="eager")
    def neg(x):
        return -x

    neg(np.ones(2))
    times = astcompile.compile_times()
    assert {"source", "analysis", "rewrite", "trace"} <= set(times)
    astcompile.reset()
    assert neg.regions == []
    np.testing.assert_array_equal(neg(np.ones(2)), -np.ones(2))


# --- the specialised guards of a region (the per-call fast path) ---------------------------

SCALE = 2.0
WEIGHTS = np.arange(3.0)


def _traces(fn):
    return sum(region.stats.traces for region in fn.regions)


def test_repeated_calls_skip_the_generic_guard_key(monkeypatch):
    @astcompile.compile(backend="c")
    def affine(a):
        return a * 2.0 + 1.0

    a = np.arange(8.0)
    affine(a)

    def no_generic_key(args):
        raise AssertionError("the generic guard path ran on a repeated call")

    monkeypatch.setattr(astcompile.runtime.guards, "call_key", no_generic_key)
    for n in (8, 9, 100):
        np.testing.assert_array_equal(affine(np.arange(float(n))), np.arange(float(n)) * 2 + 1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_changed_dtype_rank_and_size_relation_still_recompile(backend):
    @astcompile.compile(backend=backend)
    def add(a, b):
        return a + b

    cases = [
        (np.ones(4), np.ones(4)),  # traced: one size class
        (np.ones(4, np.float32), np.ones(4)),  # dtype
        (np.ones((2, 4)), np.ones(4)),  # rank
        (np.ones(4), np.ones(1)),  # a size 1: broadcasting
        (np.ones(5), np.ones(5)),  # the same entry as the first
    ]
    traces = []
    for a, b in cases:
        out = add(a, b)
        np.testing.assert_array_equal(out, a + b)
        assert out.dtype == (a + b).dtype
        traces.append(_traces(add))
    assert traces == [1, 2, 3, 4, 4]
    with pytest.raises(ValueError):  # sizes no longer equal: not the entry traced for equal ones
        add(np.ones(4), np.ones(5))


def test_layout_and_aliasing_still_checked():
    @astcompile.compile(backend="c")
    def shift(a, b):
        return a - 2 * b

    base = np.arange(16.0).reshape(4, 4)
    for a, b in [(base, base + 1), (base.T, base), (base[:, ::2], base[:, 1::2]), (base, base)]:
        np.testing.assert_array_equal(shift(a, b), a - 2 * b)
    np.testing.assert_array_equal(shift(base, base + 1), base - 2 * (base + 1))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_array_twice_inside_a_tuple_is_traced_apart(backend):
    """A tuple of two arrays traced with distinct arrays, then called with one array twice
    (one leaf, not two): the call must not reuse the two-leaf entry."""

    def bump(pair):
        a, b = pair
        a += 1
        return a * 2 + b

    x, y = np.arange(4.0), np.ones(4)
    assert_same_calls(bump, [((x, y),), ((x, x),), ([y, y],), ((x, y),)], backend=backend)


def test_changed_global_still_recompiles(monkeypatch):
    import test_api

    @astcompile.compile(backend="c")
    def scaled(x):
        return x * SCALE + WEIGHTS

    x = np.ones(3)
    np.testing.assert_array_equal(scaled(x), x * 2.0 + WEIGHTS)
    monkeypatch.setattr(test_api, "SCALE", 3.0)
    np.testing.assert_array_equal(scaled(x), x * 3.0 + WEIGHTS)
    monkeypatch.setattr(test_api, "WEIGHTS", np.full(3, 10.0))
    np.testing.assert_array_equal(scaled(x), x * 3.0 + 10.0)
    monkeypatch.setattr(test_api, "SCALE", 2.0)
    monkeypatch.setattr(test_api, "WEIGHTS", np.arange(3.0))
    np.testing.assert_array_equal(scaled(x), x * 2.0 + np.arange(3.0))


def test_value_and_shape_guards_still_checked():
    @astcompile.compile(backend="eager")
    def head(x, n):
        y = x[:3] * 2  # the slice's length depends on len(x) >= 3: a shape guard
        if n > 1:  # n steers tracing: a value guard
            y = y + n
        return y

    for x, n in [
        (np.arange(5.0), 2),
        (np.arange(2.0), 2),
        (np.arange(6.0), 0),
        (np.arange(9.0), 2),
    ]:
        expected = x[:3] * 2 + (n if n > 1 else 0)
        np.testing.assert_array_equal(head(x, n), expected)


def test_backend_names_are_checked_at_compile_time_with_a_clear_message(monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "triton" else find_spec(name)
    )
    with pytest.raises(ValueError, match=r"'triton'.*needs Triton.*use backend='c'"):
        astcompile.compile(lambda x: x, backend="triton")
    with pytest.raises(ValueError, match="unknown backend 'gpu'"):
        astcompile.compile(backend="gpu")
