"""Generated code for people: the debug folder and ``output_code`` show every region's C and
wrapper (a warm start too), the C keeps the user's names and quotes the user's lines, and an
error in compiled code is raised at the user's line."""

from __future__ import annotations

import os
import subprocess
import sys
import traceback

import numpy as np
import pytest
from differential import TRITON, target_mode

import astcompile

HEAT = """\
import numpy as np
import astcompile


@astcompile.compile(backend="c")
def heat(u, steps):
    total = 0.0
    for t in range(steps):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
        total = total + u[1:-1].sum()
    return total


print(heat(np.linspace(0.0, 1.0, 64), 5))
"""
QUOTED = "/* u[1:-1] = 0.5 * (u[:-2] + u[2:])  (heat.py:9) */"


def walk(u, steps):
    total = 0.0
    for t in range(steps):
        total = total + u[t]  # out of range once t reaches u's length
    return total


def shift(x, k):
    out = np.zeros(3)
    for i in range(2):
        out[:] = x[i : i + k]  # fits only when k is 3 (or 1)
    return out


def c_keywords(x, n):
    double, err, t9 = 0.0, 0.0, 0
    for i in range(n):
        double = double + x[i]
    for i in range(n):
        for i0 in range(n):
            err = err + x[i] * i0
            t9 = t9 + 1
    return double, err, t9


def _c_files(folder: str) -> dict[str, str]:
    found = {}
    for root, _, files in os.walk(folder):
        for name in files:
            if name.endswith(".c"):
                with open(os.path.join(root, name)) as f:
                    found[name] = f.read()
    return found


def _run_heat(tmp_path, cache: str, debug: str) -> subprocess.CompletedProcess:
    script = tmp_path / "heat.py"
    script.write_text(HEAT)
    env = dict(
        os.environ,
        ASTCOMPILE_CACHE_DIR=cache,
        ASTCOMPILE_DEBUG_DIR=debug,
        ASTCOMPILE_LOGS="output_code",
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_debug_folder_and_output_code_show_the_c_with_user_names_and_lines(tmp_path):
    cache = str(tmp_path / "cache")
    first = _run_heat(tmp_path, cache, str(tmp_path / "cold"))
    assert "[astcompile.output_code] heat __ac_region_0 C:" in first.stderr
    assert QUOTED in first.stderr
    folder = tmp_path / "cold" / "__main__.heat"
    assert sorted(os.listdir(folder)) == [
        "__ac_region_0.0.lower.c",
        "__ac_region_0.0.trace.txt",
        "__ac_region_0.0.wrap.py",
        "rewrite.py",
    ]
    c = (folder / "__ac_region_0.0.lower.c").read_text()
    assert QUOTED in c
    assert "for (int64_t t_" in c and "double total_" in c  # the user's loop variable and sum
    assert "i_" not in c and "c1_" not in c
    assert "def region_heat_region_0(leaves):" in (folder / "__ac_region_0.0.wrap.py").read_text()
    kept = c.splitlines()[0].split("source kept at ")[1].rstrip(" */)")
    with open(kept) as f:
        assert f.read() == c.split("\n", 1)[1]  # the cache keeps the source beside the .so

    warm = _run_heat(tmp_path, cache, str(tmp_path / "warm"))  # a new process: nothing compiled
    assert first.stdout == warm.stdout
    (text,) = _c_files(str(tmp_path / "warm")).values()
    assert text.startswith("/* warm start: loaded ") and f"built from {kept} */" in text
    assert QUOTED in text and QUOTED in warm.stderr


def test_an_index_error_in_a_compiled_loop_points_at_the_users_line():
    compiled = astcompile.compile(walk, backend="c")
    u = np.arange(5.0)
    assert compiled(u, 5) == walk(u, 5)
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        compiled(u, 8)
    try:
        compiled(u, 8)
    except IndexError:
        text = traceback.format_exc()
    line = walk.__code__.co_firstlineno + 3
    frame = f'File "{__file__}", line {line}, in walk\n    total = total + u[t]  # out of range'
    assert frame in text
    assert text.rstrip().splitlines()[-2].startswith("IndexError")  # the last frame is the user's
    assert "^^^" not in text.split(frame)[1]  # no markers under a part the frame does not mean


def test_c_keywords_and_reused_loop_names_still_compile():
    compiled = astcompile.compile(c_keywords, backend="c")
    x = np.arange(6.0)
    assert compiled(x, 6) == c_keywords(x, 6)
    (c,) = [e.run.c_source for r in compiled.regions for es in r.entries.values() for e in es]
    assert "double double_" in c and "for (int64_t i0__" in c  # suffixed: no clash with C


def test_a_size_check_in_a_compiled_loop_points_at_the_users_line():
    compiled = astcompile.compile(shift, backend="c")
    x = np.arange(8.0)
    np.testing.assert_array_equal(compiled(x, 3), shift(x, 3))
    with pytest.raises(ValueError, match="could not broadcast") as info:
        compiled(x, 2)
    text = "".join(traceback.format_exception(info.value))
    line = shift.__code__.co_firstlineno + 3
    assert f'File "{__file__}", line {line}, in shift\n    out[:] = x[i : i + k]' in text


def softplus(x, y):
    return np.log1p(np.exp(x)) * y + 1.0


@pytest.mark.skipif(not TRITON, reason="needs triton (the test extra; its interpreter runs here)")
def test_debug_folder_and_output_code_show_the_triton_kernels(tmp_path, monkeypatch, caplog):
    """The wrapper calls ``_kernel('tr_region_0_k0', ...)``; the kernel itself is in the
    folder beside it and in the log, headed by the module file Triton imports it from."""
    import logging

    monkeypatch.setattr(astcompile.config, "debug_dir", str(tmp_path))
    caplog.set_level(logging.INFO, logger="astcompile.output_code")
    x, y = np.linspace(-2.0, 2.0, 40), np.ones(40)
    with target_mode("triton"):
        got = astcompile.compile(softplus, backend="triton")(x, y)
    np.testing.assert_allclose(got, softplus(x, y), rtol=1e-12)
    (folder,) = tmp_path.iterdir()
    kernels = (folder / "__ac_region_0.0.lower.triton.py").read_text()
    wrapper = (folder / "__ac_region_0.0.wrap.py").read_text()
    (called,) = {
        line.split("_kernel('")[1].split("'")[0]
        for line in wrapper.splitlines()
        if "_kernel('" in line
    }
    assert f"def {called}(" in kernels and "@triton.jit" in kernels
    module = kernels.splitlines()[0].removeprefix("# Triton kernels, imported from ")
    with open(module) as f:
        assert f.read() == kernels.split("\n", 1)[1]
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "softplus __ac_region_0 Triton:\n# Triton kernels, imported from " in logged
    assert f"def {called}(" in logged
