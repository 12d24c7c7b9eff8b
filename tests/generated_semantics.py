"""Hypothesis strategies for NumPy-semantics programs: 1-6 statements where NumPy's rules are
easy to get wrong, over the operands of :mod:`generated_programs` (``x``, ``y``, ``k``).

Each statement assigns a fresh name from earlier names, Python and NumPy scalars:

* integer arithmetic at its edges: floor division and remainder by zero and with negatives,
  shifts past the width, negative integer powers, overflow that wraps;
* NaN and signed zeros through comparisons, ``where``, ``select``, ``clip``, ``maximum``/``fmax``;
* reductions with ``axis``, ``keepdims``, ``dtype=`` and ``initial=``, scans, arg-reductions;
* casts of NaN, infinities and out-of-range values, complex to real;
* in-place operators and ``out=`` (casting rules, arguments overlapping the output);
* ``np.errstate`` around a statement (``raise`` turns a warning into FloatingPointError);
* a loop carrying a new array: rebound to a value of another dtype, or updated in place (the
  variable's type after it, the warnings of what it stores);
* views against copies (``ravel``, ``reshape``, ``T``, ``astype(copy=False)``): written
  through, then the argument compared;
* two results in a tuple (which arrays are the same object, or share memory, compared).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from generated_programs import operands
from hypothesis import strategies as st

from astcompile.compare import copy_args

#: NumPy and Python scalars next to arrays (weak Python numbers, strong NumPy ones)
SCALARS = [
    "0",
    "-1",
    "2",
    "-3",
    "7",
    "64",
    "0.0",
    "-0.0",
    "2.5",
    "-1.5",
    "np.nan",
    "np.inf",
    "True",
    "k",
    "np.int8(-3)",
    "np.uint8(7)",
    "np.int64(0)",
    "np.uint64(3)",
    "np.float32(-0.0)",
    "np.float64(np.nan)",
    "np.int32(-2)",
]
BINARY = [
    "({} // {})",
    "({} % {})",
    "np.remainder({}, {})",
    "np.floor_divide({}, {})",
    "np.true_divide({}, {})",
    "({} << {})",
    "({} >> {})",
    "({} ** {})",
    "np.power({}, {})",
    "({} & {})",
    "({} ^ {})",
    "({} + {})",
    "({} - {})",
    "({} * {})",
    "np.maximum({}, {})",
    "np.minimum({}, {})",
    "np.fmax({}, {})",
    "np.fmin({}, {})",
    "({} < {})",
    "({} != {})",
    "({} == {})",
    "np.copysign({}, {})",
    "np.logical_xor({}, {})",
]
TERNARY = [
    "np.where({} < {}, {}, {})",
    "np.clip({}, {}, {})",
    "np.select([{} > 0, {} < 0], [{}, 1], {})",
]
UNARY = [
    "(-{})",
    "np.abs({})",
    "np.sign({})",
    "np.invert({})",
    "np.isnan({})",
    "np.positive({})",
    "np.square({})",
    "np.reciprocal({})",
    "np.trunc({})",
    "np.rint({})",
    "np.signbit({})",
    "np.logical_not({})",
]
CASTS = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float32"]
CASTS += ["float64", "complex64", "complex128"]
REDUCERS = ["sum", "prod", "max", "min", "mean", "any", "all", "argmax", "argmin", "cumsum"]
REDUCERS += ["cumprod", "ptp"]
AXES = ["", ", axis=0", ", axis=-1", ", axis=None", ", axis=0, keepdims=True"]
AXES += [", keepdims=True"]
REDUCE_DTYPES = ["np.int8", "np.uint8", "np.int64", "np.float32", "np.float64", "bool"]
INITIALS = ["0", "-1", "np.nan", "2.5", "-np.inf", "300"]
VIEWS = [
    "{}.reshape(-1)",
    "{}.ravel()",
    "np.ravel({}, order='F')",
    "{}.flatten()",
    "{}.T",
    "{}[::-1]",
    "{}[..., ::2]",
    "np.ascontiguousarray({})",
    "np.asfortranarray({})",
    "np.asarray({})",
    "{}[...]",
    "{}[None]",
    "np.squeeze({})",
    "np.expand_dims({}, 0)",
    "{}.astype({}.dtype, copy=False)",
    "np.flip({})",
    "{}.real",
    "{}.imag",
    "{}.reshape({}.shape)",
    "np.copy({})",
    "{}.copy(order='F')",
]
INPLACE = ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "<<=", ">>=", "&=", "|="]
OUT_UFUNCS = ["np.add", "np.subtract", "np.multiply", "np.floor_divide", "np.maximum"]
OUT_UFUNCS += ["np.true_divide", "np.power"]
ERRSTATES = [
    "all='raise'",
    "divide='raise'",
    "invalid='raise'",
    "over='raise'",
    "all='ignore'",
    "divide='ignore', invalid='warn'",
]


class _Names:
    """The names a program has assigned so far, with ``x`` and ``y`` first."""

    def __init__(self) -> None:
        self.arrays = ["x", "y"]
        self.count = 0

    def fresh(self) -> str:
        self.count += 1
        return f"t{self.count}"


def _operand(draw, names: _Names) -> str:
    if draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(SCALARS))
    return draw(st.sampled_from(names.arrays))


def _array(draw, names: _Names) -> str:
    return draw(st.sampled_from(names.arrays))


def _expression(draw, names: _Names) -> str:
    kind = draw(st.sampled_from(["binary", "binary", "unary", "ternary", "cast", "reduce"]))
    if kind == "binary":
        template = draw(st.sampled_from(BINARY))
        return template.format(_array(draw, names), _operand(draw, names))
    if kind == "unary":
        return draw(st.sampled_from(UNARY)).format(_array(draw, names))
    if kind == "ternary":
        template = draw(st.sampled_from(TERNARY[:2] * 3 + TERNARY[2:]))
        first = _array(draw, names)
        rest = [_operand(draw, names) for _ in range(template.count("{}") - 1)]
        if template.startswith("np.select"):
            return template.format(first, first, first, rest[-1])
        return template.format(first, *rest)
    if kind == "cast":
        return f"{_array(draw, names)}.astype(np.{draw(st.sampled_from(CASTS))})"
    return _reduction(draw, names)


def _reduction(draw, names: _Names) -> str:
    reducer, axis = draw(st.sampled_from(REDUCERS)), draw(st.sampled_from(AXES))
    if reducer.startswith(("arg", "cum", "count", "ptp")):
        axis = axis.replace(", keepdims=True", "")
    extra = ""
    if reducer in ("sum", "prod", "cumsum", "cumprod", "mean") and draw(st.integers(0, 3)) == 0:
        extra = f", dtype={draw(st.sampled_from(REDUCE_DTYPES))}"
    elif reducer in ("sum", "prod", "max", "min") and draw(st.integers(0, 3)) == 0:
        extra = f", initial={draw(st.sampled_from(INITIALS))}"
    return f"np.{reducer}({_array(draw, names)}{axis}{extra})"


def _statement(draw, names: _Names) -> list[str]:
    kind = draw(
        st.sampled_from(
            ["expr"] * 12 + ["view"] * 4 + ["inplace"] * 4 + ["out"] * 2 + ["errstate", "loop"]
        )
    )
    name = names.fresh()
    if kind == "loop":  # carried from a new array: rebound (another dtype) or updated in place
        how = draw(st.sampled_from(["=", "+=", "*=", "-="]))
        start = draw(st.sampled_from(["np.zeros_like(x)", "np.ones_like(x)", "x.copy()"]))
        lines = [f"{name} = {start}", "for _ in range(2):"]
        lines.append(f"    {name} {how} {_expression(draw, names)}")
    elif kind == "view":
        source = _array(draw, names)
        lines = [f"{name} = {draw(st.sampled_from(VIEWS)).format(source, source)}"]
        if draw(st.booleans()):  # written through: the argument shows whether it was a view
            lines.append(f"{name}[...] {draw(st.sampled_from(['=', '+=']))} 1")
    elif kind == "inplace":
        target = draw(st.sampled_from(["x", "x.copy()", "y.copy()", "x[::-1]", "x.T"]))
        op, value = draw(st.sampled_from(INPLACE)), _operand(draw, names)
        lines = [f"{name} = {target}", f"{name} {op} {value}"]
    elif kind == "out":
        lines = _out_statement(draw, names, name)
    elif kind == "errstate":
        state = draw(st.sampled_from(ERRSTATES))
        lines = [f"with np.errstate({state}):", f"    {name} = {_expression(draw, names)}"]
    else:
        lines = [f"{name} = {_expression(draw, names)}"]
    names.arrays.append(name)
    return lines


def _out_statement(draw, names: _Names, name: str) -> list[str]:
    """A ufunc writing into ``out=``: a fresh array, an argument, or a slice overlapping its
    input (NumPy copies the input first where they overlap)."""
    ufunc = draw(st.sampled_from(OUT_UFUNCS))
    form = draw(st.sampled_from(["fresh", "self", "overlap"]))
    if form == "fresh":
        dtype = draw(st.sampled_from(CASTS))
        return [
            f"{name} = np.zeros(x.shape, np.{dtype})",
            f"{ufunc}(x, {draw(st.sampled_from(['x', *SCALARS]))}, out={name})",
        ]
    if form == "self":
        return [f"{name} = {ufunc}(x, {_operand(draw, names)}, out=x)"]
    # overlapping its input (NumPy copies the input first)
    return [f"{name} = x.reshape(-1)", f"{ufunc}({name}[:-1], {name}[1:], out={name}[1:])"]


def _runs(lines: list[str], scope: dict) -> bool:
    """Whether ``lines`` run in ``scope`` (which they update) without an exception."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            exec("\n".join(lines), scope)  # noqa: S102 - the generator's own statements
    except Exception:  # noqa: BLE001 - any error: the statement is drawn again
        return False
    return True


