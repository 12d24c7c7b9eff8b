"""The C target: the op -> C table, the C kernel emitter and the cffi launcher.

The launcher passes each array as a pointer and byte strides, computed once per call:
``ffi.from_buffer`` for C-contiguous arrays (0.3 us; it raises ``ValueError`` on others, which
then go by address), and the strides of the wrapper's own fresh ``np.empty`` outputs are
computed from their shape instead of read back. The C side divides byte strides by the item
size. The kernels index an array's last axis with stride 1 when it follows their innermost
loop; the rare argument whose last axis is strided (``x[:, ::2]``) is passed as a C-contiguous
copy (one extra pass, instead of a second, strided copy of every loop in the C), while a view
whose last stride is never the item size (``x[::2]``, ``a.T``) is read through its strides. Kernels are
looked up on the library once, when the wrapper is defined.

Alongside the Python lines the launcher records the same calls as plain data (``fast``: see
:mod:`astcompile.lower.fastplan`), from which the runtime's C-level call path is assembled; a
call it cannot express there (an argument not in C order, a complex or bool scalar, a
constant array) leaves the region on the Python wrapper; the copy of a view read with a unit
last stride (``x[::2]``) is a step there too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from astcompile.ir.graph import Node
from astcompile.ir.ops import Kind, Op
from astcompile.lower.fastplan import (
    VIEW_KINDS,
    NoFastPlan,
    dim_plan,
    fresh_strides,
    product,
)
from astcompile.lower.ids import nid
from astcompile.lower.plan import KernelPlan, unit_inner_buffers
from astcompile.lower.pyexpr import dim_expr
from astcompile.passes.schedule import Kernel
from astcompile.targets.base import KernelCode, Launcher, Rule
from astcompile.targets.c import c_kernel as cgen
from astcompile.targets.c.c_reduce import can_reduce
from astcompile.targets.c.c_rules import RULES, can_lower
from astcompile.targets.c.ctypes import scalar_args, scalar_params, supported_dtype
from astcompile.targets.c.structured_numpy import is_scalar_call
from astcompile.targets.c.structured_reduce import can_arg_reduce
from astcompile.targets.c.structured_tables import can_tabulate

if TYPE_CHECKING:
    from astcompile.lower.host import WrapperSource


class CLauncher:
    """Calls of one wrapper's C kernels."""

    def __init__(
        self, wrapper: WrapperSource, plans: dict[str, KernelPlan], reuse: dict[int, Node]
    ) -> None:
        self.w, self.plans, self.reuse = wrapper, plans, reuse
        self.unit_inner = set().union(*(unit_inner_buffers(p) for p in plans.values()))
        self.arrays: dict[int, str] = {}  # node id -> the array passed for it, when not itself
        self.fresh: set[int] = set()
        self.pointers: dict[int, list[str]] = {}  # node id -> its pointer and stride names
        self.words: dict[int, list[tuple]] = {}  # node id -> the same, as fast-plan words
        self.fast: list[tuple] | None = []  # the calls as plain data (None: not expressible)

    def prelude(self, kernels: list[Kernel]) -> list[str]:
        return [f"_k_{k.name} = _lib.{k.name}" for k in kernels]

    def step(self, node: Node) -> bool:
        return False  # NumPy runs every NumPy step

    def launch(self, kernel: Kernel) -> None:
        w, plan = self.w, self.plans[kernel.name]
        args = ["_nthreads()"] + [dim_expr(d) for d in kernel.domain]
        args += self._arrays(plan.loads)
        for o in kernel.outputs:
            temp = self.reuse.get(o.id)
            if temp is not None:  # in place, over a temporary only this kernel reads
                w.emit(f"t{nid(o)} = {self.arrays.get(temp.id, w.ref(temp))}")
                self.pointers[o.id] = self.pointers[temp.id]
                self.words[o.id] = self.words.get(temp.id, [])
                self._record(lambda o, t: ("alias", _ref(o), _ref(t)), o, temp)
                continue
            w.alloc_node(o)
            self.fresh.add(o.id)
            self._record(_empty_step, o)
        args += [a for s in plan.scalars for a in scalar_args(w.ref(s), s.dtype)]
        args += self._arrays(kernel.outputs)
        w.emit(f"_k_{kernel.name}({', '.join(args)})")
        self._record(
            lambda: (
                "call",
                kernel.name,
                self._call_words(kernel, plan),
                product([dim_plan(d) for d in kernel.domain]),  # its work: whether to free the GIL
            )
        )

    def _record(self, make: Callable[..., tuple], *args: Node) -> None:
        """Add ``make(*args)`` to the fast plan, or drop the plan when it raises NoFastPlan."""
        if self.fast is not None:
            try:
                self.fast.append(make(*args))
            except NoFastPlan:
                self.fast = None

    def _call_words(self, kernel: Kernel, plan: KernelPlan) -> tuple:
        words: list[tuple] = [("n",)] + [("e", dim_plan(d)) for d in kernel.domain]
        for node in plan.loads:
            words += self.words.get(node.id) or _unsupported()
        words += [_scalar_word(s) for s in plan.scalars]
        for node in kernel.outputs:
            words += self.words.get(node.id) or _unsupported()
        return tuple(words)

    def _arrays(self, nodes: list[Node]) -> list[str]:
        """Pointer and byte strides of each array, in C parameter order."""
        args = []
        for node in nodes:
            if node.id not in self.pointers:
                self.pointers[node.id] = self._pointer(node)
            args += self.pointers[node.id]
        return args

    def _pointer(self, node: Node) -> list[str]:
        """Emit the pointer (and strides) of ``node`` once; the names to pass for it."""
        w = self.w
        name, ptr = w.ref(node), f"p_{w.ref(node)}"
        strides = [f"{ptr}_s{a}" for a in range(len(node.shape))]
        if node.id in self.fresh:  # our own np.empty: C-contiguous, strides from the shape
            w.emit(f"{ptr} = _fb({name})")
            item = str(node.dtype.itemsize)
            self.words[node.id] = [("p", _ref(node)), *fresh_strides(node)]
            return [
                ptr,
                *(
                    " * ".join([item, *map(dim_expr, node.shape[a + 1 :])])
                    for a in range(len(node.shape))
                ),
            ]
        if node.id in self.w.assured.unit_c:  # the guards checked: C order, unit last stride
            w.emit(f"{ptr} = _fb({name})")
            self.words[node.id] = self._input_words(node)
            if len(strides) == 1:  # its only stride is the item size
                return [ptr, str(node.dtype.itemsize)]
            w.emit(f"{', '.join(strides)} = {name}.strides")
            return [ptr, *strides]
        self._as_it_is(node)
        if node.id in self.unit_inner:  # the kernels index its last axis with stride 1
            name = self.arrays[node.id] = w.unit_last(name, node.dtype.itemsize)
        w.emit("try:")
        w.emit(f"    {ptr} = _fb({name})")
        w.emit("except ValueError:  # not C-contiguous: by address")
        w.emit(f"    {ptr} = _ptr({name})")
        if strides:
            w.emit(f"{', '.join(strides)}{',' if len(strides) == 1 else ''} = {name}.strides")
        return [ptr, *strides]

    def _as_it_is(self, node: Node) -> None:
        """Fast-plan words for an array passed with its strides: an argument the key assures
        (C order, so ``_fb`` takes it; a length-1 axis's stride may be anything NumPy left
        there), or a view a NumPy step made (``x[1:]``: the plan's ``view`` step,
        ``("v", id)``). Where the kernels read its last axis with stride 1 the words name the
        plan's ``unit`` step's array (``("u", id)``): it, or a copy with that stride, made in
        C where the wrapper makes its copy (``x[::2]``, ``a.T``, ``z.real``)."""
        if node.op is Op.INPUT and node.id in self.w.assured.typed:
            ref = _ref(node)
        elif node.op in VIEW_KINDS:
            ref = ("v", node.id)
        else:
            return
        if node.id in self.unit_inner and node.shape:
            of, ref = ref, ("u", node.id)
            self._record(lambda: ("unit", ref, of, node.dtype.itemsize))
        self.words[node.id] = [("p", ref), *(("s", ref, a) for a in range(len(node.shape)))]

    def _input_words(self, node: Node) -> list[tuple]:
        if node.op is not Op.INPUT:
            return []
        if len(node.shape) == 1:  # its only stride is the item size
            return [("p", _ref(node)), ("e", ("k", node.dtype.itemsize))]
        return [("p", _ref(node)), *(("s", _ref(node), a) for a in range(len(node.shape)))]


