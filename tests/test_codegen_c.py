"""The generated C and Python wrapper read like code a person would write."""

from __future__ import annotations

import re

import numpy as np
from graphs import lowered

from astcompile.trace.tracer import trace_callable


def scaled_tanh(signal, gain):
    return np.tanh(signal * gain)


def test_c_names_user_variables_and_points_at_source_lines():
    graph = trace_callable(scaled_tanh, [np.ones(4, np.float32), 2.0])
    code = lowered(graph).code
    source, decls, wrapper = code.source, code.decls, code.parts.py
    assert "signal_" in source and "s_gain_" in source
    assert "/* return np.tanh(signal * gain)  (test_codegen_c.py:" in source  # quoted line
    code = re.sub(r"/\*.*?\*/", "", source, flags=re.DOTALL)  # the quote says tanh too
    assert "tanhf(" in code and "tanh(" not in code.replace("tanhf(", "")  # float32 stays
    assert "#pragma omp simd" in source
    assert decls.startswith("void scaled_tanh")
    assert "def region_scaled_tanh(leaves):" in wrapper


def test_kernels_calling_math_functions_prefer_wide_vectors():
    """512-bit vectors (where the CPU has them) for loops that call libm, GCC's default for
    the others."""
    wide = lowered(trace_callable(scaled_tanh, [np.ones(4, np.float32), 2.0])).code.source
    plain = lowered(trace_callable(lambda x: x.sum(axis=-1), [np.ones((3, 5))])).code.source
    assert '#pragma GCC target("prefer-vector-width=512")' in wide
    assert "prefer-vector-width" not in plain


def test_sizes_and_strides_are_parameters():
    graph = trace_callable(lambda x: x + 1, [np.ones((3, 5))])
    source = lowered(graph).code.source
    assert "int64_t n0, int64_t n1" in source and "_bs1" in source
    assert "[5]" not in source and " 3;" not in source


def test_float64_sums_use_several_accumulators_and_match_numpy(tmp_path):
    """Long innermost rows: blocks of 32 lanes, of one vector, then the rest one by one;
    short rows and strided data take the plain loop."""
    from differential import assert_matches

    from tests.c_helpers import compile_c

    def outer_sum(X, Y):
        return np.sum(X[:, :, None] * Y[:, None, :], axis=(-2, -1))

    rng = np.random.default_rng(0)
    X, Y = rng.random((3, 37)), rng.random((3, 37))
    _, compiled = compile_c(outer_sum, [X, Y], str(tmp_path))
    assert "[32] = {0};" in compiled.c_source and "#pragma GCC unroll 32" in compiled.c_source
    assert "#pragma GCC unroll 4" in compiled.c_source
    for n in (0, 1, 15, 16, 17, 33, 63, 64, 65, 67, 100, 131):
        X, Y = rng.random((2, n)), rng.random((2, n))
        assert_matches(compiled([X, Y])[0], outer_sum(X, Y))
    X, Y = rng.random((2, 40))[:, ::2], rng.random((2, 40))[:, ::2]  # inner stride 2
    assert_matches(compiled([X, Y])[0], outer_sum(X, Y))


def test_one_loop_per_phase_unit_inner_stride_and_strided_arguments_copied(tmp_path):
    """The C indexes a last axis on the innermost loop with stride 1 and has no strided twin
    of the loop; arguments whose last axis is strided reach it as contiguous copies, and a
    reduction over a leading axis keeps its real strides."""
    from tests.c_helpers import check

    rng = np.random.default_rng(0)
    x, y = rng.random((6, 5)), rng.random(5)
    strided = [[rng.random((5, 6)).T, y], [x[:, ::-1], rng.random(10)[::2]], [x[::2], y]]
    row = check(lambda x, y: np.tanh(x) * y, [x, y], str(tmp_path), calls=strided)
    col = check(lambda x, y: x.sum(axis=0) * y[0], [x, y], str(tmp_path), calls=strided)
    for compiled in (row, col):
        assert not re.search(r"_s\d+ == 1", compiled.c_source)  # no run-time choice of loop
        assert compiled.c_source.count("#pragma omp simd") == compiled.c_source.count("/* phase")
    assert "_contiguous(x" in row.py_source and "_contiguous(y" in row.py_source
    assert "_contiguous(x" not in col.py_source  # the column sum walks x with its strides
