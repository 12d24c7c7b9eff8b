"""Dask arrays in, Dask arrays out: the form each region takes, computed with threads and
compared with the plain function on whole NumPy arrays (tests/test_dask_cluster.py runs the
same on worker processes)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import astcompile

da = pytest.importorskip("dask.array")

from astcompile.dask import arrays  # noqa: E402 - after the skip
from astcompile.dask.operation import Form  # noqa: E402
from tests import dask_helpers as H  # noqa: E402

RNG = np.random.default_rng(3)
X = RNG.random((90, 12))
Y = RNG.random((90, 12))


def _lazy(array, chunks=(20, 5)):
    return da.from_array(array, chunks=chunks)


def _forms(fn) -> list[Form]:
    """The forms of ``fn``'s regions, in order, after a call with Dask arrays."""
    return [plans[key][0].form for r in fn.regions for plans in [arrays._plans[r]] for key in plans]


def _same(lazy, expected, rtol=1e-12):
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(lazy.compute(scheduler="threads"), expected, rtol=rtol)


@pytest.mark.parametrize(
    ("fn", "form"),
    [
        (H.chain, Form.BLOCKWISE),
        (H.column_sums, Form.REDUCTION),
        (H.total, Form.REDUCTION),
        (H.laplacian, Form.OVERLAP),
        (H.with_position, Form.NUMPY),
    ],
)
def test_each_region_takes_the_form_its_graph_allows(fn, form):
    args = (_lazy(X), _lazy(Y))[: fn.fn.__code__.co_argcount]
    _same(fn(*args), fn.fn(*(X, Y)[: len(args)]))
    assert _forms(fn) == [form]


def test_a_break_splits_forms_per_region():
    _same(H.with_break(_lazy(X)), H.with_break.fn(X))
    assert _forms(H.with_break) == [Form.BLOCKWISE, Form.NUMPY]


def test_broadcasting_scalars_and_numpy_arguments():
    row, column = RNG.random((1, 12)), RNG.random((90, 1))
    _same(H.chain(_lazy(X), row), H.chain.fn(X, row))
    _same(H.chain(_lazy(column, (30, 1)), _lazy(row, (1, 4))), H.chain.fn(column, row))
    _same(H.chain(_lazy(X), 0.5), H.chain.fn(X, 0.5))


def test_reductions_keep_numpy_dtypes_and_shapes():
    ints = RNG.integers(-5, 5, size=(90, 12)).astype(np.int32)
    lazy = H.column_sums(_lazy(ints), _lazy(ints))
    assert lazy.dtype == H.column_sums.fn(ints, ints).dtype
    _same(lazy, H.column_sums.fn(ints, ints))
    kept = H.row_max(_lazy(X))
    assert kept.shape == (90, 1)
    _same(kept, H.row_max.fn(X))
    assert bool(H.any_negative(_lazy(X)).compute()) == bool(H.any_negative.fn(X))


def test_stencil_chunks_lose_the_trim_at_the_end():
    lazy = H.gradient(_lazy(X[:, 0], 25))
    assert lazy.chunks == ((25, 25, 25, 14),)
    _same(lazy, H.gradient.fn(X[:, 0]))


def test_stencil_deeper_than_a_chunk_runs_on_dasks_numpy_api():
    lazy = H.laplacian(_lazy(X, (1, 12)))  # chunks of one row: the slices need two
    _same(lazy, H.laplacian.fn(X))
    region = H.laplacian.regions[0]
    assert (region.stats.compiled_calls, region.stats.eager_calls) == (0, 1)


def test_unknown_chunk_sizes_run_on_dasks_numpy_api():
    lazy = _lazy(X[:, 0], 30)
    picked = lazy[lazy > 0.5]  # sizes known only once computed
    whole = X[:, 0][X[:, 0] > 0.5]
    _same(H.chain(picked, picked), H.chain.fn(whole, whole))
    assert _forms(H.chain) == [Form.NUMPY]


def test_nothing_is_computed_until_asked():
    calls = []
    counted = _lazy(X).map_blocks(lambda b: calls.append(1) or b, meta=np.empty((0, 0)))
    lazy = H.chain(counted, _lazy(Y))
    assert calls == []
    lazy.compute(scheduler="threads")
    assert calls


def test_explain_names_the_dask_operation_of_each_region():
    text = str(astcompile.explain(H.with_break, _lazy(X)))
    assert "compiled as dask blockwise" in text
    assert "as dask NumPy API (mean is not per element)" in text
    assert "as dask reduction(sum, axis=(0,))" in str(
        astcompile.explain(H.column_sums, _lazy(X), _lazy(Y))
    )
    assert "as dask map_overlap(depth=(2, 2))" in str(astcompile.explain(H.laplacian, _lazy(X)))


def test_numpy_callers_never_import_dask():
    code = (
        "import sys, numpy as np, astcompile\n"
        "f = astcompile.compile(lambda x: x * 2.0 + 1.0)\n"
        "assert (f(np.ones(3)) == 3.0).all()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_calls_with_dask_arrays_are_not_timed_by_tiering(monkeypatch):
    """Tiering would time building the task graph (the same both ways) and might choose the
    plain statements, whose blocks then run uncompiled: a Dask call always takes the compiled
    path, untimed."""
    from astcompile import config
    from astcompile.jit import tiering

    monkeypatch.setattr(config, "tiering", True)
    timed, real = [], tiering._timed

    def timing(name, path, run, args, kwargs):  # the blocks' own calls (NumPy chunks) are timed
        timed.extend(a for a in args if isinstance(a, da.Array))
        return real(name, path, run, args, kwargs)

    monkeypatch.setattr(tiering, "_timed", timing)
    fn = astcompile.compile(H.chain)
    for _ in range(tiering.WARMUP_CALLS + tiering.ROUNDS * 2 + 2):
        _same(fn(_lazy(X), _lazy(Y)), H.chain(X, Y))
    assert not timed
