"""Compiled functions pickle: by module and name, or by value (closures, other names)."""

from __future__ import annotations

import importlib.util
import json
import multiprocessing
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import astcompile
from astcompile.jit import pickling
from tests import pickling_helpers as H

X = np.linspace(-2.0, 2.0, 24).reshape(4, 6)
NEEDS_DASK = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="needs distributed (the [dask] extra)"
)


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

    compiled = astcompile.compile(local, backend="eager", fullgraph=True)
    again = _round_trip(compiled)
    assert (again.backend_name, again.fullgraph) == ("eager", True)
    np.testing.assert_array_equal(again(X), X + 1)


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


JOB = Path(__file__).resolve().parent / "pickling_samples" / "closure_job.py"


def _job(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(cwd / JOB.name), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _ran_compiled(seen: dict) -> None:
    """What ``closure_job.run_in_worker`` reported: the closure and its helper from ``__main__``
    compiled as one graph and ran on C, without a warning, with the plain function's result."""
    assert seen["warnings"] == []
    assert (seen["graphs"], seen["breaks"], seen["compiled_calls"], seen["plain_calls"]) == (
        1,
        0,
        1,
        0,
    )
    assert seen["targets"] == ["c"]
    assert seen["right"]


@pytest.mark.parametrize("where", ["spawn", pytest.param("cluster", marks=NEEDS_DASK)])
def test_a_closure_of_a_main_script_runs_compiled_in_another_process(tmp_path, where):
    """A spawn pool and a 2-process LocalCluster: the closure and ``helper`` pickle by value
    (cloudpickle renames their code's file), and the worker compiles them from the sources the
    pickle carries."""
    shutil.copy(JOB, tmp_path / JOB.name)
    ran = _job(where, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr[-3000:]
    _ran_compiled(json.loads(ran.stdout.strip().splitlines()[-1]))


def test_the_source_comes_with_the_pickle_not_from_the_file(tmp_path):
    """The script is gone when another process unpickles its closure: it compiles anyway."""
    shutil.copy(JOB, tmp_path / JOB.name)
    dumped = _job("dump", str(tmp_path / "job.pkl"), cwd=tmp_path)
    assert dumped.returncode == 0, dumped.stderr
    (tmp_path / JOB.name).unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sys_path = str(JOB.parent)  # run_in_worker only: the pickle does not need the script
    code = (
        "import json, pickle, sys\n"
        f"sys.path.append({sys_path!r})\n"
        "from closure_job import run_in_worker\n"
        f"f, x = pickle.load(open({str(tmp_path / 'job.pkl')!r}, 'rb'))\n"
        "print(json.dumps(run_in_worker(f, x)))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    _ran_compiled(json.loads(ran.stdout.strip().splitlines()[-1]))
