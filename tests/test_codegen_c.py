"""The generated C and Python wrapper read like code a person would write."""

from __future__ import annotations

import numpy as np

from astcompile.backends.c import generate
from astcompile.graph.trace import trace_callable


def scaled_tanh(signal, gain):
    return np.tanh(signal * gain)


def test_c_names_user_variables_and_points_at_source_lines():
    graph = trace_callable(scaled_tanh, [np.ones(4, np.float32), 2.0])
    _, source, decls, wrapper, _ = generate(graph)
    assert "signal_" in source and "s_gain_" in source
    assert "test_codegen_c.py:" in source  # // file:line comments
    assert "tanhf(" in source and "tanh(" not in source.replace(
        "tanhf(", ""
    )  # float32 stays float32
    assert "#pragma omp simd" in source
    assert decls.startswith("void scaled_tanh")
    assert "def region_scaled_tanh(leaves):" in wrapper


def test_sizes_and_strides_are_parameters():
    graph = trace_callable(lambda x: x + 1, [np.ones((3, 5))])
    _, source, *_ = generate(graph)
    assert "int64_t n0, int64_t n1" in source and "_bs1" in source
    assert "[5]" not in source and " 3;" not in source
