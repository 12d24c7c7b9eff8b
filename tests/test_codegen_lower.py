"""The op -> C table (targets/c/c_rules.py), rule by rule.

Every (op, dtype) the table says it lowers becomes one C function of one library (one compiler
call for all of them), run over the values where C and NumPy are known to disagree: NaN,
+-inf, -0.0, zero divisors, the most negative integer, shift counts past the bit width. Each
result must be NumPy's, exactly, or within the documented few ulp for libm/libmvec functions.
"""

from __future__ import annotations

import itertools
import warnings

import differential
import numpy as np
import pytest
from graphs import lowered

import astcompile
from astcompile.ir.graph import Node
from astcompile.ir.ops import REGISTRY, Op
from astcompile.runtime import fpflags, load_library
from astcompile.targets.c.c_rules import INFIX_RULES, RULES, Operand, can_lower, lower
from astcompile.targets.c.c_target import C
from astcompile.targets.c.ctypes import ctype
from astcompile.targets.c.entry import HEADER
from astcompile.trace.tracer import trace_callable

DTYPES = [np.bool_, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64]
#: rules computed by libm (or libmvec in vector loops): accurate to a few ulp, not exact.
LIBM = {
    Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG2, Op.LOG10, Op.LOG1P, Op.SIN, Op.COS, Op.TAN,
    Op.ARCSIN, Op.ARCCOS, Op.ARCTAN, Op.SINH, Op.COSH, Op.TANH, Op.ARCSINH, Op.ARCCOSH,
    Op.ARCTANH, Op.CBRT, Op.POW, Op.ARCTAN2, Op.HYPOT, Op.LOGADDEXP,
}  # fmt: skip
RTOL = {np.dtype(np.float32): 4e-6, np.dtype(np.float64): 1e-14}
#: Between equal zeros the C rules give the second operand, NumPy's SIMD rule
#: (tests/test_codegen_nan_signs.py); NumPy's fmax/fmin of 0-d values picks by dtype: not modelled.
ZERO_SIGN_FREE = {Op.FMAX, Op.FMIN}


def values(dtype: np.dtype) -> np.ndarray:
    if dtype.kind == "b":
        return np.array([False, True])
    if dtype.kind == "f":
        raw = [0.0, -0.0, 0.5, -0.5, 1.0, -1.5, 2.0, 3.0, 7.25, -7.0, 100.0, 1e-3]
        return np.array(raw + [np.inf, -np.inf, np.nan], dtype=dtype)
    info = np.iinfo(dtype)
    raw = [0, 1, 2, 3, 7, 8, 63, 64, 100, info.max]
    if dtype.kind == "i":
        raw += [-1, -2, -7, -8, info.min]
    return np.array(raw, dtype=dtype)


def rule_cases() -> list[tuple[Op, np.dtype, np.dtype]]:
    """(op, operand dtype, result dtype) for every rule NumPy defines as a ufunc."""
    found = []
    for op in RULES:
        row = REGISTRY[op]
        if not isinstance(row.numpy, np.ufunc) or row.nin not in (1, 2):
            continue
        for dt in map(np.dtype, DTYPES):
            try:
                out = row.numpy(*[np.zeros(1, dt)] * row.nin).dtype
            except TypeError:  # NumPy has no loop for it (np.sin of a bool array ...)
                continue
            if can_lower(node(op, dt, out)):
                found.append((op, dt, out))
    return found


def node(op: Op, src: np.dtype, out: np.dtype) -> Node:
    nin = REGISTRY[op].nin
    inputs = tuple(Node(Op.INPUT, (), src, (1,), None, None, -1 - k) for k in range(nin))
    return Node(op, inputs, out, (1,), None, None, -10)


def operands(op: Op, dt: np.dtype) -> list[np.ndarray]:
    v = values(dt)
    if REGISTRY[op].nin == 1:
        return [v]
    pairs = np.array(list(itertools.product(range(len(v)), repeat=2)))
    return [v[pairs[:, 0]], v[pairs[:, 1]]]


CASES = rule_cases()


