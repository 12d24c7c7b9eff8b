"""Shared by the C backend's tests: trace, compile with a private cache, compare with eager
(with the one tolerance table, astcompile.compare.TOLERANCE)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from differential import assert_matches

from astcompile.backends.c import CBackend
from astcompile.backends.eager import run_graph
from astcompile.trace.context import TraceBreak
from astcompile.trace.tracer import trace_callable


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
