"""Text made of traced values (frontend/exprs.py's ``formats``): an f-string, ``"%s" % x`` or
``"{}".format(x)`` in a compiled loop was the tracer's own text, fixed at trace time (every
``len(f"{a[i]}")`` was 21); such a statement runs as Python."""

from __future__ import annotations

import libcst as cst
import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls

import astcompile
from astcompile.frontend.exprs import scan


def formatted_lengths(a):
    t = 0
    for i in range(a.shape[0]):
        t += len(f"{a[i]}") + len(f"{a[i]!r}") + len("%s" % a[i])  # noqa: UP031
        t += len("{}".format(a[i]))  # noqa: UP032
    return t


def checked_sum(a, n):
    t = 0.0
    for i in range(a.shape[0]):
        assert n < 3, f"n is {n}"
        t += a[i]
    return t


@pytest.mark.parametrize("backend", BACKENDS)
def test_text_of_traced_values_is_pythons(backend):
    a = np.linspace(0.0, 1.0, 5)
    assert_same_calls(formatted_lengths, [(a,), (a[:2],), (a * 3,)], backend=backend)


def test_an_assert_message_is_formatted_only_where_it_fails():
    """The message runs in Python where the test fails: it takes nothing from the loop."""
    assert scan(cst.parse_statement('assert n < 3, f"n is {n}"\n')).formats == []
    a = np.linspace(0.0, 1.0, 5)
    assert astcompile.explain(checked_sum, a, 2).graph_break_count == 0
    assert_same_calls(checked_sum, [(a, 2), (a, 4)], backend="c")
