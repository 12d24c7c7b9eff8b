"""Names a ``match`` statement binds (frontend/local_names.py, liveness.py, regions.py): a capture
pattern is a local the case body reads, so regions inside a case take it as a parameter."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import numpy as np
import pytest
from differential import BACKENDS, assert_same_calls

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
