"""The user's function as our frames run it plainly (jit/warn_twin.py): itself, or where it may
give ``warn`` a level, its twin, which follows the function's defaults and code."""

from __future__ import annotations

import warnings

from astcompile.jit.warn_twin import plain_caller, plain_of


def quiet(x, k=1):
    return x + k


def loud(x, k=1):
    warnings.warn("loud", stacklevel=2)
    return x + k


def loud_plainly(x, k=1):
    warnings.warn("loud plainly")  # noqa: B028 - no level given: nothing to count
    return x + k


def test_a_function_giving_no_level_is_itself():
    assert plain_of(quiet) is quiet and plain_caller(quiet) is quiet
    assert plain_of(loud_plainly) is loud_plainly


def test_the_twin_is_the_function_at_its_lines():
    twin = plain_of(loud)
    assert twin is not loud and twin is plain_of(loud)  # made once per code
    assert (twin.__name__, twin.__qualname__) == (loud.__name__, loud.__qualname__)
    assert twin.__code__.co_firstlineno == loud.__code__.co_firstlineno
    assert twin.__globals__ is loud.__globals__
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert twin(1) == loud(1) == 2  # the same line calls both
    assert caught[0].lineno == caught[1].lineno and caught[0].filename == caught[1].filename


def test_the_twin_follows_defaults_and_code():
    def changing(x, k=1):
        warnings.warn("changing", stacklevel=2)
        return x + k

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call = plain_caller(changing)
        assert call(1) == 2
        changing.__defaults__ = (10,)
        assert plain_of(changing)(1) == call(1) == 11
        changing.__code__ = quiet.__code__
        assert plain_of(changing) is changing and call(1) == 11
