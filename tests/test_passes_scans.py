"""Scan loops as scan steps: the tracer's ``np.cumsum``/``np.cumprod`` loop along the last axis
becomes one NUMPY node (what the Triton target runs as a scan kernel), and nothing else does."""

from __future__ import annotations

import numpy as np
import pytest
from graphs import passed

from astcompile.ir.graph import verify
from astcompile.ir.ops import Op
from astcompile.passes.scans import fold_scans, scan_of
from astcompile.stages import GraphKind, graph_kind
from astcompile.targets.eager import EagerBackend
from astcompile.trace.tracer import trace_callable

X = np.random.default_rng(2).standard_normal((4, 6))


def _folded(fn, *args):
    return fold_scans(passed(trace_callable(fn, list(args))))


def both(x):
    return np.cumsum(x * 2, axis=-1) + 1, x.cumprod(axis=1), np.cumsum(x)


@pytest.mark.parametrize("args", [(X,), (X.astype(np.int32),)])
def test_scans_along_the_last_axis_become_steps(args):
    folded = _folded(both, *args)
    verify(folded)
    assert graph_kind(folded) is GraphKind.FLAT
    steps = [n for n in folded.nodes() if n.op is Op.NUMPY]
    assert sorted(scan_of(n) for n in steps) == ["cumprod", "cumsum", "cumsum"]
    got = EagerBackend().compile(folded)(list(args))
    for g, want in zip(got, both(*args), strict=True):
        assert g.dtype == want.dtype
        np.testing.assert_allclose(g, want, rtol=1e-12)


def test_a_step_keeps_a_narrow_dtype():
    """NumPy widens an int16 scan to int64 unless told the dtype: the step says it."""

    def narrow(x):
        return np.cumsum(x > 0, axis=-1, dtype=np.int16)

    (got,) = EagerBackend().compile(_folded(narrow, X))([X])
    assert got.dtype == np.int16
    np.testing.assert_array_equal(got, narrow(X))


def test_a_scan_along_a_leading_axis_stays_a_loop():
    assert _folded(lambda x: np.cumsum(x, axis=0), X) is None


def test_a_loop_that_is_not_a_scan_stays_a_loop():
    def running_max(x):
        out = x.copy()
        for k in range(1, x.shape[1]):
            out[:, k] = np.maximum(out[:, k - 1], x[:, k])
        return out

    def running_sum_of_other(x):
        out = x.copy()
        for k in range(1, x.shape[1]):
            out[:, k] = out[:, k - 1] + x[:, k - 1]
        return out

    assert _folded(running_max, X) is None
    assert _folded(running_sum_of_other, X) is None


def test_a_store_into_the_result_stays_after_the_step():
    def written(x):
        c = np.cumsum(x, axis=-1)
        c[:, 0] = 0.0
        return c

    folded = _folded(written, X)
    assert [e.op for e in folded.effects] == [Op.STORE]
    (store,) = folded.effects
    assert scan_of(store.inputs[0]) == "cumsum"


def test_a_store_of_the_step_stays_before_the_reads_after_it():
    """Ids are program order (the Triton store phases order reads and stores by them): the
    store of the scan into ``c`` keeps its place before ``c``'s reads, though only its value
    changed."""

    def padded(x):
        c = np.concatenate((np.zeros(1), np.cumsum(x)))
        return c[2:] - c[:-2]

    folded = _folded(padded, X[0])
    (store,) = [e for e in folded.effects if scan_of(e.inputs[1]) == "cumsum"]
    (result,) = folded.outputs
    assert result.op is Op.SUB and store.id < result.id
