"""Total time, not steady state (jit/budget.py, jit/background.py): compiling in the caller's
thread stops at the budget; past it, builds go to the background and traces wait until the time
run plain pays for them. Results are the plain function's throughout."""

from __future__ import annotations

import inspect
import math
import os
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
from differential import assert_same_value

import astcompile
from astcompile.jit import background, preload
from astcompile.runtime import timing
from tests.c_helpers import forked_results


def smooth(x):
    y = np.exp(-x * x) * 0.5 + np.sin(x)
    return y / (1.0 + np.abs(y))


def norms(arrays, out):
    for k, a in enumerate(arrays):
        print(end="")  # the loop stays in Python: the region below misses once per dtype
        out[k] = np.sqrt((a * a + 1).sum())
    return out


@pytest.fixture
def budget(monkeypatch, tmp_path):
    """Sets ``config.compile_budget``; the cache is the test's own (nothing comes warm). The
    front end is imported, as after a first compile (its import's wait: tests/test_preload.py)."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    preload.import_frontend(None)

    def set_to(seconds: float) -> None:
        monkeypatch.setattr(astcompile.config, "compile_budget", seconds)

    yield set_to
    background.wait()  # no build of this test outlives it


def _sole(compiled):
    (region,) = compiled.regions
    return region


def test_past_the_budget_a_region_waits_then_builds_in_the_background(budget):
    budget(0.0)
    x = np.linspace(-2, 2, 5000)
    f = astcompile.compile(smooth, backend="c")
    assert_same_value(f(x), smooth(x))  # the rewrite spent the budget: the statements ran
    region = _sole(f)
    assert region.stats.traces == 0 and region.stats.eager_calls == 1
    assert f.budget.waited > 0

    f.budget.waited = f.budget.spent + 1e-9  # as if it had waited that long, run plain
    assert_same_value(f(x), smooth(x))  # traced here; the trace spent it again: built elsewhere
    assert region.stats.traces == 1
    background.wait()
    assert not region.pending and region.entries
    assert_same_value(f(x), smooth(x))
    assert region.stats.compiled_calls == 1


def test_the_budget_bounds_what_a_first_call_compiles(budget, monkeypatch, tmp_path):
    """Eight dtypes, eight regions to build (each a C compile): at the default budget the
    first call builds a few, then runs the statements; without one it builds all eight. (A
    tenth of a second: eight C builds take more, however fast the machine.)"""
    arrays = [np.arange(6).astype(t) for t in "bBhHiIlf"]
    budget(0.1)
    f = astcompile.compile(norms, backend="c")
    assert_same_value(f(arrays, np.zeros(8)), norms(arrays, np.zeros(8)))
    (region,) = f.regions
    assert region.stats.traces < len(arrays)
    assert f.budget.spent < 0.1 + 2.0  # the floor, and the one compile that crossed it
    background.wait()  # a build f's call stopped waiting for writes into the cache it finds
    budget(float("inf"))
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "again"))
    g = astcompile.compile(norms, backend="c")
    assert_same_value(g(arrays, np.zeros(8)), norms(arrays, np.zeros(8)))
    assert g.regions[0].stats.traces == len(arrays)


def test_fullgraph_traces_on_the_first_call_whatever_the_budget(budget):
    budget(0.0)

    def breaks(x, items):
        for i in range(3):
            items[i] = x  # writes into a list it was given: a break only tracing sees
        return x

    f = astcompile.compile(breaks, backend="c", fullgraph=True)
    with pytest.raises(astcompile.GraphBreakError):
        f(np.ones(3), [0, 0, 0])


def test_explain_shows_the_compiled_code_whatever_the_budget(budget):
    budget(0.0)
    x = np.linspace(0, 1, 100)
    out = astcompile.explain(astcompile.compile(smooth, backend="c"), x)
    assert out.graph_count == 1
    assert_same_value(out.out, smooth(x))


def test_a_forked_child_forgets_builds_left_in_the_parent(budget):
    budget(0.0)
    x = np.linspace(-1, 1, 2000)
    f = astcompile.compile(smooth, backend="c")
    f(x)
    f.budget.waited = f.budget.spent + 1e-9
    region = _sole(f)
    f(x)  # traced; its build queued on the parent's background thread
    assert region.stats.traces == 1

    def child(queue):
        queue.put((sorted(region.pending), bool(np.allclose(f(x), smooth(x)))))

    assert forked_results(child) == [([], True)] * 2


def test_a_program_gets_the_budget_unless_it_says_otherwise():
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "ASTCOMPILE_COMPILE_BUDGET"}
    code = "import astcompile; print(astcompile.config.compile_budget)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert run.stdout.strip() == "0.5"


def _slow_compiler(tmp_path, then: str = 'exec gcc "$@"') -> str:
    """A C compiler that takes two seconds (a big program, a loaded machine), then ``then``."""
    cc = tmp_path / "slow-cc"
    cc.write_text(f"#!/bin/sh\nsleep 2\n{then}\n")
    cc.chmod(0o755)
    return str(cc)


def test_a_slow_build_does_not_hold_the_first_call_past_the_budget(budget, monkeypatch, tmp_path):
    """The trace fits the budget, the build does not: the call waits for it only as long as
    the budget has left, runs the statements, and the build goes on in the background."""
    budget(0.5)
    x = np.linspace(-2, 2, 50)
    astcompile.compile(smooth, backend="c")(x)  # the analysis and tracer imported: a warm start
    monkeypatch.setenv("CC", _slow_compiler(tmp_path))
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "slow"))
    f = astcompile.compile(smooth, backend="c")
    assert_same_value(f(x), smooth(x))
    region = _sole(f)
    assert region.stats.traces == 1 and region.stats.eager_calls == 1 and region.pending
    background.wait()
    assert_same_value(f(x), smooth(x))
    assert region.stats.compiled_calls == 1


def test_a_build_done_within_the_budget_is_the_first_calls_own(budget, monkeypatch, tmp_path):
    """Built on the background thread within the budget: the call runs compiled, and a build
    error is raised in it, as when the build runs in the call's thread."""
    budget(30.0)
    x = np.linspace(-2, 2, 50)
    f = astcompile.compile(smooth, backend="c")
    assert_same_value(f(x), smooth(x))
    assert _sole(f).stats.compiled_calls == 1 and not _sole(f).pending
    monkeypatch.setenv("CC", _slow_compiler(tmp_path, then="exit 3"))
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "failing"))
    with pytest.raises(astcompile.CompileError, match="exit 3"):
        astcompile.compile(smooth, backend="c")(x)