def _function(k: int, op: Op, dt: np.dtype, out: np.dtype) -> tuple[str, str]:
    nin = REGISTRY[op].nin
    args = [Operand(f"x{j}[i]", dt) for j in range(nin)]
    params = ", ".join(f"const void* p{j}" for j in range(nin))
    decl = f"void rule{k}(int64_t n, {params}, void* po)"
    unpack = " ".join(f"const {ctype(dt)}* x{j} = p{j};" for j in range(nin))
    body = f"for (int64_t i = 0; i < n; i++) o[i] = {lower(node(op, dt, out), args)};"
    return f"{decl} {{ {unpack} {ctype(out)}* o = po; {body} }}", decl + ";"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    parts = [_function(k, *case) for k, case in enumerate(CASES)]
    source = HEADER + "\n".join(src for src, _ in parts) + "\n"
    return load_library(source, "\n".join(d for _, d in parts), str(tmp_path_factory.mktemp("c")))


def test_the_table_covers_every_elementwise_ufunc_rule():
    ops = {op for op, _, _ in CASES}
    assert {Op.ADD, Op.FLOORDIV, Op.MOD, Op.LSHIFT, Op.MAXIMUM, Op.LOGADDEXP, Op.SIGN} <= ops
    assert len(CASES) > 150


def test_c_is_the_target_rule_table():
    assert C.rules is RULES and C.name == "c"


def test_only_c_compares_floats_through_helpers():
    """Triton's comparisons stay the shared infix rules (its source is unchanged); C's float
    comparisons call the quiet helpers, its integer ones stay infix."""
    from astcompile.targets.triton import triton_rules

    assert all(triton_rules.RULES[op] is INFIX_RULES[op] for op in (Op.LT, Op.GE))
    f8, i8, b = np.dtype(np.float64), np.dtype(np.int64), np.dtype(bool)
    ab = [Operand("a", f8), Operand("b", f8)]
    assert lower(node(Op.LT, f8, b), ab) == "((uint8_t)astc_less_double(a, b))"
    ab = [Operand("a", i8), Operand("b", i8)]
    assert lower(node(Op.LT, i8, b), ab) == "((uint8_t)(a < b))"


@pytest.mark.parametrize(("k", "case"), list(enumerate(CASES)), ids=lambda c: str(c))
def test_each_rule_gives_numpys_answer(library, k, case):
    ffi, lib = library
    op, dt, out = case
    args = operands(op, dt)
    with np.errstate(all="ignore"):
        want = REGISTRY[op].numpy(*args)
    got = np.empty(len(args[0]), dtype=out)
    getattr(lib, f"rule{k}")(len(got), *(ffi.from_buffer(a) for a in args), ffi.from_buffer(got))
    if op in LIBM and out.kind == "f":
        np.testing.assert_allclose(got, want, rtol=RTOL[out], atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want, strict=True)
        if out.kind == "f" and op not in ZERO_SIGN_FREE:  # -0.0 == +0.0 above: signs too
            assert np.array_equal(np.signbit(got), np.signbit(want))


def test_rules_decline_what_c_cannot_do_like_numpy():
    f8, i8, u8 = np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.uint64)
    assert not can_lower(node(Op.SIN, i8, i8))  # float-only libm call on integers
    assert not can_lower(node(Op.ISINF, i8, np.dtype(bool)))
    cast = Node(Op.CAST, (Node(Op.INPUT, (), f8, (1,), None, None, -1),), u8, (1,), None)
    assert not can_lower(cast)  # float -> uint64 saturates differently in C


def test_pow_by_a_small_constant_is_multiplication():
    x = Node(Op.INPUT, (), np.dtype(np.float64), (1,), None, None, -1)
    pow_node = Node(Op.POW, (x, x), np.dtype(np.float64), (1,), None, None, -2)
    expr = lower(pow_node, [Operand("a", x.dtype), Operand("", x.dtype, True, 2)])
    assert expr == "(a * a)"


# -- an op added by following docs/internals.md: np.logaddexp, traced and lowered ---------


def softplus_sum(a, b):
    return np.logaddexp(a, b) - 0.5 * np.logaddexp(b, 0.0)


def logaddexp_in_a_loop(x):
    out = np.empty_like(x)
    acc = x[0]
    for i in range(x.shape[0]):
        acc = np.logaddexp(acc, x[i])
        out[i] = acc
    return out


