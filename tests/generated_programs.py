"""Hypothesis strategies for the generated programs of test_differential.py.

A program is the source of ``def program(x, y, k)``: ``x`` and ``y`` are arrays (any dtype the
compiler supports, values at the dtype's limits too), ``k`` a Python int. Programs are one
expression, or a few statements from templates that reached NumPy's edges before:

* Python numbers at and beyond a dtype's limits (``uint8 >= -1``, ``int64 < 2**63``, ``+ 300``),
  ufuncs of Python numbers (``np.ceil(2.5)`` is a strong float64), NaN signs, 0-d constants;
* a Python number carried through a loop whose branch may not run (then clipped: NumPy's
  clip makes it a strong array);
* inner loops whose trip count is known only at run time (and may be zero);
* stores of out-of-range values and of infinities into integer arrays, and of size-1 arrays;
* stores through listed indices, out of range too (NumPy writes nothing then);
* values nothing reads that NumPy raises on;
* indices read from (uint64) arrays;
* complex values with infinite parts and products that overflow;
* Python lists the program makes and fills in a loop (appends, stores, reads past the end).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from astcompile.runtime.guards import int_class_bounds

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "uint64", "float32", "float64", "complex64"]
DTYPES += ["complex128"]
UNARY = [
    "np.exp({})",
    "np.log1p(np.abs({}))",
    "np.tanh({})",
    "np.sin({})",
    "np.cos({})",
    "np.sqrt(np.abs({}))",
    "(-{})",
    "np.abs({})",
    "({}) ** 2",
    "np.floor({})",
    "({}).T",
    "({}).astype(np.float32)",
    "np.clip({}, -1, 2)",
    "np.clip({}, 2, -1)",
    "np.square({})",
    "np.sign({})",
    "np.squeeze({})",
    "np.cumsum({})",
]
BINARY = [
    "({} + {})",
    "({} - {})",
    "({} * {})",
    "({} / {})",
    "np.maximum({}, {})",
    "np.minimum({}, {})",
    "np.where({} > {}, 1.5, -0.5)",
    "np.arctan2({}, {})",
    "({} >= {})",
    "np.hypot({}, {})",
    "({} < {})",
    "({} == {})",
    "np.copysign({}, {})",
]
#: Python ints at and beyond integer limits (``k`` is one too, passed in)
INT_EDGES = [
    "-1",
    "-3",
    "127",
    "-128",
    "-129",
    "255",
    "256",
    "300",
    "65535",
    "2**31",
    "2**63 - 1",
    "2**63",
    "2**64 - 1",
    "-(2**63)",
    "k",
]
FLOAT_EDGES = ["2.5", "-0.0", "np.inf", "-np.inf", "np.nan", "-np.nan", "1e300", "1 / 3"]
#: ufuncs of Python numbers (strong NumPy scalars), NumPy scalars and 0-d array constants
STRONG = [
    "np.ceil(2.5)",
    "np.abs(-1 / 3)",
    "np.floor(-0.5)",
    "np.sqrt(2.0)",
    "np.negative(3)",
    "np.float32(0.5)",
    "np.uint8(200)",
    "np.int8(-100)",
    "np.uint64(2**63)",
    "np.array(300)",
    "np.array(2.5)",
    "np.array(-1, np.int8)",
]
SCALARS = ["3", "True"] + INT_EDGES + FLOAT_EDGES + STRONG
REDUCTIONS = [
    "np.sum({}{})",
    "np.mean({}{})",
    "np.max({}{})",
    "np.min({}{})",
    "({}).any({})",
    "np.prod({}{})",
    "np.std({}{})",
    "({}).var({})",
]
K_VALUES = [
    0,
    3,
    -1,
    127,
    -128,
    200,
    255,
    256,
    300,
    -200,
    40000,
    2**31,
    2**40,
    -(2**40),
    2**63 - 1,
    -(2**63),
    2**63,
    2**64 - 1,
]


@st.composite
def expressions(draw, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.integers(0, 4)) == 0:
            return draw(st.sampled_from(SCALARS))
        return draw(st.sampled_from(["x", "y"]))
    kind = draw(st.sampled_from(["unary", "binary", "binary"]))
    if kind == "unary":
        return draw(st.sampled_from(UNARY)).format(draw(expressions(depth - 1)))
    return draw(st.sampled_from(BINARY)).format(
        draw(expressions(depth - 1)), draw(expressions(depth - 1))
    )


@st.composite
def expression_programs(draw) -> list[str]:
    body = draw(expressions())
    if draw(st.booleans()):
        axis = draw(st.sampled_from(["", ", axis=-1", ", axis=0, keepdims=True", ", axis=None"]))
        reduction = draw(st.sampled_from(REDUCTIONS))
        if reduction.startswith("({})."):
            axis = axis[2:]
        body = reduction.format(f"({body}) * np.ones_like(x)", axis)
    return [f"z = {body}"]


# -- statement templates: each draws the lines of a program that assigns ``z`` ---------------

_TESTS = ["xr[i] > {}", "xr[i] < {}", "xr[i] == {}", "i > {}"]
_ASSIGNED = [
    "xr[i]",
    "xr[i] * 2",
    "xr[i] + 0.5",
    "np.ceil(i * 0.5)",
    "np.abs(xr[i])",
    "i",
    "i * 0.5",
    "xr[i] > 0",
    "np.float64(i)",
    "np.int64(i)",
]
_UPDATES = [
    "acc = acc - 5",
    "acc = (acc * 3) % 1001",
    "acc = acc + xr[i]",
    "acc = -acc",
    "acc = acc + 1",
    "acc = abs(acc)",
    "acc = acc * yr[0]",
    "acc = max(acc, i)",
]
#: start values; ``k`` stays out of them: Python int arithmetic in a compiled loop wraps at int64
#: where Python's int grows (a documented deviation), so carried Python ints start small
_INITS = [
    "-3",
    "0",
    "0.0",
    "3",
    "True",
    "False",
    "-1.5",
    "np.float64(0)",
    "np.int64(-3)",
    "np.uint8(3)",
    "np.float32(0.5)",
]


@st.composite
def branch_loops(draw) -> list[str]:
    """A Python number that a branch may turn into a NumPy value, then used and returned."""
    lines = [
        "xr = x.ravel()",
        "yr = y.ravel()",
        f"acc = {draw(st.sampled_from(_INITS))}",
        "for i in range(xr.shape[0]):",
        f"    if {draw(st.sampled_from(_TESTS)).format(draw(st.sampled_from(['0', '2', 'k', '100'])))}:",
        f"        acc = {draw(st.sampled_from(_ASSIGNED))}",
    ]
    if draw(st.booleans()):
        lines.append(f"    {draw(st.sampled_from(_UPDATES))}")
    if draw(st.booleans()):
        lines += [f"    if acc < {draw(st.sampled_from(['0', '-2', 'k']))}:", "        break"]
    after = draw(
        st.sampled_from(
            [
                "acc",
                "(acc, acc * y)",
                "(acc, acc > 1)",
                "acc + x",
                "(acc > np.int64(-2), float(acc))",
                "np.clip(acc, 0, np.float32(1))",
            ]
        )
    )
    return lines + [f"z = {after}"]


@st.composite
def runtime_bound_loops(draw) -> list[str]:
    """An inner loop that runs ``i`` times: zero times first."""
    init = draw(st.sampled_from(["0.0", "0", "np.float64(0)", "np.float32(0)", "-1"]))
    step = draw(
        st.sampled_from(["s + xr[j]", "s + xr[j] * 0.5", "(s * 3 + 1) % 1001", "max(s, xr[j])"])
    )
    return [
        "xr = x.ravel()",
        "out = np.zeros(xr.shape[0] + 1)",
        f"s = {init}",
        "for i in range(xr.shape[0] + 1):",
        f"    s = {init}",
        "    for j in range(i):",
        f"        s = {step}",
        "    out[i] = s",
        "z = (out, s)",
    ]


_TARGETS = [
    "x.copy()",
    "np.zeros_like(x)",
    "x.astype(np.uint8)",
    "x.astype(np.int8)",
    "x.astype(np.int64)",
    "x.astype(np.uint64)",
]
_KEYS = ["0", "...", "1:", "w > 0", "-1"]
_VALUES = (
    INT_EDGES
    + FLOAT_EDGES
    + STRONG
    + ["y.max()", "y.min()", "y.ravel()[0]", "y.sum()", "y.ravel()[0] * 1e300"]
    + ["y.ravel()[:1].copy()", "y.reshape(1, -1)[:, :1]"]
)


@st.composite
def stores(draw) -> list[str]:
    """A scalar stored into an array of another dtype (NumPy's conversion checks)."""
    lines = [f"w = ({draw(st.sampled_from(_TARGETS))}).ravel()"]
    for _ in range(draw(st.integers(1, 2))):
        key, value = draw(st.sampled_from(_KEYS)), draw(st.sampled_from(_VALUES))
        op = draw(st.sampled_from(["=", "=", "+="]))
        lines.append(f"w[{key}] {op} {value}")
    return lines + ["z = w"]


@st.composite
def scatters(draw) -> list[str]:
    """A store into the argument ``x``: through listed indices, some out of range (NumPy checks
    every index before it writes any), or in place."""
    idx = draw(st.sampled_from(["[0, 1]", "[-1, 0]", "[0, 3]", "[1, -5]", "[0, 0]"]))
    value = draw(st.sampled_from(["7", "x.reshape(-1)[:1] * 2", "y.ravel()[:1]"]))
    if draw(st.booleans()):  # into x itself (read-only where it is broadcast)
        return [f"x[...] += {value}", "z = x.sum()"]
    return ["xv = x.reshape(-1)", f"xv[{idx}] = {value}", "z = xv.sum()"]


@st.composite
def unread_values(draw) -> list[str]:
    """A value nothing reads that NumPy raises on (an integer to a negative integer power)."""
    powers = ["x ** y", "y ** x", "np.power(x, k)", "x ** x", "x.astype(np.int8) ** np.int8(-1)"]
    value = draw(st.sampled_from(powers))
    return [f"unused = {value}", f"z = {draw(expressions())}"]


@st.composite
def index_reads(draw) -> list[str]:
    """Indices read from an array (a uint64 one above int64 must raise, not wrap)."""
    read = draw(st.sampled_from(["xr[yr[k2]]", "xr[yr[k2]:].sum()", "xr[:yr[k2]].sum()"]))
    return [
        "xr = x.ravel()",
        "yr = y.ravel()",
        "s = 0.0",
        "for k2 in range(yr.shape[0]):",
        f"    s = s + {read}",
        "z = s",
    ]


_LIST_STARTS = [
    "[]",
    "[0.0] * n",
    "[0] * (n + 1)",
    "[k] * 2",
    "[1.5, -0.5]",
    "[[0.0] * 2 for _ in range(n)]",
]
_LIST_STEPS = [
    "out.append(i * 0.5)",
    "out.append(k + i)",
    "out.append(xr[i])",  # a NumPy scalar: Python's list holds it, the loop runs as written
    "out.append(i > 1)",
    "if xr[i] > 0:\n    out.append(i)",
    "out.append(len(out))",
    "out[i] = i * 2.5",
    "out[i] += k",
    "out[-1] = i",
    "out[i][1] = i * 0.25",
    "out.append(out[-1] * 0.5 + i)",
]
_LIST_ENDS = ["out", "(out, len(out))", "out[k2 % 7]", "out[-1]"]


@st.composite
def list_loops(draw) -> list[str]:
    """A Python list the program makes, filled by a loop (appends, stores, reads; an index
    past its end, another item type, NumPy scalars, rows), then returned or read."""
    return [
        "xr = x.ravel()",
        "n = xr.shape[0]",
        f"k2 = {draw(st.sampled_from(['0', '1', '-1', '5', 'k']))}",
        f"out = {draw(st.sampled_from(_LIST_STARTS))}",
        "for i in range(n):",
        *(f"    {line}" for line in draw(st.sampled_from(_LIST_STEPS)).split("\n")),
        f"z = {draw(st.sampled_from(_LIST_ENDS))}",
    ]


@st.composite
def programs(draw) -> list[str]:
    kind = draw(
        st.sampled_from(
            [
                expression_programs,
                expression_programs,
                branch_loops,
                runtime_bound_loops,
                stores,
                scatters,
                unread_values,
                index_reads,
                list_loops,
            ]
        )
    )
    return draw(kind())


_SPECIAL = st.sampled_from([np.nan, np.inf, -np.inf, -0.0])


def _elements(dtype: np.dtype) -> st.SearchStrategy:
    """Small values mostly, a dtype's own limits and NaN/inf sometimes."""
    if dtype.kind == "f":
        return st.one_of(
            st.floats(-10, 10, width=32), _SPECIAL, st.sampled_from([1e30, -1e30, 300.5, -1.5])
        )
    if dtype.kind == "c":  # infinite parts, and products that overflow
        big = -3e38 if dtype == np.complex64 else 1e200
        part = st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, big, -big])
        return st.builds(complex, part, part)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        small = st.integers(max(info.min, -5), min(info.max, 5))
        return st.one_of(small, small, st.sampled_from([info.min, info.max]))
    return hnp.from_dtype(dtype)


