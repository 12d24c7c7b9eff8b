"""Hypothesis: generated NumPy programs, compiled result equal to NumPy's (value, dtype, shape).

Each example is written to a real module file and imported, so the whole pipeline runs: source
capture, analysis, rewrite, tracing and the backend. ``--slow`` runs many more examples.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from differential import assert_same

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float32", "float64"]
UNARY = ["np.exp({})", "np.log1p(np.abs({}))", "np.tanh({})", "np.sin({})", "np.cos({})",
         "np.sqrt(np.abs({}))", "(-{})", "np.abs({})", "({}) ** 2", "np.floor({})", "({}).T",
         "({}).astype(np.float32)", "np.clip({}, -1, 2)", "np.square({})", "np.sign({})"]
BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} / {})", "np.maximum({}, {})",
          "np.minimum({}, {})", "np.where({} > {}, 1.5, -0.5)", "np.arctan2({}, {})",
          "({} >= {})", "np.hypot({}, {})"]
SCALARS = ["2.5", "3", "np.float32(0.5)", "True", "-1"]
REDUCTIONS = ["np.sum({}{})", "np.mean({}{})", "np.max({}{})", "np.min({}{})", "({}).any({})",
              "np.prod({}{})", "np.std({}{})", "({}).var({})"]
_counter = itertools.count()


@st.composite
def expressions(draw, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(["x", "y", "x", "y"] + SCALARS[:2]))
    kind = draw(st.sampled_from(["unary", "binary", "binary"]))
    if kind == "unary":
        return draw(st.sampled_from(UNARY)).format(draw(expressions(depth - 1)))
    return draw(st.sampled_from(BINARY)).format(draw(expressions(depth - 1)), draw(expressions(depth - 1)))


@st.composite
def programs(draw) -> str:
    body = draw(expressions())
    if draw(st.booleans()):
        axis = draw(st.sampled_from(["", ", axis=-1", ", axis=0, keepdims=True", ", axis=None"]))
        reduction = draw(st.sampled_from(REDUCTIONS))
        if reduction.startswith("({})."):
            axis = axis[2:]
        body = reduction.format(f"({body}) * np.ones_like(x)", axis)
    return body


@st.composite
def operands(draw) -> tuple[np.ndarray, np.ndarray]:
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    x_shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    y_shape = tuple(draw(st.sampled_from([d, 1])) for d in x_shape)[draw(st.integers(0, len(x_shape))):]
    y_dtype = np.dtype(draw(st.sampled_from([dtype.name, "float64", "int64"])))
    special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0])
    elements = {"float": st.one_of(st.floats(-10, 10, width=32), special)}
    def array(shape, dt):
        if dt.kind == "f":
            return draw(hnp.arrays(dt, shape, elements=elements["float"]))
        return draw(hnp.arrays(dt, shape, elements=hnp.from_dtype(dt, min_value=-5, max_value=5) if dt.kind == "i" else None))
    x = array(x_shape, dtype)
    y = array(y_shape, y_dtype)
    if draw(st.booleans()) and x.ndim >= 1 and x.shape[-1] > 1:
        x = np.repeat(x, 2, axis=-1)[..., ::2]  # a strided view
    return x, y


def compile_program(body: str, tmp_path) -> object:
    name = f"generated_{next(_counter)}"
    path = tmp_path / f"{name}.py"
    path.write_text(f"import numpy as np\n\n\ndef program(x, y):\n    z = {body}\n    return z\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.program


@pytest.mark.parametrize("backend", ["eager", "c"])
@given(program=programs(), args=operands())
def test_generated_programs_match_numpy(backend, program, args, tmp_path_factory):
    fn = compile_program(program, tmp_path_factory.mktemp("programs"))
    x, y = args
    try:
        with np.errstate(all="ignore"):
            fn(x.copy(), y.copy())
    except Exception as exc:  # NumPy itself rejects it: astcompile must raise the same type
        with pytest.raises(type(exc)):
            assert_same(fn, x, y, backend=backend)
        return
    assert_same(fn, x, y, backend=backend)



def _scalar_transpose(x):
    return np.exp(x).T, np.exp(x).transpose(), np.transpose(x.sum())


def _scalar_reshape(x):
    return np.exp(x).reshape(()), np.reshape(x.sum(), ()), x.sum().reshape(1)


def _scalar_squeeze_and_copy(x):
    return np.squeeze(x.sum()), x.sum().copy(), np.copy(x.sum()), np.asarray(x.sum())


def _zero_d_array_shape_ops(x):
    y = x.reshape(())
    return y.T, np.squeeze(y), y.copy(), np.ascontiguousarray(x.sum()), np.squeeze(x)


@pytest.mark.parametrize("backend", ["eager", "c"])
@pytest.mark.parametrize("fn", [_scalar_transpose, _scalar_reshape, _scalar_squeeze_and_copy,
                                _zero_d_array_shape_ops])
@pytest.mark.parametrize("x", [np.array(0.5), np.ones((1, 1), np.float32)])
def test_scalar_or_zero_d_result_matches_numpy(backend, fn, x):
    """NumPy scalars and 0-d arrays differ in type: a shape method keeps whichever it got."""
    if fn is _zero_d_array_shape_ops and x.size != 1:
        pytest.skip("needs one element")
    assert_same(fn, x, backend=backend)


def _weak_bools(b, i8, u, f):
    return (b | True, b + True, i8 + True, u <= True, b <= True, i8 * False, f >= False,
            b & False, i8 < True, (2.5 >= 2.5) >= f)


@pytest.mark.parametrize("backend", ["eager", "c"])
def test_python_bool_scalars_promote_like_numpy(backend):
    """A Python bool next to a number array acts as 1 or 0 (``x <= True`` compares with 1.0);
    next to a bool array it stays a bool. Found by the random differential run."""
    args = (np.array([True, False]), np.array([2, 0], np.int8), np.array([2, 0], np.uint8),
            np.array([0.5, 2.0], np.float32))
    assert_same(_weak_bools, *args, backend=backend)
