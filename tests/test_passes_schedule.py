"""Scheduling and the graph passes: what fuses into one kernel, what stays a NumPy step."""

from __future__ import annotations

import glob
import os

import numpy as np
from differential import assert_same
from graphs import passed

import astcompile
from astcompile import config
from astcompile.ir.graph import verify
from astcompile.ir.ops import Op
from astcompile.passes.pass_list import PIPELINE
from astcompile.passes.schedule import Kernel, NumpyStep, schedule
from astcompile.targets.c.c_backend import supported
from astcompile.trace.tracer import trace_callable


def _schedule(fn, *args):
    graph = passed(trace_callable(fn, list(args)))
    return schedule(graph, supported)


def _kernels(sched):
    return [s for s in sched.steps if isinstance(s, Kernel)]


def test_elementwise_chain_is_one_kernel():
    sched = _schedule(lambda x: 0.5 * x * (1.0 + np.tanh(0.79 * (x + 0.04 * x**3))), np.ones(8))
    assert len(sched.steps) == 1 and len(_kernels(sched)[0].outputs) == 1


def test_row_softmax_is_one_kernel_in_three_phases():
    def softmax(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    (kernel,) = _kernels(_schedule(softmax, np.ones((4, 5), np.float32)))
    assert kernel.reduce_axes == (1,)
    assert [n.op for n in kernel.outputs] == [Op.TRUEDIV]


def test_outer_product_sum_has_no_3d_temporary():
    sched = _schedule(
        lambda X, Y: np.sum(X[:, :, None] * Y[:, None, :], axis=(-2, -1)),
        np.ones((3, 4)),
        np.ones((3, 5)),
    )
    (kernel,) = _kernels(sched)
    assert len(kernel.domain) == 3 and [o.ndim for o in kernel.outputs] == [1]
    assert all(s.node.op is Op.INDEX for s in sched.steps if isinstance(s, NumpyStep))


def test_matmul_is_extern_with_one_epilogue_kernel():
    sched = _schedule(
        lambda a, w, b: np.maximum(a @ w + b, 0.0), np.ones((3, 4)), np.ones((4, 2)), np.ones(2)
    )
    assert [type(s).__name__ for s in sched.steps] == ["NumpyStep", "Kernel"]
    assert sched.steps[0].node.op is Op.MATMUL


def test_independent_outputs_over_one_input_fuse_horizontally():
    sched = _schedule(lambda x: (x * 2, np.exp(x), x.mean(axis=1)), np.ones((4, 6)))
    assert len(_kernels(sched)) == 1 and len(_kernels(sched)[0].outputs) == 3


def test_var_decomposes_into_two_means():
    graph = passed(trace_callable(lambda x: x.var(axis=0), [np.ones((3, 4), np.float32)]))
    verify(graph)
    ops = [n.op for n in graph.nodes()]
    assert Op.VAR not in ops and ops.count(Op.MEAN) == 2


def test_cse_merges_repeated_work():
    graph = passed(trace_callable(lambda x: np.exp(x) + np.exp(x), [np.ones(3)]))
    assert [n.op for n in graph.nodes()].count(Op.EXP) == 1


def test_a_mean_with_and_without_keepdims_is_one_reduction():
    """``x.mean(), x.var()``: the mean inside var (kept dims) is the user's mean, reshaped."""
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    graph = passed(trace_callable(lambda x: (x.mean(axis=1), x.var(axis=1)), [x]))
    verify(graph)
    ops = [n.op for n in graph.nodes()]
    assert ops.count(Op.MEAN) == 2 and Op.RESHAPE in ops  # the user's mean + var's outer mean


def test_pipeline_is_a_named_list():
    assert [name for name, _, _ in PIPELINE] == [
        "decompose",
        "matmul_loops",
        "reshape_late",
        "constfold",
        "cse",
        "ifconvert",
        "dce",
    ]


def stencil_of_slices(a):
    return (a[:-2, :-2] - a[:-2, 2:] + 2 * a[1:-1, :-2]) ** 2 + (a[2:, 1:-1] - a[1:-1, 1:-1])


def test_slices_cut_from_either_end_fuse_into_one_kernel(tmp_path, monkeypatch):
    a = np.random.default_rng(0).random((9, 9))
    assert_same(stencil_of_slices, a, backend="c")
    monkeypatch.setattr(config, "debug_dir", str(tmp_path))
    monkeypatch.setattr(config, "tiering", False)
    astcompile.compile(stencil_of_slices, backend="c")(a)
    (c_file,) = glob.glob(os.path.join(str(tmp_path), "*", "*.lower.c"))
    with open(c_file) as f:
        assert f.read().count("_rows(const") == 1
