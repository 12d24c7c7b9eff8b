"""Rewrites owed to the next process (jit/outgrown.py): a function whose loops went to Python
after its last rewrite is rewritten at exit, so that the next process starts from it."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
import weakref

import pytest

import astcompile
from astcompile import pipeline
from astcompile.jit import outgrown, preload
from bench.programs import point_in_polygon


def test_a_failure_after_the_last_rewrite_leaves_the_next_rewrite_for_the_next_process(tmp_path):
    """Two calls: the first sends the outer loops to Python, the second finds a statement
    that runs as written, and no third call rewrites the function. The program's end saves
    that rewrite (the front end is imported already), so the next process starts from it
    without libcst; it found the failures remembered and imported libcst to rewrite before."""
    (tmp_path / "polygons.py").write_text(inspect.getsource(point_in_polygon))
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np, astcompile, polygons
        f = astcompile.compile(polygons.point_in_polygon, backend="c")
        xs = np.linspace(-1, 1, 7)
        poly = np.array([[0.0, -1.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
        for _ in range(2):
            assert (f(xs, xs[::-1], poly) == polygons.point_in_polygon(xs, xs[::-1], poly)).all()
        print("libcst" in sys.modules, "analysis" in astcompile.compile_times())
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env |= {"ASTCOMPILE_COMPILE_BUDGET": "inf", "ASTCOMPILE_CACHE_DIR": str(tmp_path / "cache")}
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        for _ in range(2)
    ]
    assert [r.stdout.split() for r in runs] == [["True", "True"], ["False", "False"]], runs


def double(x):
    return x * 2.0


@pytest.mark.parametrize("imported", [True, False])
def test_what_is_owed_is_rewritten_at_exit_only_where_the_front_end_is_imported(
    monkeypatch, imported
):
    """A process that found every rewrite in the cache imports no libcst at its end for one."""
    saved = []
    monkeypatch.setattr(outgrown, "_owed", weakref.WeakSet())  # owed by earlier tests: not ours
    front_end = preload.Preload(lambda: None)  # never started: a process that imported nothing
    if imported:
        front_end.done.set()
    monkeypatch.setattr(preload, "FRONTEND", front_end)
    monkeypatch.setattr(pipeline, "save_rewrite", saved.append)
    owner = astcompile.compile(double, backend="c")
    outgrown.rewrite_at_exit(owner)
    outgrown._save_owed()
    assert saved == ([owner] if imported else []) and not list(outgrown._owed)
