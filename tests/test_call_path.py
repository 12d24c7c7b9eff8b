"""The short call path of a compiled region: its wrapper leaves out the checks its guard key
already made, so every argument the key does not cover must still reach NumPy's answer (a new
entry or the plain statements), never a kernel generated for other arrays."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from astcompile.targets.c.c_backend import CBackend
from astcompile.trace.tracer import trace_callable


def fma(a, b, c):
    return a * b + c


def scale_into(out, a):
    out[:] = a * 2.0
    return out


@pytest.fixture
def compiled_path(monkeypatch):
    """Every call runs the compiled path (no measuring, no plain calls chosen by time)."""
    monkeypatch.setattr(astcompile.config, "tiering", False)


def _entries(compiled):
    return [e for region in compiled.regions for es in region.entries.values() for e in es]


def _wrapper_source(compiled) -> str:
    return "\n".join(e.run.py_source for e in _entries(compiled))


def _warm(fn, *args):
    compiled = astcompile.compile(fn, backend="c")
    for _ in range(3):
        compiled(*args)
    return compiled


def test_region_wrapper_leaves_out_what_the_key_checked(compiled_path):
    arrays = [np.arange(8.0) + k for k in range(3)]
    source = _wrapper_source(_warm(fma, *arrays))
    assert "dtype is" not in source and "strides" not in source and "except" not in source
    assert "d1_0 == d0_0" in source  # equal sizes: still the wrapper's


def test_bare_graph_wrapper_checks_everything(tmp_path):
    arrays = [np.arange(8.0) + k for k in range(3)]
    run = CBackend(cache_dir=str(tmp_path)).compile(trace_callable(fma, arrays))
    assert "dtype is" in run.py_source and "strides[-1]" in run.py_source
    strided = [a[::2] for a in np.arange(48.0).reshape(3, 16)]
    np.testing.assert_array_equal(run(strided)[0], fma(*strided))


def _others(base: np.ndarray) -> dict[str, tuple]:
    """Arguments unlike the C-contiguous float64 vectors the entries were compiled for."""
    two_d = np.arange(24.0).reshape(4, 6)
    return {
        "strided view": (base[::2], base[1::2], base[::-2]),
        "Fortran order": (np.asfortranarray(two_d), np.asfortranarray(two_d + 1), two_d.T.T),
        "float32": (base[:8].astype(np.float32), base[:8], base[8:]),
        "int64": (np.arange(8), base[:8], base[8:]),
        "0-d": (np.float64(2.0), base[:8], base[8:]),
        "one element, odd stride": (base[::5][:1], base[1::5][:1], base[2::5][:1]),
        "Python scalars": (2.0, 3.0, base[:8]),
    }


@pytest.mark.parametrize("case", list(_others(np.arange(16.0))))
def test_arguments_the_entry_was_not_compiled_for_give_numpys_answer(compiled_path, case):
    compiled = _warm(fma, *(np.arange(8.0) + k for k in range(3)))
    args = _others(np.arange(16.0))[case]
    expected = fma(*args)
    got = compiled(*args)
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)
    assert getattr(got, "dtype", None) == getattr(expected, "dtype", None)
    np.testing.assert_array_equal(
        compiled(*(np.arange(8.0) + k for k in range(3))),
        fma(*(np.arange(8.0) + k for k in range(3))),
    )


def test_read_only_target_of_a_store_raises_as_numpy_does(compiled_path):
    compiled = _warm(scale_into, np.zeros(8), np.arange(8.0))
    frozen = np.zeros(8)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        scale_into(frozen, np.arange(8.0))
    with pytest.raises(ValueError, match="read-only"):
        compiled(frozen, np.arange(8.0))
    out = np.zeros(16)[::2]
    np.testing.assert_array_equal(compiled(out, np.arange(8.0)), np.arange(8.0) * 2.0)


def test_method_reading_an_attribute_sees_a_changed_attribute(compiled_path):
    class Model:
        def __init__(self, w):
            self.w = w

        @astcompile.compile(backend="c")
        def apply(self, x):
            return self.w * x + 1.0

    model = Model(np.arange(8.0))
    x = np.ones(8)
    for _ in range(3):
        np.testing.assert_array_equal(model.apply(x), np.arange(8.0) + 1.0)
    for w in (np.arange(16.0)[::2], np.arange(8, dtype=np.float32), np.arange(8.0).reshape(1, 8)):
        model.w = w
        expected = w * x + 1.0
        got = model.apply(x)
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == expected.dtype and got.shape == expected.shape


def divide(a, b):
    return a / b


def test_error_state_is_honoured_on_every_call_of_the_short_path(compiled_path):
    compiled = _warm(divide, np.ones(8), np.arange(8.0) + 1.0)
    zeros = np.zeros(8)
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
        compiled(np.ones(8), zeros)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(compiled(np.ones(8), zeros), np.full(8, np.inf))
    with np.errstate(divide="raise"), pytest.raises(FloatingPointError):  # a new state object
        compiled(np.ones(8), zeros)
