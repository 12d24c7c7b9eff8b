"""A ``for`` whose body rebinds its own variable (frontend/loop_plan.py): the variable is not
carried from one step to the next (each step binds it anew), and a loop whose rebound variable
is read after it stays in Python. Before, both generated a body with the name twice among its
parameters, and the first call raised SyntaxError."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls

import astcompile


def digit_sums(first, last):
    total = 0
    for n in range(first, last):
        while n > 0:
            total += n % 10
            n //= 10
    return total


def halved_entries(x):
    s = 0.0
    for v in x:
        if v < 0:
            v = -v
        s += v
    return s


def rebound_then_read(x, k):
    s = 0.0
    for i in range(k):
        s += x[i]
        i += 10
    return s, i


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_target_rebound_in_the_body_is_bound_anew_each_step(backend):
    assert_same_calls(digit_sums, [(1, 200), (5, 5), (10, 11)], backend=backend)
    assert_same_calls(halved_entries, [(np.array([1.0, -2.0, 3.0]),), (np.zeros(0),)], backend)
    compiled = astcompile.compile(digit_sums, backend=backend)
    assert compiled(1, 200) == digit_sums(1, 200)
    assert compiled.python_loops == set()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rebound_target_read_after_the_loop_keeps_its_last_value(backend):
    calls = [(np.arange(5.0), 4), (np.arange(5.0), 1)]
    assert_same_calls(rebound_then_read, calls, backend=backend)
