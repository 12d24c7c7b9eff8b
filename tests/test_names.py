"""Names a ``match`` statement binds (frontend/local_names.py, liveness.py, regions.py): a capture
pattern is a local the case body reads, so regions inside a case take it as a parameter. The
group an ``except*`` handler names too."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import libcst as cst
import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls
from module_helpers import load_module

from astcompile.frontend.local_names import function_locals, name_sets


def apply(x, op):
    match op:
        case ("scale", k):
            return x * k
        case ("shift", k) if k > 0:
            return x + k
        case ("clip", lo, hi):
            return np.clip(x, lo, hi)
        case _:
            return x


@dataclass
class Affine:
    a: float
    b: float


def transform(x, spec):
    match spec:
        case Affine(a=scale, b=offset):
            y = x * scale + offset
        case {"kind": "pow", "p": p, **rest}:
            y = x**p + len(rest)
        case [first, *others]:
            y = x * first - sum(others)
        case other:
            y = x + other
    return y * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_capture_patterns_bind_what_the_case_body_reads(backend):
    x = np.linspace(-2.0, 2.0, 9)
    calls = [(x, ("scale", 2.0)), (x, ("shift", 1.5)), (x, ("shift", -1.0)), (x, ("clip", -1, 1))]
    assert_same_calls(apply, [*calls, (x, "none"), (x, ("scale", 3))], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_class_mapping_star_and_bare_captures(backend):
    x = np.arange(5.0)
    calls = [
        (x, Affine(2.0, 1.0)),
        (x, {"kind": "pow", "p": 2, "extra": 0}),
        (x, [3.0, 1.0, 2.0]),
        (x, 0.5),
    ]
    assert_same_calls(transform, calls, backend=backend)


def test_captures_are_writes_and_keyword_names_are_not_reads():
    module = cst.parse_module(
        "def f(s):\n"
        "    match s:\n"
        "        case P(x=px, y=[a, *rest]) | {'k': a, **more} if a > t:\n"
        "            pass\n"
    )
    fdef = module.body[0]
    sets = name_sets(fdef.body)
    assert {"px", "a", "rest", "more"} <= set(sets.writes)
    assert {"px", "a", "rest", "more"} <= function_locals(fdef)
    assert "x" not in sets.reads and "y" not in sets.reads
    assert {"P", "t", "s"} <= set(sets.reads)


#: ``except*`` is Python 3.11 syntax: the test module itself must import on 3.10.
SPLIT_ERRORS = """
def split_errors(x, errors):
    try:
        raise ExceptionGroup("several", errors)
    except* ValueError as values:
        y = x * len(values.exceptions)
    except* TypeError as types:
        y = x - len(types.exceptions)
    return y + 1.0
"""


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11 syntax")
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_except_star_group_is_a_local(backend, tmp_path):
    """``except* E as group`` bound a name the analysis did not count as a local: the region
    of its handler read ``group`` as a global (NameError where plain code returns)."""
    split_errors = load_module(tmp_path, "except_star_sample", SPLIT_ERRORS).split_errors
    x = np.arange(4.0)
    calls = [(x, [ValueError("a"), ValueError("b")]), (x, [TypeError("c")])]
    assert_same_calls(split_errors, calls, backend=backend)
    fdef = cst.parse_module("def f():\n    try: pass\n    except* E as g: pass\n").body[0]
    assert "g" in function_locals(fdef)