@pytest.mark.parametrize("backend", differential.BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logaddexp_matches_numpy_in_kernels_and_loops(backend, dtype):
    x = np.array([0.0, 1.0, -np.inf, np.inf, np.nan, 700.0, -700.0, 3.0, 1e-8, -2.5], dtype)
    y = np.array([0.0, -1.0, -np.inf, np.inf, 1.0, 710.0, 1.0, np.nan, 1e-8, 40.0], dtype)
    for fn, args in [(softplus_sum, (x, y)), (logaddexp_in_a_loop, (x,))]:
        with np.errstate(all="ignore"):
            want = fn(*args)
            got = astcompile.compile(fn, backend=backend)(*args)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=RTOL[np.dtype(dtype)], equal_nan=True)


def test_logaddexp_is_generated_not_left_to_numpy():
    source = lowered(trace_callable(softplus_sum, [np.ones(4), np.ones(4)])).code.source
    assert "astc_logaddexp_double(" in source


def clip_crossed_bounds(i, f, b):
    return np.clip(i, 4, 1), np.clip(f, 4.0, 1.0), np.clip(b, True, False), np.clip(i, -2, 5)


@pytest.mark.parametrize("backend", differential.BACKENDS + differential.TRITON)
def test_clip_is_the_minimum_of_the_maximum_as_in_numpy(backend):
    """``np.clip(x, lo, hi)`` is ``min(max(x, lo), hi)``: bounds that cross give ``hi`` for
    every element, integers too (the integer rule was a select that gave ``lo`` below it)."""
    i = np.array([0, 3, 7, -5], np.int32)
    f = np.array([0.0, 3.0, 7.0, np.nan])
    differential.assert_same(clip_crossed_bounds, i, f, f > 1, backend=backend)


# -- floats compare quietly: NaN data raises no invalid flag (NumPy's comparisons do not) ---

QUIET = {Op.LT, Op.LE, Op.GT, Op.GE, Op.MAXIMUM, Op.MINIMUM, Op.FMAX, Op.FMIN, Op.SIGN}


@pytest.mark.parametrize(
    ("k", "case"),
    [(k, c) for k, c in enumerate(CASES) if c[0] in QUIET and c[1].kind == "f"],
    ids=lambda c: str(c),
)
def test_float_comparisons_raise_no_flag_on_nan(library, k, case):
    """In vector loops too: GCC's vector ``<`` (and ``__builtin_isless``) is a signalling
    compare; the rules' must not be (a raised flag sends the region back to its statements)."""
    ffi, lib = library
    args = [np.tile(a, 9) for a in operands(case[0], case[1])]
    got = np.empty(len(args[0]), dtype=case[2])
    fpflags.clear()
    getattr(lib, f"rule{k}")(len(got), *(ffi.from_buffer(a) for a in args), ffi.from_buffer(got))
    assert fpflags.kinds(fpflags.raised()) == []


def compares(x, y):
    return (x > 0).sum(), np.where(x > 0, x, 0), x < y, x <= y, x >= y, np.sign(x)


def picks(x, y):
    return np.maximum(x, y), np.fmin(x, y), np.clip(x, -1, 1), np.max(x), np.min(y)


def loop_compares(x):
    count, best = 0, x[0]
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            count += 1
        best = x[i] if x[i] < best else best
    return count, best


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", [compares, picks, loop_compares])
def test_nan_data_stays_compiled_and_silent(fn, dtype):
    """Comparisons of data with missing values (NaN) run compiled, every call, and warn of
    nothing (NumPy's don't): before, each call ran the region's statements again."""
    special = [np.nan, -0.0, 0.0, np.inf, -np.inf, 1.5, -2.0, 0.5, np.nan, -np.nan, 3.0]
    x = np.array(special * 30, dtype)
    args = (x, np.roll(x, 3))[: fn.__code__.co_argcount]
    differential.assert_same(fn, *args, backend="c")
    compiled = astcompile.compile(fn, backend="c")
    with warnings.catch_warnings(), differential.target_mode("c"):
        warnings.simplefilter("error", RuntimeWarning)
        for _ in range(3):
            differential.assert_same_value(compiled(*args), fn(*args))
    assert compiled.regions and all(r.stats.eager_calls == 0 for r in compiled.regions)
