"""The plain twin of a function calling itself by name (frontend/self_calls.py, jit/routes.py):
its recursion runs without our object between two levels, and stays the user's program when
the name, the code or the defaults change."""

from __future__ import annotations

import sys
import traceback
import types

import pytest
from test_tiering import clock  # noqa: F401 - the fixture: a test clock, plain 10x faster

import astcompile
from astcompile.frontend.self_calls import plain_twin
from astcompile.jit import routes, tiering


def det(m):
    n = len(m)
    if n == 1:
        return m[0][0]
    total = 0.0
    for j in range(n):
        minor = [row[:j] + row[j + 1 :] for row in m[1:]]
        total += (-1) ** j * m[0][j] * det(minor)
    return total


def depth(xs, step=1):
    if not xs:
        return 0
    return 1 + depth(xs[step:], step)


def checked(n):
    if n == 0:
        raise ValueError("bottom")
    return checked(n - 1)


M = [[2.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 4.0]]


def _decorated(fn):
    """``fn`` as ``@astcompile.compile`` leaves it (its name means the compiled function), run
    until measuring chose plain; with the namespace its name lives in."""
    namespace = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)
    namespace[fn.__name__] = compiled = astcompile.compile(clone, backend="c")
    return compiled, namespace


def _plain(compiled, *args):
    for _ in range(tiering.WARMUP_CALLS - 1 + 2 * tiering.ROUNDS):
        compiled(*args)
    assert compiled._tier.plain or compiled._tier.choice is None  # chosen, or nothing to measure


def _frames_of(code, call):
    """How many frames of ``code`` ``call()`` runs, and its result."""
    seen = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is code:
            seen.append(frame)

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return len(seen), result


def test_the_plain_route_of_a_recursion_is_its_twin(clock, runs):  # noqa: F811
    """Routed, no level of the recursion runs the user's function through our object: every
    level is the twin's (the same lines), and the answer is the plain one."""
    f, _ = _decorated(det)
    _plain(f, M)
    if not hasattr(f, "current_route"):
        assert runs(f) is f.fn  # through a class, nothing watches the user's code
        return
    twin = runs(f)
    assert twin is routes.plain_twin(f) and twin is not f.fn
    assert (twin.__name__, twin.__qualname__) == (det.__name__, det.__qualname__)
    assert twin.__code__.co_firstlineno == det.__code__.co_firstlineno
    assert _frames_of(f.fn.__code__, lambda: f(M)) == (0, det(M))
    assert _frames_of(twin.__code__, lambda: f(M))[0] == _frames_of(det.__code__, lambda: det(M))[0]


def test_a_rebound_name_is_called_at_once(clock, runs):  # noqa: F811
    """Inside the recursion the name is read at each call, as the user's function reads it."""
    f, namespace = _decorated(depth)
    _plain(f, [1] * 5)
    namespace["depth"] = lambda xs, step=1: 100
    assert f([1] * 5) == 101
    namespace["depth"] = f
    assert f([1] * 5) == 5


def test_swapped_code_and_defaults_run_as_the_user_set_them(clock, runs):  # noqa: F811
    f, _ = _decorated(depth)
    _plain(f, [1] * 6)
    f.fn.__defaults__ = (2,)
    assert f([1] * 6) == 3
    f.fn.__defaults__ = (1,)
    assert f([1] * 6) == 6
    swap = "def depth(xs, step=1):\n    return -len(xs)\n"
    namespace_of_swap: dict = {}
    exec(swap, namespace_of_swap)  # noqa: S102 - code, as autoreload assigns it
    f.fn.__code__ = namespace_of_swap["depth"].__code__
    assert f([1] * 6) == -6


def test_tracebacks_name_the_user_s_lines(clock, runs):  # noqa: F811
    f, _ = _decorated(checked)
    for _ in range(tiering.WARMUP_CALLS - 1 + 2 * tiering.ROUNDS):
        with pytest.raises(ValueError):
            f(3)
    with pytest.raises(ValueError) as ours:
        f(3)
    with pytest.raises(ValueError) as plain:
        checked(3)
    where = [(t.filename, t.lineno, t.line) for t in traceback.extract_tb(ours.tb)]
    user = [(t.filename, t.lineno, t.line) for t in traceback.extract_tb(plain.tb)]
    assert where[-4:] == user[-4:]


def shadowing(n):
    if n > 0:
        return shadowing(n - 1)
    return sum(shadowing(v) for shadowing in (abs,) for v in (n,))  # another function there


def test_a_twin_is_the_function_calling_its_twin():
    twin = plain_twin(depth, depth)
    assert twin([1] * 4) == depth([1] * 4) == 4 and twin.__defaults__ == (1,)
    assert twin.__code__.co_freevars == ("__ac_twin", "__ac_wrapper")


def test_no_twin_where_the_name_may_mean_another_thing():
    """Bound in the function (or a nested scope), a method, never called, or without source:
    no twin."""
    namespace: dict = {}
    exec("def again(n):\n    return again(n - 1) if n else 0\n", namespace)  # noqa: S102
    assert plain_twin(namespace["again"], namespace["again"]) is None
    assert plain_twin(shadowing, shadowing) is None

    def passed_on(n):
        return map(passed_on, range(n))

    class Tree:
        def size(self, n):
            return 0 if n == 0 else Tree.size(self, n - 1)

    assert plain_twin(passed_on, passed_on) is None
    assert plain_twin(Tree.size, Tree) is None


def test_a_twin_keeps_the_function_s_closure(clock, runs):  # noqa: F811
    """A function calling itself through a closure cell: the twin reads the same cell."""
    offset = [10]

    def make():
        def walk(n):
            return offset[0] if n == 0 else walk(n - 1) + 1

        return walk

    inner = make()
    f = astcompile.compile(inner, backend="c")
    inner.__closure__[inner.__code__.co_freevars.index("walk")].cell_contents = f
    _plain(f, 4)
    assert f(4) == 14
    offset[0] = 20
    assert f(4) == 24
