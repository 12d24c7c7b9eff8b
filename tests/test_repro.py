"""Repro folders: values saved without pickle and loaded back as they were, and the script."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from differential import BACKENDS

import astcompile
from astcompile import repro, repro_run


def helper(a):
    return a + 1


VALUES = [
    np.arange(6.0).reshape(2, 3),
    np.float32(1.5),
    np.int8(-3),
    True,
    7,
    2.5,
    float("inf"),
    complex(1, -2),
    None,
    "text",
    np.dtype(np.float32),
    (np.ones(2), [1, 2.0]),
]


def test_values_round_trip(tmp_path):
    context = {"np": np, "helper": helper, "math_mod": math, "nan": float("nan")}
    repro.save_values(str(tmp_path), tuple(VALUES), context)
    args, loaded = repro.load_values(str(tmp_path))
    assert len(args) == len(VALUES)
    for got, expected in zip(args, VALUES):
        assert type(got) is type(expected)
        if isinstance(expected, tuple):
            np.testing.assert_array_equal(got[0], expected[0])
            assert got[1] == expected[1] and type(got[1]) is list
        elif isinstance(expected, (np.ndarray, np.generic)):
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
        else:
            assert got == expected
    assert loaded["np"] is np and loaded["helper"] is helper and loaded["math_mod"] is math
    assert math.isnan(loaded["nan"])


def test_values_are_json_and_npz_only(tmp_path):
    repro.save_values(str(tmp_path), (np.ones(2), 3), {})
    described = json.loads((tmp_path / "values.json").read_text())
    assert described == {"args": [{"array": "v0"}, {"python": ["int", "3"]}], "context": {}}
    with np.load(tmp_path / "values.npz", allow_pickle=False) as npz:
        assert npz.files == ["v0"]


def test_values_that_cannot_be_saved_fail_on_load(tmp_path):
    repro.save_values(str(tmp_path), (object(),), {})
    with pytest.raises(ValueError, match=r"builtins\.object could not be saved"):
        repro.load_values(str(tmp_path))


def region_owner(x, k):
    y = x * k + helper(x)
    return y


def test_script_holds_the_region_statements_and_runs_them(tmp_path):
    compiled = astcompile.compile(region_owner, backend="eager")
    compiled(np.ones(3), 2.0)
    (region,) = compiled.regions
    folder = repro.write(region, (np.ones(3), 2.0), ["result[0]: planted"], root=str(tmp_path))
    script = (tmp_path / "test_repro.region_owner.__ac_region_0" / "repro.py").read_text()
    assert folder == str(tmp_path / "test_repro.region_owner.__ac_region_0")
    assert "def region(x, k):\n    y = x * k + helper(x)\n" in script
    assert "  - result[0]: planted" in script and "backend 'eager'" in script
    namespace = {"__file__": f"{folder}/repro.py", "__name__": "not_main"}
    exec(compile(script, f"{folder}/repro.py", "exec"), namespace)  # noqa: S102
    assert namespace["helper"] is helper
    assert repro_run.main(namespace["region"], namespace["_ARGS"], backend="eager") == 0
    second = repro.write(region, (np.ones(3), 2.0), [], root=str(tmp_path))
    assert second.endswith("__ac_region_0-2")


OFFSETS = np.array([0.5, 1.5, 2.5])


def make_closure(weights):
    def weighted(x):
        return x * weights + OFFSETS

    return weighted


@pytest.mark.parametrize("backend", BACKENDS)
def test_closure_cells_and_global_arrays_become_globals_of_the_repro(tmp_path, backend):
    fn = make_closure(np.array([1.0, 2.0, 3.0]))
    compiled = astcompile.compile(fn, backend=backend)
    compiled(np.ones(3))
    (region,) = compiled.regions
    folder = repro.write(region, (np.ones(3),), [], root=str(tmp_path))
    _, context = repro.load_values(folder)
    assert sorted(context) == ["OFFSETS", "weights"]
    np.testing.assert_array_equal(context["weights"], [1.0, 2.0, 3.0])
    assert folder.endswith("test_repro.make_closure._locals_.weighted.__ac_region_0")
    script = tmp_path / folder / "repro.py"
    namespace = {"__file__": str(script), "__name__": "not_main"}
    exec(compile(script.read_text(), str(script), "exec"), namespace)  # noqa: S102
    assert repro_run.main(namespace["region"], namespace["_ARGS"], backend=backend) == 0


class Scaler:
    def __init__(self, w):
        self.w = w
        self.table = {"offset": np.float64(0.5), "names": ("a", "b")}

    def apply(self, x):
        return x * self.w + self.table["offset"]


def with_a_dict(x, params):
    return x * params["scale"] + params["shift"]


def test_objects_and_dicts_round_trip(tmp_path):
    repro.save_values(str(tmp_path), (Scaler(np.arange(3.0)), {"scale": 2, 3: [1.5]}), {})
    (scaler, params), _ = repro.load_values(str(tmp_path))
    assert type(scaler) is Scaler and scaler.table["names"] == ("a", "b")
    np.testing.assert_array_equal(scaler.w, np.arange(3.0))
    assert params == {"scale": 2, 3: [1.5]}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "make_call",
    [
        lambda: (Scaler(np.arange(3.0)).apply, (np.ones(3),)),
        lambda: (with_a_dict, (np.ones(3), {"scale": 2.0, "shift": np.float64(1.0)})),
    ],
    ids=["self", "dict"],
)
def test_a_repro_of_a_method_or_a_dict_argument_runs(tmp_path, monkeypatch, backend, make_call):
    """Verify mode's repro of a region that reads ``self`` or a dict argument: it ran into
    an unsaved value and exited 1, the status that says "still differs"."""
    monkeypatch.setattr(astcompile.config, "verify", True)
    monkeypatch.setattr(astcompile.config, "debug_dir", str(tmp_path))
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path / "cache"))
    monkeypatch.setattr(astcompile.config, "plant_miscompile", True)
    fn, args = make_call()
    with pytest.warns(RuntimeWarning, match="astcompile verify"):
        astcompile.compile(fn, backend=backend)(*args)
    (folder,) = (tmp_path / "verify").iterdir()
    assert _run(folder, plant=True).returncode == 1
    fixed = _run(folder, plant=False)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


def test_a_value_that_cannot_be_loaded_exits_2(tmp_path):
    repro.save_values(str(tmp_path), (object(),), {})
    with pytest.raises(SystemExit) as exit_:
        repro.load_for_script(str(tmp_path))
    assert exit_.value.code == repro.CANNOT_LOAD == 2


def _run(folder, plant):
    env = {**os.environ, "ASTCOMPILE_PLANT_MISCOMPILE": "1" if plant else "0"}
    script = [sys.executable, str(folder / "repro.py")]
    return subprocess.run(script, env=env, cwd="/", capture_output=True, text=True, check=False)
