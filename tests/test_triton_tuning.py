"""Tuned block sizes and warps (runtime/triton_tuning.py), without a GPU.

The candidate kernels run for real in Triton's interpreter on tiny shapes; only the clock is
the test's: each config's "time" comes from a table, so which one wins is decided here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from differential import TRITON, assert_same, gpu_present

from astcompile import config

pytestmark = pytest.mark.skipif(not TRITON, reason="triton is not installed")

KERNELS = """
import triton
import triton.language as tl


@triton.jit
def double(n0, x, x_s0, out, out_s0, BLOCK: tl.constexpr):
    e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = e < n0
    tl.store(out + e * out_s0, tl.load(x + e * x_s0, mask=m) * 2, mask=m)


@triton.jit
def accumulate(n0, x, x_s0, out, out_s0, BLOCK: tl.constexpr):
    e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = e < n0
    was = tl.load(out + e * out_s0, mask=m)
    tl.store(out + e * out_s0, was + tl.load(x + e * x_s0, mask=m), mask=m)
"""


@pytest.fixture
def interpret(monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")


@pytest.fixture
def module(interpret, tmp_path):
    from astcompile.runtime.triton_runtime import load_module

    return load_module(KERNELS, str(tmp_path))


class Clock:
    """The test's clock: runs each candidate for real, and says it took ``times[config]``
    (the smallest block with 8 warps is fastest unless told otherwise)."""

    def __init__(self, times=None):
        self.times, self.timed = times or {}, []

    def __call__(self, run, config):
        run()
        self.timed.append(config)
        block, warps = config
        return self.times.get(config, block + (0 if warps == 8 else 0.5))


def tuner(path, clock, device="test-gpu"):
    from astcompile.runtime.triton_tuning import Tuner

    return Tuner(str(path), lambda: device, clock)


def launcher(module, name, tuned):
    from astcompile.runtime.triton_runtime import KernelLauncher

    run = KernelLauncher(module, name, (), (), False)
    assert run.tuner is None  # under the interpreter: the table, untimed
    run.tuner = tuned
    return run


def test_fastest_candidate_is_chosen_and_saved(module, tmp_path):
    path, clock = tmp_path / "tuning.json", Clock()
    run = launcher(module, "double", tuner(path, clock))
    x, out = np.arange(100.0), np.zeros(100)
    run((100,), (x,), (), (out,))
    np.testing.assert_array_equal(out, x * 2)
    # the table's block for 100 elements is 128: halved, never past the element count
    assert clock.timed == [(128, 4), (128, 8), (64, 4), (64, 8)]
    saved = json.loads(path.read_text())
    ((key, config),) = saved.items()
    assert config == [64, 8] and key.endswith(":double:flat:128:f8,f8:test-gpu")


def test_a_tie_keeps_the_table(module, tmp_path):
    clock = Clock(times={c: 1.0 for b in (64, 128) for c in ((b, 4), (b, 8))})
    tuned = tuner(tmp_path / "tuning.json", clock)
    run = launcher(module, "double", tuned)
    run((100,), (np.ones(100),), (), (np.zeros(100),))
    assert list(tuned.known().values()) == [(128, 4)]


def test_a_later_process_reuses_the_choice(module, tmp_path):
    path = tmp_path / "tuning.json"
    launcher(module, "double", tuner(path, Clock()))((100,), (np.ones(100),), (), (np.zeros(100),))
    again = Clock()
    run = launcher(module, "double", tuner(path, again))  # a new tuner reads the file
    x, out = np.arange(90.0), np.zeros(90)  # the same shape class: 90 rounds up to 128
    run((90,), (x,), (), (out,))
    np.testing.assert_array_equal(out, x * 2)
    assert again.timed == []
    # another shape class, another device or another kernel is timed afresh
    run((300,), (np.ones(300),), (), (np.zeros(300),))
    assert again.timed == [(512, 4), (512, 8), (256, 4), (256, 8)]  # 1024 is past 300 elements
    other = Clock()
    launcher(module, "double", tuner(path, other, "other-gpu"))((90,), (x,), (), (np.zeros(90),))
    launcher(module, "accumulate", tuner(path, other))((90,), (x,), (), (np.zeros(90),))
    assert len(other.timed) == 8
    x32 = x.astype(np.float32)  # other dtypes: another kernel once compiled
    run((90,), (x32,), (), (np.zeros(90, np.float32),))
    assert len(again.timed) == 8
    assert len(json.loads(path.read_text())) == 5


LATER_PROCESS = """
import os, sys
import numpy as np
os.environ["TRITON_INTERPRET"] = "1"
from astcompile.runtime.triton_runtime import KernelLauncher, load_module
from astcompile.runtime.triton_tuning import Tuner

