"""runtime/fpflags.py: the calling thread's floating-point flags, read through libm."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from astcompile.runtime import fpflags

pytestmark = pytest.mark.skipif(not fpflags.KINDS, reason="this machine's flags are unknown")

_FRESH = textwrap.dedent("""
    import sys
    import numpy as np
    from astcompile.runtime import fpflags
    fpflags.clear()
    with np.errstate(all="ignore"):
        np.float64(1.0) / np.float64(0.0)
    divided = fpflags.kinds(fpflags.raised())
    fpflags.clear()
    print(divided, fpflags.kinds(fpflags.raised()), "pycparser" in sys.modules)
""")


def test_a_new_process_reads_the_flags_without_cffis_c_parser():
    """A warm process takes its kernels from the cache, needing nothing of cffi's but the
    backend: reading the flags must not import the C parser either (about 10 ms of a warm
    first call)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    out = subprocess.run(
        [sys.executable, "-c", _FRESH], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.split() == ["['divide']", "[]", "False"]


def test_raise_kinds_raises_the_flags_it_names():
    fpflags.clear()
    fpflags.raise_kinds({"over", "invalid"})
    assert fpflags.kinds(fpflags.raised()) == ["over", "invalid"]
    fpflags.clear()
    assert fpflags.raised() == 0


def test_quiet_keeps_the_flags_raised_before_and_drops_its_own():
    """A Triton launch: NumPy's ops in it clear the flags a NumPy step raised before it (they
    were lost), and its interpreter's NumPy errors are neither warned of nor flags."""
    fpflags.clear()
    fpflags.raise_kinds({"divide"})
    with warnings.catch_warnings(), np.errstate(all="warn"):
        warnings.simplefilter("error")
        fpflags.quiet(lambda: np.zeros(2) / np.zeros(2))
    assert fpflags.kinds(fpflags.raised()) == ["divide"]
    fpflags.clear()


def test_kernel_bits_are_raised_by_name():
    fpflags.clear()
    fpflags.raise_bits(fpflags.KERNEL_BITS["over"] | fpflags.KERNEL_BITS["invalid"])
    assert fpflags.kinds(fpflags.raised()) == ["over", "invalid"]
    fpflags.clear()


def test_reported_follows_the_error_state():
    with np.errstate(all="ignore"):
        assert not fpflags.reported()
        with np.errstate(under="warn"):
            assert fpflags.reported()
    assert fpflags.reported()
