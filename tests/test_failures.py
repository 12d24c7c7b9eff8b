"""Failures are remembered (jit/failures.py, jit/remembered.py): a region that cannot compile
for a class of arguments is traced once for it, says so once, and runs the user's statements
from then on, here and in the next process."""

from __future__ import annotations

import enum
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from differential import assert_same_value

import astcompile
from astcompile.jit.failures import Failures, failure_class
from astcompile.trace import tracer
from bench.programs.list_matmul import list_matmul
from bench.programs.list_matmul import setup as list_matmul_setup


@pytest.fixture
def traces(monkeypatch):
    """How many times the tracer ran, by the name of the region body it traced."""
    counted: dict[str, int] = {}
    real = tracer.trace

    def counting(fn, *args, **kwargs):
        counted[fn.__name__] = counted.get(fn.__name__, 0) + 1
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(tracer, "trace", counting)
    return counted


# The way people write it: Python lists filled in loops (ints first, floats after).
def fill(out, n):
    for i in range(n):
        out[i] = i * 2.0
    return out


def update(dg, x, n):
    for i in range(n):
        dg[i] = dg[i] + x[i] * 2.0
    return dg


def squares_reported(values, acc):
    for k, v in enumerate(values):
        print(k)  # a break: the loop runs in Python and calls the region below each time
        acc[k] = acc[k] + v * v
    return acc


def _calls(fn, make, times):
    """``fn`` compiled and called ``times`` times on fresh inputs, each result against the
    plain function's; the trace count after each call."""
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(times):
        expected, got = fn(*make()), compiled(*make())
        assert_same_value(got, expected)
        yield compiled


def _total(traces):
    return sum(traces.values())


@pytest.mark.parametrize(
    "fn, make",
    [
        (fill, lambda: ([0] * 60, 60)),
        (update, lambda: ([0] * 40, [0.5 * i for i in range(40)], 40)),
        (squares_reported, lambda: ([1.5, 2.0, 3.0, 0.25] * 10, [0] * 40)),
    ],
    ids=["fill", "update", "region-in-a-python-loop"],
)
def test_a_region_writing_into_a_given_list_is_traced_once_per_class(fn, make, traces, capsys):
    counts = [_total(traces) for _ in _calls(fn, make, 4)]
    # one trace of the loop region, one of the statement left in its Python loop; never one
    # per iteration (the list's guard key changes at every iteration: ints become floats)
    assert counts[-1] <= 2, traces
    assert counts[1] == counts[-1]  # nothing traced after the second call


def test_a_list_of_lists_matrix_product_settles_in_a_few_calls(traces):
    a, b = list_matmul_setup(small=True)
    counts = [_total(traces) for _ in _calls(list_matmul, lambda: (a, b), 5)]
    assert counts[-1] <= 6, traces
    assert counts[2] == counts[-1]


def test_the_log_says_it_once(caplog):
    caplog.set_level(logging.INFO, logger="astcompile.graph_breaks")
    for _ in _calls(fill, lambda: ([0] * 30, 30), 4):
        pass
    said = [r.getMessage() for r in caplog.records if "GB012" in r.getMessage()]
    assert len(said) == 1, said


def test_a_tracer_error_the_statements_do_not_raise_is_remembered(monkeypatch):
    """A gap in the tracer (here a planted one) fails again for the class: traced once."""
    tried = []

    def gap(fn, *args, **kwargs):
        tried.append(fn.__name__)
        raise RuntimeError("a gap in the tracer")

    monkeypatch.setattr(tracer, "trace", gap)

    def scale(xs):
        out = []
        for x in xs:
            print(end="")  # the loop stays in Python
            out.append(x * 3)
        return out

    compiled = astcompile.compile(scale, backend="c")
    for _ in range(3):
        assert compiled(list(range(20))) == scale(list(range(20)))
    (region,) = compiled.regions
    assert len(region.failures.plain) == 2  # ``out`` empty, then a list of numbers
    assert len(tried) == 2  # once for each, not once per iteration


def test_a_user_error_is_not_remembered_for_the_class():
    def pick(x, i):
        return x[i] * 2.0

    compiled = astcompile.compile(pick, backend="c")
    with pytest.raises(IndexError):
        compiled(np.arange(3.0), 7)
    assert all(not r.failures.plain for r in compiled.regions)
    np.testing.assert_array_equal(compiled(np.ones((2, 2)), 1), pick(np.ones((2, 2)), 1))


def test_suspects_count_only_when_the_statements_run():
    failures = Failures()
    failures.suspect(("k",), ([1.0],), "tracer gap")
    failures.acquit(("k",))
    assert failures.confirm(("k",)) is None and not failures.plain
    failures.suspect(("k",), ([1.0],), "tracer gap")
    assert failures.confirm(("k",)) == (failure_class(([1.0],)), "tracer gap")
    assert failures.runs_plain(([2, 3, 4],)) and not failures.runs_plain((np.ones(3),))


def test_failure_classes():
    assert failure_class(([0] * 5,)) == failure_class(([0.5] * 9,))  # a list of numbers
    assert failure_class(([[0.0]],)) != failure_class(([np.ones(2)],))
    assert failure_class((np.ones(3),)) == failure_class((np.zeros(7),))
    assert failure_class((np.ones(3),)) != failure_class((np.ones((3, 3)),))
    assert failure_class((np.ones(1),)) != failure_class((np.ones(3),))  # broadcasting
    assert failure_class((True,)) != failure_class((False,))  # steers the trace
    assert failure_class((3,)) == failure_class((2**40,))
    assert failure_class((3,), sized=True) != failure_class((2**40,), sized=True)
    assert failure_class(([0] * 3,), sized=True) != failure_class(([0] * 3000,), sized=True)