def untimed(run, config):
    raise AssertionError("timed again")

folder, source = sys.argv[1], sys.stdin.read()
run = KernelLauncher(load_module(source, folder), "double", (), (), False)
run.tuner = Tuner(os.path.join(folder, "tuning.json"), lambda: "test-gpu", untimed)
x, out = np.arange(100.0), np.zeros(100)
run((100,), (x,), (), (out,))
assert (out == 2 * x).all()
(launch,) = run.tuner.recent.values()
print(launch[1]["BLOCK"], launch[1]["num_warps"])
"""


def test_another_process_launches_the_saved_choice(module, tmp_path):
    launcher(module, "double", tuner(tmp_path / "tuning.json", Clock()))(
        (100,), (np.ones(100),), (), (np.zeros(100),)
    )
    done = subprocess.run(
        [sys.executable, "-c", LATER_PROCESS, str(tmp_path)],
        input=KERNELS,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == ["64", "8"]


def test_a_damaged_file_is_timed_again(module, tmp_path):
    path = tmp_path / "tuning.json"
    launcher(module, "double", tuner(path, Clock()))((100,), (np.ones(100),), (), (np.zeros(100),))
    (key,) = json.loads(path.read_text())
    for damaged in ("{not json", json.dumps({key: [48, 8]}), json.dumps({key: "ab"}), "[]"):
        path.write_text(damaged)
        clock = Clock()
        x, out = np.arange(100.0), np.zeros(100)
        launcher(module, "double", tuner(path, clock))((100,), (x,), (), (out,))
        np.testing.assert_array_equal(out, x * 2)
        assert len(clock.timed) == 4, damaged
        assert json.loads(path.read_text()) == {key: [64, 8]}


def test_a_kernel_writing_in_place_writes_once(module, tmp_path):
    clock = Clock()
    run = launcher(module, "accumulate", tuner(tmp_path / "tuning.json", clock))
    x, out = np.arange(100.0), np.full(100, 5.0)
    run((100,), (x,), (), (out,))
    assert len(clock.timed) == 4  # each candidate ran on a scratch copy, the winner on out
    np.testing.assert_array_equal(out, 5.0 + x)
    run((100,), (x,), (), (out,))  # tuned: straight to the kernel
    np.testing.assert_array_equal(out, 5.0 + 2 * x)
    assert len(clock.timed) == 4


def test_candidates_keep_a_row_in_its_block():
    from astcompile.runtime.triton_tuning import candidates

    assert candidates("block", (256, 4), 10_000) == [(256, 4), (256, 8)]
    assert candidates("loop", (4096, 16), 1 << 20) == [
        (b, w) for b in (4096, 2048, 8192) for w in (16, 4, 8)
    ]
    assert candidates("flat", (16, 4), 3) == [(16, 4), (16, 8)]


def test_off_or_interpreted_uses_the_table(module, monkeypatch):
    from astcompile.runtime.triton_tuning import tuner_for

    assert tuner_for(module) is None  # the interpreter has nothing to time
    assert tuner_for(module, on_gpu=True).path == module.__file__.rsplit("/", 1)[0] + (
        "/tuning.json"
    )
    monkeypatch.setattr(config, "triton_autotune", False)
    assert tuner_for(module, on_gpu=True) is None


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def scaled(x, y):
    return x * 3.0 - y


def store_rows(a, v):
    a[1:, ::2] = v * 2.0
    return a.sum()


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (softmax, (np.random.default_rng(0).standard_normal((7, 40)),)),
        (scaled, (np.arange(50.0), np.ones(50))),
        (store_rows, (np.zeros((4, 9)), np.arange(5.0))),
    ],
)
def test_tuned_regions_match_numpy(fn, args, monkeypatch, tmp_path):
    """Whole regions with every launcher tuned (the clock prefers other configs than the
    table's): the same values, and stores into arguments made once."""
    from astcompile.runtime import triton_runtime

    clock = Clock()
    shared = tuner(tmp_path / "tuning.json", clock)
    monkeypatch.setattr(triton_runtime, "tuner_for", lambda module: shared)
    assert_same(fn, *args, backend="triton")
    assert clock.timed


def test_a_row_walked_in_steps_is_tuned(monkeypatch, tmp_path):
    """Rows longer than 16 elements walk their row in steps (the loop kernel): its step is
    timed at 16 and 32 and the clock's pick, 16 with 8 warps, gives NumPy's values."""
    from astcompile.runtime import triton_runtime

    small = triton_runtime.Blocks(64, 16, 16, ((1 << 30, 4),))
    monkeypatch.setitem(triton_runtime.BLOCKS, "interpret", small)
    clock = Clock()
    shared = tuner(tmp_path / "tuning.json", clock)
    monkeypatch.setattr(triton_runtime, "tuner_for", lambda module: shared)
    assert_same(softmax, np.random.default_rng(1).standard_normal((5, 70)), backend="triton")
    assert clock.timed == [(16, 4), (16, 8), (32, 4), (32, 8)]
    assert list(shared.known().values()) == [(16, 8)]


def test_a_row_held_in_one_block_keeps_its_block(monkeypatch, tmp_path):
    """A saved block too small for the row (a hand-edited file) is not taken: the row's
    kernel holds the whole row in its block, so only its warps are tuned."""
    from astcompile.runtime import triton_runtime

    path, x = tmp_path / "tuning.json", np.random.default_rng(2).standard_normal((7, 40))
    shared = tuner(path, Clock())
    monkeypatch.setattr(triton_runtime, "tuner_for", lambda module: shared)
    assert_same(softmax, x, backend="triton")
    saved = json.loads(path.read_text())
    assert all(":block:" in key for key in saved)
    path.write_text(json.dumps({key: [16, 8] for key in saved}))
    later = tuner(path, Clock())
    monkeypatch.setattr(triton_runtime, "tuner_for", lambda module: later)
    assert_same(softmax, x, backend="triton")
    assert later.measure.timed == []  # the saved warps taken, the block kept


@pytest.mark.skipif(not gpu_present(), reason="needs a CUDA GPU and CuPy")
def test_on_a_gpu_regions_are_tuned_once(monkeypatch, tmp_path):
    """Real timing: each kernel's first launch of a shape class is tuned and saved under the
    cache folder with the GPU's name; the results are NumPy's; a second call times nothing."""
    from astcompile.runtime import triton_tuning

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(config, "cache_dir", str(tmp_path))
    x = np.random.default_rng(3).standard_normal((512, 3000))
    assert_same(softmax, x, backend="triton")
    assert_same(store_rows, np.zeros((300, 5001)), np.arange(2501.0), backend="triton")
    saved = json.loads((tmp_path / "triton" / "tuning.json").read_text())
    assert any(":block:" in k for k in saved) and any(":flat:" in k for k in saved)
    assert all(k.endswith(triton_tuning.gpu_name()) for k in saved)
    tuned = triton_tuning._TUNERS[str(tmp_path / "triton")]
    monkeypatch.setattr(tuned, "measure", None)  # timing again would fail
    assert_same(softmax, x, backend="triton")
