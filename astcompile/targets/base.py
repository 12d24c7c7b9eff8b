"""What a code generation target provides: a rule table, a kernel emitter and a launcher.

Everything above a target is shared. The passes and the scheduler
(:mod:`astcompile.passes.schedule`) group a graph into :class:`~astcompile.passes.schedule.Kernel`
s, one loop nest each, and :func:`~astcompile.lower.plan.plan_kernel` says, for any target,
which axes a kernel's rows and inner loops walk, which arrays and scalars it reads and with
which axis maps, and in which phase each reduction and output is computed. The reduction rules
(:mod:`astcompile.lower.reduce`) say what every reduction starts from and folds with. The
Python wrapper (:mod:`astcompile.lower.host`) checks arguments, allocates outputs, runs
NumPy steps and returns values.

A target adds three things:

* ``rules``: op -> expression, one small function per elementwise op, taking the node (its
  dtype picks ``expf`` or ``exp``) and its operands as expressions already converted to the
  op's computation type (C: :data:`astcompile.targets.c.c_rules.RULES`);
* ``kernel``: the kernel emitter, one planned kernel -> its source in the target's language
  (C: :mod:`astcompile.targets.c.c_kernel`, a row function and an OpenMP entry);
* ``launcher``: the wrapper statements that allocate one kernel's outputs and call it with
  its arrays, sizes and scalars (C: :mod:`astcompile.targets.c.c_target`, cffi pointers and byte
  strides).

``supports`` says which nodes the target generates; the scheduler leaves the others to NumPy.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Op
from astcompile.ir.shapes import Dim, DimOp, SymDim
from astcompile.lower.host import WrapperSource
from astcompile.lower.ids import run_key
from astcompile.lower.plan import KernelPlan
from astcompile.passes.schedule import Kernel

#: An elementwise rule: (node, operand expressions) -> the expression of the node's value.
Rule = Callable[[Node, list[str]], str]

#: The operand itself (a copy, a broadcast: the rule tables of every target).
IDENT: Rule = lambda node, a: a[0]


@functools.cache
def keeps_first_zero(op: Op, dtype: np.dtype) -> bool:
    """Whether NumPy's fmax/fmin of 0-d values gives the first of ``-0.0`` and ``0.0`` (asked of
    NumPy on this machine: float64 keeps the first, float32 the second)."""
    fn = {Op.FMAX: np.fmax, Op.FMIN: np.fmin}[op]
    return bool(np.signbit(fn(np.array(-0.0, dtype), np.array(0.0, dtype))))


def pick_zero_operands(node: Node, a: list[str]) -> list[str]:
    """The operands of a 0-d fmax/fmin ``node`` in the order whose second wins a tie."""
    return [a[1], a[0]] if keeps_first_zero(node.op, np.dtype(node.dtype)) else a


def zero_pick_by_position(node: Node) -> bool:
    """fmax/fmin of float arrays: NumPy gives the second of equal zeros over whole SIMD
    vectors and picks by position in its scalar tail (machine-specific), so such a node runs
    in NumPy (a NumPy step), exact; 0-d ones follow :func:`keeps_first_zero`."""
    return node.op in (Op.FMAX, Op.FMIN) and node.dtype.kind == "f" and node.shape != ()


def infix(op: str) -> Rule:
    """``(a op b)``: the same text in C and in Triton."""
    return lambda node, a: f"({a[0]} {op} {a[1]})"


def bool_or_infix(bool_op: str, op: str) -> Rule:
    """``op``, and ``bool_op`` for bools (their ``+`` is ``|``, their ``*`` is ``&``)."""
    return lambda node, a: f"({a[0]} {bool_op if node.dtype.kind == 'b' else op} {a[1]})"


def float_or(float_rule: Rule, other_rule: Rule) -> Rule:
    """``float_rule`` for a float node, ``other_rule`` for the rest."""
    return lambda node, a: (float_rule if node.dtype.kind == "f" else other_rule)(node, a)


#: Comparisons, logical and bitwise ops: the same infix text in C and in Triton (C compares
#: floats quietly: ``c_rules._ordered`` replaces <, <=, >, >= in its ``RULES``).
INFIX_RULES: dict[Op, Rule] = {
    Op.EQ: infix("=="),
    Op.NE: infix("!="),
    Op.LT: infix("<"),
    Op.LE: infix("<="),
    Op.GT: infix(">"),
    Op.GE: infix(">="),
    Op.LOGICAL_AND: lambda n, a: f"(({a[0]} != 0) & ({a[1]} != 0))",
    Op.LOGICAL_OR: lambda n, a: f"(({a[0]} != 0) | ({a[1]} != 0))",
    Op.LOGICAL_XOR: lambda n, a: f"(({a[0]} != 0) ^ ({a[1]} != 0))",
    Op.BITWISE_AND: infix("&"),
    Op.BITWISE_OR: infix("|"),
    Op.BITWISE_XOR: infix("^"),
}


#: Ops that are one libm function of the same name in C and in Triton's ``lm`` (``np.arcsin``:
#: ``asin``); each target's rule table calls it its own way.
LIBM: dict[Op, str] = {
    op: op.name.lower().replace("arc", "a")
    for op in (Op.SQRT, Op.CBRT, Op.EXP, Op.EXP2, Op.EXPM1, Op.LOG, Op.LOG2, Op.LOG10, Op.LOG1P)
    + (Op.SIN, Op.COS, Op.TAN, Op.ARCSIN, Op.ARCCOS, Op.ARCTAN, Op.SINH, Op.COSH, Op.TANH)
    + (Op.ARCSINH, Op.ARCCOSH, Op.ARCTANH, Op.ARCTAN2, Op.HYPOT, Op.ERF, Op.ERFC, Op.COPYSIGN)
}


#: size op -> C format; floor division and modulo with Python's signs (astc_math.h).
_C_FORMAT = {
    DimOp.ADD: "({} + {})",
    DimOp.SUB: "({} - {})",
    DimOp.MUL: "({} * {})",
    DimOp.FLOORDIV: "astc_floordiv_int64_t({}, {})",
    DimOp.MOD: "astc_mod_int64_t({}, {})",
    DimOp.MAX: "({0} > {1} ? {0} : {1})",
    DimOp.BCAST: "({0} == 1 ? {1} : {0})",
}


def dim_c(d: Dim) -> str:
    """C for a size: ``n0_1`` is axis 1 of input 0 (a parameter of the region function)."""
    if isinstance(d, int):
        return str(d)
    assert isinstance(d, SymDim)
    if d.op is DimOp.SYM:
        return "n{}_{}".format(*d.source)
    if d.op is DimOp.RUN:  # a local of the loop body, set where the slice is taken
        return f"len{run_key(d.args[0])}"
    return _C_FORMAT[d.op].format(*(dim_c(x) for x in d.args))


@dataclass(frozen=True)
class KernelCode:
    """One kernel in a target's language."""

    source: str  #: the definition
    decl: str  #: what the loader needs to find it (a C prototype for cffi)
    plan: KernelPlan  #: the plan it was written from (the launcher passes what it lists)