def _ref(node: Node) -> tuple:
    """A fast plan's name for an array: an input by its place, a temporary by its node."""
    return ("in", node.attr.index) if node.op is Op.INPUT else ("t", node.id)


def _scalar_word(s: Node) -> tuple:
    """The word of a kernel's scalar: a real number argument, or a size read as a value
    (``x.shape[0]``, ``len(x)``, ``x.size``: the size expression the wrapper binds)."""
    if s.op is Op.DIM and s.dtype == np.int64:
        return ("e", dim_plan(s.attr))
    if s.op is not Op.INPUT or s.dtype.kind not in "iuf":
        raise NoFastPlan("a scalar that is not a real number argument or a size")
    ((ctype_name, _),) = scalar_params("s", s.dtype)
    return ("x", s.attr.index, ctype_name)


def _empty_step(o: Node) -> tuple:
    return ("empty", _ref(o), o.dtype, tuple(map(dim_plan, o.shape)))


def _unsupported() -> list:
    raise NoFastPlan("an argument passed as a copy or by address")


class CTarget:
    """C with OpenMP, built by gcc and loaded with cffi."""

    name = "c"
    rules: dict[Op, Rule] = RULES

    def supports(self, node: Node) -> bool:
        if node.kind is Kind.REDUCTION:
            return can_reduce(node)
        if node.op is Op.BROADCAST_TO:
            return supported_dtype(node.dtype)
        return node.kind is Kind.ELEMENTWISE and can_lower(node)

    def in_loops(self, node: Node) -> bool:
        if not all(supported_dtype(n.dtype) for n in (node, *node.inputs)):
            return False
        if node.op is Op.CONST and node.shape != ():
            return can_tabulate(node)
        if node.kind is Kind.REDUCTION:
            return can_reduce(node) or can_arg_reduce(node)
        if node.kind is Kind.EXTERN:  # library calls: NumPy calls of one value
            return is_scalar_call(node)
        return node.kind is not Kind.ELEMENTWISE or node.op is Op.COPY or can_lower(node)

    def kernel(self, kernel: Kernel, aliased: frozenset[int]) -> KernelCode:
        source, decl, plan = cgen.kernel_source(kernel, aliased)
        return KernelCode(source, decl, plan)

    def launcher(
        self, wrapper: WrapperSource, plans: dict[str, KernelPlan], reuse: dict[int, Node]
    ) -> Launcher:
        return CLauncher(wrapper, plans, reuse)


C = CTarget()
