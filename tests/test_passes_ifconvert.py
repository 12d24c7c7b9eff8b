"""If-conversion: cheap, pure scalar branches in loops become selects, with what both sides
share done once after the select; results stay NumPy's, NaN, infinities and signed zeros
included, and branches that could fault, store or cost more than a misprediction stay
branches."""

from __future__ import annotations

import numpy as np
import pytest
from differential import BACKENDS, assert_same, assert_same_calls
from graphs import all_nodes, passed, traced
from test_loop_plan import clip_each

from astcompile.ir.ops import Op
from astcompile.passes.ifconvert import ifconvert
from bench.loop_kernels import clip_branches
from bench.programs.branchy_sum import branchy_sum

SPECIAL = np.array([0.3, np.nan, -0.0, 0.0, np.inf, -np.inf, 0.7, 0.5, -2.5, 1e308, 1e308])


def _data(n: int = 1000) -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.concatenate([SPECIAL, rng.random(n), rng.standard_normal(n)])


def _f32(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return x.astype(np.float32)


def positive_sum(x, start):
    total = start
    for i in range(len(x)):
        v = x[i]
        if v > 0:
            total += v
    return total


def count_above(x, t):
    n = 0
    for i in range(len(x)):
        if x[i] > t:
            n += 1
    return n


def running_max(x):
    m = x[0]
    for i in range(1, len(x)):
        if x[i] > m:
            m = x[i]
    return m


def growth(x):
    p = 1.0
    for i in range(x.shape[0]):
        if x[i] < 0.5:
            p *= 1.01
        else:
            p = p * 0.99
    return p


def difference(x):
    d = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            d = x[i] - d
        else:
            d = x[i] - 2.0 * d
    return d


def guarded_quotients(a, b):
    total = 0
    for i in range(len(a)):
        if b[i] != 0:
            total += a[i] // b[i]
    return total


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (branchy_sum, lambda x: (x,)),
        (positive_sum, lambda x: (x, 0.0)),
        (positive_sum, lambda x: (-x, -0.0)),  # nothing added: -0.0 stays -0.0
        (count_above, lambda x: (x, 0.5)),
        (running_max, lambda x: (x,)),
        (running_max, lambda x: (x[2:],)),  # NaN at the start
        (clip_each, lambda x: (x, -0.5, 0.5, np.empty_like(x))),
        (growth, lambda x: (x,)),
        (difference, lambda x: (x,)),
        (branchy_sum, lambda x: (_f32(x),)),
        (count_above, lambda x: (np.nan_to_num(x * 100, posinf=9, neginf=-9).astype(np.int64), 20)),
    ],
)
def test_converted_branches_give_numpys_answer(fn, args, backend):
    assert_same(fn, *args(_data()), backend=backend)


@pytest.mark.parametrize("start", [-0.0, 0.0])
def test_the_side_that_adds_nothing_keeps_the_sign_of_zero(start):
    got = assert_same(positive_sum, np.array([-1.0, -0.0, np.nan * 0 - 1]), start, backend="c")
    assert np.signbit(got) == np.signbit(start)


