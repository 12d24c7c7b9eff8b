"""Sources carried by a pickle (``frontend/pickled_sources.py``): used only where they compile to the
unpickled code, for the compiled function and the helpers it reaches by value."""

from __future__ import annotations

import pickle
import warnings

import cloudpickle
import numpy as np
import pytest

import astcompile
from astcompile.errors import NoSourceError
from astcompile.frontend import pickled_sources as carried
from astcompile.frontend.source import carried_sources, function_source
from astcompile.jit import pickling

X = np.linspace(-1.0, 1.0, 8)


@pytest.fixture(autouse=True)
def _nothing_carried():
    """Equal code objects share an entry (the text compiles to either): each test starts
    without the ones an earlier test registered."""
    carried_sources.clear()
    yield
    carried_sources.clear()


def _travelled(fn):
    """``fn`` as another process gets it by value: cloudpickle renames its code's file."""
    return pickle.loads(cloudpickle.dumps(fn))


def _make(k):
    def helper(x):
        return np.sin(x) * k

    def scaled(x):
        """A docstring, a NaN and a nested function: constants and code compared too."""
        inner = lambda v: np.fmax(v, 1e400 * 0)  # a NaN constant: fmax skips it
        return inner(helper(x))

    return scaled


class Base:
    def forward(self, x):
        return x


class Child(Base):
    def forward(self, x):
        return super().forward(x) * 2.0


@pytest.mark.parametrize("fn", [_make(2.0), Child.forward, function_source], ids=str)
def test_a_source_matches_its_own_code(fn):
    assert carried.matches_code(function_source(fn), fn.__code__)


def test_an_edited_source_does_not_match():
    fn = _make(2.0)
    src = function_source(fn)
    edited = src.__class__(
        fn, src.name, src.filename, src.def_line, src.text.replace("1e400 * 0", "1e400 * 1"), 0
    )
    assert not carried.matches_code(edited, fn.__code__)


def test_registered_sources_are_found_for_the_function_and_its_helpers():
    fn = _make(3.0)
    sent = carried.records(fn)
    assert [r[0] for r in sent] == ["_make.<locals>.scaled", "_make.<locals>.helper"]
    got = _travelled(fn)
    with pytest.raises(NoSourceError):
        function_source(got)
    carried.register(got, sent)
    assert function_source(got).text == function_source(fn).text
    helper = got.__closure__[0].cell_contents
    assert function_source(helper).text.startswith("def helper(x):")


def test_a_source_that_does_not_compile_to_the_code_is_not_used():
    fn = _make(3.0)
    sent = [list(r) for r in carried.records(fn)]
    sent[0][5] = sent[0][5].replace("inner(helper(x))", "helper(x)")  # not what the code does
    got = _travelled(fn)
    carried.register(got, tuple(map(tuple, sent)))
    with pytest.raises(NoSourceError):
        function_source(got)
    assert function_source(got.__closure__[0].cell_contents).name == "helper"  # its own holds


def test_a_compiled_function_with_a_tampered_source_runs_as_it_is():
    compiled = astcompile.compile(_make(2.0))
    rebuild, (kind, payload, options, sources) = pickling.reduce(compiled)
    sources = ((*sources[0][:5], sources[0][5].replace("helper(x)", "x"), sources[0][6]),)
    again = rebuild(kind, payload, options, sources)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        np.testing.assert_array_equal(again(X), np.sin(X) * 2.0)
    assert any("cannot read the source" in str(w.message) for w in caught)
