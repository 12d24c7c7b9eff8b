"""bench/calls.py's tiny-call table measures what it says: each side runs the path it names.

Not a timing test (timings live in the bench's output): the compiled functions it times must be
on the plain path, routed through ``Switch`` on one side and by their class on the other, and
compute what the plain functions compute."""

from __future__ import annotations

import math
import sys

import astcompile
from bench import calls


def test_tiny_calls_time_the_plain_path_both_ways(monkeypatch, capsys):
    monkeypatch.setattr(astcompile.config, "tiering", True)
    rows = calls.tiny_calls(rounds=1, calls=50)
    assert [r[0] for r in rows] == ["norm(x, y)", "norm(x, y, scale=2.0)", "point.length(y)"]
    assert all(0 < t < 1e-3 for row in rows for t in row[1:])
    assert "note" not in capsys.readouterr().out  # every compiled side ran plain
    for routed in (False, True):
        subjects = calls._tiny_subjects(routed)
        assert subjects["pos"](3.0, 4.0) == 5.0 and subjects["kw"](3.0, 4.0, scale=2.0) == 10.0
        assert math.isclose(subjects["method"].length(4.0), 5.0)
        assert calls._compiled(subjects["method"]) is type(subjects["method"]).length


def test_small_calls_time_each_side_it_names(monkeypatch):
    """The compiled side runs its call in C, the other in ``__call__``; all compute the sum."""
    monkeypatch.setattr(astcompile.config, "tiering", True)
    sides, x = calls.small_sides()
    assert {"plain", "compiled", "__call__ in Python", "guards alone"} <= set(sides)
    expected = sides["plain"](x)
    assert sides["guards alone"](x) == (expected,)
    frames = {}
    for name in ("compiled", "__call__ in Python", "made before the C call path was loaded"):
        seen = frames[name] = []
        sys.setprofile(lambda frame, event, arg, seen=seen: seen.append(frame.f_code.co_name))
        try:
            assert sides[name](x) == expected
        finally:
            sys.setprofile(None)
    assert "__call__" not in frames["compiled"] and "__call__" in frames["__call__ in Python"]
    assert "__call__" not in frames["made before the C call path was loaded"]
    assert set(calls.small_calls(rounds=1, calls=20)) == set(sides)


def test_binding_calls_time_one_region_against_the_rewritten_function(monkeypatch):
    """The compiled side binds its defaults and keywords in C (no Python frame), the other runs
    the rewritten function; every side computes what the plain function computes."""
    monkeypatch.setattr(astcompile.config, "tiering", True)
    sides, x = calls.binding_sides()
    assert sides["compiled"]._sole_region is not None
    assert sides["not one region"]._sole_region is None
    for call in (lambda f: f(x), lambda f: f(x, scale=2.0), lambda f: f(x, 2.0)):
        expected = call(sides["plain"])
        for name, fn in sides.items():
            assert call(fn) == expected, name
    frames = {}
    for name in ("compiled", "not one region"):
        seen = frames[name] = []
        sys.setprofile(lambda frame, event, arg, seen=seen: seen.append(frame.f_code.co_name))
        try:
            sides[name](x, scale=2.0)
        finally:
            sys.setprofile(None)
    assert "__call__" not in frames["compiled"] and "_full_call" in frames["not one region"]
    assert set(calls.binding_calls(rounds=1, calls=20)) == set(calls.BINDINGS)