def test_a_build_the_call_stopped_waiting_for_is_finished_at_exit(tmp_path):
    """A one-call run whose build outlasts the budget: the call runs plain, the program's end
    waits for the build, and the next process finds it in the cache (a warm start)."""
    (tmp_path / "smoothing.py").write_text("import numpy as np\n\n\n" + inspect.getsource(smooth))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, smoothing
        f = astcompile.compile(smoothing.smooth, backend="c")
        f(np.linspace(-2, 2, 50))
        print(f.regions[0].stats.compiled_calls, "libcst" in sys.modules)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env |= {"ASTCOMPILE_COMPILE_BUDGET": "2", "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    env |= {"CC": _slow_compiler(tmp_path, then='sleep 2; exec gcc "$@"')}
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        for _ in range(2)
    ]
    assert [r.stdout.split() for r in runs] == [["0", "True"], ["1", "False"]], runs


class _LooksLate(set):
    """Pending keys the calling thread sees only once the background thread is idle."""

    def __contains__(self, key: object) -> bool:
        background.wait()
        return set.__contains__(self, key)


def test_a_build_done_before_its_call_looks_is_still_that_calls(budget):
    """The build may be done (its key no longer pending) before the call that traced it looks:
    the call still takes its entry and runs compiled, as if built in its thread."""
    budget(30.0)
    x = np.linspace(-2, 2, 50)
    f = astcompile.compile(smooth, backend="c")
    f(x)
    region = _sole(f)
    region.pending = _LooksLate()
    assert_same_value(f(x.astype(np.float32)), smooth(x.astype(np.float32)))  # a new key
    assert region.stats.traces == 2 and region.stats.compiled_calls == 2


def test_a_call_that_runs_statements_put_off_is_no_steady_state_sample(budget):
    """Tiering drops a sampled call whose regions ran their statements while compiled code
    was put off or built: timing it as the compiled path made a loop 400x faster compiled
    settle on plain while its build ran in the background. It is marked as a wait, not as a
    compile: the calls after it wait the same way, so they need not all be samples."""
    budget(0.0)
    x = np.linspace(-2, 2, 5000)
    f = astcompile.compile(smooth, backend="c")
    events, waits = timing.events, timing.waits
    assert_same_value(f(x), smooth(x))  # the rewrite spent the budget: the statements ran
    assert _sole(f).stats.eager_calls == 1
    assert timing.waits != waits
    events = timing.events
    assert_same_value(f(x), smooth(x))  # still put off: nothing compiles in it
    assert timing.events == events


