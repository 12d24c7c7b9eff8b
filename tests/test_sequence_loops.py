"""Loops over a literal tuple or list (``for dy in (-1, 0, 1):``) compile: up to eight items
unroll, so each copy of the body sees the item itself (a constant roll shift, an axis, a
function), also inside a compiled loop. Longer sequences, and ones with ``break``, still give
the plain function's answer.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls

import astcompile


def neighbours(board):
    total = np.zeros(board.shape, dtype=board.dtype)
    for dy in (-1, 0, 1):
        for dx in [-1, 0, 1]:
            if dy != 0 or dx != 0:
                total += np.roll(np.roll(board, dy, axis=0), dx, axis=1)
    return total


def life(board, generations):
    for _ in range(generations):
        n = np.zeros(board.shape, dtype=np.int64)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy != 0 or dx != 0:
                    n += np.roll(np.roll(board, dy, axis=0), dx, axis=1)
        board = ((n == 3) | ((board == 1) & (n == 2))).astype(np.int64)
    return board


def smooth(x):
    out = np.zeros_like(x)
    for w, s in ((0.25, -1), (0.5, 0), (0.25, 1)):
        out = out + w * np.roll(x, s)
    return out


def per_axis(m):
    parts = []
    for axis in (0, 1):
        parts.append(m.sum(axis=axis).sum())
    return parts[0] + parts[1]


def six_taps(x):
    acc = 0.0 * x
    for k in (1, 2, 3, 4, 5, 6):
        acc = acc + k * x
    return acc


def twelve_taps(x):
    acc = 0.0 * x
    for k in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12):
        acc = acc + k * x
    return acc


def first_above(x):
    found = -1.0
    for t in (0.2, 0.4, 0.6, 0.8):
        if x.max() > t:
            found = t
            break
    return found


def arrays_and_functions(x, y):
    acc = np.zeros_like(x)
    for a in (x, y, x * y):
        for f in (np.sin, np.cos):
            acc = acc + f(a)
    return acc


def nothing(x):
    for k in ():
        x = x + k
    return x * 1


RNG = np.random.default_rng(3)
BOARD = (RNG.random((7, 9)) < 0.4).astype(np.int64)
CASES = [
    (neighbours, [(BOARD,), ((RNG.random((4, 5)) < 0.5).astype(np.int8),), (np.zeros((0, 3)),)]),
    (life, [(BOARD, 4), (BOARD[:3], 2), (BOARD, 0)]),
    (smooth, [(RNG.random(10),), (RNG.random(6).astype(np.float32),), (np.zeros(0),)]),
    (per_axis, [(RNG.random((3, 4)),), (np.arange(6).reshape(2, 3),)]),
    (six_taps, [(RNG.random(5),), (np.arange(4),)]),
    (twelve_taps, [(RNG.random(5),)]),
    (first_above, [(RNG.random(5),), (np.zeros(3),)]),
    (arrays_and_functions, [(RNG.random(4), RNG.random(4))]),
    (nothing, [(RNG.random(3),)]),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, calls", CASES, ids=[c[0].__name__ for c in CASES])
def test_loops_over_literal_sequences_give_numpys_results(fn, calls, backend):
    assert_same_calls(fn, calls, backend=backend)


@pytest.mark.parametrize(
    "fn, args",
    [
        (neighbours, (BOARD,)),
        (life, (BOARD, 3)),
        (smooth, (RNG.random(8),)),
        (six_taps, (RNG.random(3),)),
    ],
)
def test_short_literal_loops_unroll_without_a_break(fn, args):
    compiled = astcompile.compile(fn, backend="c")
    report = astcompile.explain(compiled, *args)
    assert report.graph_break_count == 0 and report.graph_count == 1, str(report)
    assert not compiled.python_loops
    assert_same(fn, *args, backend="c")
