"""Loop regions on the Triton target (lower/host_program.py, targets/triton/host_loops.py).

A sequential loop over whole-array statements runs as a host loop launching its body's
kernels; a loop of scalar element updates, a branch or a run-time index stays on the C
target, and ``explain`` says why. Small shapes and few iterations: the interpreter runs every
program instance.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from differential import TRITON, assert_same, assert_same_calls
from graphs import lowered

import astcompile
from astcompile.lower.host_program import host_program
from astcompile.targets.triton.triton_target import TRITON as TARGET
from tests.test_loop_parallel import rows as scaled_rows
from tests.test_loop_schedule import energy, halve_rows
from tests.test_loop_schedule import norms as row_norms

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

rng = np.random.default_rng(14)


def heat(u, c, steps):
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def descent(x, lr, n):
    for i in range(n):
        x = x - lr * (2 * x + 1)
    return x


def jacobi(u, tol):
    err = 1.0
    it = 0
    while err > tol:
        v = 0.5 * (u[2:] + u[:-2])
        err = np.abs(v - u[1:-1]).max()
        u[1:-1] = v
        it += 1
    return u, it


def nested(u, n, m):
    for a in range(n):
        for b in range(m):
            u[1:] += u[:-1] * 0.25
        u[0] = u.mean()
    return u


def around_the_loop(x, n):
    y = x * 2.0
    for t in range(n):
        y = y + x.sum() * t
    return y.mean(), y


def into_a_fresh_array(x, n):
    out = np.zeros_like(x)
    for t in range(n):
        out[1:] = out[1:] + x[:-1]
    return out


def rows_relax(a, n):
    for t in range(n):
        a[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    return a


def swap_buffers(a, b, n):
    for t in range(n):
        b[1:] = a[:-1] + 1.0
        a, b = b, a
    return a, b


def halving(x, tol):
    while x.max() > tol:
        x = x / 2
    return x


W = np.arange(6.0)


def weak_scalar(x, n):
    s = 1.0
    for t in range(n):
        x = x * s + t
        s = s * 0.5
    return x, s


def through_a_view_made_before(u, n):
    v = u[1:-1]
    for t in range(n):
        v[:] = v * 0.5 + 1.0
    return u


def global_read_in_the_body(u, n):
    for t in range(n):
        u = u + W
    return u


def counted_while(x):
    k = 0
    while k < x.shape[0]:
        x[1:] = x[1:] + x[:-1]
        k += 2
    return x, k


def stores_after_the_loop(x, n):
    for t in range(n):
        x[::2] = x[::2] * 1.5
    y = x.sum()
    x[0] = y
    return x, y


def two_loops(x, n):
    for t in range(n):
        x = x + 1.0
    z = x * 2
    for t in range(n + 1):
        z = z - x
    return z


def int_accumulator(x, n):
    acc = np.zeros(x.shape, dtype=np.int64)
    for t in range(n):
        acc = acc + x
    return acc


def argmax_sum(x, n):
    k = 0
    for t in range(n):
        x = np.where(x > 0, x - 1.0, x * 0.9)
        k = k + np.argmax(x)
    return x, k


def every_other(x, n):
    for t in range(n):
        if t % 2 == 0:
            x[1:] = x[1:] * 0.5
        else:
            x[0] = 2.0
    return x


def early_exit(x, n, tol):
    for t in range(n):
        x = x * 0.5
        if x.max() < tol:
            break
    return x


def picked_by_a_reduction(x, n):
    y = x
    for t in range(n):
        if x.sum() > 0:
            y = y * 2.0
        else:
            y = y - 1.0
        x = x - 0.5
    return y


def history(u, n):
    hist = np.zeros((n, u.shape[0]))
    for t in range(n):
        u = u * 0.5 + 1.0
        hist[t, :] = u
    return hist


def forced(u, a):
    for t in range(a.shape[0]):
        u = u + a[t] * 0.5
    return u


def backwards(u, a):
    for t in range(a.shape[0]):
        u = u - a[-1 - t]
    return u


def row_in_turn(x, n):
    for t in range(n):
        x[t % x.shape[0], :] = x[t % x.shape[0], :] * 2.0 + x.sum()
    return x


def views_made_before(u, n):
    v, w, r = u[1:], u.T, u[:, ::-1]  # read after the loop: they see its stores
    for t in range(n):
        u[:] = u * 0.5 + 1.0
    return v.sum(), w[0], r[:3] * 1.0


def values_made_before(u, n):
    s, c = u.sum(), u * 1.0  # computed before the loop's stores
    for t in range(n):
        u[1:] = u[1:] + u[:-1]
    return s, c, u.sum()


def carried_from_a_stored_argument(x, n):
    y = x  # y starts as x itself: the first y * 2.0 sees x[0] + 1.0
    for t in range(n):
        x[0] = x[0] + 1.0
        y = y * 2.0
    return x, y


HOST_LOOPS = [
    (heat, (np.linspace(0.0, 1.0, 9) ** 2, 0.1, 3)),
    (heat, (rng.standard_normal(7).astype(np.float32), np.float32(0.2), 2)),
    (heat, (np.ones(6), 0.1, 0)),
    (descent, (rng.standard_normal(5), 0.1, 4)),
    (descent, (rng.standard_normal(5).astype(np.float32), 0.1, 3)),
    (jacobi, (np.linspace(0.0, 1.0, 8) ** 2, 1e-3)),
    (energy, (rng.standard_normal(6), 3)),
    (nested, (rng.standard_normal(5), 2, 3)),
    (around_the_loop, (rng.standard_normal(4), 3)),
    (into_a_fresh_array, (rng.standard_normal(6), 3)),
    (rows_relax, (rng.standard_normal((5, 6)), 2)),
    (swap_buffers, (rng.standard_normal(5), np.zeros(5), 3)),
    (halving, (rng.standard_normal(6) * 8.0, 1.0)),
    (weak_scalar, (rng.standard_normal(5).astype(np.float32), 3)),
    (through_a_view_made_before, (rng.standard_normal(6), 2)),
    (global_read_in_the_body, (rng.standard_normal(6), 2)),
    (counted_while, (rng.standard_normal(7),)),
    (stores_after_the_loop, (rng.standard_normal(7), 2)),
    (two_loops, (rng.standard_normal(4), 2)),
    (int_accumulator, (np.arange(4), 3)),
    (argmax_sum, (rng.standard_normal(5), 3)),
    (every_other, (rng.standard_normal(5), 3)),
    (early_exit, (np.ones(5), 10, 0.1)),
    (early_exit, (np.ones(5), 2, 0.1)),
    (picked_by_a_reduction, (rng.standard_normal(5) + 0.5, 4)),
    (history, (rng.standard_normal(4), 3)),
    (forced, (np.ones(3), rng.standard_normal((4, 3)))),
    (backwards, (np.ones(3), rng.standard_normal((4, 3)))),
    (row_in_turn, (rng.standard_normal((2, 3)), 5)),
    (views_made_before, (rng.standard_normal((3, 4)), 2)),
    (values_made_before, (rng.standard_normal(5), 2)),
    (carried_from_a_stored_argument, (rng.standard_normal(3), 3)),
]


def _report(fn, args) -> str:
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    return str(astcompile.explain(astcompile.compile(fn, backend="triton"), *copies))


@pytest.mark.parametrize("fn, args", HOST_LOOPS, ids=[f.__name__ for f, _ in HOST_LOOPS])
def test_a_loop_over_array_statements_runs_as_a_host_loop(fn, args, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same(fn, *args, backend="triton")
    assert "on triton (host loops launching the body's kernels" in _report(fn, args)


def test_new_sizes_and_trip_counts_reuse_the_compiled_loop(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    calls = [(rng.standard_normal(n), 0.1, k) for n, k in [(6, 2), (9, 0), (5, 3)]]
    assert_same_calls(heat, calls, backend="triton")


def test_the_host_loop_launches_the_bodys_kernels(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(heat, backend="triton")
    compiled(np.ones(6), 0.1, 2)
    (run,) = [e.run for entries in compiled.regions[0].entries.values() for e in entries]
    assert "for t_" in run.py_source and "a host loop" in run.py_source
    assert "@triton.jit" in run.triton_source


def test_explain_says_what_the_host_reads_back(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    report = _report(jacobi, (np.linspace(0.0, 1.0, 8) ** 2, 1e-3))
    line = jacobi.__code__.co_firstlineno + 3
    assert f"one value read back from the device per test: the while test at line {line}" in (
        report
    )
    assert "read back" not in _report(heat, (np.ones(6), 0.1, 2))


def test_a_branch_on_a_device_value_is_read_back_and_said(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    report = _report(early_exit, (np.ones(5), 10, 0.1))
    line = early_exit.__code__.co_firstlineno + 3
    assert f"read back from the device per test: the break test at line {line}" in report
    assert "read back" not in _report(every_other, (np.ones(5), 3))  # t % 2 on the host


def test_a_row_at_a_run_time_index_is_a_view_the_host_makes(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same(row_sums, rng.standard_normal((4, 3)), backend="triton")
    compiled = astcompile.compile(history, backend="triton")
    compiled(np.ones(3), 2)
    (run,) = [e.run for entries in compiled.regions[0].entries.values() for e in entries]
    assert "[t_" in run.py_source and ", ...]" in run.py_source  # hist[t, :] as a view


def test_an_index_out_of_range_raises_after_the_stores_before_it(monkeypatch):
    def past_the_rows(x, out):
        for t in range(x.shape[0] + 1):
            out[:] = out + 1.0
            out = out + x[t]
        return out

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(past_the_rows, backend="triton")
    x, out, expected = rng.standard_normal((3, 2)), np.zeros(2), np.zeros(2)
    with pytest.raises(IndexError):
        past_the_rows(x, expected)
    with pytest.raises(IndexError):
        compiled(x, out)
    np.testing.assert_array_equal(out, expected)
    (run,) = [e.run for entries in compiled.regions[0].entries.values() for e in entries]
    assert run.target.startswith("triton")


def test_scalars_of_host_values_are_computed_on_the_host(monkeypatch):
    """A counter and a test on it (``while k < n``) or a bound (``range(n + 1)``) are NumPy
    scalar steps in the host loop: nothing is read back from the device."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    for fn, args in [(counted_while, (np.ones(7),)), (two_loops, (np.ones(4), 2))]:
        assert "read back" not in _report(fn, args)
        compiled = astcompile.compile(fn, backend="triton")
        compiled(*args)
        (run,) = [e.run for entries in compiled.regions[0].entries.values() for e in entries]
        assert "= _host(n" in run.py_source.split("(leaves):")[-1]


