"""A slice of the semantic suite on the Triton target, in every default run.

The whole suite runs on Triton with ``ASTCOMPILE_TEST_BACKENDS=eager,c,triton`` (minutes in
the interpreter); these programs, the first of each semantic module's table, run by default
so a change that breaks the Triton target (or its fallbacks: views, NumPy steps, loop regions
on C, stores into views) shows in every CI run. Each is compared with NumPy through
``differential.assert_same``: value, dtype, shape, identity and writes into arguments.
"""

from __future__ import annotations

import importlib

import pytest
from differential import TRITON, assert_same

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

#: (semantic test module, its table of ``(fn, make_args)`` or ``(fn, args)``, how many of its
#: first programs).
TABLES = [
    ("test_masks", "PROGRAMS", 3),
    ("test_array_literals", "PROGRAMS", 2),
    ("test_dynamic_slices", "PROGRAMS", 2),
    ("test_loops", "PROGRAMS", 2),
    ("test_numpy_construct", "PROGRAMS", 2),
    ("test_numpy_join", "PROGRAMS", 2),
    ("test_numpy_repeat", "PROGRAMS", 2),
    ("test_numpy_roll", "PROGRAMS", 2),
    ("test_numpy_round", "PROGRAMS", 2),
    ("test_numpy_scan", "PROGRAMS", 2),
    ("test_gather", "CASES", 2),
    ("test_numpy_diag", "PROGRAMS", 2),
    ("test_numpy_grid", "PROGRAMS", 2),
    ("test_numpy_sequences", "PROGRAMS", 3),
    ("test_complex", "PROGRAMS", 2),
    ("test_loop_carried_arrays", "CASES", 2),
    ("test_loop_control", "PROGRAMS", 2),
    ("test_matmul_loops", "CASES", 2),
]


def _programs() -> list:
    found = []
    for module, table, count in TABLES:
        for k, (fn, make_args) in enumerate(getattr(importlib.import_module(module), table)):
            if k < count:
                found.append(pytest.param(fn, make_args, id=f"{module[5:]}-{fn.__name__}-{k}"))
    return found


@pytest.mark.parametrize("fn, make_args", _programs())
def test_semantic_programs_match_numpy_on_triton(fn, make_args, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    args = make_args() if callable(make_args) else make_args
    assert_same(fn, *args, backend="triton")
