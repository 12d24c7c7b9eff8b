"""The compile pipeline (astcompile/pipeline.py): its stages, their order, their timings."""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import astcompile
from astcompile import config, pipeline, stages
from astcompile.passes.pass_list import PIPELINE
from astcompile.runtime import timing
from astcompile.targets.eager import EagerBackend
from astcompile.trace.tracer import trace_callable

TRITON = importlib.util.find_spec("triton") is not None
PASS_NAMES = [name for name, _, _ in PIPELINE]
TARGET = ["schedule", "stores", "host_loops", "matmuls", "accept", "lower", "load", "wrap"]


def _names(stage_list):
    return [s.name for s in stage_list]


def test_function_stages_in_order():
    assert _names(pipeline.FUNCTION_STAGES) == [
        "rewrite_cache",
        "source",
        "frontend",
        "analysis",
        "rewrite",
        "materialise",
    ]


def test_analysis_is_the_function_s_own_work_not_an_import(tmp_path):
    """A process's first analysis imports libcst and the front end in the stage before it:
    ``compile_times()['analysis']`` is what analysing the function costs. (A first call
    without loops does without the C loop emitter too.)"""
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import astcompile
        from astcompile import stages

        analyse, imported = stages.analyse, []
        def watched(work):
            before = set(sys.modules)
            analyse(work)
            imported.extend(sorted(set(sys.modules) - before))
        stages.analyse = watched

        def axpy(a, x, y):
            return a * x + y

        astcompile.compile(axpy, backend="c")(2.0, np.ones(3), np.ones(3))
        print([m for m in imported if m.startswith(("libcst", "astcompile.frontend"))])
        print("astcompile.targets.c.structured" in sys.modules)
    """)
    script = tmp_path / "first.py"
    script.write_text(code)
    env = {**os.environ, "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["[]", "False"]  # nor was the loop emitter imported: no loop


@pytest.mark.parametrize("backend, fullgraph", [("eager", False), ("c", False), ("c", True)])
def test_a_first_call_under_warnings_as_errors(tmp_path, backend, fullgraph):
    """``python -W error`` (pytest's ``filterwarnings = error``): the front end's imports warn
    (libcst: mypy_extensions' TypedDict), which made every call raise DeprecationWarning, and
    ``fullgraph=True``'s check at decoration (its analysis imported libcst unguarded)."""
    code = textwrap.dedent(f"""
        import numpy as np
        import astcompile

        def axpy(a, x, y):
            return a * x + y

        fast = astcompile.compile(axpy, backend="{backend}", fullgraph={fullgraph})
        print(fast(2.0, np.ones(2), np.ones(2)))
    """)
    script = tmp_path / "strict.py"
    script.write_text(code)
    env = {**os.environ, "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    command = [sys.executable, "-W", "error", str(script)]
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["[3.", "3.]"]


def test_region_stages_in_order_with_the_graph_passes_and_the_target_stages():
    expected = ["trace", "target", *PASS_NAMES, "scans", *TARGET, "guards", "record"]
    assert _names(pipeline.REGION_STAGES) == expected
    assert pipeline.REGION_STAGES[1:-2] == pipeline.TARGET_STAGES


def test_every_stage_says_why_and_names_are_unique():
    every = (*pipeline.FUNCTION_STAGES, pipeline.ENTRY_CACHE, *pipeline.REGION_STAGES)
    assert all(len(s.why) > 20 for s in every)
    names = pipeline.stage_names()
    assert len(names) == len(set(names))
    assert "build" in names  # timed inside ``load``
    assert "backend" not in names  # the old phase that overlapped passes, codegen and build


def _reset_times():
    timing.reset()
    astcompile.reset()


def _first_call(fn, *args):
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def _check_times_add_up(total: float) -> dict[str, float]:
    times = astcompile.compile_times()
    assert set(times) <= set(pipeline.stage_names()), set(times) - set(pipeline.stage_names())
    assert all(t >= 0 for t in times.values())
    spent = sum(times.values())
    # What is not a stage: the call itself, guard keys, the first import of the pipeline.
    assert spent <= total
    assert spent >= 0.8 * total or total - spent < 0.05, (spent, total, times)
    return times


def test_compile_times_are_the_stages_and_add_up_to_the_first_call(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))  # a cold cache: the compiler runs

    def gelu(x):
        return 0.5 * x * (1.0 + np.tanh(0.79 * (x + 0.04 * x**3)))

    _reset_times()
    compiled = astcompile.compile(gelu, backend="c")
    times = _check_times_add_up(_first_call(compiled, np.ones(8)))
    ran = [n for n in pipeline.stage_names() if n in times]
    assert ran == [
        "rewrite_cache",
        "source",
        "frontend",
        "analysis",
        "rewrite",
        "materialise",
        "entry_cache",
        "trace",
        "target",
        *PASS_NAMES,
        "schedule",
        "lower",
        "load",
        "build",
        "wrap",
        "guards",
        "record",
    ]


def test_eager_target_runs_only_its_wrap_stage():
    def add(x):
        return x + 1

    _reset_times()
    compiled = astcompile.compile(add, backend="eager")
    times = _check_times_add_up(_first_call(compiled, np.ones(8)))
    assert "wrap" in times and "trace" in times
    assert not {"lower", "load", "schedule", *PASS_NAMES} & set(times)


def loop_with_sum(x, n):
    total = 0.0
    for t in range(n):
        total += np.sum(x * t)
    return total


def test_loop_graphs_go_through_the_same_list(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))
    _reset_times()
    compiled = astcompile.compile(loop_with_sum, backend="c")
    total = _first_call(compiled, np.arange(4.0), 3)
    assert compiled(np.arange(4.0), 3) == loop_with_sum(np.arange(4.0), 3)
    times = _check_times_add_up(total)
    assert {"trace", "target", "lower", "load", "wrap", "guards"} <= set(times)
    # The list itself says which stages are for flat graphs only; the passes run on both:
    assert "schedule" not in times and "decompose" in times
    for stage in pipeline.REGION_STAGES:
        if stage.name in PASS_NAMES:
            assert stage.when is stages.for_codegen
    schedule = next(s for s in pipeline.TARGET_STAGES if s.name == "schedule")
    assert schedule.when is stages.flat_target_step


def test_which_stages_apply_to_which_graphs():
    c = astcompile.targets.get_backend("c")
    flat = stages.RegionWork(target=c, kind=stages.GraphKind.FLAT)
    loop = stages.RegionWork(target=c, kind=stages.GraphKind.LOOP)
    eager = stages.RegionWork(target=EagerBackend(), kind=stages.GraphKind.FLAT)

    def ran(work):
        return [s.name for s in pipeline.TARGET_STAGES if s.when(s.name, work)]

    assert ran(flat) == [*PASS_NAMES, "schedule", "lower", "load", "wrap"]
    assert ran(loop) == [*PASS_NAMES, "lower", "load", "wrap"]
    assert ran(eager) == ["wrap"]
    if TRITON:  # the one target that takes only some graphs says so at ``accept``
        triton = astcompile.targets.get_backend("triton")
        flat = stages.RegionWork(target=triton, kind=stages.GraphKind.FLAT)
        assert ran(flat) == [*PASS_NAMES, "schedule", "accept", "lower", "load", "wrap"]
        loop.target = triton  # scan loops are folded for it; its stages plan its forms
        planning = ["scans", "stores", "host_loops", "accept"]
        assert ran(loop) == [*PASS_NAMES, *planning, "lower", "load", "wrap"]
        loop.schedule = object()  # planned: the later planning stages stand aside, and the
        planned = ["scans", "matmuls", "accept"]  # stage rewriting its kernels runs
        assert ran(loop) == [*PASS_NAMES, *planned, "lower", "load", "wrap"]


def doubled(x):
    return x * 2.0


def running(x):
    return np.cumsum(x)


def shifted(x):
    x[1:] = x[:-1] * 2.0
    return x


def heat(u, c, steps):
    for t in range(steps):
        u[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
    return u


def prefix(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i - 1] + x[i]
    return x


FORMS = [
    (doubled, ("triton", "kernels", None)),
    (running, ("triton", "scans", None)),
    (shifted, ("triton", "stores", None)),
    (heat, ("triton", "host_loops", None)),
    (prefix, ("c", None, "a loop of scalar element updates: no GPU form")),
]


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
@pytest.mark.parametrize("fn, taken", FORMS, ids=[f.__name__ for f, _ in FORMS])
def test_accept_takes_a_triton_form_or_hands_the_graph_to_c(fn, taken, caplog):
    """Which route a graph takes through the Triton target is decided at the ``accept`` stage,
    in sight of the stage list: the first of its forms that plans the graph; a graph none
    plans goes to C there, with the reason ``explain`` gives."""
    from astcompile.targets.triton.triton_backend import TritonBackend

    args = (np.arange(6.0), 0.1, 2) if fn is heat else (np.arange(6.0),)
    graph = astcompile.explain(astcompile.compile(fn, backend="eager"), *args).graphs[0]
    with caplog.at_level(logging.INFO, "astcompile.graph_breaks"):
        work = pipeline.run_target_stages(graph, TritonBackend(), stop_before="lower")
    reason = work.handed_over and work.handed_over.split(";")[0]
    assert (work.target.name, work.form and work.form.name, reason) == taken
    said = [r.getMessage() for r in caplog.records if "runs on the C target" in r.getMessage()]
    assert said == (
        []
        if reason is None
        else [f"{graph.name}: {work.handed_over}: it runs on the C target (CPU)"]
    )


def flat_first(x):
    y = x[:, ::2].reshape(-1)  # C's loop emitter has no strided reshape (yet)
    y[0] = 5.0
    return y


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
def test_a_graph_handed_to_c_that_c_cannot_lower_names_the_backend_the_user_chose(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    compiled = astcompile.compile(flat_first, backend="triton")
    x = np.arange(24.0).reshape(4, 6)
    report = astcompile.explain(compiled, x.copy())
    np.testing.assert_array_equal(report.out, flat_first(x.copy()))
    assert [b.code for b in report.break_reasons] == ["GB023"]
    assert "the triton backend does not support reshape" in report.break_reasons[0].detail


def test_graph_kind():
    flat = trace_callable(lambda x: x * 2 + 1, [np.ones(3)])
    assert stages.graph_kind(flat) is stages.GraphKind.FLAT


def test_bare_graph_compiles_through_the_target_stages():
    graph = trace_callable(lambda x: (x.var(axis=0), x + 1), [np.ones((3, 4))])
    timing.reset()
    run = pipeline.compile_graph(graph, EagerBackend())
    assert set(astcompile.compile_times()) == {"wrap"}
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(run([x])[0], x.var(axis=0))


def test_nested_phases_do_not_overlap():
    timing.reset()
    with timing.phase("outer"):
        time.sleep(0.02)
        with timing.phase("inner"):
            time.sleep(0.05)
    times = dict(timing.compile_times)
    assert 0.045 <= times["inner"] < 0.2
    assert 0.015 <= times["outer"] < times["inner"]


def test_debug_dumps_are_named_by_stage(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "debug_dir", str(tmp_path))

    def spread(x):
        return x.var(axis=0) + 1.0

    compiled = astcompile.compile(spread, backend="c")
    np.testing.assert_allclose(compiled(np.ones((3, 4))), np.ones(4))
    (folder,) = os.listdir(tmp_path)
    files = sorted(os.listdir(tmp_path / folder))
    assert "rewrite.py" in files
    assert "__ac_region_0.0.trace.txt" in files
    assert "__ac_region_0.0.decompose.txt" in files  # var became mean, sub, mul, mean
    text = (tmp_path / folder / "__ac_region_0.0.decompose.txt").read_text()
    assert "var(" not in text and "mean(" in text


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
def test_stages_dump_the_plan_and_the_form_or_the_hand_over(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    monkeypatch.setattr(config, "debug_dir", str(tmp_path))
    for fn in (shifted, prefix):
        compiled = astcompile.compile(fn, backend="triton")
        np.testing.assert_array_equal(compiled(np.arange(6.0)), fn(np.arange(6.0)))
    compiled = astcompile.compile(heat, backend="triton")
    np.testing.assert_array_equal(compiled(np.arange(6.0), 0.1, 2), heat(np.arange(6.0), 0.1, 2))
    made = {f.parent.name.rpartition(".")[2]: f for f in tmp_path.rglob("*.accept.txt")}
    assert made["shifted"].read_text() == "stores\n"
    assert made["prefix"].read_text().startswith("c (a loop of scalar element updates")
    planned = {f.name.split(".")[-2]: f.read_text() for f in tmp_path.rglob("*.txt")}
    assert "then store %" in planned["stores"]  # the phases a planning stage made
    assert planned["host_loops"].startswith("host loop %")


def test_the_stage_runner_verifies_the_graphs_of_a_plan(monkeypatch):
    """A planning stage's graphs (Triton's store phases and segments) are IR the runner
    verifies too: a broken one is raised naming the stage that made it."""
    from types import SimpleNamespace

    from astcompile.ir.graph import Graph, Node, VerifyError
    from astcompile.ir.ops import Op
    from astcompile.targets.c.c_backend import CBackend

    graph = trace_callable(lambda x: x + 1.0, [np.ones(3)])
    (out,) = graph.outputs
    add = Node(Op.ADD, out.inputs[:1], out.dtype, out.shape)  # an ADD missing an input
    broken = Graph("phase", graph.inputs, [add], [], [])

    def plans(work):
        work.schedule = SimpleNamespace(parts=lambda: [(broken, None)])

    monkeypatch.setattr(pipeline, "TARGET_STAGES", (pipeline.Stage("plans", plans, "a bug"),))
    with pytest.raises(VerifyError, match=r"after plans: .* has 1 inputs"):
        pipeline.run_target_stages(graph, CBackend())


def test_a_failing_target_stage_is_a_compile_error_naming_the_region(monkeypatch):
    from astcompile.targets.c.c_backend import CBackend

    def broken(self, work):
        raise RuntimeError("lowering exploded")

    monkeypatch.setattr(CBackend, "lower", broken)

    def add(x):
        return x + 1

    with pytest.raises(astcompile.CompileError, match="__ac_region_0: RuntimeError: lowering"):
        astcompile.compile(add, backend="c")(np.ones(2))


@pytest.mark.skipif(not TRITON, reason="triton is not installed")
def test_the_scans_stage_folds_scan_loops_beside_the_graph_and_is_verified(monkeypatch):
    """Scan folding is a stage of the one list, not a step inside Triton's ``accept``: the graph
    with its cumsum loop as a scan step, kept beside the traced graph (C, handed a graph Triton
    refuses, compiles the loop), only for a target with scan kernels, and verified."""
    from astcompile.ir.graph import Graph, VerifyError
    from astcompile.passes import scans
    from astcompile.targets.triton.triton_backend import TritonBackend

    graph = astcompile.explain(astcompile.compile(running, backend="eager"), np.arange(6.0))
    graph = graph.graphs[0]
    work = pipeline.run_target_stages(graph, TritonBackend(), stop_before="accept")
    assert "cumsum" in str(work.scans) and not work.scans.effects and work.graph.effects
    c = astcompile.targets.get_backend("c")
    assert pipeline.run_target_stages(graph, c, stop_before="lower").scans is None
    monkeypatch.setattr(config, "verify_ir", True)
    lost = Graph(graph.name, [], work.scans.outputs, [], [])  # its input is no longer one
    monkeypatch.setattr(scans, "fold_scans", lambda g: lost)
    with pytest.raises(VerifyError, match="after scans"):
        pipeline.run_target_stages(graph, TritonBackend(), stop_before="accept")
