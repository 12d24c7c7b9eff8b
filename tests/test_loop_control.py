"""while loops, break/continue, enumerate/zip/ndindex, scalar math and assert in compiled loops.

Every program runs as plain Python and through astcompile (eager and C); results, their types
and argument mutations must agree, and the loop must compile as one region without breaks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import BACKENDS, assert_same
from programs import asserts

import astcompile


def newton_sqrt(a, tol):
    x = a
    err = 1.0
    it = 0
    while err > tol and it < 50:
        nx = 0.5 * (x + a / x)
        err = abs(nx - x)
        x = nx
        it += 1
    return x, it


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_negative(x):
    idx = -1
    for i in range(x.shape[0]):
        if x[i] < 0:
            idx = i
            break
    return idx


def skip_negatives(x):
    s = 0.0
    count = 0
    for i, v in enumerate(x):
        if v < 0:
            continue
        s = s + v * i
        count += 1
    return s, count


def while_true_break(x, limit):
    total = 0.0
    k = 0
    while True:
        if k >= x.shape[0] or total > limit:
            break
        total = total + x[k]
        k += 1
    return total, k


def nested_break_continue(x):
    hits = 0
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if x[i, j] == 0:
                continue
            if x[i, j] < 0:
                break
            hits += 1
    return hits


def zip_dot(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s += a * b
    return s


def enumerate_start_range(n):
    s = 0
    for k, v in enumerate(range(2, n, 3), 1):
        s += k * v
    return s


def ndindex_scale(x):
    out = np.zeros_like(x)
    for i, j in np.ndindex(x.shape[0], x.shape[1]):
        out[i, j] = x[i, j] * (i + 2 * j)
    return out


def ndindex_tuple(x):
    total = 0.0
    for idx in np.ndindex(x.shape):
        total = total + x[idx] * idx[0]
    return total


def rows(p):
    length = 0.0
    for i in range(1, p.shape[0]):
        dx, dy = p[i] - p[i - 1]
        length += math.hypot(float(dx), float(dy))
    return length


def row_iteration(m):
    out = np.zeros(m.shape[1])
    for row in m:
        out += row * 2
    return out


def scalar_math(x):
    s = 0.0
    for i in range(x.shape[0]):
        v = float(x[i])
        s += math.sqrt(abs(v)) + math.floor(v) + math.ceil(v) + round(v) + int(v)
        s += max(v, 0.5) + min(v, -0.5, 2.0) + math.exp(-abs(v)) + math.atan2(v, 1.0)
        s += math.log(abs(v) + 1.0) * math.pi + math.fabs(v) + math.cos(v) * math.e
        s += math.pow(abs(v), 1.5) + float(math.isnan(v)) + float(math.isinf(v))
        s += math.erf(v) - 2.0 * math.erfc(v)  # libm's, as CPython calls them
    return s


def clamped_windows(x, r):
    """``min``/``max`` of a loop value and a size (``x.shape[0]``), as window loops clamp."""
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(max(i - r, 0), min(i + r + 1, n)):
            s += x[j] * (i - j)
    return s


def python_floor_semantics(n, d):
    a = 0
    b = 0.0
    for i in range(-n, n):
        a += (i // d) * 7 + i % d
        b += (i * 0.5) // d + (i * 0.5) % d
    return a, b


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def checked(x):
    s = 0.0
    for i in range(x.shape[0]):
        assert x[i] >= 0, "negative value"
        s += math.sqrt(x[i])
    return s


def sqrt_of_loop_value(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sqrt(x[i] - 1.0)
    return s


def divide_by_loop_value(n):
    s = 0.0
    for i in range(n):
        s += 1.0 / (i - 2)
    return s


def conditional_expressions(x):
    """``a if c else b`` on loop values: an IF node; only the chosen side runs (x[i + 1] at
    the last i would raise)."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        a = x[i]
        start = a if a > 1.0 else 1.0
        out[i] = start + (x[i + 1] if i + 1 < x.shape[0] else 0.0)
    return out


def crc16(data, poly=0x8408):
    """Bit operations on Python ints in a loop over a uint8 array (npbench's crc16)."""
    crc = 0xFFFF
    for b in data:
        cur_byte = 0xFF & b
        for _ in range(0, 8):
            if (crc & 0x0001) ^ (cur_byte & 0x0001):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            cur_byte >>= 1
    crc = ~crc & 0xFFFF
    crc = (crc << 8) | ((crc >> 8) & 0xFF)
    return crc & 0xFFFF


