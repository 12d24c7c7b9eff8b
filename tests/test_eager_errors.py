"""Where a compiled function's error is raised (targets/eager_errors.py; the C target's
``raise_error`` and its NumPy steps, targets/wrapper.py): its traceback ends as the plain
program's does, at the user's file, function and line (then in NumPy's code, where NumPy
raised it), with the same exception type and message, on the call that compiles and on later
ones, whether or not earlier calls compiled the region without an error."""

from __future__ import annotations

import os
import traceback

import numpy as np
import pytest
from differential import BACKENDS
from raising_programs import (
    adds,
    asserts,
    divides,
    from_a_list,
    in_a_branch,
    inverts,
    nested,
    past_end,
    picks,
    raises,
    stores_past,
    truncates,
    until,
)

import astcompile
from astcompile.ir.attrs import NumpyCallAttr
from astcompile.ir.checks import RunPlain
from astcompile.ir.graph import Loc, Node
from astcompile.ir.ops import Op
from astcompile.runtime import fpflags, user_frames
from astcompile.targets import eager_errors, wrapper

PROGRAMS = past_end.__code__.co_filename


def _args(*args):
    return lambda: tuple(a.copy() if isinstance(a, (np.ndarray, list)) else a for a in args)


#: (function, arguments it runs on without an error or None, arguments it raises on)
CASES = [
    (past_end, None, _args(np.arange(4.0))),
    (divides, _args(np.array([1.0, 2.0])), _args(np.array([1.0, 2.0, 0.0]))),
    (truncates, _args(np.array([1.0, 2.0])), _args(np.array([1.0, np.nan]))),
    (raises, _args(np.array([1.0, 2.0])), _args(np.array([1.0, 0.1]))),
    (asserts, _args(np.array([1.0, 2.0])), _args(np.array([1.0, 0.1]))),
    (nested, None, _args(np.ones((2, 3)))),
    (in_a_branch, _args(np.array([0.1, 0.2])), _args(np.array([0.1, 1.0]))),
    (from_a_list, _args(np.ones(2), [1.0, 2.0, 3.0]), _args(np.ones(3), [1.0, 2.0, 3.0])),
    (until, _args(np.ones(200)), _args(np.ones(5))),
    (stores_past, _args(np.ones(2), np.zeros(4)), _args(np.ones(3), np.zeros(4))),
    (adds, _args(np.ones(3), np.ones(3)), _args(np.ones(3), np.ones(4))),
    (inverts, None, _args(np.zeros((2, 2)))),
    (picks, _args(np.ones(3), np.array([0, 1])), _args(np.ones(3), np.array([0, 5]))),
]


def _ending(fn, args) -> tuple:
    """How ``fn(*args)``'s traceback ends: its last frame, the frames from the last one in
    the programs' file on (ours left out), the exception's type and message."""
    with pytest.raises(Exception) as info:
        fn(*args)
    frames = traceback.extract_tb(info.value.__traceback__)
    last_here = max(k for k, f in enumerate(frames) if f.filename == PROGRAMS)
    ours = tuple(os.path.dirname(m.__file__) + os.sep for m in (astcompile, user_frames))
    seen = [
        (os.path.basename(f.filename), f.lineno, f.name, f.line)
        for f in frames[last_here:]
        if not f.filename.startswith((*ours, "<astcompile"))
    ]
    return seen[-1], seen, type(info.value), str(info.value)


@pytest.mark.parametrize("tiering", [False, True])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("fn", "good", "bad"), CASES, ids=[c[0].__name__ for c in CASES])
def test_the_traceback_ends_at_the_users_line(backend, fn, good, bad, tiering, monkeypatch):
    """With tiering, later calls run the region's wrapper itself, not after a rerun of its
    statements (its NumPy steps: ``np.linalg.inv``'s LinAlgError on C)."""
    monkeypatch.setattr(astcompile.config, "tiering", tiering)
    expected = _ending(fn, bad())
    assert expected[1][0][0] == os.path.basename(PROGRAMS)
    for warm in ([], [good]) if good else ([],):
        compiled = astcompile.compile(fn, backend=backend)
        for make in warm * 2:
            compiled(*make())
        for _ in range(3):
            assert _ending(compiled, bad()) == expected


def _failing(exc: Exception, node: Node) -> Exception:
    """``exc`` as raised by running ``node``, with this function as the runner."""
    try:
        raise exc
    except Exception as caught:  # noqa: BLE001 - the exception under test
        return caught


RUNNER = _failing.__code__
AT_X = Loc(PROGRAMS, past_end.__code__.co_firstlineno + 3)  # s = s + x[i + 1]


def test_the_error_is_raised_at_the_line_of_the_node_that_raised_it():
    node = Node(Op.CONST, (), np.dtype(float), (), loc=AT_X)
    with pytest.raises(IndexError) as info:
        eager_errors.raise_at_node(_failing(IndexError("index 4 is out of bounds"), node), RUNNER)
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert (last.filename, last.lineno, last.name) == (PROGRAMS, AT_X.line, "past_end")
    assert last.line == "s = s + x[i + 1]"
    assert info.value.__notes__ == [
        f"(raised by compiled code of line {AT_X.line}; the eager backend ran it)"
    ]


@pytest.mark.parametrize(
    ("exc", "loc"), [(RunPlain("a loop ran no times"), AT_X), (KeyError(1), None)]
)
def test_run_plain_and_errors_without_a_line_are_left_to_the_caller(exc, loc):
    node = Node(Op.CONST, (), np.dtype(float), (), loc=loc)
    caught = _failing(exc, node)
    before = caught.__traceback__
    assert eager_errors.raise_at_node(caught, RUNNER) is None
    assert caught.__traceback__ is before and not hasattr(caught, "__notes__")


def test_an_error_no_runner_saw_is_left_to_the_caller():
    caught = _failing(ValueError("x"), Node(Op.CONST, (), np.dtype(float), (), loc=AT_X))
    assert eager_errors.raise_at_node(caught, past_end.__code__) is None


AT_INV = Loc(PROGRAMS, inverts.__code__.co_firstlineno + 2)  # return np.linalg.inv(b) + 1.0


@pytest.mark.skipif(not fpflags.KINDS, reason="NumPy steps are called as they are")
@pytest.mark.parametrize("how", ["bound", "by its rule"])
def test_a_wrappers_numpy_step_raises_at_its_users_line(how):
    """What a C or Triton region's wrapper calls for ``np.linalg.inv(b)``: bound to the
    function (``_f<name>``), or by the eager rule (``_step``)."""
    node = Node(Op.NUMPY, (), np.dtype(float), (), NumpyCallAttr("linalg.inv"), AT_INV)
    singular = np.zeros((2, 2))
    with pytest.raises(np.linalg.LinAlgError) as info:
        if how == "bound":
            wrapper.numpy_function(node)(singular)
        else:
            wrapper._noted_step(node, [singular], [singular])
    frames = traceback.extract_tb(info.value.__traceback__)[-3:]
    assert (frames[0].filename, frames[0].lineno, frames[0].name) == (
        PROGRAMS,
        AT_INV.line,
        "inverts",
    )
    assert [f.name for f in frames[1:]] == ["inv", "_raise_linalgerror_singular"]
