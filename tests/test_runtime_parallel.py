"""The thread count kernels are passed (runtime/parallel.py) and the idle estimate a default
count opens its team with (astc_threads in astc_math.h)."""

from __future__ import annotations

import os

import pytest

from astcompile.runtime import load_library, nthreads, num_threads, parallel, set_num_threads


@pytest.fixture(autouse=True)
def _restore(monkeypatch):
    monkeypatch.setattr(parallel, "_nthreads", parallel._nthreads)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)


def test_none_goes_back_to_the_default_count_and_the_previous_setting_restores_exactly():
    """set_num_threads(nthreads()) fixes the count at every CPU; the setting set_num_threads
    returns (None for the default) and ``num_threads`` give back the idle-only default."""
    set_num_threads(None)
    assert parallel.kernel_threads() == parallel._DEFAULT
    previous = set_num_threads(3)
    assert previous == (None if parallel._DEFAULT < 0 else parallel._DEFAULT)
    assert (nthreads(), parallel.kernel_threads()) == (3, 3)
    assert set_num_threads(previous) == 3
    assert parallel.kernel_threads() == parallel._DEFAULT
    with num_threads(2):
        assert parallel.kernel_threads() == 2
        with num_threads(None):
            assert parallel.kernel_threads() == parallel._DEFAULT
        assert parallel.kernel_threads() == 2
    assert parallel.kernel_threads() == parallel._DEFAULT
    with pytest.raises(KeyError), num_threads(1):
        raise KeyError  # restored on the way out of an exception too
    assert parallel.kernel_threads() == parallel._DEFAULT


def _cgroup(root, **files: str) -> str:
    for name, text in files.items():
        path = os.path.join(root, *name.split("__"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text + "\n")
    return str(root)


def test_a_cgroup_cpu_quota_caps_the_default_count(tmp_path, monkeypatch):
    """A container given 2 CPUs by quota sees every host CPU in its affinity: the default
    count takes the quota (rounded up), cgroup v2 ``cpu.max`` or v1 cfs files."""
    quota = parallel._quota_cpus
    assert quota(_cgroup(tmp_path / "v2", **{"cpu.max": "200000 100000"})) == 2
    assert quota(_cgroup(tmp_path / "half", **{"cpu.max": "50000 100000"})) == 1
    assert quota(_cgroup(tmp_path / "odd", **{"cpu.max": "150000 100000"})) == 2
    assert quota(_cgroup(tmp_path / "max", **{"cpu.max": "max 100000"})) is None
    v1 = {"cpu__cpu.cfs_quota_us": "300000", "cpu__cpu.cfs_period_us": "100000"}
    assert quota(_cgroup(tmp_path / "v1", **v1)) == 3
    v1["cpu__cpu.cfs_quota_us"] = "-1"
    assert quota(_cgroup(tmp_path / "v1none", **v1)) is None
    assert quota(str(tmp_path / "absent")) is None
    one = _cgroup(tmp_path / "one", **{"cpu.max": "100000 100000"})
    monkeypatch.setattr(parallel, "_quota_cpus", lambda: quota(one))
    assert parallel._default_threads() == -1
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert parallel._default_threads() == 4  # the user's count wins


def test_the_host_load_is_scaled_to_the_cpus_we_hold(tmp_path):
    """/proc/loadavg counts the whole host: on 4 of 64 CPUs, 40 runnable tasks elsewhere are
    2.5 on ours (a team of 2 may open), not 40 (no team ever); on all CPUs, all of them."""
    source = (
        '#include "astc_math.h"\n'
        "int64_t busy4(int64_t others, int64_t cpus, int64_t online) {\n"
        "    return astc_busy4(others, cpus, online);\n}\n"
    )
    lib = load_library(source, "int64_t busy4(int64_t, int64_t, int64_t);", str(tmp_path))[1]
    assert lib.busy4(40, 4, 64) == 10
    assert lib.busy4(63, 4, 64) == 15  # the host full: ours too (idle (15 + 2) / 4 = 4 of 4)
    assert lib.busy4(3, 2, 2) == 12
    assert lib.busy4(3, 4, 2) == 12  # never more CPUs online than we hold