def shift_left(n):
    h = 1
    for i in range(n):
        h = h << 3
    return h


def running_peak(prices):
    """``max`` of two NumPy scalars returns a NumPy scalar: the carried value keeps its type."""
    peak = prices[0]
    worst = 0.0
    for p in prices:
        peak = max(peak, p)
        drawdown = (peak - p) / peak
        if drawdown > worst:
            worst = drawdown
    return peak, worst


PROGRAMS = [
    (newton_sqrt, lambda: (2.0, 1e-12)),
    (running_peak, lambda: (np.random.default_rng(2).random(40) + 1.0,)),
    (crc16, lambda: (np.random.default_rng(0).integers(0, 256, 300, dtype=np.uint8),)),
    (shift_left, lambda: (20,)),
    (conditional_expressions, lambda: (np.array([0.5, 2.0, 3.5, -1.0]),)),
    (collatz_steps, lambda: (27,)),
    (first_negative, lambda: (np.array([1.0, 2.0, -3.0, 4.0, -1.0]),)),
    (first_negative, lambda: (np.array([1.0, 2.0]),)),
    (skip_negatives, lambda: (np.array([1.0, -2.0, 3.0, 4.0, -0.5]),)),
    (while_true_break, lambda: (np.arange(10.0), 12.0)),
    (while_true_break, lambda: (np.arange(3.0), 100.0)),
    (
        nested_break_continue,
        lambda: (np.array([[1.0, 0.0, 2.0, -1.0, 5.0], [0.0, 3.0, 4.0, 1.0, 1.0]]),),
    ),
    (zip_dot, lambda: (np.arange(4.0), np.arange(6.0))),
    (enumerate_start_range, lambda: (20,)),
    (ndindex_scale, lambda: (np.arange(6.0).reshape(2, 3),)),
    (ndindex_tuple, lambda: (np.arange(12.0).reshape(3, 4),)),
    (rows, lambda: (np.array([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0], [6.0, 9.0]]),)),
    (row_iteration, lambda: (np.arange(12.0).reshape(4, 3),)),
    (scalar_math, lambda: (np.array([1.5, 2.5, -3.5, 4.25, 0.5, -2.5]),)),
    (clamped_windows, lambda: (np.arange(7.0), 2)),
    (python_floor_semantics, lambda: (7, 3)),
    (python_floor_semantics, lambda: (5, -2)),
    (fibonacci, lambda: (40,)),
    (checked, lambda: (np.array([1.0, 4.0, 9.0]),)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_loop_control_matches_python(fn, make_args, backend):
    assert_same(fn, *make_args(), backend=backend)


@pytest.mark.parametrize("fn, make_args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_loops_compile_as_one_region_without_breaks(fn, make_args):
    output = astcompile.explain(fn, *make_args())
    assert output.graph_break_count == 0, output
    assert [r.compiled_calls for r in output.regions] == [1]


ERRORS = [
    (checked, (np.array([1.0, -4.0, 9.0]),), AssertionError, "negative value"),
    (sqrt_of_loop_value, (np.array([2.0, 0.5]),), ValueError, "math domain error"),
    (divide_by_loop_value, (5,), ZeroDivisionError, "float division by zero"),
    (python_floor_semantics, (3, 0), ZeroDivisionError, "integer division or modulo by zero"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, args, error, message", ERRORS, ids=[e[0].__name__ for e in ERRORS])
def test_python_errors_in_loops_are_raised_like_python(fn, args, error, message, backend):
    with pytest.raises(error, match=message):
        fn(*args)
    compiled = astcompile.compile(fn, backend=backend)
    with pytest.raises(error, match=message):
        compiled(*args)
    assert not compiled.python_loops  # raised by compiled code, not by a Python fallback


@pytest.mark.parametrize("backend", BACKENDS)
def test_while_loop_is_not_unrolled(backend):
    output = astcompile.explain(astcompile.compile(newton_sqrt, backend=backend), 2.0, 1e-12)
    graph = output.graphs[0]
    assert [n.op.name for n in graph.nodes()].count("LOOP") == 1
    assert "while" in str(graph)


@pytest.mark.parametrize("backend", BACKENDS)
def test_break_writes_stop_at_the_break(backend):
    def fill_until_negative(x, out):
        for i in range(x.shape[0]):
            if x[i] < 0:
                break
            out[i] = x[i] * 2
        return out

    assert_same(fill_until_negative, np.array([1.0, 2.0, -1.0, 3.0]), np.zeros(4), backend=backend)


def test_mixed_types_in_max_fall_back_to_python():
    def mixed(x):
        m = 0
        for i in range(x.shape[0]):
            m = max(m, float(x[i]))
        return m

    compiled = astcompile.compile(mixed, backend="eager")
    for x in (np.array([-1.0, -2.0]), np.array([1.5, -2.0])):
        got, expected = compiled(x), mixed(x)
        assert got == expected and type(got) is type(expected)


def printed_sum(x, n):
    s = 0.0
    for i in range(n):
        s = s + x[i]
        print(s)
    return s


def test_explain_says_why_a_loop_runs_in_python(capsys):
    output = astcompile.explain(printed_sum, np.arange(5.0), 4)
    line = printed_sum.__code__.co_firstlineno + 4
    expected = f"loop over 4 iterations runs in Python because of line {line}"
    assert any(expected in note for note in output.python_loops), output.python_loops
    assert expected in str(output)


def test_check_says_why_a_loop_runs_in_python(tmp_path):
    from astcompile.cli.scan import check_file

    path = tmp_path / "mod.py"
    path.write_text(
        "import astcompile\n\n@astcompile.compile\ndef f(x, n):\n    s = 0.0\n"
        "    for i in range(n):\n        s = s + x[i]\n        print(s)\n    return s\n"
    )
    report = check_file(str(path))
    notes = [n for fn in report.functions for n in fn.loop_notes]
    assert notes == [
        (
            f"{path}:6:5: note: loop at line 6 runs in Python because of line 8: "
            "GB012 print() has side effects"
        )
    ]


def test_explain_counts_the_ops_inside_loop_bodies():
    from astcompile.ir.ops import Kind

    output = astcompile.explain(collatz_steps, 27)
    (graph,) = output.graphs
    top_level = sum(1 for n in graph.nodes() if n.kind is not Kind.LEAF)
    assert output.ops_per_graph == [graph.op_count()]
    assert graph.op_count() > top_level


@pytest.mark.parametrize("backend", BACKENDS)
def test_int_shift_past_int64_grows_as_in_python(backend):
    """Python's int grows past int64: the compiled loop's check hands the call to Python."""
    assert astcompile.compile(shift_left, backend=backend)(30) == shift_left(30) == 8**30


def _raised(fn, args):
    with pytest.raises(AssertionError) as info:
        fn(*args)
    return info.value.args


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, args",
    [
        (asserts.bounded_sum, (np.arange(10.0), 20.0)),
        (asserts.bounded_tuple, (np.arange(12.0).reshape(4, 3), 7)),
        (asserts.sqrt_in_place, (np.array([4.0, 9.0, -1.0, 16.0]),)),
        (asserts.coded, (np.array([1.0, 0.0]),)),
    ],
    ids=["f-string", "tuple", "after-stores", "int"],
)
def test_assert_messages_are_pythons_own(fn, args, backend):
    """The exception's args are exactly Python's (the message text from the loop's values, a
    tuple kept a tuple), and arguments are left as Python leaves them."""
    plain_args = [a.copy() for a in args if isinstance(a, np.ndarray)]
    compiled_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = _raised(fn, [*plain_args, *args[len(plain_args) :]])
    compiled = astcompile.compile(fn, backend=backend)
    for _ in range(2):
        call_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        assert _raised(compiled, call_args) == expected
    _raised(compiled, compiled_args)
    for got, want in zip(compiled_args, plain_args):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_assert_with_a_computed_message_still_compiles_its_loop(backend):
    compiled = astcompile.compile(asserts.bounded_sum, backend=backend)
    output = astcompile.explain(compiled, np.arange(10.0), 100.0)
    assert output.graph_break_count == 0, output
    assert compiled(np.arange(10.0), 100.0) == asserts.bounded_sum(np.arange(10.0), 100.0)
