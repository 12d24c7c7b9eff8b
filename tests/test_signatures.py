"""Signature strings for ``compile(signatures=...)``: parsing, errors, example arguments."""

from __future__ import annotations

import numpy as np
import pytest

import astcompile
from astcompile.runtime import guards
from astcompile.signatures import SignatureError, parse_signature, parse_signatures


def test_arrays_scalars_and_python_types():
    sig = parse_signature("float64[:, :], float32[::1], int64, int, float, bool")
    kinds = [(a.dtype, a.ndim, a.python) for a in sig.args]
    assert kinds == [
        (np.dtype("float64"), 2, None),
        (np.dtype("float32"), 1, None),
        (np.dtype("int64"), 0, None),
        (None, 0, int),
        (None, 0, float),
        (None, 0, bool),
    ]
    assert sig.args[1].contiguous and not sig.args[0].contiguous


def test_examples_keep_sizes_generic_and_broadcastable():
    ((X, w, s, n),) = parse_signature("float32[:, :], float32[:], float64, int").example_args()
    assert X.shape == (7, 5) and w.shape == (5,) and X.dtype == np.float32
    assert all(d >= 2 for d in X.shape)  # the tracer specialises only 0 and 1
    assert isinstance(s, np.float64) and type(n) is int
    assert (X * w).shape == X.shape and X.flags.c_contiguous
    # the guard key of a real call with the same size relation is the examples' key
    real = (np.ones((1000, 64), np.float32), np.ones(64, np.float32), np.float64(2.0), 3)
    assert guards.call_key(real) == guards.call_key((X, w, s, n))


def test_python_bool_builds_both_values():
    assert [args[0] for args in parse_signature("bool").example_args()] == [True, False]


@pytest.mark.parametrize(
    "bad, words",
    [
        ("float65[:]", "unknown or unsupported type 'float65'"),
        ("object[:]", "unknown or unsupported type 'object'"),
        ("float64[:", "unclosed '['"),
        ("float64[1:]", "dimension '1:'"),
        ("float64[::1, :]", "dimension '::1'"),
        ("float64[:],", "empty argument type"),
    ],
)
def test_bad_signatures_name_themselves(bad, words):
    with pytest.raises(SignatureError) as info:
        parse_signature(bad)
    assert repr(bad) in str(info.value) and words in str(info.value)


def test_compile_validates_signatures_eagerly():
    with pytest.raises(ValueError, match="bad signature 'floot32\\[:\\]'"):

        @astcompile.compile(signatures=["float32[:]", "floot32[:]"])
        def f(x):
            return x + 1

    @astcompile.compile(signatures=["float32[:]"])
    def g(x):
        return x + 1

    assert [s.text for s in g.signatures] == ["float32[:]"]
    assert g(np.ones(3, np.float32)).tolist() == [2, 2, 2]


def test_signatures_must_be_strings():
    with pytest.raises(SignatureError, match="list of strings"):
        parse_signatures(3)
    with pytest.raises(SignatureError, match="is not a string"):
        parse_signatures([("float64",)])
