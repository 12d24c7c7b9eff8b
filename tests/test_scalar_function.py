"""A recursive function on ints and floats runs as one recursive C function
(targets/c/scalar_function.py, jit/scalar_calls.py), with Python's answer or Python's error."""

from __future__ import annotations

import sys
import types

import pytest

import astcompile
from astcompile.jit import scalar_calls
from astcompile.targets.c import scalar_function
from tests.differential import assert_same_value


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def hanoi(n, src, dst, via):
    if n == 0:
        return 0
    return hanoi(n - 1, src, via, dst) + 1 + hanoi(n - 1, via, dst, src)


def power2(n):
    if n == 0:
        return 1
    return 2 * power2(n - 1)


def floors(a, b):
    """Python's // and % on negative numbers, through the recursion."""
    if a <= 0:
        return a % b + a // b
    rest = floors(a - 7, b)
    return rest + a % b - a // b


def shares(n, d):
    if n == 0:
        return 0.0
    return shares(n - 1, d) + n / d


def halve(x, n):
    if n == 0 or x != x:
        return x
    y = x * 0.5 + 1.0 if x > 0 else -x
    return halve(y, n - 1)


def depth(n):
    if n == 0:
        return 0
    return depth(n - 1) + 1


def _as_decorated(fn):
    """``fn`` compiled as ``@astcompile.compile`` leaves it: its name means the compiled one."""
    namespace = dict(fn.__globals__)
    clone = types.FunctionType(fn.__code__, namespace, fn.__name__)
    namespace[fn.__name__] = compiled = astcompile.compile(clone, backend="c")
    return compiled


def _ran_in_c(compiled, *args) -> bool:
    entry = compiled._impl.entries.get(tuple(map(type, args)))
    return entry is not None and entry is not False


@pytest.mark.parametrize(
    "fn, calls",
    [
        (fib, [(0,), (1,), (15,), (-3,)]),
        (hanoi, [(0, 0, 2, 1), (10, 0, 2, 1)]),
        (floors, [(30, 4), (30, -4), (-5, 3), (29, -7)]),
        (shares, [(5, 4), (7, -3)]),
        (halve, [(3.0, 10), (-2.5, 4), (float("inf"), 3), (float("nan"), 2)]),
    ],
)
def test_the_c_function_gives_python_s_answer(fn, calls):
    compiled = _as_decorated(fn)
    for args in calls:
        assert_same_value(compiled(*args), fn(*args))
        assert _ran_in_c(compiled, *args)


@pytest.mark.parametrize(
    "fn, args, error",
    [
        (power2, (70,), None),  # 2**70: past int64, Python's int
        (floors, (30, 0), ZeroDivisionError),
        (shares, (3, 0), ZeroDivisionError),
        (floors, (3, 2**70), None),  # an argument outside int64
        (depth, (sys.getrecursionlimit() + 100,), RecursionError),
    ],
)
def test_what_c_cannot_answer_runs_as_written(fn, args, error):
    compiled = _as_decorated(fn)
    warm = (5, *(1 for _ in args[1:]))
    assert_same_value(compiled(*warm), fn(*warm))
    assert _ran_in_c(compiled, *warm)
    if error is not None:
        with pytest.raises(error):
            compiled(*args)
        return
    assert_same_value(compiled(*args), fn(*args))


def test_other_argument_types_run_as_written():
    compiled = _as_decorated(fib)
    assert_same_value(compiled(True), fib(True))
    assert_same_value(compiled(7.0), fib(7.0))  # floats: another C function, or as written
    assert not _ran_in_c(compiled, True)


def test_a_name_bound_to_something_else_runs_as_written():
    """Its recursive calls reach what the name means now, as the user's code does."""
    compiled = _as_decorated(fib)
    assert compiled(10) == 55
    compiled.fn.__globals__["fib"] = lambda n: 100
    assert compiled(10) == 200


@pytest.mark.parametrize(
    "source",
    [
        "def f(n):\n    if n < 2:\n        return n\n    return f(n - 1) ** 2\n",
        "def f(n):\n    if n < 2:\n        return n < 1\n    return f(n - 1)\n",
        "def f(n):\n    if n < 2:\n        return 1\n    return f(n - 1) + 0.5\n",
        "def f(n):\n    if n < 2.0:\n        return 1\n    return f(n - 1)\n",
        "def f(n):\n    if n > 2:\n        return f(n - 1)\n",
        "def f(n):\n    if n > 2:\n        k = 1\n    return f(n - 1) + k\n",
        "def f(n):\n    return f(n - 1) + N\n",
    ],
    ids=[
        "power",
        "bool-result",
        "two-result-types",
        "int-float-compare",
        "falls-off",
        "unbound",
        "global",
    ],
)
def test_refused_for_ints(source):
    """What C would not answer as Python does is refused: the function runs as written."""
    import ast

    fdef = ast.parse(source).body[0]
    with pytest.raises(scalar_function.Refused):
        scalar_function.emit(fdef, ("int",))


def test_only_recursive_scalar_functions_take_the_c_path():
    import ast

    def tree(source):
        return ast.parse(source).body[0]

    assert scalar_function.scalar_shaped(tree("def f(n):\n    return 1 if n < 1 else f(n - 1)\n"))
    assert not scalar_function.scalar_shaped(tree("def f(n):\n    return n + 1\n"))
    assert not scalar_function.scalar_shaped(tree("def f(n):\n    return f(n[0])\n"))
    assert not scalar_function.scalar_shaped(tree("def f(n):\n    print(n)\n    return f(n)\n"))
    assert scalar_calls.for_function(_as_decorated(fib)) is not None


@pytest.mark.parametrize("decorator", ["@astcompile.compile", '@astcompile.compile(backend="c")'])
def test_a_function_decorated_as_users_write_it_takes_the_c_path(tmp_path, decorator):
    """The decorator line is not the function's statements: ``@astcompile.compile(...)`` (a
    call of something else) made every decorated recursion run as written, slower than plain."""
    from tests.module_helpers import load_module

    module = load_module(
        tmp_path,
        f"decorated_fib_{len(decorator)}",
        f"""
        import astcompile

        {decorator}
        def fib(n):
            if n < 2:
                return n
            return fib(n - 1) + fib(n - 2)
        """,
    )
    assert module.fib(20) == fib(20)
    assert _ran_in_c(module.fib, 20)


def test_a_function_compiled_without_rebinding_its_name_takes_the_c_path():
    """``fast = astcompile.compile(fib)``: the name ``fib`` still means the plain function,
    whose answer is the compiled one's. Each level went through ``__ac_call`` to a second
    compiled copy: 30-100x slower than plain with tiering off."""
    compiled = astcompile.compile(fib, backend="c")
    assert_same_value(compiled(20), fib(20))
    assert _ran_in_c(compiled, 20)


def test_floats_compare_quietly_ints_with_operators():
    """C's ``>`` on NaN raises the invalid flag, Python's comparison gives False silently: the
    float comparisons are ``__builtin_isgreater`` & co.; ints keep C's operators."""
    halve_c = scalar_function.emit(scalar_function.function_tree(halve), ("float", "int")).source
    assert "__builtin_isgreater(v_x, 0.0)" in halve_c and "(v_n == INT64_C(0))" in halve_c
    fib_c = scalar_function.emit(scalar_function.function_tree(fib), ("int",)).source
    assert "(v_n < INT64_C(2))" in fib_c and "__builtin_is" not in fib_c
    compiled = astcompile.compile(halve)
    for x in (float("nan"), -0.0, 0.0, float("inf"), -float("inf"), 3.0):
        assert_same_value(compiled(x, 4), halve(x, 4))