def signed_zeros(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            z = -0.0
        else:
            z = 0.0
        out[i] = z
    return out


def test_the_select_keeps_every_bit_of_the_value_it_picks():
    x = _data()
    got = assert_same(signed_zeros, x, np.empty_like(x), backend="c")
    np.testing.assert_array_equal(np.signbit(got), np.signbit(signed_zeros(x, np.empty_like(x))))


def flagged_sum(x):
    total = 0.0
    hit = False
    for i in range(x.shape[0]):
        if x[i] > 0.9:
            total += x[i]
            hit = True
    return total, hit


def test_a_flag_set_in_one_side_is_logic_not_a_select():
    graph = passed(traced(flagged_sum, _data()))  # CSE: one load of x[i]
    ops = [n.op for n in all_nodes(graph)]
    assert Op.IF not in ops and Op.LOGICAL_OR in ops
    assert [n.dtype.kind for n in all_nodes(graph) if n.op is Op.WHERE] == ["f"]
    for x in (_data(), np.zeros(5)):
        assert_same(flagged_sum, x, backend="c")


def _converted(fn, *args):
    return [n.op for n in all_nodes(passed(traced(fn, *args)))]


def test_a_carried_sum_adds_a_select_once_per_iteration():
    """``s += v * v`` / ``s -= v``: no branch, one select, and the carried ``s`` read by one
    add after it (so the select does not wait for ``s``)."""
    graph, changed = ifconvert(traced(branchy_sum, _data()))
    assert changed
    nodes = all_nodes(graph)
    assert Op.IF not in [n.op for n in nodes]
    (where,) = [n for n in nodes if n.op is Op.WHERE]
    (add,) = [n for n in nodes if n.op is Op.ADD]
    assert where in add.inputs and Op.NEG in [i.op for i in where.inputs]
    assert not [n for n in nodes if n.op is Op.SUB]


@pytest.mark.parametrize(
    ("fn", "args"),
    [(running_max, (_data(),)), (clip_each, (_data(), -0.5, 0.5, np.empty(2011)))],
)
def test_nested_and_carried_selects_convert(fn, args):
    assert Op.IF not in _converted(fn, *args)


def test_a_side_that_may_trap_or_load_keeps_its_branch():
    a, b = np.arange(10), np.array([0, 1] * 5)
    assert Op.IF in _converted(guarded_quotients, a, b)
    assert_same(guarded_quotients, a, b, backend="c")


def sums_with_calls(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            s += np.exp(x[i]) + np.log(x[i])
        else:
            s -= x[i]
    return s


def test_a_side_dearer_than_a_misprediction_keeps_its_branch():
    assert Op.IF in _converted(sums_with_calls, _data())


def test_a_value_bound_in_each_arm_becomes_a_select():
    """``if t < 0: y = t * t else: y = 2 * t + 1`` then ``out[i] = y``: one select, no IF (the
    loop did not compile at all before: ``y`` was unbound before the ``if``)."""
    x = _data()
    converted = _converted(signed_zeros, x, np.empty_like(x))
    assert Op.IF not in converted and Op.WHERE in converted


def stores_and_counts(x, out):
    n = 0
    for i in range(x.shape[0]):
        v = x[i]
        if v > 0.5:
            out[i] = v * 2.0
            n += 1
        else:
            out[i] = -0.0
    return out, n


def stores_elsewhere(x, out, other):
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out[i] = x[i]
        else:
            other[i] = x[i]
    return out, other


def stores_on_one_side(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out[i] = x[i]
    return out


def flags_into(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            out[i] = 7
        else:
            out[i] = -1
    return out


def test_a_branch_storing_one_element_either_way_stores_a_select():
    """``if/elif/else`` each storing ``out[i]`` (a clip as people write it): one STORE of a
    select, no IF (it was a branch per element, a misprediction on a third of them)."""
    ops = _converted(clip_branches, _data(), -0.5, 0.5)
    assert Op.IF not in ops and ops.count(Op.STORE) == 1 and ops.count(Op.WHERE) == 2
    ops = _converted(stores_and_counts, _data(), np.empty(2011))
    assert Op.IF not in ops and ops.count(Op.STORE) == 1


def test_branches_storing_different_places_keep_their_branch():
    x = _data()
    assert Op.IF in _converted(stores_elsewhere, x, np.zeros_like(x), np.zeros_like(x))
    assert Op.IF in _converted(stores_on_one_side, x, np.zeros_like(x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_stores_of_a_select_give_numpys_answer(backend):
    """NaN (no side taken by a comparison with it), -0.0 kept as stored, bounds of either
    sign; in-place results and the arguments left as the plain function leaves them."""
    x = _data()
    for lo, hi in [(-0.5, 0.5), (-0.0, 0.0), (0.0, -0.0), (np.nan, 1.0), (-np.inf, np.inf)]:
        got = assert_same(clip_branches, x, lo, hi, backend=backend)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(clip_branches(x, lo, hi)))
    got, _ = assert_same(stores_and_counts, x, np.ones_like(x), backend=backend)
    assert np.signbit(got).sum() == np.signbit(stores_and_counts(x, np.ones_like(x))[0]).sum()
    assert_same(stores_elsewhere, x, np.zeros_like(x), np.ones_like(x), backend=backend)
    assert_same(stores_on_one_side, _f32(x), np.zeros(len(x), np.float32), backend=backend)
    assert Op.IF not in _converted(flags_into, x, np.zeros(len(x), np.int8))
    calls = [(x, np.zeros(len(x), np.int8)), (x, np.zeros(len(x) - 3, np.uint16))]  # IndexError
    assert_same_calls(flags_into, calls, backend=backend)
