"""Constant folding: elementwise ops whose inputs are all scalar constants become constants.

Before::

    %0 = const(2.0) : float32()
    %1 = const(3.0) : float32()
    %2 = mul(%0, %1) : float32()
    %3 = add(%x, %2)

After::

    %4 = const(6.0) : float32()
    %3 = add(%x, %4)

The value is computed with NumPy's own ufunc on values of the nodes' dtypes, so rounding
matches what the eager interpreter would do at run time. An op that raises a floating-point
error (``1e300`` cast to float32) is not folded: NumPy warns of it at every call, and the
compiled op raises the flag that makes the region's statements warn (jit/fp_errors.py).
"""

from __future__ import annotations

import numpy as np

from astcompile import quiet
from astcompile.ir.graph import ConstAttr, Graph, Node
from astcompile.ir.ops import Kind, Op, info
from astcompile.passes.rebuild import rebuild


def _scalar_const(node: Node) -> bool:
    return node.op is Op.CONST and np.ndim(node.attr.value) == 0 and node.shape == ()


def _value(node: Node):
    attr: ConstAttr = node.attr
    return attr.value if attr.weak else node.dtype.type(attr.value)


def _fold(node: Node, inputs: tuple[Node, ...]) -> Node | None:
    if node.kind is not Kind.ELEMENTWISE or node.shape != () or not inputs:
        return None
    if not all(_scalar_const(i) for i in inputs):
        return None
    fn = info(node.op).numpy
    if node.op is Op.CAST:
        fn = node.dtype.type
    if fn is None:
        return None
    with quiet.hidden(), np.errstate(all="raise", under="ignore"):
        try:
            value = np.asarray(fn(*(_value(i) for i in inputs)), dtype=node.dtype)
        except (TypeError, ValueError, ArithmeticError):
            return None
    weak = all(i.attr.weak for i in inputs)
    return Node(Op.CONST, (), node.dtype, (), ConstAttr(value[()].item(), weak), node.loc)


def constfold(graph: Graph) -> tuple[Graph, bool]:
    return rebuild(graph, _fold)
