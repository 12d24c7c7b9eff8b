"""Guard keys: pure functions of the arguments; differences described in words."""

from __future__ import annotations

import numpy as np
import pytest

from astcompile.runtime import guards
from astcompile.runtime.guards import UNSUPPORTED, call_key, int_class, key_changes


def test_new_size_same_key_new_dtype_new_key():
    assert call_key((np.ones(3),)) == call_key((np.ones(300),))
    assert call_key((np.ones(3),)) != call_key((np.ones(3, np.float32),))


def test_zero_and_one_sizes_are_specialised():
    keys = {call_key((np.ones(n),)) for n in (0, 1, 2, 5)}
    assert len(keys) == 3


def test_equal_sizes_share_a_class():
    assert call_key((np.ones(4), np.ones(4))) != call_key((np.ones(4), np.ones(5)))
    assert call_key((np.ones(4), np.ones(4))) == call_key((np.ones(9), np.ones(9)))


def test_layout_is_part_of_the_key():
    a = np.ones((4, 4))
    assert call_key((a,)) != call_key((a.T,)) != call_key((a[:, ::2],))


def test_floats_are_not_guarded_by_value_ints_by_class():
    assert call_key((1.5,)) == call_key((2.5,))
    assert call_key((3,)) == call_key((100,))
    assert call_key((3,)) != call_key((300,))
    assert int_class(-1)[0] and not int_class(1)[0]


def test_bools_and_strings_by_value():
    assert call_key((True,)) != call_key((False,))
    assert call_key(("a",)) != call_key(("b",))


def test_aliasing_is_noted():
    a = np.ones(3)
    assert call_key((a, a)) != call_key((a, np.ones(3)))


@pytest.mark.parametrize("box", [tuple, list])
def test_aliasing_inside_tuples_and_lists_is_noted(box):
    """``leaves_of`` counts an array passed twice as one leaf wherever it sits, so a key
    traced with two arrays in a tuple must not match the same array twice."""
    a = np.ones(3)
    assert call_key((box([a, a]),)) != call_key((box([a, np.ones(3)]),))
    assert call_key((a, box([a]))) != call_key((a, box([np.ones(3)])))


def test_unsupported_objects_are_marked():
    class Thing:
        pass

    assert call_key((Thing(),))[0][0] == UNSUPPORTED
    assert call_key((np.ma.ones(3),))[0][0] == UNSUPPORTED


def test_key_changes_name_the_argument_and_each_guard():
    old, new = call_key((np.ones(3), 1.0)), call_key((np.ones((3, 3), np.float32).T, 1))
    assert key_changes(("x", "alpha"), old, new) == [
        "x: dtype float64 → float32",
        "x: ndim 1 → 2",
        "x: layout C-contiguous → Fortran-ordered",
        "alpha: float → int (up to 7 bits)",
    ]


def _check_function(key, nargs):
    """The specialised check ``key_checks`` writes for ``key``, as a callable (None: no check)."""
    checks = guards.key_checks(key, nargs)
    if checks is None:
        return None
    params = ", ".join(f"_a{i}" for i in range(nargs))
    source = f"def check({params}):\n    return {' and '.join(checks.conds) or 'True'}\n"
    namespace = {"_ndarray": np.ndarray, "_int_class": int_class, **checks.consts}
    exec(source, namespace)  # noqa: S102 - the generated check under test
    return namespace["check"]


def _samples():
    a = np.ones((4, 4))
    ones = [np.ones(n) for n in (0, 1, 2, 5)]
    return [
        *[(x,) for x in ones],
        (np.ones(5, np.float32),),
        (np.ones((5, 1)),),
        (a,),
        (a.T,),
        (a[:, ::2],),
        (a[::2],),
        (np.ones((3, 4)),),
        (np.ones((4, 3)),),
        (np.ones((1, 4)),),
        (np.ones(4), np.ones(4)),
        (np.ones(4), np.ones(5)),
        (np.ones(9), np.ones(9)),
        (np.ones((3, 4)), np.ones(4)),
        (np.ones((3, 4)), np.ones(3)),
        (a, a),
        (a, a.copy()),
        (1.5,),
        (2.5,),
        (3,),
        (300,),
        (-3,),
        (True,),
        (False,),
        (None,),
        ("a",),
        ("b",),
        (np.float32(1.0),),
        (np.float64(1.0),),
        (np.int64(3),),
        (np.ones(3), 2.0),
        (np.ones(3), 2),
    ]


def test_specialised_checks_hold_exactly_when_the_key_matches():
    """The generated guard source is the key comparison, spelled out: for every pair of calls
    it accepts the second exactly when ``call_key`` gives both the same key."""
    samples = _samples()
    checked = 0
    for traced in samples:
        check = _check_function(call_key(traced), len(traced))
        if check is None:
            assert len(call_key(traced)) != len(traced)  # only aliased calls go unchecked
            continue
        for call in samples:
            if len(call) == len(traced):
                assert check(*call) == (call_key(call) == call_key(traced)), (traced, call)
                checked += 1
    assert checked > 300


def test_specialised_checks_skip_what_only_the_generic_path_decides():
    a = np.ones(3)
    assert guards.key_checks(call_key((a, a)), 2) is None  # aliasing
    assert guards.key_checks(call_key(((a, 1.0),)), 1) is None  # nested tuples
    assert guards.key_checks(call_key((np.sin,)), 1) is None  # identity-keyed objects
