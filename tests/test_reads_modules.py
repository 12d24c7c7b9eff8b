"""Module attributes are reads whatever the module (trace/library_modules.py): a module with no
file, a package installed into site-packages, NumPy itself. Numbers and arrays read from them are
inputs; functions and classes are checked by identity, so a rebound one (``np.sum`` patched) is a
miss. Each test changes the module between calls and compares the compiled function with the
plain one, on every backend, past the promotion to the C-level call path."""

from __future__ import annotations

import contextlib
import os
import sys
import types
from unittest import mock

import numpy as np
import pytest
from differential import EVERY_BACKEND, assert_same_value
from module_helpers import load_module

import astcompile
from astcompile.frontend import callee_rules
from astcompile.runtime import fastcall

A = np.arange(6.0)
CALLS = fastcall.PROMOTE_AFTER + 8


def follows(fn, *changes, backend):
    compiled = astcompile.compile(fn, backend=backend)
    for change in (None, *changes):
        if change is not None:
            change()
        for _ in range(CALLS):
            assert_same_value(compiled(A.copy()), fn(A.copy()))
    return compiled


cfg = types.ModuleType("cfg")  # a module made in code: no file
cfg.SCALE = 2.0
cfg.W = np.ones(6)


def reads_fileless(x):
    return x * cfg.SCALE + cfg.W


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_numbers_and_arrays_of_a_module_with_no_file(backend):
    def number():
        cfg.SCALE = 3.5

    def array():
        cfg.W = np.full(6, -1.0)

    def in_place():
        cfg.W[2] = 9.0

    follows(reads_fileless, number, array, in_place, backend=backend)


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A package of the user's installed with pip: it lives in a library folder."""
    folder = tmp_path / "site-packages"
    folder.mkdir()
    monkeypatch.setattr(
        callee_rules, "_LIBRARY_DIRS", (*callee_rules._LIBRARY_DIRS, f"{folder}{os.sep}")
    )
    module = load_module(
        folder,
        "userpkg_consts",
        """
        import numpy as np

        K = 2.0
        OFFSETS = np.zeros(6)
        DTYPE = np.float64
        """,
    )
    yield module
    sys.modules.pop("userpkg_consts", None)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_numbers_of_an_installed_package(backend, installed):
    def reads_installed(x):
        return (x * installed.K + installed.OFFSETS).astype(installed.DTYPE)

    def number():
        installed.K = -4.0

    def array():
        installed.OFFSETS = np.arange(6.0)

    def dtype():
        installed.DTYPE = np.float32

    follows(reads_installed, number, array, dtype, backend=backend)


def casts(x):
    return x.astype(np.float_) * np.pi


def sums(x):
    return x * np.sum(x) + np.linalg.norm(x)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_numpy_name_rebound(backend, monkeypatch):
    monkeypatch.setattr(np, "float_", np.float64, raising=False)  # gone from NumPy 2

    def rebind():
        monkeypatch.setattr(np, "float_", np.float32)

    follows(casts, rebind, backend=backend)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_numpy_functions_patched_with_mock(backend):
    """``mock.patch.object`` swaps NumPy's function for the test's: calls go to the mock (as
    many as the plain function makes), and back to NumPy when the patch ends."""
    compiled = follows(sums, backend=backend)
    with mock.patch.object(np, "sum", return_value=10.0) as fake:
        for _ in range(3):
            assert_same_value(compiled(A.copy()), A * 10.0 + np.linalg.norm(A))
        assert fake.call_count == 3
    with mock.patch.object(np.linalg, "norm", side_effect=lambda v: -1.0):
        assert_same_value(compiled(A.copy()), sums(A.copy()))
    assert_same_value(compiled(A.copy()), sums(A.copy()))


def totals(x):
    return np.sum(x) + np.mean(x)


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_a_patched_numpy_function_leaves_the_kernels_alone(backend):
    """``np.mean`` reduces in the kernel while the user's ``np.sum`` is patched: Triton's
    interpreter computes each block op with NumPy's functions, found at run time, so the
    patch summed the mean too (``-1.25`` for ``0.5``) from the second patched call on."""
    compiled = follows(totals, backend=backend)
    with mock.patch.object(np, "sum", lambda a, **kw: -1.0):
        for _ in range(CALLS):
            assert_same_value(compiled(A.copy()), totals(A.copy()))


def builtin_calls(x):
    return x + abs(x[1]) + round(x[2])


def rounded_down(v):
    return float(np.floor(v)) - 10


@pytest.mark.parametrize("backend", EVERY_BACKEND)
def test_builtins_patched_with_mock(backend):
    """``mock.patch("builtins.abs", ...)``: plain code calls the patch (the builtins module is
    where the name is found), so must compiled code, and the builtin again after the patch;
    a patch that is the user's own function is traced as one."""
    compiled = astcompile.compile(builtin_calls, backend=backend)
    for patched in (False, True, False):
        with contextlib.ExitStack() as patches:
            if patched:
                patches.enter_context(mock.patch("builtins.abs", lambda v: -1.0))
                patches.enter_context(mock.patch("builtins.round", rounded_down))
            pairs = [(compiled(A.copy()), builtin_calls(A.copy())) for _ in range(CALLS)]
        for got, expected in pairs:
            assert_same_value(got, expected)


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x**3))) + np.pi


def test_module_attribute_reads_keep_the_c_level_call_path():
    """``np.tanh`` is one dictionary look-up in ``numpy.__dict__`` and a pointer compare in C:
    the region keeps the C-level call path."""
    compiled = follows(gelu, backend="c")
    if fastcall.loaded() is None:
        pytest.skip("the C-level call path cannot be built here")
    assert type(compiled._sole_region.guards).__name__ == "Guards"
    reads = {str(r) for entry in compiled._sole_region.entries.values() for r in entry[0].reads}
    assert {"np.tanh is the ufunc tanh", "np.pi: read at every call"} <= reads
