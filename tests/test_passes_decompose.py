"""Decomposition: ``var`` and ``std`` become NumPy's two-pass algorithm (mean, squared
deviations, mean with ``ddof``) in primitives the code generators know; the values are NumPy's."""

from __future__ import annotations

import numpy as np
import pytest
from graphs import F32, F64, I64, apply, array, evaluate, graph, ops

from astcompile.ir.graph import ReduceAttr
from astcompile.ir.ops import Op
from astcompile.passes.decompose import decompose
from astcompile.targets.c.c_backend import CBackend

X = np.random.default_rng(0).standard_normal((5, 7))


def _stat(op, x, axes, ddof=0, dtype=None):
    shape = tuple(d for a, d in enumerate(x.shape) if a not in axes)
    return apply(op, x, dtype=dtype, shape=shape, attr=ReduceAttr(axes, False, ddof))


@pytest.mark.parametrize(("op", "numpy_fn"), [(Op.VAR, np.var), (Op.STD, np.std)])
@pytest.mark.parametrize(("axes", "ddof"), [((0,), 0), ((1,), 1), ((0, 1), 0)])
def test_var_and_std_become_mean_sub_mul_mean_with_numpys_values(
    op, numpy_fn, axes, ddof, tmp_path
):
    x = array(0, shape=X.shape)
    after, changed = decompose(graph([x], [_stat(op, x, axes, ddof)]))
    assert changed and op not in ops(after)
    assert ops(after).count(Op.MEAN) == 2 and Op.SUB in ops(after) and Op.MUL in ops(after)
    assert (Op.SQRT in ops(after)) is (op is Op.STD)
    first, last = [n.attr for n in after.nodes() if n.op is Op.MEAN]
    assert first == ReduceAttr(axes, True) and last == ReduceAttr(axes, False, ddof)
    want = numpy_fn(X, axis=axes, ddof=ddof)
    np.testing.assert_allclose(_run(after, X, tmp_path), want, rtol=1e-14)


def _run(g, leaf, tmp_path):
    """The value of ``g``'s output, from the C backend (which runs the passes) and from the
    eager interpreter (which the C wrapper falls back to on a call it was not generated for):
    both must give NumPy's value."""
    interpreted = evaluate(g, leaf)[0]
    compiled = CBackend(cache_dir=str(tmp_path)).compile(g)([leaf])[0]
    np.testing.assert_allclose(interpreted, compiled, rtol=1e-14)
    return compiled


def test_an_integer_input_is_cast_to_float64_first():
    """NumPy accumulates the mean of integers in float64."""
    x = array(0, shape=(6,), dtype=I64)
    after, _ = decompose(graph([x], [_stat(Op.VAR, x, (0,), dtype=F64)]))
    (cast,) = [n for n in after.nodes() if n.op is Op.CAST]
    assert cast.inputs[0] is x and cast.dtype == F64
    leaf = np.array([1, 2, 4, 8, 16, 2**40])
    assert evaluate(after, leaf)[0] == np.var(leaf)


def test_float32_stays_float32():
    x = array(0, shape=(6,), dtype=F32)
    after, _ = decompose(graph([x], [_stat(Op.STD, x, (0,))]))
    assert {n.dtype for n in after.nodes()} == {F32}


@pytest.mark.parametrize(
    ("dtype", "axes", "why"),
    [
        (np.dtype(np.complex128), (0,), "complex input: |x - mean|^2, not (x - mean)^2"),
        (F64, (), "no axes: nothing to reduce"),
    ],
)
def test_nodes_the_rules_do_not_cover_are_left_alone(dtype, axes, why):
    x = array(0, shape=(6,), dtype=dtype)
    before = graph([x], [_stat(Op.VAR, x, axes, dtype=F64)])
    after, changed = decompose(before)
    assert not changed and after is before, why
