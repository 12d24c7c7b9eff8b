"""Shared by the C backend's tests: trace, compile with a private cache, compare with eager."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from astcompile.backends.c import CBackend
from astcompile.backends.eager import run_graph
from astcompile.trace.context import TraceBreak
from astcompile.trace.tracer import trace_callable

#: Documented tolerances of the C backend against NumPy (libmvec is accurate to <= 4 ulp;
#: sums are blocked, not pairwise; see docs/benchmarks.md).
RTOL = {np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-11}
ATOL = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-11}


def forked_results(target: Callable, count: int = 2) -> list:
    """What ``target(queue)`` puts on the queue in each of ``count`` forked children, once all
    exited cleanly (a child that hangs in a dead OpenMP pool fails the test by timeout)."""
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    procs = [ctx.Process(target=target, args=(queue,)) for _ in range(count)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return results


def compile_c(fn: Callable, args: Sequence[Any], cache_dir: str):
    try:
        graph = trace_callable(fn, list(args))
    except TraceBreak as exc:  # the tracer leaves it to NumPy: nothing to compile
        pytest.skip(f"not traced: {exc}")
    return graph, CBackend(cache_dir=cache_dir).compile(graph)


def assert_matches(got: Any, expected: Any) -> None:
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(
            got,
            expected,
            rtol=RTOL.get(expected.dtype, 0),
            atol=ATOL.get(expected.dtype, 0),
            equal_nan=True,
        )


def check(
    fn: Callable, args: Sequence[Any], cache_dir: str, calls: Sequence[Sequence[Any]] = ()
) -> Any:
    """Compile ``fn`` for ``args`` and compare with the eager interpreter on ``args`` and on
    each extra argument list in ``calls`` (same guards, other sizes/strides)."""
    graph, compiled = compile_c(fn, args, cache_dir)
    for leaves in [list(args), *map(list, calls)]:
        with np.errstate(all="ignore"):
            expected = run_graph(graph, leaves)
            got = compiled(leaves)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_matches(g, e)
    return compiled
