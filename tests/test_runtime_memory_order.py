"""NumPy's axis order of new arrays (runtime/memory_order.py), against NumPy itself: the
layout of ``np.add``/``np.where`` results over operands of random layouts (transposed,
stepped, reversed, broadcast, with axes of length one)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from astcompile.runtime.memory_order import axis_order, layout_class, stride_ranks


def _array(rng: random.Random, shape: list[int]) -> np.ndarray:
    perm = list(range(len(shape)))
    rng.shuffle(perm)
    steps = [rng.choice([1, 1, 2]) for _ in shape]
    base = np.ones([shape[p] * steps[p] for p in perm]).transpose(np.argsort(perm))
    x = base[tuple(slice(None, None, s) for s in steps)]
    return np.flip(x, rng.randrange(x.ndim)) if rng.random() < 0.3 else x


def _operands(rng: random.Random) -> list[np.ndarray]:
    shape = [rng.choice([1, 2, 3, 4]) for _ in range(rng.randint(2, 4))]
    found = []
    for _ in range(rng.randint(1, 3)):
        own = [n if rng.random() < 0.8 else 1 for n in shape]  # broadcast axes
        found.append(_array(rng, own[rng.choice([0, 0, 1]) :]))
    return found


def _expected_strides(perm: tuple[int, ...], shape: tuple, itemsize: int) -> list[int]:
    strides, size = [0] * len(shape), itemsize
    for a in reversed(perm):
        strides[a], size = size, size * shape[a]
    return strides


@pytest.mark.parametrize("seed", range(4))
def test_axis_order_is_numpys(seed):
    rng = random.Random(seed)
    for _ in range(500):
        ops = _operands(rng)
        made = ops[0] + 0 if len(ops) == 1 else np.where(ops[0] > 0, *ops[-2:])
        seen = [np.broadcast_to(o, made.shape) for o in ops]
        ranks = [[r if n != 1 else 0 for r, n in zip(stride_ranks(s), made.shape)] for s in seen]
        want = _expected_strides(axis_order(ranks), made.shape, made.itemsize)
        long = [a for a, n in enumerate(made.shape) if n != 1]
        assert [made.strides[a] for a in long] == [want[a] for a in long], [o.strides for o in ops]


def test_layout_classes():
    x = np.ones((3, 4))
    assert [layout_class(v) for v in (x, x.T, x[::2], x.T[::2])] == ["C", "F", "S21", "S12"]
    assert layout_class(np.broadcast_to(1.0, (3, 4))) == "S00"