@st.composite
def semantic_programs(draw, args: tuple | None = None) -> list[str]:
    """The lines of a program of 1-6 statements assigning ``z``: the last name, or a tuple of
    two of them. Given
    the arguments ``(x, y, k)``, each statement is drawn again (up to 3 times) while it raises
    on them, so most programs run to their end."""
    names = _Names()
    lines: list[str] = []
    scope = None if args is None else {"np": np, **dict(zip("xyk", copy_args(args[:3])))}
    for _ in range(draw(st.integers(1, 6))):
        for attempt in range(4):
            count, arrays = names.count, list(names.arrays)
            statement = _statement(draw, names)
            if scope is None or attempt == 3:
                break
            trial = {"np": np, **copy.deepcopy({n: v for n, v in scope.items() if n != "np"})}
            if _runs(statement, trial):
                scope = trial
                break
            names.count, names.arrays = count, arrays
        lines += statement
    made = names.arrays[2:]
    if len(made) > 1 and draw(st.booleans()):
        return lines + [f"z = ({made[-1]}, {draw(st.sampled_from(made[:-1] + ['x']))})"]
    return lines + [f"z = {made[-1]}"]


@st.composite
def semantic_cases(draw) -> tuple[list[str], tuple]:
    """``(program, (x, y, k, k2))``: the program drawn for the arguments."""
    args = draw(operands())
    return draw(semantic_programs(args)), args
