"""A function's first compiled call imports the compiler's parts (the tracer, libcst): their
dependencies' import-time warnings must not reach a user whose warnings filter makes every
warning an error (``pytest -W error``, ``warnings.simplefilter("error")``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent(
    """
    import sys, warnings
    warnings.simplefilter("error")
    import numpy as np
    import astcompile

    def largest(a, b, c):
        return max(a, b, c) * np.ones(3)

    compiled = astcompile.compile(largest, backend=sys.argv[1])
    for _ in range(3):
        print(compiled(1.0, 2.0, np.float64(3.0)).sum())
    """
)


@pytest.mark.parametrize("backend", ["eager", "c"])
def test_the_first_call_under_an_error_filter_raises_nothing(backend, tmp_path):
    """Cold, then warm: a new process on a warm cache imports the tracer at its first call."""
    script = tmp_path / "first_call.py"
    script.write_text(PROGRAM)
    env = {**os.environ, "ASTCOMPILE_COMPILE_BUDGET": "inf", "ASTCOMPILE_TIERING": "0"}
    env["ASTCOMPILE_CACHE_DIR"] = str(tmp_path)
    for _ in ("cold", "warm"):
        done = subprocess.run(
            [sys.executable, str(script), backend],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.split() == ["9.0"] * 3
