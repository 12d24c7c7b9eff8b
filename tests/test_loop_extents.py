"""A loop whose trace fails runs in Python, and only the loops around the failing line do
(frontend/loop_extents.py); the regions inside still compile."""

from __future__ import annotations

import numpy as np

import astcompile


def test_a_loop_that_cannot_be_traced_runs_in_python_with_regions_inside():
    def to_python_float(x, n):
        s = 0.0
        for i in range(n):
            s = s + np.sum(x * i).item()
        return x + s

    compiled = astcompile.compile(to_python_float, backend="eager")
    x = np.arange(3.0)
    for _ in range(3):
        np.testing.assert_array_equal(compiled(x, 4), to_python_float(x, 4))
    assert compiled.python_loops  # the loop went back to Python after its trace broke


def native_then_untraceable(x, n):
    for i in range(n):  # traces: stays a native loop
        x = x * 0.5 + i
    s = 0.0
    for i in range(n):  # .item() cannot trace: this loop alone goes back to Python
        s = s + np.sum(x * i).item()
    return x + s


def test_a_trace_failure_sends_only_the_loops_around_it_to_python():
    """The failing line is in the second loop: the first stays native, in a region of its own
    (before, every loop of the region went to Python)."""
    compiled = astcompile.compile(native_then_untraceable, backend="c")
    x = np.arange(3.0)
    for _ in range(3):
        np.testing.assert_array_equal(compiled(x, 4), native_then_untraceable(x, 4))
    first, second = (native_then_untraceable.__code__.co_firstlineno + offset for offset in (1, 4))
    assert compiled.python_loops == {second}
    loop_region = next(r for r in reversed(compiled.regions) if r.spec.first_line == first)
    assert len(loop_region.spec.structured) == 1
    assert loop_region.stats.compiled_calls > 0 and loop_region.stats.eager_calls == 0
