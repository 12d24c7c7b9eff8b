"""The front end's import on a thread of its own (jit/preload.py): a first call waits for it
only as long as its budget has left, then runs as written; a later call rewrites once the
import is done and the budget has paid back."""

from __future__ import annotations

import inspect
import math
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from differential import assert_same_value

import astcompile
from astcompile.jit import background, preload


def smooth(x):
    y = np.exp(-x * x) * 0.5 + np.sin(x)
    return y / (1.0 + np.abs(y))


@pytest.fixture
def slow_import(monkeypatch, tmp_path):
    """A front end whose import ends when the test releases it (a loaded machine's 1 s)."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    release = threading.Event()

    def load() -> None:
        release.wait(10)
        preload._import_frontend()

    monkeypatch.setattr(preload, "FRONTEND", preload.Preload(load))
    yield release
    release.set()
    background.wait()


def test_a_first_call_waits_for_the_import_only_within_the_budget(slow_import, monkeypatch):
    monkeypatch.setattr(astcompile.config, "compile_budget", 0.05)
    x = np.linspace(-2, 2, 500)
    f = astcompile.compile(smooth, backend="c")
    assert_same_value(f(x), smooth(x))  # as written: the import did not end in time
    assert f.regions == [] and f.budget.spent >= 0.05 and f.budget.waited > 0
    assert_same_value(f(x), smooth(x))  # still imported elsewhere: as written again
    assert f.regions == []

    slow_import.set()
    assert preload.FRONTEND.done.wait(10)
    assert_same_value(f(x), smooth(x))  # imported, but the budget is spent: the rewrite waits
    assert f.regions == []
    f.budget.waited = f.budget.spent + 60  # as if it had run that long: compiling goes on
    assert_same_value(f(x), smooth(x))
    assert len(f.regions) == 1 and f.regions[0].stats.traces == 1


def countdown(n, x):
    return x.sum() if n == 0 else countdown(n - 1, x) + 1.0


def test_a_recursion_while_the_front_end_is_imported_goes_as_deep_as_plain(
    slow_import, monkeypatch
):
    """A call run as written while the import goes on calls itself by its name (the compiled
    object) with no frame of ours: it raised RecursionError at a fifth of plain's depth."""
    monkeypatch.setattr(astcompile.config, "compile_budget", 0.01)
    x, depth = np.ones(3), sys.getrecursionlimit() // 4
    expected = countdown(depth, x)
    monkeypatch.setattr(sys.modules[__name__], "countdown", astcompile.compile(countdown))
    assert countdown(depth, x) == expected
    assert countdown.regions == [] and countdown in preload._awaiting


def test_without_a_budget_the_call_imports_the_front_end_itself(slow_import, monkeypatch):
    """Tests, explain, verify and ``astcompile build`` (``inf``), like ``fullgraph=True``,
    compile on the first call as before: the import is the call's own."""
    monkeypatch.setattr(astcompile.config, "compile_budget", math.inf)
    x = np.linspace(-2, 2, 500)
    f = astcompile.compile(smooth, backend="c")
    assert_same_value(f(x), smooth(x))
    assert f.regions[0].stats.compiled_calls == 1
    assert preload.FRONTEND.done.is_set()


def test_fullgraph_imports_the_front_end_in_its_first_call(slow_import, monkeypatch):
    monkeypatch.setattr(astcompile.config, "compile_budget", 0.0)
    x = np.linspace(-2, 2, 500)
    f = astcompile.compile(smooth, backend="c", fullgraph=True)
    assert_same_value(f(x), smooth(x))
    assert len(f.regions) == 1


def test_a_run_that_never_waited_long_enough_leaves_its_rewrite_for_the_next(tmp_path):
    """A one-call run whose front end came too late: the call runs as written, the program's
    end rewrites the function, and the next process starts from that rewrite (no analysis)."""
    (tmp_path / "smoothing.py").write_text("import numpy as np\n\n\n" + inspect.getsource(smooth))
    code = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, smoothing
        from astcompile.jit import preload
        if sys.argv[1] == "late":
            def load():
                time.sleep(1.0)
                preload._import_frontend()
            preload.FRONTEND = preload.Preload(load)
        f = astcompile.compile(smoothing.smooth, backend="c")
        f(np.linspace(-2, 2, 50))
        print(len(f.regions), "analysis" in astcompile.compile_times())
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env |= {"ASTCOMPILE_COMPILE_BUDGET": "0.05", "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run([sys.executable, "-c", code, when], capture_output=True, text=True, env=env)
        for when in ("late", "next")
    ]
    assert [r.stdout.split() for r in runs] == [["0", "False"], ["1", "False"]], runs


def test_ctrl_c_while_the_end_waits_for_the_import_exits_as_plain_does(tmp_path):
    """The program's end waits for a late import to rewrite its functions; a Ctrl-C then
    stops the wait without a traceback of ours, the exit status and the user's own atexit
    handlers as they are plain."""
    (tmp_path / "smoothing.py").write_text("import numpy as np\n\n\n" + inspect.getsource(smooth))
    code = textwrap.dedent(f"""
        import atexit, signal, sys, time
        signal.signal(signal.SIGINT, signal.default_int_handler)  # ignored where it was started
        atexit.register(lambda: print("before", flush=True))
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, smoothing
        from astcompile.jit import preload
        def load():
            time.sleep(30)
            preload._import_frontend()
        preload.FRONTEND = preload.Preload(load)
        atexit.register(lambda: print("after", flush=True))
        astcompile.compile(smoothing.smooth, backend="c")(np.linspace(-2, 2, 50))
        print("done", flush=True)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env |= {"ASTCOMPILE_COMPILE_BUDGET": "0.01", "ASTCOMPILE_CACHE_DIR": str(tmp_path / "c")}
    run = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert run.stdout.readline() == "done\n"
    time.sleep(0.5)  # in the end's wait for the import
    run.send_signal(signal.SIGINT)
    assert (run.stdout.read(), run.wait(timeout=20)) == ("after\nbefore\n", 0)