def test_a_new_process_neither_traces_nor_rebuilds_what_failed(tmp_path):
    module = tmp_path / "listy.py"
    module.write_text(
        textwrap.dedent("""
        def fill(out, n):
            for i in range(n):
                out[i] = i * 2.0
            return out
    """)
    )
    code = textwrap.dedent(f"""
        import logging, sys
        sys.path.insert(0, {str(tmp_path)!r})
        import astcompile, listy
        astcompile.set_logs("graph_breaks")
        f = astcompile.compile(listy.fill)
        for _ in range(3):
            assert f([0] * 50, 50) == listy.fill([0] * 50, 50)
        print(sorted(astcompile.compile_times()))
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env["ASTCOMPILE_CACHE_DIR"] = str(tmp_path / "cache")
    env["ASTCOMPILE_COMPILE_BUDGET"] = "inf"  # the cold process traces however busy the machine
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        )
        for _ in range(2)
    ]
    cold, warm = runs
    assert "trace" in cold.stdout
    assert "trace" not in warm.stdout and "analysis" not in warm.stdout
    assert warm.stderr.count("GB012") == 1  # the break is still said, once


def bigrams(words):
    counts = {}
    for word in words:
        w = word.lower()
        for i in range(len(w) - 1):  # breaks: writes into a dict, once per word
            pair = w[i : i + 2]
            counts[pair] = counts.get(pair, 0) + 1
    return sorted(counts.items())


def test_a_loop_over_words_stops_tracing_after_two_strings(traces, recwarn):
    """Strings are classed by value, so a region called once per word and breaking on each
    was traced once per word up to cache_size_limit, then warned that it hit the limit
    (bench bigram_counts: 8 traces, a RuntimeWarning). Two strings that break in otherwise
    equal arguments stand for them all."""
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"] * 3
    for _ in _calls(bigrams, lambda: (list(words),), 3):
        pass
    assert _total(traces) <= 10, traces  # 22 when each word was a class of its own
    assert not [w for w in recwarn if "cache_size_limit" in str(w.message)]


def magnitudes(x):
    out = []
    for v in x:
        out.append(abs(v))  # breaks: appends to a list, for each dtype of v
    return out


def test_a_loop_over_arrays_of_many_dtypes_stops_tracing_after_two(traces, recwarn):
    """A NumPy scalar is classed by its type, so a region breaking on each item of arrays of
    six dtypes made a failing kind for each type and list state (9 traces), and warned it hit
    cache_size_limit; two NumPy scalar types that break stand for them all, as strings do."""
    dtypes = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.float32]
    compiled = astcompile.compile(magnitudes, backend="c")
    for dtype in dtypes:
        x = np.array([-3, 0, 5]).astype(dtype)
        assert_same_value(compiled(x.copy()), magnitudes(x.copy()))
    assert _total(traces) <= 5, traces  # 9 and the warning when each type was a class
    assert not [w for w in recwarn if "cache_size_limit" in str(w.message)]


def test_strings_fail_by_value_until_two_of_them_have():
    failures = Failures()
    failures.remember(failure_class(("mode_a", np.ones(3))), "break")
    assert not failures.runs_plain(("mode_b", np.ones(3)))  # a string steers the trace
    failures.remember(failure_class(("mode_b", np.ones(3))), "break")
    assert failures.runs_plain(("mode_c", np.ones(5)))
    assert not failures.runs_plain(("mode_c", np.ones((2, 2))))  # another class


def histogram_counts(x, lo, width, nb):
    counts = np.zeros(nb, dtype=np.int64)
    for i in range(len(x)):
        k = int((x[i] - lo) / width)
        if 0 <= k < nb:
            counts[k] += 1
    return counts


def test_an_argument_the_tracer_cannot_take_keeps_the_loops_native_for_arrays():
    """A list of NumPy floats (``list(arr)``) is an argument kind the tracer refuses: that
    class runs the statements, and a later array call still runs the loop compiled. Sending
    the loops to Python for the function made every array call after it loop in Python."""
    compiled = astcompile.compile(histogram_counts)
    x = np.random.default_rng(3).random(500)
    assert_same_value(
        compiled(list(x[:80]), 0.0, 0.1, 10), histogram_counts(list(x[:80]), 0.0, 0.1, 10)
    )
    assert_same_value(compiled(x, 0.0, 0.1, 10), histogram_counts(x, 0.0, 0.1, 10))
    before = sum(r.stats.compiled_calls for r in compiled.regions)
    assert_same_value(compiled(x, 0.0, 0.1, 10), histogram_counts(x, 0.0, 0.1, 10))
    assert compiled.python_loops == set()
    assert sum(r.stats.compiled_calls for r in compiled.regions) == before + 1


class Doubling(float):
    """A float whose products are doubled: its own methods must run, not a float's."""

    def __mul__(self, other):
        return 2 * float(self) * other

    __rmul__ = __mul__


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


def weighted_sum(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * w
    return s


@pytest.mark.parametrize("weight", [Doubling(1.5), Level.HIGH])
def test_a_number_of_a_subclass_runs_as_its_class_does(weight):
    """An int or float of a subclass (an IntEnum, a float with its own ``__mul__``) is keyed by
    its class, not as a number: the trace refuses it as it refuses an ndarray subclass. Traced
    as a number, its entry expected one leaf more than the call's guards gave it (ValueError
    from the second call on) and ignored its methods."""
    compiled = astcompile.compile(weighted_sum)
    x = np.arange(4.0)
    for _ in range(3):
        assert_same_value(compiled(weight, x), weighted_sum(weight, x))
    assert_same_value(compiled(2.0, x), weighted_sum(2.0, x))
