"""jit/dispatch.py: a compiled function calling itself. Past its compiled levels a recursion
costs what the plain function's does, also where the function's own name (the decorator's
result) means the compiled object: the recursion limit is reached as deep as plain. A user
function called from eager code keeps its route, until its code or the marks change."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

import astcompile
from astcompile.jit import dispatch

MODULE = """\
import astcompile


{decorator}
def binom(n, k, memo):
    if k == 0 or k == n:
        return 1
    key = (n, k)
    if key not in memo:
        memo[key] = binom(n - 1, k - 1, memo) + binom(n - 1, k, memo)
    return memo[key]
"""


def _binom(tmp_path, decorator=""):
    """``binom`` in a module of its own, as a user writes it (decorated, or plain)."""
    path = tmp_path / ("pascal_compiled.py" if decorator else "pascal_plain.py")
    path.write_text(MODULE.format(decorator=decorator))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.binom


#: How deep each way of switching paths goes: by route the compiled object's call is the
#: user's function at C level (no frame of ours); by class a C call of a Python object
#: counts one level of the limit more, in CPython, on every level, plain-path ones too.
DEPTHS = {"routed": (200, 900), "class": (200, 440)}


@pytest.mark.parametrize("backend", ["eager", "c"])
def test_a_decorated_recursion_goes_as_deep_as_the_plain_function(tmp_path, backend, runs):
    compiled = _binom(tmp_path, f"@astcompile.compile(backend={backend!r})")
    plain = _binom(tmp_path)
    mode = "routed" if getattr(compiled, "current_route", None) is not None else "class"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default
    try:
        for n in DEPTHS[mode]:
            assert compiled(n, n // 2, {}) == plain(n, n // 2, {})
    finally:
        sys.setrecursionlimit(limit)
    assert runs(compiled) is not compiled.fn  # back on the measuring path
    assert compiled(12, 6, {}) == 924


def named_like_ours(callee, self=1.0, func=2.0, fn=3.0):
    print("eager")  # not traced: the compiled function's eager code calls it
    return callee + self + func + fn


def calls_by_our_names(x):
    t = 0.0
    for i in range(x.shape[0]):
        t += x[i]
    u = named_like_ours(callee=1.0, self=2.0, func=3.0, fn=4.0)
    return t + u


def test_keywords_named_like_our_own_parameters_reach_the_callee(
    capsys: pytest.CaptureFixture,
) -> None:
    """A callee's parameters named ``callee``, ``self``, ``func`` or ``fn``, passed by keyword
    from eager code (``__ac_call``) or to ``explain``: our own parameters are positional-only,
    so the keywords are the user's (they raised 'got multiple values for argument')."""
    x = np.arange(3.0)
    compiled = astcompile.compile(calls_by_our_names)
    for _ in range(2):
        assert compiled(x) == calls_by_our_names(x) == 13.0
    report = astcompile.explain(named_like_ours, callee=1.0, self=2.0, func=3.0, fn=4.0)
    assert report is not None  # it ran the function on the keywords


def digits_sum(i, base):
    total = 0
    while i > 0:
        total += i % base
        i //= base
    return total


def digit_sums(n):
    out = []
    for i in range(n):  # a break (print) on the call's line: eager code calling through __ac_call
        out.append(digits_sum(i, 3) if n >= 0 else print(end=""))
    return out


def _times_ten(i, base):
    return 10 * (i + base)


def test_a_routed_callee_follows_its_code_and_the_marks():
    """The route of ``digits_sum`` (its compiled function) is kept after the first call; a new
    ``__code__`` or an ``allow_in_graph`` mark decides it anew."""
    from astcompile import registry
    from astcompile.jit import dispatch

    compiled = astcompile.compile(digit_sums)
    assert compiled(30) == digit_sums(30)
    routes = [k for k in dispatch._cache() if k[0] == dispatch._ROUTE]
    assert routes and dispatch._cache()[routes[0]][0] is digits_sum
    code = digits_sum.__code__
    try:
        digits_sum.__code__ = _times_ten.__code__
        assert compiled(5) == digit_sums(5) == [30, 40, 50, 60, 70]
    finally:
        digits_sum.__code__ = code
    assert compiled(30) == digit_sums(30)
    version = registry.version
    astcompile.allow_in_graph(_times_ten)
    assert registry.version == version + 1
    assert compiled(30) == digit_sums(30)


def test_a_fresh_cache_is_used_while_still_empty():
    """``explain`` compiles the callees anew inside ``fresh_cache``: its cache starts empty, and
    an empty cache was taken for none (``or``), so the process's own callees were reused."""
    with dispatch.fresh_cache():
        assert dispatch._cache() == {} and dispatch._cache() is not dispatch._implicit
    assert dispatch._cache() is dispatch._implicit