@st.composite
def operands(draw) -> tuple[np.ndarray, np.ndarray, int, int]:
    """``(x, y, k, k2)``: two arrays and two Python ints of one guard class (the second call
    reuses what the first compiled)."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    x_shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    y_shape = tuple(draw(st.sampled_from([d, 1])) for d in x_shape)[
        draw(st.integers(0, len(x_shape))) :
    ]
    y_dtype = np.dtype(draw(st.sampled_from([dtype.name, "float64", "int64", "uint64"])))
    x = draw(hnp.arrays(dtype, x_shape, elements=_elements(dtype)))
    y = draw(hnp.arrays(y_dtype, y_shape, elements=_elements(y_dtype)))
    layout = draw(st.sampled_from(["C", "C", "strided", "F", "broadcast"]))
    if layout == "strided" and x.ndim >= 1 and x.shape[-1] > 1:
        x = np.repeat(x, 2, axis=-1)[..., ::2]  # a strided view (ravel copies it)
    if layout == "F":
        x = np.asfortranarray(x)
    if layout == "broadcast" and x.size:  # zero strides, read-only: NumPy raises on writes
        x = np.broadcast_to(x[(slice(0, 1),) * x.ndim], x.shape)
    k = draw(st.sampled_from(K_VALUES))
    low, high = int_class_bounds(k)
    return x, y, k, draw(st.integers(max(low, -(2**64)), min(high, 2**64)))