def prefix(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] + x[i]
    return x


def past_the_end(x, y):
    for i in range(y.shape[0]):
        y[i] = x[i + 1]  # in range only while x is longer than y
    return y


def wrapping_around(x, y):
    for i in range(x.shape[0]):
        y[i] = x[i - 1]  # x[-1] at i = 0
    return y


def windows(x):
    out = np.zeros(2)
    for i in range(x.shape[0] - 1):
        out = out + x[i : i + 2]
    return out


def row_sums(x):
    total = np.zeros_like(x[0])
    for i in range(x.shape[0]):
        total += x[i]
    return total


ON_C = [
    (prefix, (rng.standard_normal(6),), "a loop of scalar element updates: no GPU form"),
    (past_the_end, (rng.standard_normal(6), np.zeros(5)), "a loop of independent iterations"),
    (wrapping_around, (rng.standard_normal(5), np.zeros(5)), "a loop of independent iterations"),
    (windows, (rng.standard_normal(6),), "a loop region with a run-time index"),
]


@pytest.mark.parametrize("fn, args, why", ON_C, ids=[f.__name__ for f, _, _ in ON_C])
def test_loops_without_a_triton_form_run_on_c_and_explain_says_why(fn, args, why, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same(fn, *args, backend="triton")
    assert f"on c ({why}" in _report(fn, args)


def test_scalar_element_updates_name_the_transfer(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    report = _report(prefix, (rng.standard_normal(6),))
    assert "it runs on the CPU over host arrays (GPU regions around it copy" in report


def test_host_program_declines_a_scalar_element_loop():
    graph = astcompile.explain(astcompile.compile(prefix), np.ones(4)).graphs[0]
    assert host_program(graph, TARGET) is None
    graph = astcompile.explain(astcompile.compile(heat), np.ones(4), 0.1, 2).graphs[0]
    assert host_program(graph, TARGET) is not None


def test_host_loop_kernels_compile_for_sm80_and_sm90(tmp_path):
    """Every segment's kernels and store kernels, compiled ahead of time (no GPU needed)."""
    aot = pytest.importorskip("test_triton_aot")
    programs = {**dict(HOST_LOOPS), **dict(GRIDS)}
    codes = {}
    for fn in [heat, jacobi, swap_buffers, scaled_rows, neighbours, halve_rows, history, forced]:
        args = [a.copy() if isinstance(a, np.ndarray) else a for a in programs[fn]]
        graph = astcompile.explain(astcompile.compile(fn), *args).graphs[0]
        codes[fn.__name__] = lowered(graph, "triton").code
    aot.compiled_in_a_child(codes, tmp_path)


def checked(x, n):
    for t in range(n):
        x[1:] = x[1:] + 1.0
        assert x.sum() < 10.0, "too big"
    return x


def test_an_assert_in_the_body_raises_after_the_stores_before_it(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(checked, backend="triton")
    assert "on triton" in _report(checked, (np.zeros(3), 2))
    x, expected = np.zeros(3), np.zeros(3)
    with pytest.raises(AssertionError, match="too big"):
        checked(expected, 20)
    with pytest.raises(AssertionError, match="too big"):
        compiled(x, 20)
    np.testing.assert_array_equal(x, expected)


def neighbours(x, y):
    for i in range(1, x.shape[0] - 1):
        y[i] = 0.5 * (x[i - 1] + x[i + 1])
    return y


def centred_columns(x):
    out = np.zeros_like(x)
    for j in range(x.shape[1]):
        out[:, j] = x[:, j] - x[:, j].mean()
    return out


def every_second(x):
    out = np.zeros_like(x)
    for i in range(0, x.shape[0], 2):
        out[i] = x[i] + 1.0
    return out


def scaled_by_index(x):
    for i in range(x.shape[0]):
        x[i] = x[i] * i + 0.5
    return x


def zero_columns(x, k):
    for j in range(1, x.shape[1]):
        x[:, j] = k
    return x


GRIDS = [
    (zero_columns, (rng.standard_normal((3, 4)), 2.5)),
    (scaled_rows, (rng.standard_normal((4, 3)),)),
    (row_norms, (rng.standard_normal((4, 3)).astype(np.float32),)),
    (neighbours, (rng.standard_normal(6), np.zeros(6))),
    (neighbours, (rng.standard_normal(2), np.zeros(2))),
    (centred_columns, (rng.standard_normal((3, 5)),)),
    (halve_rows, (rng.standard_normal(5), 3)),
    (every_second, (rng.standard_normal(5),)),
    (every_second, (rng.standard_normal(6),)),
    (scaled_by_index, (rng.standard_normal(4),)),
]


@pytest.mark.parametrize("fn, args", GRIDS, ids=[f.__name__ for f, _ in GRIDS])
def test_an_independent_loop_runs_as_kernels_over_all_its_iterations(fn, args, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same(fn, *args, backend="triton")
    source, first = inspect.getsourcelines(fn)
    line = first + max(k for k, text in enumerate(source) if text.strip().startswith("for "))
    assert f"independent loops as kernels over all their iterations (line {line})" in _report(
        fn, args
    )


def copy_forward(out, x):
    for i in range(x.shape[0]):
        out[i] = x[i]
    return out


def test_overlapping_arguments_keep_the_loops_order(monkeypatch):
    """``copy_forward(a[1:], a[:-1])`` copies a[0] everywhere, one iteration after the other:
    the grid would shift instead, so such a call runs as the graph."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(copy_forward, backend="triton")
    compiled(np.zeros(4), np.ones(4))
    a, expected = np.arange(6.0), np.arange(6.0)
    copy_forward(expected[1:], expected[:-1])
    compiled(a[1:], a[:-1])
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("fn, args", [(heat, (0.1, 2)), (scaled_by_index, ())])
def test_a_read_only_argument_raises_numpys_error(fn, args, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    u = np.ones(6)
    u.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        fn(u, *args)
    with pytest.raises(ValueError, match="read-only"):
        astcompile.compile(fn, backend="triton")(u, *args)


def relax_a_copy(x, w, n):
    u = x.copy()
    for t in range(n):
        u[1:] = u[1:] * w[1:] + u[:-1]
    return u


def test_stores_into_a_copy_leave_the_arguments_alone(monkeypatch):
    """The carried array starts as a copy: no argument is written, so a read-only one is
    fine and nothing is copied back from a GPU."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    x, w = rng.standard_normal(5), rng.standard_normal(5)
    x.setflags(write=False)
    assert_same(relax_a_copy, x, w, 3, backend="triton")
    compiled = astcompile.compile(relax_a_copy, backend="triton")
    compiled(x, w, 3)
    (run,) = [e.run for entries in compiled.regions[0].entries.values() for e in entries]
    assert "_unsafe(" not in run.py_source
    swap = astcompile.compile(swap_buffers, backend="triton")
    swap(np.ones(4), np.zeros(4), 2)
    (run,) = [e.run for entries in swap.regions[0].entries.values() for e in entries]
    assert "_unsafe(leaves, (0, 1), False)" in run.py_source


SIZED = [
    (heat, lambda n: (rng.standard_normal(n), 0.1, 2)),
    (jacobi, lambda n: (np.linspace(0.0, 1.0, n) ** 2, 1e-3)),
    (neighbours, lambda n: (rng.standard_normal(n), np.zeros(n))),
    (forced, lambda n: (np.ones(3), rng.standard_normal((n, 3)))),
    (early_exit, lambda n: (np.ones(n), 10, 0.1)),
]


@pytest.mark.parametrize("fn, make", SIZED, ids=[f.__name__ for f, _ in SIZED])
def test_empty_and_one_element_sizes_match_numpy(fn, make, monkeypatch):
    """Sizes the trace did not see: 0 and 1 fail its size facts (the graph runs them, or
    NumPy's error is raised), 2 leaves u[1:-1] empty."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert_same_calls(fn, [make(n) for n in (5, 0, 1, 2, 3)], backend="triton")


def divided_by_a_counter(x, n):
    for t in range(n):
        x = x + 1.0 / (2 - t)  # Python raises ZeroDivisionError at t = 2, with no warning
    return x


def test_a_host_scalar_raises_pythons_error_without_a_numpy_warning(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(divided_by_a_counter, backend="triton")
    compiled(np.ones(3), 2)
    assert "on triton" in _report(divided_by_a_counter, (np.ones(3), 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ZeroDivisionError):
            compiled(np.ones(3), 4)
