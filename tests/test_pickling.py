"""Compiled functions pickle: by module and name, or by value (closures, other names)."""

from __future__ import annotations

import multiprocessing
import pickle

import numpy as np
import pytest

import astcompile
from astcompile.jit import pickling
from tests import pickling_helpers as H

X = np.linspace(-2.0, 2.0, 24).reshape(4, 6)


def _round_trip(obj):
    return pickle.loads(pickle.dumps(obj))


def test_module_level_function_pickles_by_reference():
    assert pickling.reduce(H.scaled_sine) == "scaled_sine"
    assert _round_trip(H.scaled_sine) is H.scaled_sine
    np.testing.assert_allclose(_round_trip(H.row_sums)(X), np.sum(X * X, axis=1), rtol=1e-14)


def test_closure_pickles_by_value_and_computes_the_same():
    scale = H.make_scaler(3.0)
    again = _round_trip(scale)
    assert again is not scale
    assert isinstance(again, type(scale))
    np.testing.assert_array_equal(again(X), scale(X))
    np.testing.assert_array_equal(again(X), X * 3.0 + 1.0)


def test_a_closure_on_the_plain_path_pickles_by_value(runs):
    """Measuring's choice changes the class (or the route) a function's calls take; it still
    pickles as the compiled function it is."""
    scale = H.make_scaler(2.0)
    scale.run_plain()
    assert runs(scale) is scale.fn
    again = _round_trip(scale)
    assert again is not scale
    np.testing.assert_array_equal(again(X), X * 2.0 + 1.0)


def test_equal_payloads_unpickle_to_one_compiled_function():
    data = pickle.dumps(H.make_scaler(5.0))
    assert pickle.loads(data) is pickle.loads(data)


def test_function_compiled_under_another_name_pickles_by_value():
    again = _round_trip(H.cube)
    assert again is not H.cube
    np.testing.assert_array_equal(again(X), X * X * X)


def test_options_survive_the_round_trip():
    def local(x):
        return x + 1

    compiled = astcompile.compile(local, backend="eager", dynamic=True)
    again = _round_trip(compiled)
    assert (again.backend_name, again.dynamic, again.fullgraph) == ("eager", True, False)
    np.testing.assert_array_equal(again(X), X + 1)


def test_fullgraph_without_source_on_the_other_side_raises():
    """cloudpickle renames a closure's code file: with nothing to read, ``fullgraph=True``
    keeps its promise (GB001) instead of running uncompiled with a warning."""

    def local(x):
        return x + 1

    compiled = astcompile.compile(local, backend="eager", fullgraph=True)
    with pytest.raises(astcompile.GraphBreakError, match="GB001"):
        _round_trip(compiled)


def test_bound_method_pickles_with_its_instance():
    model = H.Model(0.5)
    again = _round_trip(model.apply)
    assert again.__self__.weight == 0.5
    np.testing.assert_array_equal(again(X), model.apply(X))
    np.testing.assert_allclose(again(X), np.tanh(X) * 0.5, rtol=1e-14)


def test_without_cloudpickle_a_closure_names_the_fix(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "cloudpickle", None)
    with pytest.raises(pickle.PicklingError, match="Install cloudpickle"):
        pickle.dumps(H.make_scaler(2.0))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_pool_maps_compiled_functions(method):
    blocks = [X + i for i in range(4)]
    with multiprocessing.get_context(method).Pool(2) as pool:
        by_name = pool.map(H.scaled_sine, blocks)
        by_value = pool.map(H.make_scaler(2.0), blocks)
    for block, got, got_closure in zip(blocks, by_name, by_value):
        np.testing.assert_allclose(got, np.sin(block) * 2.0 + 1.0, rtol=1e-14)
        np.testing.assert_array_equal(got_closure, block * 2.0 + 1.0)
