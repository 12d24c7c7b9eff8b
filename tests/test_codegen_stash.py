"""Values kept in an output between phases: computed once, results as NumPy's."""

from __future__ import annotations

import numpy as np

from tests.c_helpers import check


def softmax(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis=-1, keepdims=True)


def test_softmax_calls_exp_once_per_element(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 300)).astype(np.float32)
    nan = x.copy()
    nan[2, 5] = np.nan
    inf = x.copy()
    inf[3, :] = -np.inf
    calls = [[x[:, ::-1]], [x[:0]], [x[:, :1]], [nan], [inf], [x[:3, :50].copy()]]
    compiled = check(softmax, [x], str(tmp_path), calls=calls)
    source = compiled.c_source
    assert source.count("expf(") == 1  # the sum phase keeps exp(x - m) in the output
    assert "/* kept by phase 1 */" in source and "/* kept for its phase */" in source


def test_cheap_or_mismatched_values_are_recomputed(tmp_path):
    """``x - mu`` is cheaper to recompute than to store and reload; a float64 value is not
    kept in a float32 output (the round trip would round it)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 40))

    def centered(x):
        d = x - x.mean(axis=-1, keepdims=True)
        return d / np.sqrt((d * d).mean(axis=-1, keepdims=True))

    def narrowed(x):
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return (e / e.max(axis=-1, keepdims=True)).astype(np.float32)

    for fn, args in [(centered, [x]), (narrowed, [x])]:
        compiled = check(fn, args, str(tmp_path), calls=[[args[0][:, ::2]]])
        assert "kept" not in compiled.c_source


def test_output_broadcast_over_the_domain_is_not_used_as_storage(tmp_path):
    """An output smaller than the domain has no element per point: nothing is kept there."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 33))

    def f(x):
        e = np.exp(x)
        return e.sum(axis=-1), e.max(axis=-1) * 2.0

    compiled = check(f, [x], str(tmp_path), calls=[[x[::2]]])
    assert "kept" not in compiled.c_source
