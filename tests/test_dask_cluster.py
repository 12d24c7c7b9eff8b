"""Compiled functions on chunked Dask arrays, computed by a 2-process LocalCluster and compared
with the plain function on the whole NumPy array."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from tests import dask_helpers as H  # noqa: E402 - after the skips

RNG = np.random.default_rng(7)
X = RNG.random((600, 40))
Y = RNG.random((600, 40))


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="1GiB",
        dashboard_address=None,
    )
    with cluster, distributed.Client(cluster) as connected:
        yield connected


def _x(chunks=(150, 20)):
    return da.from_array(X, chunks=chunks)


def _y(chunks=(200, 40)):
    return da.from_array(Y, chunks=chunks)


def _check(client, lazy, expected, rtol=1e-12):
    assert isinstance(lazy, da.Array)
    np.testing.assert_allclose(client.compute(lazy).result(), expected, rtol=rtol)


def test_elementwise_chain_over_differently_chunked_arrays(client):
    lazy = H.chain(_x(), _y())
    assert lazy.chunks == da.core.unify_chunks(_x(), "ij", _y(), "ij")[1][0].chunks
    _check(client, lazy, H.chain.fn(X, Y))
    per_worker = client.run(H.region_calls, "chain").values()
    assert sum(c for c, _ in per_worker) == lazy.npartitions  # each chunk ran compiled
    assert all(e == 0 for _, e in per_worker)


def test_reductions_with_and_without_axis(client):
    _check(client, H.column_sums(_x(), _y()), H.column_sums.fn(X, Y))
    _check(client, H.row_max(_x()), H.row_max.fn(X))
    _check(client, H.total(_x(), _y()), H.total.fn(X, Y))
    assert client.compute(H.any_negative(_x())).result() == H.any_negative.fn(X)


def test_stencils(client):
    _check(client, H.laplacian(_x()), H.laplacian.fn(X))
    _check(client, H.gradient(da.from_array(X[:, 0], chunks=100)), H.gradient.fn(X[:, 0]))


def test_graph_break_and_positional_regions(client):
    _check(client, H.with_break(_x()), H.with_break.fn(X))
    _check(client, H.with_position(_x()), H.with_position.fn(X))


def test_closure_reaches_workers_by_value(client):
    shifted = H.make_shifted(0.25)
    _check(client, shifted(_x()), np.tanh(X + 0.25))


def test_functions_sent_by_value_compile_in_the_workers(client):
    """A closure, and the combine step of a reduction (the project's own closure,
    ``combine_step.<locals>.combine``), reach the workers by value with their sources: each
    compiles there (it never runs as it is for want of a readable source). The closure is a
    task of its own: on a Dask array, its read of ``shift`` makes it Dask's NumPy API."""
    shifted = H.make_shifted(0.5)
    np.testing.assert_allclose(client.submit(shifted, X).result(), np.tanh(X + 0.5), rtol=1e-14)
    _check(client, H.column_sums(_x(), _y()), H.column_sums.fn(X, Y))
    seen = [f for found in client.run(H.rebuilt_functions).values() for f in found]
    names = {name for name, _, _ in seen}
    assert {"make_shifted.<locals>.shifted", "combine_step.<locals>.combine"} <= names
    assert all(rewritten for _, rewritten, _ in seen), seen
    for name in ("make_shifted.<locals>.shifted", "combine_step.<locals>.combine"):
        assert sum(calls for n, _, calls in seen if n == name) > 0
