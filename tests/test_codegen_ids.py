"""Generated names are numbered per region: the same function gives the same C source, and so
the same kernel library key, whatever the process compiled before it."""

from __future__ import annotations

import numpy as np

import astcompile
from astcompile.runtime import loader


def moving_sum(x, k):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i : i + k].sum()  # a run-time length: its name came from a process-wide counter
    return out


def softplus(x, y):
    return np.log1p(np.exp(x * y)).sum(axis=-1)


def _sources(fn, args, cache_dir, monkeypatch) -> list[str]:
    """The C and wrapper sources of ``fn``'s regions, compiled (traced) afresh."""
    monkeypatch.setattr(astcompile.config, "cache_dir", str(cache_dir))  # no warm entries
    compiled = astcompile.compile(fn, backend="c")
    compiled(*args)
    runs = [e.run for r in compiled.regions for found in r.entries.values() for e in found]
    assert runs and all(r.c_source for r in runs)
    return [text for r in runs for text in (r.c_source, r.py_source)]


def test_same_function_same_source_and_key_whatever_was_compiled_before(tmp_path, monkeypatch):
    x, y = np.linspace(0, 1, 12).reshape(3, 4), np.full((3, 4), 0.5)
    cases = [(softplus, (x, y)), (moving_sum, (np.arange(9.0), 3))]
    alone = [
        _sources(fn, args, tmp_path / f"alone{i}", monkeypatch)
        for i, (fn, args) in enumerate(cases)
    ]
    for i, (fn, args) in enumerate(cases[::-1]):  # other graphs traced first: ids moved on
        _sources(fn, args, tmp_path / f"warmup{i}", monkeypatch)
    after = [
        _sources(fn, args, tmp_path / f"after{i}", monkeypatch)
        for i, (fn, args) in enumerate(cases)
    ]
    assert after == alone
    compiler = loader.build.find_compiler()
    keys = {loader.library_key(src, compiler) for src in alone[0][::2] + after[0][::2]}
    assert len(keys) == 1
    assert "x_0" in alone[0][0] and "len0" in alone[1][0]  # numbered from 0 in each region