class Launcher(Protocol):
    """Writes the kernel calls of one wrapper (it may remember what it bound, such as an
    array's pointer, between kernels)."""

    def prelude(self, kernels: list[Kernel]) -> list[str]:
        """Wrapper lines run once, when the wrapper is defined (looking kernels up)."""
        ...

    def launch(self, kernel: Kernel) -> None:
        """Emit the statements that allocate ``kernel``'s outputs (binding
        ``wrapper.ref(out)``) and call it."""
        ...

    def step(self, node: Node) -> bool:
        """Emit a kernel of the target's own for NumPy step ``node`` (Triton: a scan) and
        say so; False: NumPy runs it."""
        ...


class Target(Protocol):
    """A code generation target (C now; Triton is next)."""

    name: str
    rules: Mapping[Op, Rule]

    def supports(self, node: Node) -> bool:
        """Whether the target generates ``node`` inside a kernel (else NumPy runs it)."""
        ...

    def in_loops(self, node: Node) -> bool:
        """Whether the target's loop emitter writes ``node``'s value inside a loop region
        (:func:`~astcompile.lower.structured_plan.plan_structured`; else the region runs
        as written)."""
        ...

    def kernel(self, kernel: Kernel, aliased: frozenset[int]) -> KernelCode:
        """The kernel emitter; ``aliased``: ids of arrays written in place over another."""
        ...

    def launcher(
        self, wrapper: WrapperSource, plans: dict[str, KernelPlan], reuse: dict[int, Node]
    ) -> Launcher:
        """The launcher of one wrapper; ``reuse``: output id -> the temporary it may be
        written over (in place)."""
        ...
