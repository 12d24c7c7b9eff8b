"""``config.verify``: compiled region calls checked against the plain code, a warning and a
stand-alone repro on a mismatch. The mismatch is planted with the documented test hook
``config.plant_miscompile`` (``ASTCOMPILE_PLANT_MISCOMPILE=1`` in a subprocess)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
from differential import BACKENDS, assert_same, runtime_warnings
from test_reads import Lazy, scaled

import astcompile
from astcompile import config

SCALE = 3.0


def helper(a):
    return a * 2.0


def affine(x, y):
    z = x * SCALE + np.sin(y) + helper(x)
    y[0] = 7.0
    return z


def shift_tail(x):
    x[1:] += 1


def through_a_view(x, tail):
    tail[0] = 5.0
    return x * 2.0


def with_a_break(x):
    y = x + 1.0
    print(end="")
    return y * 2.0


@pytest.fixture
def verify(monkeypatch, tmp_path):
    """Verify on, repros below ``tmp_path``, and a kernel cache of this test's own: the plant
    only reaches entries compiled in the process, not those loaded from disk."""
    monkeypatch.setattr(config, "verify", True)
    monkeypatch.setattr(config, "debug_dir", str(tmp_path))
    monkeypatch.setattr(config, "cache_dir", str(tmp_path / "cache"))
    return tmp_path


def verify_warnings(fn, *args, backend):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = astcompile.compile(fn, backend=backend)(*args)
    return result, [str(w.message) for w in caught if "astcompile verify" in str(w.message)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fn, make_args",
    [
        (affine, lambda: (np.arange(5.0), np.ones(5))),
        (shift_tail, lambda: (np.arange(4.0),)),
        (with_a_break, lambda: (np.linspace(0, 1, 6, dtype=np.float32),)),
    ],
    ids=["affine", "shift_tail", "with_a_break"],
)
def test_a_right_compile_passes_quietly(verify, backend, fn, make_args):
    assert_same(fn, *make_args(), backend=backend)
    _, messages = verify_warnings(fn, *make_args(), backend=backend)
    assert messages == []
    assert not (verify / "verify").exists()


@pytest.mark.parametrize("backend", BACKENDS)
def test_writes_through_views_are_not_mismatches(verify, backend):
    x = np.arange(4.0)
    result, messages = verify_warnings(through_a_view, x, x[1:], backend=backend)
    assert messages == [] and x[1] == 5.0
    np.testing.assert_array_equal(result, x * 2.0)


def weighted(items, x):
    total = np.zeros_like(x)
    for w in items:
        total += w * x
    return total


def exp_over(x, y):
    return np.exp(x) / y


@pytest.mark.parametrize("backend", BACKENDS)
def test_compiled_calls_warn_as_numpy_does(verify, backend):
    """Verify mode checks the compiled run; it must not silence it: a division by zero gave no
    RuntimeWarning (the flags the kernel raised were never looked at)."""
    compiled = astcompile.compile(exp_over, backend=backend)
    for args in [(np.ones(2), np.ones(2))] + [(np.ones(2), np.zeros(2))] * 3:
        assert runtime_warnings(compiled, *args) == runtime_warnings(exp_over, *args)


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    scale: float = 2.0

    def forward(self, x):
        return x @ self.w * self.scale


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_object_whose_own_eq_cannot_compare_is_compared_by_attributes(verify, backend):
    """A dataclass holding an array: its ``==`` compares tuples of arrays, whose truth value
    raises; verify mode raised that ValueError from every call where plain code returns."""
    layer, x = Layer(np.eye(2)), np.array([[1.0, 2.0]])
    result, messages = verify_warnings(Layer.forward, layer, x, backend=backend)
    assert messages == []
    np.testing.assert_array_equal(result, [[2.0, 4.0]])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "make_items", [lambda: (k * 0.5 for k in range(3)), lambda: {"a": 1.0, "b": 2.0}.values()]
)
def test_inputs_that_cannot_be_copied_run_unchecked(verify, backend, make_items):
    """A generator or a dict view cannot be copied for the plain run: the call runs, unchecked
    (verify mode raised "cannot pickle 'generator' object" where plain code returns)."""
    x = np.ones(2)
    result, messages = verify_warnings(weighted, make_items(), x, backend=backend)
    assert messages == []
    np.testing.assert_array_equal(result, weighted(make_items(), x))


@pytest.mark.parametrize("backend", BACKENDS)
def test_planted_result_is_caught_with_a_repro(verify, monkeypatch, backend):
    monkeypatch.setattr(config, "plant_miscompile", True)
    result, (message,) = verify_warnings(affine, np.arange(5.0), np.ones(5), backend=backend)
    assert result[0] == np.sin(1.0) + 1.0  # the planted answer came back
    line = affine.__code__.co_firstlineno + 1
    assert message.startswith(
        f"astcompile verify: affine, region __ac_region_0 ({__file__}, "
        f"lines {line}-{line + 2}: `z = x * SCALE + np.sin(y) + helper(x)`)"
    )
    assert (
        "result[0]: 1 of 5 element(s) differ (rtol 1e-12, atol 1e-12); first at index (0,)"
        in message
    )
    (folder,) = (verify / "verify").iterdir()
    assert f"python {folder}/repro.py" in message
    assert sorted(p.name for p in folder.iterdir()) == ["repro.py", "values.json", "values.npz"]
    planted = run_repro(folder, plant=True)
    assert planted.returncode == 1, planted.stdout + planted.stderr
    assert "result[0]: 1 of 5 element(s) differ" in planted.stdout
    assert f"compiled ({backend}) and plain results differ" in planted.stdout
    fixed = run_repro(folder, plant=False)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "results agree" in fixed.stdout


@pytest.mark.parametrize("backend", BACKENDS)
def test_planted_write_into_an_argument_is_caught(verify, monkeypatch, backend):
    monkeypatch.setattr(config, "plant_miscompile", True)
    x = np.arange(4.0)
    _, (message,) = verify_warnings(shift_tail, x, backend=backend)
    assert "argument 'x' after the call: 1 of 4 element(s) differ" in message
    (folder,) = (verify / "verify").iterdir()
    assert run_repro(folder, plant=True).returncode == 1


def test_one_warning_per_region_and_guard_key(verify, monkeypatch):
    monkeypatch.setattr(config, "plant_miscompile", True)
    compiled = astcompile.compile(shift_tail, backend="eager")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            compiled(np.arange(4.0))
        compiled(np.arange(4, dtype=np.int64))  # a new guard key: a new entry, a new report
    assert len([w for w in caught if "astcompile verify" in str(w.message)]) == 2
    assert len(list((verify / "verify").iterdir())) == 2


def test_without_a_debug_dir_the_repro_goes_to_a_temporary_folder(monkeypatch):
    monkeypatch.setattr(config, "verify", True)
    monkeypatch.setattr(config, "debug_dir", None)
    monkeypatch.setattr(config, "plant_miscompile", True)
    _, (message,) = verify_warnings(shift_tail, np.arange(3.0), backend="eager")
    path = message.split("python ")[-1]
    assert os.path.isfile(path) and "astcompile-verify-" in path
    shutil.rmtree(os.path.dirname(os.path.dirname(path)))


def test_regions_running_plain_code_are_not_compared(verify, monkeypatch):
    monkeypatch.setattr(config, "plant_miscompile", True)
    compiled = astcompile.compile(affine, backend="eager")
    with np.errstate(divide="raise"):  # the plain code runs: nothing compiled to check
        _, messages = verify_warnings(compiled, np.arange(5.0), np.ones(5), backend="eager")
    assert messages == []


def test_verify_is_read_from_the_environment():
    code = "import astcompile; print(astcompile.config.verify, astcompile.config.plant_miscompile)"
    env = {**os.environ, "ASTCOMPILE_VERIFY": "1", "ASTCOMPILE_PLANT_MISCOMPILE": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert out.stdout.split() == ["True", "False"]


def run_repro(folder, plant):
    env = {**os.environ, "ASTCOMPILE_PLANT_MISCOMPILE": "1" if plant else "0"}
    return subprocess.run(
        [sys.executable, str(folder / "repro.py")],
        env=env,
        cwd="/",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_users_getattr_runs_as_often_as_in_python(verify, backend):
    """Copying the inputs for the plain run looked ``__deepcopy__`` up on the object: one more
    ``__getattr__`` call per call than the program makes (tests/test_compare.py: the copy)."""
    x = np.arange(4.0)
    counts = []
    for fn in (scaled, astcompile.compile(scaled, backend=backend)):
        cfg = Lazy(scale=2.0, offset=1.0)
        for _ in range(3):
            np.testing.assert_array_equal(fn(x, cfg), x * 2.0 + 1.0)
        counts.append(cfg.__dict__["lookups"])
    assert counts[1] == counts[0] == 6