def test_a_function_with_nothing_compiled_runs_as_written_while_put_off(budget):
    """No region of it can run compiled: its calls are the user's function, timed, and the
    whole call's time pays the budget back (its region's statements are all it ran, through
    guards and a wait each call: a 2 µs function ran 5x slower); once paid, it compiles, and
    runs as written again until that build lands, then compiled."""
    budget(0.0)
    x = np.linspace(-2, 2, 5000)
    f = astcompile.compile(smooth, backend="c")
    f(x)  # the rewrite spent the budget: the region waited, and the function waits now
    region, budget_of = _sole(f), f.budget
    assert f.waiting is not None
    waited = budget_of.waited
    start = time.perf_counter()
    for _ in range(3):
        assert_same_value(f(x), smooth(x))
    elapsed = time.perf_counter() - start
    assert region.stats.eager_calls == 1  # not through the region: the function as written
    assert 0 < budget_of.waited - waited <= elapsed

    budget_of.waited = budget_of.waited_to_resume() + 1e-9  # as if it had run that long
    assert_same_value(f(x), smooth(x))  # measured again: traced, built elsewhere
    assert region.stats.traces == 1
    # as written again until its build lands: at once where this process loaded the same
    # kernel before (an earlier test's), in a build of a few ms
    assert f.waiting.until in (math.inf, -math.inf)
    background.wait()
    assert f.waiting.until == -math.inf
    assert_same_value(f(x), smooth(x))
    assert region.stats.compiled_calls == 1 and f.waiting is None


def test_waiting_changes_no_result(budget):
    """On the waiting path a call is the user's function: in-place writes, exceptions and a
    call of itself are the plain function's."""
    budget(0.0)

    def scale(x, k):
        if k < 0:
            raise ValueError("negative")
        x *= 2.0
        return x.sum() + k

    f = astcompile.compile(scale, backend="c")
    x, y = np.arange(5.0), np.arange(5.0)
    assert f(x, 1) == scale(y, 1)
    assert f.waiting is not None
    assert f(x, 2) == scale(y, 2)
    np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="negative"):
        f(x, -1)


def test_a_build_that_lands_as_the_function_starts_waiting_still_resumes_it(budget, monkeypatch):
    """The build's ``resume`` can run between ``waiting.enter`` finding no compiled code and
    its switching the function over (the background thread takes the GIL there): it found no
    waiting state then, and the function waited for that build forever, run as written."""
    from astcompile.jit import waiting

    budget(0.0)
    x = np.linspace(-2, 2, 5000)
    f = astcompile.compile(smooth, backend="c")
    f(x)  # the rewrite spent the budget: waiting
    f.budget.waited = f.budget.waited_to_resume() + 1e-9  # paid back: the next call traces
    applies = waiting._applies

    def landing_meanwhile(owner):
        found = applies(owner)
        background.wait()  # its build lands here, before the switch
        return found

    monkeypatch.setattr(waiting, "_applies", landing_meanwhile)
    assert_same_value(f(x), smooth(x))  # traced; built in the background; waits
    monkeypatch.setattr(waiting, "_applies", applies)
    for _ in range(3):
        assert_same_value(f(x), smooth(x))
    assert _sole(f).stats.compiled_calls >= 1


def test_a_forked_child_resumes_a_function_waiting_for_a_build_left_in_the_parent(
    budget, monkeypatch, tmp_path
):
    """The child forgets the parent's pending builds: a function waiting for one of them ran
    as written in the child for good (nothing there would ever land to resume it)."""
    budget(math.inf)
    x = np.linspace(-1, 1, 2000)
    astcompile.compile(smooth, backend="c")(x)  # the compiler's modules imported: a warm start
    budget(0.0)
    monkeypatch.setenv("CC", _slow_compiler(tmp_path))
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "slow"))
    f = astcompile.compile(smooth, backend="c")
    f(x)  # the rewrite spent the budget: waiting
    f.budget.waited = f.budget.waited_to_resume() + 1e-9
    f(x)  # traced; its build goes on in the parent's background: waiting for it
    assert f.waiting.until == math.inf
    region = _sole(f)

    def child(queue):
        f.budget.waited = f.budget.waited_to_resume() + 1e-9  # paid back (the trace cost)
        f(x)  # measured again: traced and built in the child's own background
        background.wait()
        same = all(np.allclose(f(x), smooth(x)) for _ in range(5))  # one may time plain
        queue.put((same, region.stats.compiled_calls > 0, f.waiting is None))

    assert forked_results(child, count=1) == [(True, True, True)]


def test_a_child_forked_while_a_build_imports_a_pass_imports_it_again(budget, monkeypatch):
    """The build thread imports each graph pass when it first runs it: a fork in the middle
    left that module half made in the child, whose every build then failed ("partially
    initialized module"), warned, and ran as written."""
    import importlib.machinery
    import types

    from astcompile.passes import pass_list

    budget(math.inf)
    (cse,) = [step for name, step, _ in pass_list.PIPELINE if name == "cse"]
    half = types.ModuleType("astcompile.passes.cse")  # as the parent's build thread left it
    half.__spec__ = importlib.machinery.ModuleSpec("astcompile.passes.cse", None)
    half.__spec__._initializing = True
    monkeypatch.setitem(sys.modules, "astcompile.passes.cse", half)
    monkeypatch.setattr(cse, "fn", None)
    x = np.linspace(-1, 1, 200)

    def child(queue):
        f = astcompile.compile(smooth, backend="c")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            queue.put((bool(np.allclose(f(x), smooth(x))), _sole(f).stats.compiled_calls))

    assert forked_results(child, count=1) == [(True, 1)]
